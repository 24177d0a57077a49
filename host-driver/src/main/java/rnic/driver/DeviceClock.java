package rnic.driver;

import java.time.Duration;

/**
 * Device time for the driver's waits: {@link Duration}s against the transport's own clock
 * ({@code Transport.nanoTime()}, {@code Transport.clockHz()}), so a timeout means the same on a simulation (cycles at
 * its declared frequency) and on a board.
 */
public final class DeviceClock {
    private DeviceClock() {
    }

    /** Nanoseconds of {@code cycles} device cycles at {@code clockHz}. */
    public static long nanos(long cycles, long clockHz) {
        // Whole seconds and the rest apart, so no product overflows.
        return cycles / clockHz * 1_000_000_000L + cycles % clockHz * 1_000_000_000L / clockHz;
    }

    /** Device cycles in {@code d} at {@code clockHz}, rounded up (at least 0). */
    public static long cycles(Duration d, long clockHz) {
        if (d.isNegative()) {
            return 0;
        }
        long ns;
        try {
            ns = d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
        if (ns > Long.MAX_VALUE / clockHz) {
            return ns / 1_000_000_000L * clockHz;
        }
        return (ns * clockHz + 999_999_999L) / 1_000_000_000L;
    }

    /** Rejects a null or negative timeout with a clear message. */
    public static Duration check(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, got " + timeout);
        }
        return timeout;
    }
}
