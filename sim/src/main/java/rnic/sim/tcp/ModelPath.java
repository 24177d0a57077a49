package rnic.sim.tcp;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;

/**
 * One direction of a MODEL-mode {@link TcpChannel}: a TCP sender, a wire with delay and loss, and a TCP receiver.
 *
 * <p><b>Sender.</b> Cuts the sending end's queued octets into segments ({@link Segmentation}, at most MSS), sends one
 * when the receiver's advertised window takes it whole (or, for a segment larger than half the receiver's buffer, when
 * half the buffer is free: silly window avoidance) and the rate allows, keeps each until it is acknowledged, and
 * sends it again, with the same sequence number and octets, when {@code rto} cycles pass without an acknowledgment.
 * Retransmissions go out before new data in a cycle.
 *
 * <p><b>Wire.</b> Each transmission of a data segment is lost with probability {@code loss}, otherwise it arrives
 * {@code delayMin … delayMax} cycles later (segments may overtake each other). ACKs are never lost and keep their order.
 * When the sending end {@link TcpEnd#close() closes}, a FIN follows its last octet; it is never lost either, and the
 * receiver takes it (its end reports {@link TcpEnd#closed()}) once every octet before it has arrived.
 *
 * <p><b>Receiver</b> (DDP-02, DDP-03: in order, no duplicates). Delivers octets to the receiving end only in sequence
 * order: a segment ahead of a gap is held until the gap is filled, octets it already has (a retransmission of something
 * that did arrive, an overlap) are dropped and counted, octets beyond its window are dropped (the sender retransmits
 * them). It acknowledges cumulatively in the cycle a segment arrives, and sends a window update when the host or core
 * frees at least min(MSS, buffer/2) octets.
 *
 * <p>Internally positions are 64-bit stream offsets (octets since the first data octet); only the capture and the
 * ends' sequence numbers are taken modulo 2<sup>32</sup>.
 */
final class ModelPath {
    /** A segment as sent: stream offset and octets. */
    private static final class Seg {
        final long off;
        final byte[] data;
        long lastSent;

        Seg(long off, byte[] data) {
            this.off = off;
            this.data = data;
        }

        long end() {
            return off + data.length;
        }
    }

    private record Flight(long arrival, long order, long off, byte[] data) {
    }

    private record Ack(long arrival, long ackOff, int window) {
    }

    private final int sender;
    private final TcpEnd from;
    private final TcpEnd to;
    private final TcpOptions o;
    private final Random rng;
    private final TcpStats stats;
    private final long seqBase;
    private final TcpWireCapture capture;
    private final int rto;
    private final int updateThreshold;
    ModelPath reverse;

    // sender
    private long sndNxt;
    private long sndUna;
    private long sndEdge;
    private final ArrayDeque<Seg> unacked = new ArrayDeque<>();
    /** No retransmission timer expires before this cycle (it may be early after ACKs; never late). */
    private long nextTimeout = Long.MAX_VALUE;
    private double tokens;
    /** Size chosen for the next new segment, kept while the window is too small for it (0 = not chosen yet). */
    private int want;
    // wire
    private final PriorityQueue<Flight> wire = new PriorityQueue<>(
            (x, y) -> x.arrival != y.arrival ? Long.compare(x.arrival, y.arrival) : Long.compare(x.order, y.order));
    private long order;
    private final ArrayDeque<Ack> acks = new ArrayDeque<>();
    private long lastAckArrival;
    // receiver
    private long rcvNxt;
    private final TreeMap<Long, byte[]> ooo = new TreeMap<>();
    private long advertisedEdge;
    private boolean ackNow;
    // FIN: sent once the closing end's queue is empty, never lost, delivered after every octet before it
    private boolean finSent;
    private long finOffset;
    private long finArrival;
    private boolean finDelivered;

    ModelPath(int sender, TcpEnd from, TcpEnd to, TcpOptions o, Random rng, TcpStats stats, long seqBase,
            TcpWireCapture capture) {
        this.sender = sender;
        this.from = from;
        this.to = to;
        this.o = o;
        this.rng = rng;
        this.stats = stats;
        this.seqBase = seqBase;
        this.capture = capture;
        this.rto = o.effectiveRto();
        this.sndEdge = to.rxCapacity(); // the window of the handshake
        this.advertisedEdge = to.rxCapacity();
        this.updateThreshold = Math.max(1, Math.min(o.mss(), to.rxCapacity() / 2));
        this.tokens = o.rate();
    }

    /** Sequence number this direction's receiver acknowledges (the reverse direction's frames carry it). */
    long ackSeq() {
        return seqBase + rcvNxt + (finDelivered ? 1 : 0);
    }

    /** Sequence number right after the last data octet sent (where a FIN goes). */
    long dataEndSeq() {
        return seqBase + sndNxt;
    }

    /** Whether every data octet sent has been delivered. */
    boolean allDelivered() {
        return rcvNxt == sndNxt;
    }

    boolean finSent() {
        return finSent;
    }

    /** Window the receiver of this direction advertises. */
    int window() {
        return to.rxRoom();
    }

    /** Sequence number of the next new octet of this direction (its sender's frames carry it). */
    long nextSeq() {
        return seqBase + sndNxt + (finSent ? 1 : 0);
    }

    boolean idle() {
        return from.tx.isEmpty() && unacked.isEmpty() && wire.isEmpty() && acks.isEmpty() && ooo.isEmpty()
                && finSent == from.closeRequested() && finSent == finDelivered;
    }

