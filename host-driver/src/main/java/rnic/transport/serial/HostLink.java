package rnic.transport.serial;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The host half of the host link: a reliable, ordered message channel to the board's firmware over a
 * {@link SerialLine}. The firmware half is {@code firmware/link/hostlink.c}; the protocol is in docs/host-link.md.
 *
 * <p>Frame: {@code COBS(kind, seq, ack, session, payload…, CRC-32C big-endian)} then one 0x00. Kinds: DATA (one
 * message of at most {@value #MAX_PAYLOAD} octets, numbered by {@code seq} mod 256), ACK ({@code ack} = the next seq
 * expected; every frame carries it), HELLO (host: start the link, both sides number from 0) and HELLO_ACK (board:
 * answer, with the board's session). Go-back-N with a window of {@value #WINDOW} frames: a receiver takes only the
 * expected seq and acknowledges every DATA frame; a sender resends everything unacknowledged when the oldest frame has
 * waited {@code rto}. So a flipped, lost or duplicated octet costs a retry, never data. A frame from the board with
 * another session than its HELLO_ACK's means the board restarted: {@link BoardResetException}.
 *
 * <p>Not thread-safe: one thread uses a link (the transport's). Time is the line's clock ({@link SerialLine#nanoTime}).
 */
public final class HostLink implements AutoCloseable {
    /** Largest message in one frame. */
    public static final int MAX_PAYLOAD = 1024;
    /** DATA frames in flight. */
    public static final int WINDOW = 8;

    static final int DATA = 1;
    static final int ACK = 2;
    static final int HELLO = 3;
    static final int HELLO_ACK = 4;
    private static final int HEADER = 4;
    private static final int CRC = 4;
    private static final int MAX_FRAME = HEADER + MAX_PAYLOAD + CRC;

    /** What the link has seen; counters only grow. */
    public static final class Stats {
        long framesSent;
        long framesReceived;
        long retransmissions;
        long droppedBadCrc;
        long droppedBadFraming;
        long droppedOutOfOrder;
        long octetsSent;
        long octetsReceived;

        /** Frames written to the line (retransmissions included). */
        public long framesSent() {
            return framesSent;
        }

        /** Valid frames read. */
        public long framesReceived() {
            return framesReceived;
        }

        /** DATA (and HELLO) frames sent again. */
        public long retransmissions() {
            return retransmissions;
        }

        /** Frames dropped for a wrong CRC or length. */
        public long droppedBadCrc() {
            return droppedBadCrc;
        }

        /** Frames dropped for a broken COBS encoding or an overlong frame. */
        public long droppedBadFraming() {
            return droppedBadFraming;
        }

        /** DATA frames dropped because their seq was not the expected one. */
        public long droppedOutOfOrder() {
            return droppedOutOfOrder;
        }

        /** Octets written to the line. */
        public long octetsSent() {
            return octetsSent;
        }

        /** Octets read from the line. */
        public long octetsReceived() {
            return octetsReceived;
        }

        @Override
        public String toString() {
            return String.format("sent %d frames (%d retransmitted), received %d; dropped: CRC %d, framing %d, order %d",
                    framesSent, retransmissions, framesReceived, droppedBadCrc, droppedBadFraming, droppedOutOfOrder);
        }
    }

    private final SerialLine line;
    private final long rtoNanos;
    private final int session;
    private final Stats stats = new Stats();

    private final byte[] rxBuf = new byte[MAX_FRAME + MAX_FRAME / 254 + 2];
    private int rxLen;
    private boolean rxOverflow;
    private int expected;
    private final ArrayDeque<byte[]> inbox = new ArrayDeque<>();

    private final byte[][] txPayload = new byte[WINDOW][];
    private int nextSeq;
    private int unacked;
    private long sentAt;

    private boolean helloPending;
    private int boardSession = -1;
    private int newBoardSession = -1;

    /**
     * A link on {@code line} (not yet connected) that resends after {@code rto}; choose it above the time the line
     * needs for a full window ({@value #WINDOW} × ~1 KB: 28 ms at 3 Mbaud) plus the board's turnaround.
     */
    public HostLink(SerialLine line, Duration rto) {
        if (line == null || rto == null || rto.isNegative() || rto.isZero()) {
            throw new IllegalArgumentException("a line and a positive retransmission timeout are needed");
        }
        this.line = line;
        this.rtoNanos = rto.toNanos();
        this.session = (int) (System.nanoTime() ^ System.identityHashCode(this) ^ line.nanoTime()) & 0xFF;
    }

    /**
     * Starts (or restarts) the link: HELLO, resent every rto, until the board's HELLO_ACK.
     *
     * @throws HostLinkException when no answer came within {@code timeout}
     */
    public void connect(Duration timeout) throws IOException {
        long deadline = line.nanoTime() + timeout.toNanos();
        helloPending = true;
        boardSession = -1;
        newBoardSession = -1;
        restartNumbering();
        inbox.clear();
        sentAt = line.nanoTime();
        sendFrame(HELLO, 0, null, 0);
        while (helloPending) {
            if (line.nanoTime() - deadline >= 0) {
                throw new HostLinkException("the board did not answer the link's HELLO within " + timeout);
            }
            pump(deadline);
        }
    }

    /** Whether the link is up (connected, the board not restarted since). */
    public boolean ready() {
        return boardSession >= 0 && !helloPending && newBoardSession < 0;
    }

    /** The board's session number from its HELLO_ACK (it changes at every board start), or -1 before. */
    public int boardSession() {
        return boardSession;
    }

    /** The link's counters. */
    public Stats stats() {
        return stats;
    }

    /**
     * Sends one message (at most {@value #MAX_PAYLOAD} octets), waiting for room in the window.
     *
     * @throws HostLinkException   when the window stayed full for {@code timeout} (the board stopped answering)
     * @throws BoardResetException when the board restarted
     */
    public void send(byte[] message, Duration timeout) throws IOException {
        if (message.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("message of " + message.length + " octets, at most " + MAX_PAYLOAD);
        }
        long deadline = line.nanoTime() + timeout.toNanos();
        checkUp();
        while (inFlight() == WINDOW) {
            if (line.nanoTime() - deadline >= 0) {
                throw new HostLinkException("the board acknowledged nothing for " + timeout);
            }
            pump(deadline);
            checkUp();
        }
        int seq = nextSeq;
        nextSeq = (nextSeq + 1) & 0xFF;
        txPayload[seq % WINDOW] = message.clone();
        if (seq == unacked) {
            sentAt = line.nanoTime();
        }
        sendFrame(DATA, seq, message, message.length);
    }

    /**
     * The next message from the board, waiting at most {@code timeout}; null when none came.
     *
     * @throws BoardResetException when the board restarted
     */
    public byte[] receive(Duration timeout) throws IOException {
        long deadline = line.nanoTime() + timeout.toNanos();
        while (inbox.isEmpty()) {
            checkUp();
            if (line.nanoTime() - deadline >= 0) {
                return null;
            }
            pump(deadline);
        }
        return inbox.poll();
    }

    /** Waits until the board acknowledged every message sent, at most {@code timeout}; returns whether it did. */
    public boolean flush(Duration timeout) throws IOException {
        long deadline = line.nanoTime() + timeout.toNanos();
        while (inFlight() > 0) {
            checkUp();
            if (line.nanoTime() - deadline >= 0) {
                return false;
            }
            pump(deadline);
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        line.close();
    }

    private int inFlight() {
        return (nextSeq - unacked) & 0xFF;
    }

    private void checkUp() throws HostLinkException {
        if (newBoardSession >= 0) {
            throw new BoardResetException(boardSession, newBoardSession);
        }
        if (boardSession < 0 || helloPending) {
            throw new HostLinkException("the link is not connected");
        }
    }

    private void restartNumbering() {
        expected = 0;
        nextSeq = 0;
        unacked = 0;
        Arrays.fill(txPayload, null);
    }

    /** Reads what the line has (waiting until the next retransmission is due, or the deadline) and acts on it. */
    private void pump(long deadline) throws IOException {
        long now = line.nanoTime();
        long wait = Math.min(deadline - now, rtoNanos - (now - sentAt));
        byte[] buf = new byte[4096];
        int n = line.read(buf, 0, buf.length, Duration.ofNanos(Math.max(wait, 100_000)));
        stats.octetsReceived += n;
        for (int i = 0; i < n; i++) {
            receiveOctet(buf[i]);
        }
        now = line.nanoTime();
        if (now - sentAt < rtoNanos) {
            return;
        }
        if (helloPending) {
            sentAt = now;
            stats.retransmissions++;
            sendFrame(HELLO, 0, null, 0);
        } else if (inFlight() > 0) {
            // Go back N: everything unacknowledged again, oldest first.
            for (int seq = unacked; seq != nextSeq; seq = (seq + 1) & 0xFF) {
                byte[] p = txPayload[seq % WINDOW];
                stats.retransmissions++;
                sendFrame(DATA, seq, p, p.length);
            }
            sentAt = now;
        }
    }

    private void receiveOctet(byte octet) {
        if (octet != 0) {
            if (rxLen < rxBuf.length) {
                rxBuf[rxLen++] = octet;
            } else {
                rxOverflow = true;
            }
            return;
        }
        if (rxLen == 0) {
            return;
        }
        byte[] frame = rxOverflow ? null : Cobs.decode(rxBuf, 0, rxLen);
        rxLen = 0;
        rxOverflow = false;
        if (frame == null || frame.length > MAX_FRAME) {
            stats.droppedBadFraming++;
            return;
        }
        processFrame(frame);
    }

    private void processFrame(byte[] f) {
        int n = f.length;
        if (n < HEADER + CRC) {
            stats.droppedBadCrc++;
            return;
        }
        CRC32C crc = new CRC32C();
        crc.update(f, 0, n - CRC);
        long got = ((f[n - 4] & 0xFFL) << 24) | ((f[n - 3] & 0xFFL) << 16) | ((f[n - 2] & 0xFFL) << 8) | (f[n - 1] & 0xFFL);
        if (crc.getValue() != got) {
            stats.droppedBadCrc++;
            return;
        }
        stats.framesReceived++;
        int kind = f[0] & 0xFF;
        int seq = f[1] & 0xFF;
        int ack = f[2] & 0xFF;
        int peer = f[3] & 0xFF;
        if (kind == HELLO_ACK) {
            if (helloPending) {
                helloPending = false;
                boardSession = peer;
                restartNumbering();
            }
            return;
        }
        if (helloPending || boardSession < 0) {
            return;
        }
        if (peer != boardSession) {
            newBoardSession = peer;
            return;
        }
        int acked = (ack - unacked) & 0xFF;
        if (acked > 0 && acked <= inFlight()) {
            for (int s = unacked; s != ack; s = (s + 1) & 0xFF) {
                txPayload[s % WINDOW] = null;
            }
            unacked = ack;
            sentAt = line.nanoTime();
        }
        if (kind == DATA) {
            if (seq == expected) {
                expected = (expected + 1) & 0xFF;
                inbox.add(Arrays.copyOfRange(f, HEADER, n - CRC));
            } else {
                stats.droppedOutOfOrder++;
            }
            sendFrameQuietly(ACK, 0, null, 0);
        }
    }

    private void sendFrameQuietly(int kind, int seq, byte[] payload, int length) {
        try {
            sendFrame(kind, seq, payload, length);
        } catch (IOException e) {
            // An ACK that cannot be written is an ACK lost on the line: the board resends and we answer again.
        }
    }

    private void sendFrame(int kind, int seq, byte[] payload, int length) throws IOException {
        byte[] frame = new byte[HEADER + length + CRC];
        frame[0] = (byte) kind;
        frame[1] = (byte) seq;
        frame[2] = (byte) expected;
        frame[3] = (byte) session;
        if (length > 0) {
            System.arraycopy(payload, 0, frame, HEADER, length);
        }
        CRC32C crc = new CRC32C();
        crc.update(frame, 0, HEADER + length);
        long c = crc.getValue();
        for (int i = 0; i < 4; i++) {
            frame[HEADER + length + i] = (byte) (c >>> (24 - 8 * i));
        }
        byte[] enc = Cobs.encode(frame, 0, frame.length);
        byte[] wire = Arrays.copyOf(enc, enc.length + 1);
        line.write(wire, 0, wire.length);
        stats.framesSent++;
        stats.octetsSent += wire.length;
    }
}
