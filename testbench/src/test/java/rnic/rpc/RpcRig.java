package rnic.rpc;

import java.util.function.BooleanSupplier;
import rnic.sim.HostThreads;
import rnic.sim.RnicSystem;

/** The two-RNIC model the RPC system tests share (W = 64), and a run of two host programs on it. */
final class RpcRig {
    private RpcRig() {
    }

    static void run(String name, long seed, RnicSystem.Builder b, HostThreads.Program client,
            HostThreads.Program server) {
        RnicSystem.run(RnicSystem.model(64), name, seed, b, sys -> new HostThreads().add("a", sys.a(), client)
                .add("b", sys.b(), server).run());
    }

    /** A flag one host sets and the other polls (the hosts alternate, so plain memory is enough). */
    static final class Flag implements BooleanSupplier {
        private volatile boolean set;

        void set() {
            set = true;
        }

        @Override
        public boolean getAsBoolean() {
            return set;
        }
    }
}
