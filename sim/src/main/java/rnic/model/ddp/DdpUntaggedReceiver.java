package rnic.model.ddp;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import rnic.wire.Ddp;
import rnic.wire.TerminateCause;

/**
 * Golden model of the DDP untagged receive checks of one stream over an in-order LLP (RFC 5041 §5.3–§5.4, §7.1;
 * DDP-23, DDP-24, DDP-29, DDP-31): which segments may be placed, which complete a message, and which fail with which
 * cause.
 *
 * <p>Each open queue holds the receive buffers posted to it, oldest first; the oldest takes the message with the
 * queue's expected MSN (from 1, +1 mod 2^32 per message). A segment is checked for the five conditions of DDP-29 in
 * this order, the MSN (DDP-29's check 5) before the offsets, which only mean something within the right message:
 * <ol>
 * <li>its QN names an open queue, else {@link TerminateCause#DDP_INVALID_QN} (E-D8);</li>
 * <li>the queue has a buffer, else {@link TerminateCause#DDP_NO_BUFFER} (E-D9) — also for a zero-length message,
 * which still consumes one (T-15);</li>
 * <li>its MSN is the expected one, else {@link TerminateCause#DDP_INVALID_MSN} (E-D10): in order, the legal range of
 * DDP-29 (5) is that single MSN (docs/requirements.md §2.8.2);</li>
 * <li>its MO continues the octets already received, and lies inside the buffer when the segment has payload, else
 * {@link TerminateCause#DDP_INVALID_MO} (E-D11; the contiguity rule is the derived one of docs/requirements.md §3.2);</li>
 * <li>MO + length fits the buffer, else {@link TerminateCause#DDP_MESSAGE_TOO_LONG} (E-D12).</li>
 * </ol>
 * The L=1 segment delivers the message (its length is MO + payload length, DDP-24) and consumes the buffer. After the
 * first error every later segment is dropped silently (DDP-31).
 */
public final class DdpUntaggedReceiver {

    /**
     * A delivered untagged message (DDP-24).
     *
     * @param qn      its queue
     * @param msn     its MSN
     * @param length  MO + payload length of its L=1 segment
     * @param rsvdUlp the RsvdULP of its L=1 segment (DDP-13: any segment's value may be given to the ULP)
     */
    public record Delivery(long qn, long msn, long length, long rsvdUlp) {
    }

    /** One untagged queue: posted buffer sizes, expected MSN and octets received of the current message. */
    private static final class Queue {
        final ArrayDeque<Long> buffers = new ArrayDeque<>();
        long expectedMsn;
        long received;

        Queue(long firstMsn) {
            expectedMsn = firstMsn;
        }
    }

    private final long firstMsn;
    private final Map<Long, Queue> queues = new HashMap<>();
    private boolean failed;

    /** A receiver whose queues expect MSN 1 first (DDP-15). */
    public DdpUntaggedReceiver() {
        this(Ddp.FIRST_MSN);
    }

    /** A receiver whose queues expect {@code firstMsn} first, to follow a preloaded peer (the DDP-15 wrap test). */
    public DdpUntaggedReceiver(long firstMsn) {
        if ((firstMsn & ~Ddp.U32_MASK) != 0) {
            throw new IllegalArgumentException("MSN is 32-bit unsigned: " + firstMsn);
        }
        this.firstMsn = firstMsn;
    }

    /** Makes {@code qn} a valid queue of the stream (for RDMAP: 0, 1, 2, and 3 with RFC 7306). */
    public void open(long qn) {
        queues.putIfAbsent(qn, new Queue(firstMsn));
    }

    /** Posts a receive buffer of {@code capacity} octets to the open queue {@code qn}. */
    public void post(long qn, long capacity) {
        Queue q = queues.get(qn);
        if (q == null) {
            throw new IllegalArgumentException("queue " + qn + " is not open");
        }
        if (capacity < 0 || capacity > Ddp.U32_MASK) {
            throw new IllegalArgumentException("buffer capacity must be 0 .. 2^32-1, got " + capacity);
        }
        q.buffers.add(capacity);
    }

    /** True once a segment failed; every later one is dropped. */
    public boolean failed() {
        return failed;
    }

    /**
     * Checks one untagged segment with {@code payloadLength} payload octets and accounts for it.
     *
     * @return the delivered message when this was its L=1 segment; empty for an earlier segment or once failed
     * @throws TerminateException the first failing check; the segment is not placed and the receiver is failed
     */
    public Optional<Delivery> receive(DdpUntaggedHeader h, int payloadLength) throws TerminateException {
        if (failed) {
            return Optional.empty();
        }
        try {
            return accept(h, payloadLength);
        } catch (TerminateException e) {
            failed = true;
            throw e;
        }
    }

    private Optional<Delivery> accept(DdpUntaggedHeader h, int payloadLength) throws TerminateException {
        Queue q = queues.get(h.qn());
        if (q == null) {
            throw new TerminateException(TerminateCause.DDP_INVALID_QN, "QN " + h.qn());
        }
        Long capacity = q.buffers.peek();
        if (capacity == null) {
            throw new TerminateException(TerminateCause.DDP_NO_BUFFER, "no buffer posted on QN " + h.qn());
        }
        if (h.msn() != q.expectedMsn) {
            throw new TerminateException(TerminateCause.DDP_INVALID_MSN,
                    "QN " + h.qn() + " MSN " + h.msn() + ", expected " + q.expectedMsn);
        }
        if (h.mo() != q.received || payloadLength > 0 && h.mo() >= capacity) {
            throw new TerminateException(TerminateCause.DDP_INVALID_MO, "MO " + h.mo() + " with " + q.received
                    + " octets received into a " + capacity + "-octet buffer");
        }
        long end = h.mo() + payloadLength;
        if (end > capacity) {
            throw new TerminateException(TerminateCause.DDP_MESSAGE_TOO_LONG,
                    "MO + length = " + end + " beyond the " + capacity + "-octet buffer");
        }
        q.received = end;
        if (!h.last()) {
            return Optional.empty();
        }
        q.buffers.remove();
        q.received = 0;
        q.expectedMsn = Ddp.nextMsn(q.expectedMsn);
        return Optional.of(new Delivery(h.qn(), h.msn(), end, h.rsvdUlp()));
    }
}
