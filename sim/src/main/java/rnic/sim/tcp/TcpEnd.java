package rnic.sim.tcp;

import java.net.InetSocketAddress;
import rnic.transport.TcpConnection;

/**
 * One end of a {@link TcpChannel}: the host's view of the connection ({@link TcpConnection}) and, after
 * {@link #handOver()}, the core's (the {@code core…} methods, used by {@link TcpRxDriver} and {@link TcpTxMonitor}).
 *
 * <p><b>The switch (MPA-26, MPA-27).</b> Before the hand-over the host exchanges plain stream octets, the
 * MPA Request and Reply. {@link #handOver()} moves both directions to the core at one exact octet each: the receive
 * side at {@link #receiveSequence()} — every octet the host has not read, whether it has already arrived or not, goes
 * to the core's tcpRx, none before — and the send side at {@link #sendSequence()}: the core's tcpTx segments go on the
 * wire after every octet the host queued. From then on {@link #sendSequence()} and {@link #receiveSequence()} stay at
 * the switch point (the driver programs them as SeqStart); {@link #coreSendSequence()} and
 * {@link #coreReceiveSequence()} follow the core. Sequence numbers are 32-bit TCP sequence numbers (modulo
 * 2<sup>32</sup>).
 *
 * <p><b>Slots.</b> In a system of simulated cores the end belongs to a {@link SlotBinder} (the transport of its core):
 * {@link #handOver(int)} binds it to that core's connection slot (its {@code tcpRx_<slot>} / {@code tcpTx_<slot>}
 * agents). A pure channel (no binder) hands over with {@link #handOver()} and is driven through the {@code core…}
 * methods directly.
 *
 * <p><b>Lifecycle.</b> An end of an active open starts neither {@link #established()} nor {@link #refused()} until
 * the network decides; data {@link #send sent} before waits. {@link #close()} sends FIN after the queued octets: the
 * peer sees {@link #peerFinished()} and {@link #closed()}. {@link #abort()} sends RST: the peer sees {@link #closed()}
 * only.
 */
public final class TcpEnd implements TcpConnection {
    /** Binds an end to one of its core's connection slots; set by the simulation that owns the slots. */
    public interface SlotBinder {
        /**
         * Binds {@code end} to slot {@code slot}'s receive and transmit agents, or throws (slot out of range, slot
         * still bound to a connection that is not closed) without changing anything.
         */
        void bind(TcpEnd end, int slot);
    }

    private static final long MASK = 0xFFFF_FFFFL;

    private final String name;
    private final long txBase;
    private final long rxBase;
    private final int rxCapacity;
    private final int txCapacity;
    /** Octets queued to send and not yet taken by the wire (a chunk per host send / core segment). */
    final ByteChunks tx = new ByteChunks();
    /** Octets received in order and not yet taken by the host or the core (a chunk per arrived segment). */
    final ByteChunks rx = new ByteChunks();
    private long txOffset;
    private long rxOffset;
    private boolean handedOver;
    private long handOverTx = -1;
    private long handOverRx = -1;
    private boolean peerFinished;
    private boolean reset;
    private boolean hostClosed;
    private boolean abortRequested;
    private boolean finTaken;
    private boolean established = true;
    private boolean refused;
    private InetSocketAddress local = new InetSocketAddress("10.0.0.1", 49152);
    private InetSocketAddress remote = new InetSocketAddress("10.0.0.2", 20049);
    private SlotBinder binder;
    private int legacySlot = -1;
    private int slot = -1;

    TcpEnd(String name, long txBase, long rxBase, int rxCapacity, int txCapacity) {
        this.name = name;
        this.txBase = txBase;
        this.rxBase = rxBase;
        this.rxCapacity = rxCapacity;
        this.txCapacity = txCapacity;
    }

    /** e.g. "qp2.a". */
    public String name() {
        return name;
    }

    // --------------------------------------------------------------------------------------------- host side

    @Override
    public void send(byte[] data) {
        requireHost("send");
        requireOpen("send");
        tx.add(data, 0, data.length);
        txOffset += data.length;
    }

    @Override
    public int receive(byte[] dst, int offset, int length) {
        requireHost("receive");
        requireOpen("receive");
        int n = rx.peek(dst, offset, length);
        rx.drop(n);
        rxOffset += n;
        return n;
    }

    /** {@inheritDoc} After {@link #handOver()}: the first octet the core sends (the switch point, fixed). */
    @Override
    public long sendSequence() {
        return (txBase + (handedOver ? handOverTx : txOffset)) & MASK;
    }