    void tick(long now) {
        while (!acks.isEmpty() && acks.peekFirst().arrival <= now) {
            onAck(acks.pollFirst());
        }
        while (!wire.isEmpty() && wire.peek().arrival <= now) {
            onArrival(wire.poll());
        }
        if (finSent && !finDelivered && now >= finArrival && rcvNxt == finOffset) {
            finDelivered = true;
            ackNow = true;
            to.peerClosed();
        }
        long edge = rcvNxt + window();
        if (ackNow || edge - advertisedEdge >= updateThreshold) {
            sendAck(now);
        }
        if (o.rate() > 0) {
            tokens = Math.min(tokens + o.rate(), Math.max(o.mss(), o.rate()));
        }
        retransmit(now);
        sendNew(now);
        if (!finSent && from.closeRequested() && from.tx.isEmpty()) {
            finSent = true;
            finOffset = sndNxt;
            finArrival = now + o.delayMax();
            if (capture != null) {
                capture.fin(sender, now, seqBase + sndNxt, reverse.ackSeq(), reverse.window());
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ sender

    private void retransmit(long now) {
        if (now < nextTimeout) {
            return; // no timer can have expired: skip the walk over every unacknowledged segment
        }
        long earliest = Long.MAX_VALUE;
        for (Seg s : unacked) {
            if (now - s.lastSent >= rto && mayTransmit()) {
                stats.retransmissions++;
                stats.retransmittedOctets += s.data.length;
                transmit(s, now);
            }
            earliest = Math.min(earliest, s.lastSent + rto);
        }
        nextTimeout = earliest;
    }

    private void sendNew(long now) {
        while (!from.tx.isEmpty()) {
            long room = sndEdge - sndNxt;
            if (!mayTransmit()) {
                return;
            }
            int avail = from.tx.size();
            if (want == 0) {
                want = Math.max(1, Math.min(Math.min(avail, o.mss()),
                        o.segmentation().next(rng, from.tx.untilBoundary(), avail, o.mss())));
            }
            if (room <= 0 || (room < want && room < to.rxCapacity() / 2)) {
                // sender-side silly window avoidance (RFC 9293 §3.8.6.2.1): wait for the window to take the whole
                // segment, or half the receiver's buffer, rather than cut it
                stats.zeroWindowCycles++;
                return;
            }
            int size = (int) Math.min(want, room);
            want = 0;
            Seg s = new Seg(sndNxt, from.tx.take(size));
            sndNxt += size;
            stats.octets += size;
            unacked.add(s);
            stats.maxInFlight = Math.max(stats.maxInFlight, sndNxt - sndUna);
            transmit(s, now);
        }
    }

    private boolean mayTransmit() {
        return o.rate() <= 0 || tokens > 0;
    }

    private void transmit(Seg s, long now) {
        s.lastSent = now;
        nextTimeout = Math.min(nextTimeout, now + rto);
        tokens -= s.data.length;
        stats.segment(s.data.length);
        if (capture != null) {
            capture.data(sender, now, seqBase + s.off, reverse.ackSeq(), reverse.window(), s.data, 0, s.data.length);
        }
        if (o.loss() > 0 && rng.nextDouble() < o.loss()) {
            stats.lost++;
            return;
        }
        int d = o.delayMin() + (o.delayMax() > o.delayMin() ? rng.nextInt(o.delayMax() - o.delayMin() + 1) : 0);
        wire.add(new Flight(now + d, order++, s.off, s.data));
    }

    private void onAck(Ack a) {
        if (a.ackOff > sndUna) {
            sndUna = a.ackOff;
            Iterator<Seg> it = unacked.iterator();
            while (it.hasNext() && it.next().end() <= sndUna) {
                it.remove();
            }
        }
        sndEdge = Math.max(sndEdge, a.ackOff + a.window);
    }

    // ------------------------------------------------------------------------------------------------ receiver

    private void onArrival(Flight f) {
        ackNow = true;
        long end = f.off + f.data.length;
        if (end <= rcvNxt) {
            stats.duplicateOctets += f.data.length;
            return;
        }
        if (f.off > rcvNxt) {
            if (end > rcvNxt + window()) {
                return; // beyond the window: dropped, the sender retransmits
            }
            byte[] had = ooo.get(f.off);
            if (had != null && had.length >= f.data.length) {
                stats.duplicateOctets += f.data.length;
            } else {
                ooo.put(f.off, f.data);
                stats.outOfOrder++;
            }
            return;
        }
        deliver(f.off, f.data);
        while (!ooo.isEmpty() && ooo.firstKey() <= rcvNxt) {
            Map.Entry<Long, byte[]> e = ooo.pollFirstEntry();
            if (e.getKey() + e.getValue().length > rcvNxt) {
                deliver(e.getKey(), e.getValue());
            } else {
                stats.duplicateOctets += e.getValue().length;
            }
        }
    }

    /** Delivers the part of {@code data} (starting at {@code off <= rcvNxt}) after rcvNxt that fits the window. */
    private void deliver(long off, byte[] data) {
        int skip = (int) (rcvNxt - off);
        int n = Math.min(data.length - skip, window());
        stats.duplicateOctets += skip;
        if (n <= 0) {
            return;
        }
        to.deliver(skip == 0 && n == data.length ? data : Arrays.copyOfRange(data, skip, skip + n));
        rcvNxt += n;
        stats.delivered += n;
    }

    private void sendAck(long now) {
        ackNow = false;
        int w = window();
        advertisedEdge = rcvNxt + w;
        stats.acks++;
        if (capture != null) {
            capture.ack(1 - sender, now, reverse.nextSeq(), ackSeq(), w);
        }
        int d = o.delayMax();
        lastAckArrival = Math.max(lastAckArrival, now + d);
        acks.add(new Ack(lastAckArrival, rcvNxt, w));
    }
}
