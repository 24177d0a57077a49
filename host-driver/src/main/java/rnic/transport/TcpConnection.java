package rnic.transport;

/**
 * The TCP byte stream of one connection as the host sees it before the RNIC takes it over. The MPA startup frames
 * (Request, Reply, RFC 5044 §7; RFC 6581) are plain stream octets exchanged by the driver here (MPA-27); then
 * {@link #handOver()} gives both directions to the core at an exact stream octet (MPA-26): octets the host has not
 * read go to the core's receive side, and the core's transmit side continues the stream after the host's octets.
 */
public interface TcpConnection {
    /** Queues {@code data} for sending (before {@link #handOver()} only). */
    void send(byte[] data);

    /** Takes up to {@code length} received octets into {@code dst}; returns how many (0 when none has arrived). */
    int receive(byte[] dst, int offset, int length);

    /** TCP sequence number of the next octet the host would send. */
    long sendSequence();

    /** TCP sequence number of the next octet the host would read. */
    long receiveSequence();

    /** Hands both directions to the core; after this, {@link #send} and {@link #receive} are refused. */
    void handOver();

    /** Whether the peer closed the connection (or it was reset). */
    boolean closed();

    /**
     * Closes the connection in both directions (FIN). The driver closes it when the MPA startup fails: a malformed
     * Request or Reply (E-M4, MPA-28, MPA-34, MPA-35), a startup timeout (MPA-38, MPA-39), or after the Terminate of a
     * failed RFC 6581 negotiation (E-M5…E-M7). Octets queued by {@link #send} before go out first. Idempotent.
     */
    void close();
}