    /**
     * {@inheritDoc} After {@link #handOver()}: the first octet the core receives (the switch point, fixed) — what the
     * driver programs as the QP's receive SeqStart, however long it takes to get there.
     */
    @Override
    public long receiveSequence() {
        return (rxBase + (handedOver ? handOverRx : rxOffset)) & MASK;
    }

    /**
     * Hands both directions to the core side at the exact octet (MPA-26). A pure channel's end (no
     * {@link SlotBinder}) just switches to the core side; an end of a fixed per-QP channel
     * ({@code SimTransport.connection(q)}) hands over to slot q; an end from {@code connect}/{@code accept} refuses
     * (it has no fixed slot: use {@link #handOver(int)}).
     */
    public void handOver() {
        if (binder == null) {
            requireCanHandOver();
            switchOver();
        } else if (legacySlot >= 0) {
            handOver(legacySlot);
        } else {
            throw new IllegalStateException(name + ": a connection from connect()/accept() has no fixed slot; "
                    + "use handOver(slot)");
        }
    }

    @Override
    public void handOver(int slot) {
        requireCanHandOver();
        if (binder == null) {
            throw new IllegalStateException(name + ": not attached to a core's connection slots (a pure channel "
                    + "end hands over with handOver())");
        }
        binder.bind(this, slot); // throws before anything changes when the slot is not free
        this.slot = slot;
        switchOver();
    }

    private void requireCanHandOver() {
        if (handedOver) {
            throw new IllegalStateException(name + ": already handed over to the core (at send seq "
                    + Long.toHexString((txBase + handOverTx) & MASK) + (slot >= 0 ? ", slot " + slot : "") + ")");
        }
        if (refused) {
            throw new IllegalStateException(name + ": the connection was refused (nothing listened at " + remote
                    + "); nothing to hand over");
        }
        if (!established) {
            throw new IllegalStateException(name + ": the TCP handshake with " + remote + " has not completed; "
                    + "wait for established()");
        }
        if (hostClosed || abortRequested || reset) {
            throw new IllegalStateException(name + ": the connection is closed; nothing to hand over");
        }
    }

    private void switchOver() {
        handedOver = true;
        handOverTx = txOffset;
        handOverRx = rxOffset;
    }

    /** The slot this end was handed over to, or -1 (not handed over, or a pure channel end). */
    public int slot() {
        return slot;
    }

    /** {@inheritDoc} (its FIN arrived after every octet it sent, the channel was torn down, or a RST) */
    @Override
    public boolean closed() {
        return peerFinished || reset;
    }

    @Override
    public boolean peerFinished() {
        return peerFinished;
    }

