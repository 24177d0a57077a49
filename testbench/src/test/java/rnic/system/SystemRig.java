package rnic.system;

import rnic.hw.top.RnicConfig;
import rnic.hw.top.RnicPair;
import rnic.sim.HostThreads;
import rnic.sim.RnicSystem;
import rnic.sim.SimModel;

/**
 * The two-RNIC system the system tests share: one compiled {@link RnicPair} model (W = 64, 4 QPs per RNIC), each
 * RNIC driven by the real host driver on its own host thread ({@link HostThreads}), TCP between them as configured.
 */
final class SystemRig {
    private SystemRig() {
    }

    static final int WIDTH = 64;

    static SimModel<RnicPair> model() {
        return SimModel.of("RnicPair-w" + WIDTH, () -> new RnicPair(RnicConfig.defaults().withDataWidth(WIDTH)));
    }

    /** Runs host programs {@code a} and {@code b} against a fresh simulation built by {@code builder}. */
    static void run(String name, long seed, RnicSystem.Builder builder, HostThreads.Program a,
            HostThreads.Program b) {
        RnicSystem.run(model(), name, seed, builder, sys -> new HostThreads().add("a", sys.a(), a)
                .add("b", sys.b(), b).run());
    }
}
