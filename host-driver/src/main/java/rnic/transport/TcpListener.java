package rnic.transport;

import java.net.InetSocketAddress;

/**
 * A passive TCP endpoint of a {@link Transport} ({@link Transport#listen}): incoming connections to its address and
 * port queue here until the driver takes them with {@link #accept()}, already established (the TCP three-way
 * handshake is the transport's business; the MPA Request arrives later as stream octets, MPA-27).
 */
public interface TcpListener extends AutoCloseable {
    /** The address and port it listens on (the port the transport chose when {@code listen} asked for port 0). */
    InetSocketAddress localAddress();

    /** The next established incoming connection, or {@code null} when none is waiting (non-blocking). */
    TcpConnection accept();

    /**
     * Stops listening: later connects to this port are refused; connections already established but not yet
     * accepted are reset. Idempotent.
     */
    @Override
    void close();
}