    /** Whether the connection was reset (by either end's {@link #abort()}, or a listener closed before accept). */
    public boolean wasReset() {
        return reset;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public boolean established() {
        return established;
    }

    @Override
    public boolean refused() {
        return refused;
    }

    /**
     * {@inheritDoc} The channel sends the RST on its next cycle; octets queued or in flight are dropped, and neither
     * end may send afterwards.
     */
    @Override
    public void abort() {
        abortRequested = true;
    }

    /** Whether {@link #abort()} was called. */
    public boolean abortRequested() {
        return abortRequested;
    }

    /**
     * Whether the slot this end is bound to may take another connection: this end was closed or aborted by its
     * host, or the connection ended from the peer's side ({@link #closed()}).
     */
    public boolean slotReleasable() {
        return hostClosed || abortRequested || closed();
    }

    /**
     * Closes the connection in both directions: the octets queued so far still go out, then a FIN; the peer sees
     * {@link #closed()} once it has everything before the FIN. Afterwards {@link #send} and {@link #receive} are
     * refused. Idempotent. (The driver closes a connection whose MPA startup failed: E-M4, MPA-38/39, E-M5…E-M7;
     * {@code TcpConnection.close()} of the transport SPI.)
     */
    public void close() {
        hostClosed = true;
    }

    /** Whether {@link #close()} was called. */
    public boolean closeRequested() {
        return hostClosed;
    }

    private void requireOpen(String what) {
        if (hostClosed || abortRequested) {
            throw new IllegalStateException(name + ": " + what + " after " + (abortRequested ? "abort()" : "close()"));
        }
        if (refused) {
            throw new IllegalStateException(name + ": " + what + " on a refused connection to " + remote);
        }
    }

    private void requireHost(String what) {
        if (handedOver) {
            throw new IllegalStateException(name + ": " + what + " after handOver(): the connection belongs to the "
                    + "core since send seq " + Long.toHexString((txBase + handOverTx) & MASK) + " / receive seq "
                    + Long.toHexString((rxBase + handOverRx) & MASK));
        }
    }

    // --------------------------------------------------------------------------------------------- core side

    /** Whether {@link #handOver()} was called. */
    public boolean handedOver() {
        return handedOver;
    }

    /** Send sequence number at the hand-over: the first octet the core sends (-1 before). */
    public long handOverSendSequence() {
        return handedOver ? (txBase + handOverTx) & MASK : -1;
    }

    /** Receive sequence number at the hand-over: the first octet the core receives (-1 before). */
    public long handOverReceiveSequence() {
        return handedOver ? (rxBase + handOverRx) & MASK : -1;
    }

    /** Sequence number of the next octet the core will take (moves as it takes them). */
    public long coreReceiveSequence() {
        return (rxBase + rxOffset) & MASK;
    }

    /** Sequence number of the next octet the core will queue. */
    public long coreSendSequence() {
        return (txBase + txOffset) & MASK;
    }

    /**
     * Octets waiting for the core's tcpRx (0 before the hand-over, and after a RST: RFC 793 §3.4, a reset connection
     * delivers nothing more, so octets the core had not taken are discarded).
     */
    public int coreAvailable() {
        return handedOver && !reset ? rx.size() : 0;
    }

    /**
     * Whether the core is owed the end of the stream ({@code TcpRxBeat.fin}, MPA-41): handed over, not yet taken, and
     * either the peer's FIN arrived and the core took every octet before it, or the connection was reset.
     */
    public boolean coreEndDue() {
        return handedOver && !finTaken && (reset || peerFinished && rx.size() == 0);
    }

    /** The core took the end of the stream. */
    public void coreEndTaken() {
        finTaken = true;
    }

    /** Whether the core took the end of the stream ({@link #coreEndDue()}). */
    public boolean coreEndTakenAlready() {
        return finTaken;
    }

    /** Octets up to the end of the segment the next octet arrived in (0 before the hand-over). */
    public int coreUntilSegmentEnd() {
        return handedOver ? rx.untilBoundary() : 0;
    }

    /** Copies up to {@code len} waiting octets for the core without taking them; returns how many. */
    public int corePeek(byte[] dst, int off, int len) {
        return handedOver ? rx.peek(dst, off, len) : 0;
    }

    /** The core took {@code n} octets (they free receive window). */
    public void coreConsume(int n) {
        if (!handedOver) {
            throw new IllegalStateException(name + ": the core reads only after handOver()");
        }
        rx.drop(n);
        rxOffset += n;
    }

    /** Whether the core may hand over another segment (the send buffer has room). */
    public boolean coreCanSend() {
        return handedOver && !hostClosed && !abortRequested && !closed() && tx.size() < txCapacity;
    }

    /** Queues one segment the core sent on tcpTx (it goes on the wire after every earlier octet). */
    public void coreSend(byte[] segment) {
        if (!handedOver) {
            throw new IllegalStateException(name + ": the core sent " + segment.length
                    + " octets before handOver(): they would precede the host's MPA startup octets");
        }
        tx.add(segment, 0, segment.length);
        txOffset += segment.length;
    }

    // --------------------------------------------------------------------------------------------- channel side

    /** Free receive buffer: what the receiving path may still deliver. */
    int rxRoom() {
        return rxCapacity - rx.size();
    }

    int rxCapacity() {
        return rxCapacity;
    }

    /** In-order octets arrived: they become readable. */
    void deliver(byte[] segment) {
        rx.addOwned(segment);
    }

    /** Stream offset (octets since the first data octet) of the next octet the host or core will queue. */
    long txOffset() {
        return txOffset;
    }

    /** Stream offset of the next octet the host or core will take. */
    long rxOffset() {
        return rxOffset;
    }

    /** The peer's FIN arrived (or the channel was torn down). */
    void peerClosed() {
        peerFinished = true;
    }

    /** The connection was reset (a RST either way). */
    void resetByRst() {
        reset = true;
    }

    /** Addresses of this end and of its peer (what the capture shows). */
    void addresses(InetSocketAddress local, InetSocketAddress remote) {
        this.local = local;
        this.remote = remote;
    }

    /** The handshake has not completed yet (an active open in a network). */
    void connecting() {
        established = false;
    }

    /** The handshake completed. */
    void establish() {
        established = true;
    }

    /** Nothing listened at the remote address: the SYN got a RST. */
    void refuse() {
        refused = true;
    }

    /**
     * Attaches the end to a core's slots; {@code legacySlot} ≥ 0 for a fixed per-QP channel (the slot
     * {@link #handOver()} uses), -1 otherwise.
     */
    public void attach(SlotBinder binder, int legacySlot) {
        this.binder = binder;
        this.legacySlot = legacySlot;
    }

    @Override
    public String toString() {
        return name + (handedOver ? " (core)" : " (host)") + " snd " + Long.toHexString(coreSendSequence())
                + " rcv " + Long.toHexString(coreReceiveSequence());
    }
}
