package rnic.sim.pcap;

import java.io.IOException;

/**
 * Writes one TCP connection between two {@link TcpEndpoint}s into a {@link PcapWriter}: the three-way handshake, data
 * segments in either direction, and a FIN close (RFC 9293 §3.5, §3.6). Nothing is sent on a network.
 *
 * <p>Sequence numbers follow RFC 9293 §3.4: each side starts at the initial sequence number the caller chose (so a
 * caller can place MPA's Marker grid, which depends on TCP sequence numbers), SYN and FIN take one number each, and
 * data advances by its length modulo 2<sup>32</sup>. Every segment after the SYN carries ACK with the acknowledgment
 * number covering everything the other side has sent so far; data segments also carry PSH. {@link #nextSeq(Side)} is
 * the sequence number the next data octet of a side will get, e.g. the {@code seqStart} of an MPA direction.
 *
 * <p>Frames are Ethernet II / IPv4 (no options, DF, an IP ID counting up per sender, TTL 64) / TCP (20-octet header;
 * SYN and SYN-ACK carry the MSS option), with correct checksums. The window is a fixed 65535 octets (no scaling); when a
 * side has more unacknowledged data than that, a pure ACK from the receiver is written first, so an analyser sees no
 * window overrun. Timestamps start at a fixed instant and advance by a fixed gap per frame, so the file is reproducible.
 */
public final class TcpConnectionCapture {
    /** The two ends: {@link #CLIENT} opens actively (sends the SYN), {@link #SERVER} passively. */
    public enum Side {
        CLIENT, SERVER;

        /** The other side. */
        public Side peer() {
            return this == CLIENT ? SERVER : CLIENT;
        }
    }

    /** Connection states this writer moves through. */
    public enum State {
        NEW, ESTABLISHED, CLOSED
    }

    /** 2023-11-14T22:13:20Z, the default time of the first frame. */
    public static final long DEFAULT_START_MICROS = 1_700_000_000_000_000L;
    public static final long DEFAULT_GAP_MICROS = 10;
    public static final int DEFAULT_MSS = 1460;
    public static final int WINDOW = 65535;
    public static final int TTL = 64;
    /** Largest payload of one segment: the IPv4 total length limit minus the two 20-octet headers. */
    public static final int MAX_PAYLOAD = 0xFFFF - Frames.IPV4_HEADER_SIZE - Frames.TCP_HEADER_SIZE;

    private final PcapWriter out;
    private final TcpEndpoint[] ends = new TcpEndpoint[2];
    private final long[] isn = new long[2];
    private final long[] next = new long[2];      // next sequence number to send
    private final long[] acked = new long[2];     // highest ACK the peer sent for this side's data
    private final int[] ipId = new int[2];
    private long clock = DEFAULT_START_MICROS;
    private long gap = DEFAULT_GAP_MICROS;
    private int mss = DEFAULT_MSS;
    private State state = State.NEW;

    /**
     * @param out       where the frames go (not closed by this class)
     * @param client    the active opener
     * @param clientIsn the client's initial sequence number (32 bits; its SYN carries it)
     * @param server    the passive opener
     * @param serverIsn the server's initial sequence number
     */
    public TcpConnectionCapture(PcapWriter out, TcpEndpoint client, long clientIsn, TcpEndpoint server,
            long serverIsn) {
        this.out = out;
        ends[0] = client;
        ends[1] = server;
        isn[0] = checkSeq(clientIsn);
        isn[1] = checkSeq(serverIsn);
        for (int i = 0; i < 2; i++) {
            next[i] = isn[i];
            acked[i] = isn[i];
            ipId[i] = 1;
        }
    }

    /** Connection with the default endpoints ({@link TcpEndpoint#DEFAULT_CLIENT}, {@link TcpEndpoint#DEFAULT_SERVER}). */
    public TcpConnectionCapture(PcapWriter out, long clientIsn, long serverIsn) {
        this(out, TcpEndpoint.DEFAULT_CLIENT, clientIsn, TcpEndpoint.DEFAULT_SERVER, serverIsn);
    }

    /** Sets the time of the next frame and the gap between frames (microseconds). */
    public TcpConnectionCapture clock(long nextFrameMicros, long gapMicros) {
        if (nextFrameMicros < 0 || gapMicros < 0) {
            throw new IllegalArgumentException("negative time");
        }
        this.clock = nextFrameMicros;
        this.gap = gapMicros;
        return this;
    }

