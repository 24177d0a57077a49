package rnic.system;

import java.net.InetSocketAddress;
import java.time.Duration;
import rnic.cm.ConnectParams;
import rnic.cm.Connection;
import rnic.cm.ConnectionManager;
import rnic.hw.top.RnicPair;
import rnic.sim.HostThreads;
import rnic.sim.RnicSystem;
import rnic.verbs.QueuePair;

/**
 * The two-RNIC system the system tests share: one compiled {@link RnicPair} model (W = 64, 4 QPs per RNIC), each
 * RNIC driven by the real host driver on its own host thread ({@link HostThreads}), TCP between them as configured.
 */
public final class SystemRig {
    private SystemRig() {
    }

    static final int WIDTH = 64;

    /** Where host b listens: its simulated address and the iWARP port. */
    public static final InetSocketAddress B_LISTENS = new InetSocketAddress("10.0.0.2", 4791);

    /** How long an Initiator keeps trying while b's listener is not up yet (both hosts start together). */
    public static final Duration LISTENER_PATIENCE = Duration.ofMillis(20);

    /** Connects {@code qp} to {@code remote}, trying again while b's listener is not up yet. */
    public static Connection connect(ConnectionManager cm, InetSocketAddress remote, QueuePair qp, ConnectParams params) {
        return cm.connectWhenListening(remote, qp, params, LISTENER_PATIENCE);
    }

    /** Runs host programs {@code a} and {@code b} against a fresh simulation built by {@code builder}. */
    public static void run(String name, long seed, RnicSystem.Builder builder, HostThreads.Program a,
            HostThreads.Program b) {
        RnicSystem.run(RnicSystem.model(WIDTH), name, seed, builder, sys -> new HostThreads().add("a", sys.a(), a)
                .add("b", sys.b(), b).run());
    }
}
