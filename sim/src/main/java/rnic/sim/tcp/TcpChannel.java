package rnic.sim.tcp;

import java.net.InetSocketAddress;
import java.util.Random;
import rnic.sim.Agent;

/**
 * One TCP connection between two ends, {@link #a()} (the client, the active opener) and {@link #b()} (the server),
 * for a simulation: e.g. connection q of RNIC a and connection q of RNIC b. Each end is the host's
 * {@link rnic.transport.TcpConnection} until it {@link TcpEnd#handOver hands over} to its core.
 *
 * <p>Two ways to carry the bytes ({@link Mode}):
 * <ul>
 *   <li>{@link Mode#MODEL} — a Java model of both directions ({@link ModelPath}) with configurable re-segmentation
 *       (MPA-23), delay, loss with retransmission, receive window and rate, deterministic from the random source;</li>
 *   <li>{@link Mode#KERNEL} — a real TCP connection through the Linux kernel on 127.0.0.1, polled without blocking
 *       ({@link KernelLink}): Linux decides how the receiver sees the stream cut.</li>
 * </ul>
 * Either way each direction delivers every octet exactly once and in order (DDP-02, DDP-03). The channel is an
 * {@link Agent}: one {@link #tick()} per clock cycle (in {@link #drive()}), or call {@link #tick()} directly in a pure
 * Java test. {@link #busy()} holds while octets are queued or on the wire.
 *
 * <p>With a {@link TcpWireCapture} the channel writes its handshake when it starts, every segment and ACK as it goes,
 * the FIN exchange at {@link #close()}, and a RST when an end {@link TcpEnd#abort() aborts}.
 *
 * <p>A channel of a {@link TcpNetwork} is created by an active open and not started: its client end is neither
 * established nor refused until the network {@link #start starts} it (the listener accepted) or
 * {@link #refuse refuses} it. The other constructors start at once.
 */
public final class TcpChannel implements Agent, AutoCloseable {
    /** How the bytes travel. */
    public enum Mode {
        /** The Java TCP model. */
        MODEL,
        /** A real kernel TCP connection on 127.0.0.1. */
        KERNEL
    }

    private final String name;
    private final TcpOptions options;
    private final long clientIsn;
    private final long serverIsn;
    private final TcpEnd a;
    private final TcpEnd b;
    private final TcpStats[] stats;
    private final TcpWireCapture capture;
    private ModelPath ab;
    private ModelPath ba;
    private KernelLink link;
    private final Random rng;
    private long cycle;
    private boolean started;
    private boolean closed;
    private boolean reset;

    /**
     * @param name       e.g. "qp0" (ends are "qp0.a", "qp0.b")
     * @param options    settings of both directions
     * @param rng        random source (ISNs when not given, segmentation, delays, loss)
     * @param capture    where the wire goes, or {@code null}
     * @param startCycle the cycle of the first {@link #tick()} (for capture timestamps)
     */
    public TcpChannel(String name, TcpOptions options, Random rng, TcpWireCapture capture, long startCycle) {
        this(name, options, rng, capture, new InetSocketAddress("10.0.0.1", 49152),
                new InetSocketAddress("10.0.0.2", 20049));
        start(startCycle);
    }

    /**
     * A channel that has not started: its client end is connecting until {@link #start} or
     * {@link #refuse}.
     *
     * @param client the active opener's address and port (end a)
     * @param server the listener's address and port (end b)
     */
    public TcpChannel(String name, TcpOptions options, Random rng, TcpWireCapture capture,
            InetSocketAddress client, InetSocketAddress server) {
        this.name = name;
        this.options = options;
        this.rng = rng;
        this.clientIsn = options.clientIsn() != TcpOptions.RANDOM_ISN ? options.clientIsn()
                : rng.nextLong() & 0xFFFF_FFFFL;
        this.serverIsn = options.serverIsn() != TcpOptions.RANDOM_ISN ? options.serverIsn()
                : rng.nextLong() & 0xFFFF_FFFFL;
        this.capture = capture;
        long aBase = clientIsn + 1;
        long bBase = serverIsn + 1;
        this.a = new TcpEnd(name + ".a", aBase, bBase, options.window(), options.txBuffer());
        this.b = new TcpEnd(name + ".b", bBase, aBase, options.window(), options.txBuffer());
        a.addresses(client, server);
        b.addresses(server, client);
        a.connecting();
        this.stats = new TcpStats[] {new TcpStats(name + " a->b"), new TcpStats(name + " b->a")};
    }

    /**
     * The three-way handshake completes: written to the capture (SYN and SYN-ACK at {@code startCycle} - 1, the ACK at
     * {@code startCycle}), the paths come up, the client end is established; the first {@link #tick()} is cycle
     * {@code startCycle}.
     */
    public void start(long startCycle) {
        if (started || closed) {
            throw new IllegalStateException(name + ": already " + (started ? "started" : "closed"));
        }
        started = true;
        this.cycle = startCycle;
        long aBase = clientIsn + 1;
        long bBase = serverIsn + 1;
        if (capture != null) {
            capture.handshake(startCycle, clientIsn, serverIsn, options.mss(), options.window(), options.window());
        }
        if (options.mode() == Mode.MODEL) {
            ab = new ModelPath(0, a, b, options, rng, stats[0], aBase, capture);
            ba = new ModelPath(1, b, a, options, rng, stats[1], bBase, capture);
            ab.reverse = ba;
            ba.reverse = ab;
        } else {
            link = new KernelLink(a, b, stats, new long[] {aBase, bBase}, capture, options);
        }
        a.establish();
    }