    /** Sets the MSS both SYNs announce (default 1460). */
    public TcpConnectionCapture mss(int mss) {
        if (state != State.NEW) {
            throw new IllegalStateException("MSS is announced in the handshake");
        }
        if (mss < 1 || mss > 0xFFFF) {
            throw new IllegalArgumentException("MSS out of range: " + mss);
        }
        this.mss = mss;
        return this;
    }

    public TcpEndpoint endpoint(Side side) {
        return ends[side.ordinal()];
    }

    public long isn(Side side) {
        return isn[side.ordinal()];
    }

    /** Sequence number of the next octet {@code side} sends (after the handshake: its next data octet). */
    public long nextSeq(Side side) {
        return next[side.ordinal()];
    }

    public State state() {
        return state;
    }

    /** Writes SYN, SYN-ACK and ACK. */
    public void open() throws IOException {
        if (state != State.NEW) {
            throw new IllegalStateException("connection already opened");
        }
        byte[] opt = Frames.mssOption(mss);
        segment(Side.CLIENT, Frames.SYN, opt, new byte[0], false);
        segment(Side.SERVER, Frames.SYN | Frames.ACK, opt, new byte[0], true);
        segment(Side.CLIENT, Frames.ACK, new byte[0], new byte[0], true);
        state = State.ESTABLISHED;
    }

    /**
     * Writes one data segment (ACK, PSH) from {@code from} carrying {@code payload}.
     *
     * @return the sequence number of {@code payload[0]}
     */
    public long send(Side from, byte[] payload) throws IOException {
        requireEstablished();
        if (payload.length == 0 || payload.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload must be 1.." + MAX_PAYLOAD + " octets, got " + payload.length);
        }
        int f = from.ordinal();
        if (distance(acked[f], next[f]) + payload.length > WINDOW) {
            ack(from.peer());
        }
        long seq = next[f];
        segment(from, Frames.ACK | Frames.PSH, new byte[0], payload, true);
        return seq;
    }

    /** Writes a pure ACK from {@code from} acknowledging everything the other side has sent. */
    public void ack(Side from) throws IOException {
        requireEstablished();
        segment(from, Frames.ACK, new byte[0], new byte[0], true);
    }

    /** Closes from the client: FIN-ACK, FIN-ACK from the server, final ACK. */
    public void close() throws IOException {
        close(Side.CLIENT);
    }

    /** Closes with {@code first} sending the first FIN: FIN-ACK, FIN-ACK from the peer, final ACK. */
    public void close(Side first) throws IOException {
        requireEstablished();
        segment(first, Frames.FIN | Frames.ACK, new byte[0], new byte[0], true);
        segment(first.peer(), Frames.FIN | Frames.ACK, new byte[0], new byte[0], true);
        segment(first, Frames.ACK, new byte[0], new byte[0], true);
        state = State.CLOSED;
    }

    private void requireEstablished() {
        if (state != State.ESTABLISHED) {
            throw new IllegalStateException("connection is " + state);
        }
    }

    private void segment(Side from, int flags, byte[] options, byte[] payload, boolean withAck) throws IOException {
        int f = from.ordinal();
        int p = 1 - f;
        TcpEndpoint src = ends[f];
        TcpEndpoint dst = ends[p];
        long ack = withAck ? next[p] : 0;
        byte[] tcp = Frames.tcp(src.ip(), dst.ip(), src.port(), dst.port(), next[f], ack, flags, WINDOW, options,
                payload);
        byte[] ip = Frames.ipv4(src.ip(), dst.ip(), Frames.PROTO_TCP, ipId[f], TTL, tcp);
        out.writeEthernet(clock, dst.mac(), src.mac(), PcapWriter.ETHERTYPE_IPV4, ip);
        clock += gap;
        ipId[f] = (ipId[f] + 1) & 0xFFFF;
        int consumed = payload.length + ((flags & Frames.SYN) != 0 ? 1 : 0) + ((flags & Frames.FIN) != 0 ? 1 : 0);
        next[f] = (next[f] + consumed) & 0xFFFF_FFFFL;
        if (withAck) {
            acked[p] = ack;
        }
    }

    private static long distance(long from, long to) {
        return (to - from) & 0xFFFF_FFFFL;
    }

    private static long checkSeq(long s) {
        if (s < 0 || s > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("sequence number must be 32-bit, got " + s);
        }
        return s;
    }
}
