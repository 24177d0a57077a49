package rnic.driver;

import java.time.Duration;
import rnic.transport.Transport;

/**
 * Device time for the driver's waits: {@link Duration}s against the device's cycle counter at a declared clock
 * frequency. Until the transport reports its own time ({@code Transport.nanoTime()} and {@code clockHz()} of the issue-12
 * SPI), the frequency is the core's declared {@value #DEFAULT_CLOCK_HZ} Hz; this is the one place to switch over.
 */
public final class DeviceClock {
    /** The core's declared clock: 250 MHz (4 ns per cycle), the simulation's default. */
    public static final long DEFAULT_CLOCK_HZ = 250_000_000L;

    private DeviceClock() {
    }

    /** Device time in nanoseconds since the transport started. */
    public static long nanoTime(Transport transport) {
        return nanos(transport.cycles());
    }

    /** Nanoseconds of {@code cycles} device cycles. */
    public static long nanos(long cycles) {
        // Whole seconds and the rest apart, so no product overflows.
        return cycles / DEFAULT_CLOCK_HZ * 1_000_000_000L + cycles % DEFAULT_CLOCK_HZ * 1_000_000_000L
                / DEFAULT_CLOCK_HZ;
    }

    /** Device cycles in {@code d}, rounded up (at least 0). */
    public static long cycles(Duration d) {
        if (d.isNegative()) {
            return 0;
        }
        long ns;
        try {
            ns = d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
        if (ns > Long.MAX_VALUE / DEFAULT_CLOCK_HZ) {
            return ns / 1_000_000_000L * DEFAULT_CLOCK_HZ;
        }
        return (ns * DEFAULT_CLOCK_HZ + 999_999_999L) / 1_000_000_000L;
    }

    /** Rejects a null or negative timeout with a clear message. */
    public static Duration check(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, got " + timeout);
        }
        return timeout;
    }
}
