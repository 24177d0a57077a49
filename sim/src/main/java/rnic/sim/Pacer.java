package rnic.sim;

import java.util.Random;

/**
 * Decides, cycle by cycle, whether a source may present a beat (idle insertion) or a sink is ready (back-pressure).
 */
@FunctionalInterface
public interface Pacer {
    /** True when the agent may act in this cycle. */
    boolean allow();

    /** Always allow: full rate. */
    static Pacer always() {
        return () -> true;
    }

    /** Allow with probability {@code p} per cycle. */
    static Pacer random(Random rng, double p) {
        if (p <= 0 || p > 1) {
            throw new IllegalArgumentException("probability must be in (0, 1], got " + p);
        }
        return () -> rng.nextDouble() < p;
    }

    /**
     * Bursts: runs of allowed cycles and runs of stalled cycles with random lengths up to {@code maxRun}, a harsher
     * pattern than independent coin flips (long stalls, long bursts, and every mix between).
     */
    static Pacer bursty(Random rng, int maxRun) {
        return new Pacer() {
            boolean on = true;
            int left = 0;

            @Override
            public boolean allow() {
                if (left == 0) {
                    on = rng.nextInt(3) != 0;
                    left = 1 + rng.nextInt(maxRun);
                }
                left--;
                return on;
            }
        };
    }

    /** A mix used by randomized tests: full rate, coin flips or bursts, chosen by {@code rng}. */
    static Pacer randomMix(Random rng) {
        return switch (rng.nextInt(4)) {
            case 0 -> always();
            case 1 -> random(rng, 0.3 + 0.6 * rng.nextDouble());
            case 2 -> bursty(rng, 1 + rng.nextInt(16));
            default -> random(rng, 0.9);
        };
    }
}
