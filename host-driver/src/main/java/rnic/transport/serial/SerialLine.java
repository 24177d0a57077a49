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

    @Override
    void close() throws IOException;
}
