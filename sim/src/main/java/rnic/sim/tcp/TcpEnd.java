package rnic.sim.tcp;

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
 */
public final class TcpEnd implements TcpConnection {
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
    private boolean peerClosed;
    private boolean hostClosed;

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

    @Override
    public void handOver() {
        if (handedOver) {
            throw new IllegalStateException(name + ": already handed over to the core (at send seq "
                    + Long.toHexString((txBase + handOverTx) & MASK) + ")");
        }
        handedOver = true;
        handOverTx = txOffset;
        handOverRx = rxOffset;
    }

    /** {@inheritDoc} (its FIN arrived after every octet it sent, or the channel was torn down) */
    @Override
    public boolean closed() {
        return peerClosed;
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
        if (hostClosed) {
            throw new IllegalStateException(name + ": " + what + " after close()");
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

    /** Octets waiting for the core's tcpRx (0 before the hand-over). */
    public int coreAvailable() {
        return handedOver ? rx.size() : 0;
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
        return handedOver && !hostClosed && !peerClosed && tx.size() < txCapacity;
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
        peerClosed = true;
    }

    @Override
    public String toString() {
        return name + (handedOver ? " (core)" : " (host)") + " snd " + Long.toHexString(coreSendSequence())
                + " rcv " + Long.toHexString(coreReceiveSequence());
    }
}
