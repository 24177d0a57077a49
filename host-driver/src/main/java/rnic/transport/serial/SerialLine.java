package rnic.transport.serial;

import java.io.IOException;
import java.time.Duration;

/**
 * A byte line to a board: a serial port (jssc), a pseudo-terminal joined to a simulated board's UART, or a pipe in a
 * test. {@link HostLink} makes a reliable message channel of it.
 */
public interface SerialLine extends AutoCloseable {
    /** Sends {@code length} octets of {@code data} from {@code offset}. */
    void write(byte[] data, int offset, int length) throws IOException;

    /**
     * Reads up to {@code length} octets into {@code dst} from {@code offset}, waiting at most {@code timeout} for the
     * first; returns how many were read (0 when none came in time).
     */
    int read(byte[] dst, int offset, int length, Duration timeout) throws IOException;

    /**
     * The line's clock in nanoseconds, for the link's timers: the host's wall clock for a real port; a simulated
     * board's line gives simulated time, so retransmission timeouts mean the same as on hardware.
     */
    default long nanoTime() {
        return System.nanoTime();
    }

    @Override
    void close() throws IOException;
}