    /**
     * Nothing listens at the server's address: the capture shows the client's SYN at {@code cycle} - 1 and the RST-ACK
     * that answered it at {@code cycle} (like {@link #start}, the exchange takes 1 µs in the capture, so frames stay in
     * time order); the client end becomes {@link TcpEnd#refused()}; the channel is closed.
     */
    public void refuse(long cycle) {
        if (started || closed) {
            throw new IllegalStateException(name + ": already " + (started ? "started" : "closed"));
        }
        if (capture != null) {
            capture.refused(cycle - 1, cycle, clientIsn, options.mss(), options.window());
        }
        closed = true;
        a.refuse();
    }

    /** Whether {@link #start} ran (the handshake completed). */
    public boolean started() {
        return started;
    }

    /** Whether the connection was reset (an end aborted). */
    public boolean wasReset() {
        return reset;
    }

    /** Whether nothing more will happen on this channel: closed, reset, refused. */
    public boolean over() {
        return closed;
    }

    /** A channel with {@code options}, no capture, starting at cycle 0. */
    public TcpChannel(String name, TcpOptions options, Random rng) {
        this(name, options, rng, null, 0);
    }

    public String name() {
        return name;
    }

    public TcpOptions options() {
        return options;
    }

    public Mode mode() {
        return options.mode();
    }

    /** End a: the TCP client. */
    public TcpEnd a() {
        return a;
    }

    /** End b: the TCP server. */
    public TcpEnd b() {
        return b;
    }

    /** End 0 (a) or 1 (b). */
    public TcpEnd end(int index) {
        return switch (index) {
            case 0 -> a;
            case 1 -> b;
            default -> throw new IllegalArgumentException("end index must be 0 (a) or 1 (b), got " + index);
        };
    }

    public long clientIsn() {
        return clientIsn;
    }

    public long serverIsn() {
        return serverIsn;
    }

    /** Counters of direction a→b. */
    public TcpStats statsAtoB() {
        return stats[0];
    }

    /** Counters of direction b→a. */
    public TcpStats statsBtoA() {
        return stats[1];
    }

    /** The cycle the next {@link #tick()} will be. */
    public long cycle() {
        return cycle;
    }

    /** One clock cycle of both directions. */
    public void tick() {
        if (closed || !started) {
            return;
        }
        if (a.abortRequested() || b.abortRequested()) {
            abortFrom(a.abortRequested() ? 0 : 1);
            return;
        }
        if (link != null) {
            link.tick(cycle);
        } else {
            ab.tick(cycle);
            ba.tick(cycle);
        }
        cycle++;
    }

    /**
     * End {@code from} aborted: a RST from it (carrying what it would send next and what it acknowledges), everything
     * queued or in flight is dropped, both ends see the reset; KERNEL sockets are closed.
     */
    private void abortFrom(int from) {
        closed = true;
        reset = true;
        if (capture != null) {
            long seq = link != null ? link.seq(from) : (from == 0 ? ab : ba).nextSeq();
            long ack = link != null ? link.seq(1 - from) : (from == 0 ? ba : ab).ackSeq();
            capture.rst(from, cycle, seq, ack);
        }
        if (link != null) {
            link.close();
        }
        a.resetByRst();
        b.resetByRst();
        cycle++;
    }

    /** Nothing queued to send, nothing on the wire or unacknowledged, in either direction (or not started). */
    public boolean idle() {
        return closed || !started || (link != null ? link.idle() : ab.idle() && ba.idle());
    }

    @Override
    public void drive() {
        tick();
    }

    @Override
    public boolean busy() {
        return !idle();
    }

    /**
     * Tears the connection down: in the capture a FIN from each side that has not sent one yet and the last ACK (what
     * is still on the wire is abandoned); both ends report {@link TcpEnd#closed()}; KERNEL sockets are closed.
     * Idempotent. (A host closes its own end gracefully with {@link TcpEnd#close()}.)
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!started) {
            a.refuse(); // torn down before the handshake completed
            return;
        }
        if (capture != null) {
            boolean aFin = link != null ? link.finSeen(0) : ab.finSent();
            boolean bFin = link != null ? link.finSeen(1) : ba.finSent();
            long aEnd = link != null ? link.dataEndSeq(0) : ab.dataEndSeq();
            long bEnd = link != null ? link.dataEndSeq(1) : ba.dataEndSeq();
            long aRcv = link != null ? link.seq(1) : ba.ackSeq(); // what each side acknowledges
            long bRcv = link != null ? link.seq(0) : ab.ackSeq();
            if (!aFin) {
                capture.fin(0, cycle, aEnd, aRcv, a.rxRoom());
                if (link != null || ab.allDelivered()) {
                    bRcv = aEnd + 1;
                }
            }
            if (!bFin) {
                capture.fin(1, cycle, bEnd, bRcv, b.rxRoom());
                if (link != null || ba.allDelivered()) {
                    aRcv = bEnd + 1;
                }
            }
            capture.ack(0, cycle, aEnd + 1, aRcv, a.rxRoom());
        }
        if (link != null) {
            link.close();
        }
        a.peerClosed();
        b.peerClosed();
    }

    /** e.g. "qp0 MODEL(asSent, …) 0x1000→0x7000", with the KERNEL socket addresses. */
    public String describe() {
        return name + " " + options + String.format(" ISN a %08x b %08x", clientIsn, serverIsn)
                + (link != null ? " " + link.describe() : "");
    }

    @Override
    public String toString() {
        return describe();
    }
}
