package rnic.transport;

import java.net.InetSocketAddress;

/**
 * The TCP byte stream of one connection as the host sees it before the RNIC takes it over. The MPA startup frames
 * (Request, Reply, RFC 5044 §7; RFC 6581) are plain stream octets exchanged by the driver here (MPA-27); then
 * {@link #handOver(int)} gives both directions to one of the core's connection slots at an exact stream octet
 * (MPA-26): octets the host has not read go to the slot's receive side, and the slot's transmit side continues the
 * stream after the host's octets.
 *
 * <p>A connection comes from {@link Transport#connect} (active open: first neither {@link #established()} nor
 * {@link #refused()}, then one of them as the device runs) or from {@link TcpListener#accept()} (established).
 */
public interface TcpConnection {
    /** Queues {@code data} for sending (before the hand-over only; before establishment it waits for it). */
    void send(byte[] data);

    /** Takes up to {@code length} received octets into {@code dst}; returns how many (0 when none has arrived). */
    int receive(byte[] dst, int offset, int length);

    /** TCP sequence number of the next octet the host would send. */
    long sendSequence();

    /** TCP sequence number of the next octet the host would read. */
    long receiveSequence();

    /**
     * Hands both directions to the core's connection slot {@code slot} (0 … {@link Transport#connectionSlots()} - 1)
     * at the exact octet (MPA-26); after this, {@link #send} and {@link #receive} are refused. The slot must be free:
     * never used, or its previous connection closed. Only once per connection, and only when {@link #established()}.
     */
    void handOver(int slot);

    /** Whether the connection is over: the peer's FIN arrived after all its octets, or it was reset. */
    boolean closed();

    /** Whether the peer sent FIN (orderly close) — distinct from {@link #closed()}, also true after a reset. */
    boolean peerFinished();

    /** This end's address and port (for an active open: the local address and the ephemeral port). */
    InetSocketAddress localAddress();

    /** The peer's address and port. */
    InetSocketAddress remoteAddress();

    /** Whether the TCP handshake completed (always true for an accepted connection). */
    boolean established();

    /** Whether the active open failed: nothing listened at the remote address and port (RST to the SYN). */
    boolean refused();

    /**
     * Abortive close: a RST; octets not yet sent are dropped, the peer sees {@link #closed()} but not
     * {@link #peerFinished()}. Idempotent; after {@link #close()} it still aborts what is left.
     */
    void abort();

    /**
     * Closes the connection in both directions (FIN). The driver closes it when the MPA startup fails: a malformed
     * Request or Reply (E-M4, MPA-28, MPA-34, MPA-35), a startup timeout (MPA-38, MPA-39), or after the Terminate of a
     * failed RFC 6581 negotiation (E-M5…E-M7). Octets queued by {@link #send} before go out first. Idempotent.
     */
    void close();
}
