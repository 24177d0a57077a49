package rnic.verbs;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import rnic.driver.CompletionRing;
import rnic.driver.CqeView;
import rnic.driver.DeviceClock;
import rnic.driver.Ring;
import rnic.wire.Cqe;

/**
 * A completion queue (verbs {@code ibv_cq}): a ring of completion entries the core writes into host memory, polled
 * into an array the caller owns without allocating. Entries of the core come first; then the flush completions the
 * driver makes for the requests of a queue pair that entered ERR. Closing it closes the queue pairs attached to it
 * first (pyverbs).
 *
 * <p>A queue created on a {@link CompletionChannel} can ask for an event ({@link #requestNotify}): the core raises it
 * when the next entry that counts is in host memory, and the channel's {@code await} returns this queue.
 */
public final class CompletionQueue implements AutoCloseable {
    private final Device device;
    private final int number;
    private final DmaBuffer memory;
    private final CompletionRing ring;
    private final CqeView view = new CqeView();
    private final ArrayDeque<QueuePair> flushing = new ArrayDeque<>();
    private final List<QueuePair> attached = new ArrayList<>();
    private final CompletionChannel channel;
    /** A notify request is outstanding (the driver's view: cleared when the channel hands out the event). */
    private boolean notifyArmed;
    private int reserved;
    private long strays;
    private boolean closed;

    private CompletionQueue(Device device, int number, DmaBuffer memory, int log2, CompletionChannel channel) {
        this.device = device;
        this.channel = channel;
        this.number = number;
        this.memory = memory;
        this.ring = new CompletionRing(device.registers(), number, memory.address(), log2);
    }

    static CompletionQueue create(Device device, int number, int minEntries, CompletionChannel channel) {
        if (minEntries < 1 || minEntries > 1 << Ring.MAX_LOG2_SLOTS) {
            throw new IllegalArgumentException("a completion queue holds 1 … " + (1 << Ring.MAX_LOG2_SLOTS)
                    + " entries, asked for " + minEntries);
        }
        int log2 = Ring.log2For(minEntries);
        DmaBuffer memory = device.allocate((int) Ring.bytes(log2, Cqe.SIZE), 4096);
        CompletionQueue cq = new CompletionQueue(device, number, memory, log2, channel);
        cq.ring.program();
        // A previous queue of this number may have left a request or an event behind.
        device.interrupts().cancelNotify(number);
        device.clearCqEvent(number);
        if (channel != null) {
            channel.attach(cq);
            device.interrupts().enableCq(number, true);
        }
        return cq;
    }

    /** The CQ number queue pairs report into (QP_SQ_CQ, QP_RQ_CQ). */
    public int number() {
        return number;
    }

    /**
     * The core dropped an entry that met this queue full, and drops every later one (CQ_STATUS.OVERFLOW, verbs
     * CQ_ERR). The driver reserves room for every entry its queue pairs can produce, so only a core driven past
     * the verbs gets here; the queue stays usable for what it holds, and a new queue of the number starts clean.
     */
    public boolean overflowed() {
        device.ensureOpen();
        return ring.overflowed();
    }

    /** Entries the ring holds. */
    public int capacity() {
        return ring.slots();
    }

    /** Entries reserved by the queues attached so far (their depths plus one error entry per queue pair). */
    public int reserved() {
        return reserved;
    }

    public Device device() {
        return device;
    }

    /** The completion channel this queue reports to, or null. */
    public CompletionChannel channel() {
        return channel;
    }

    /**
     * Asks for one event on this queue's channel (verbs {@code ibv_req_notify_cq}): at the next completion entry the
     * core writes — with {@code solicitedOnly}, the next receive completion of a message with the Solicited Event
     * flag (Send with SE, Send with SE and Invalidate, Immediate Data with SE) or the next failed completion — the
     * channel's {@link CompletionChannel#await} returns this queue. One request gives one event; ask again after it.
     * Entries already in the queue do not count: poll after arming so none is left behind. A request for any
     * completion replaces a solicited-only one (and the other way round).
     *
     * @throws InvalidRequestException when the queue was not created on a completion channel
     */
    public void requestNotify(boolean solicitedOnly) {
        ensureOpen();
        if (channel == null) {
            throw new InvalidRequestException("completion queue " + number + " was not created on a completion"
                    + " channel: create it with Device.createCompletionQueue(entries, channel)");
        }
        device.interrupts().requestNotify(number, solicitedOnly);
        notifyArmed = true;
    }

    /** Whether a notify request is outstanding (asked for, its event not yet handed out by the channel). */
    public boolean notifyRequested() {
        return notifyArmed;
    }

    /** The channel hands out this queue's event: the request is used up. */
    void notified() {
        if (notifyArmed) {
            notifyArmed = false;
            // The core disarms itself when it fires; a flush event fired in software, so withdraw the request there.
            device.interrupts().cancelNotify(number);
        }
    }

    /** An armed queue with the driver's flush completions waiting: those are failed completions, they count. */
    boolean flushEventDue() {
        return notifyArmed && !flushing.isEmpty();
    }

    public boolean isClosed() {
        return closed;
    }

    /** Entries of the core for queue pairs that no longer exist or work requests already flushed (a diagnostic). */
    public long strayEntries() {
        return strays;
    }

    void ensureOpen() {
        if (closed) {
            throw new ResourceClosedException("completion queue " + number + " is closed");
        }
    }

    /**
     * Refuses a queue pair whose queues could fill this completion queue.
     *
     * @throws CompletionQueueOverflowException when {@code entries} more do not fit
     */
    void checkRoom(int entries) {
        if (reserved + entries > capacity()) {
            throw new CompletionQueueOverflowException("completion queue " + number + " holds " + capacity()
                    + " entries with " + reserved + " reserved; the new queue pair needs " + entries
                    + " more (queue depths + 1 error entry): create a larger completion queue or smaller queues");
        }
    }

    void reserve(QueuePair qp, int entries) {
        reserved += entries;
        if (!attached.contains(qp)) {
            attached.add(qp);
        }
    }

    void release(QueuePair qp, int entries) {
        reserved -= entries;
        attached.remove(qp);
        flushing.remove(qp);
    }

    void cancelFlush(QueuePair qp) {
        flushing.remove(qp);
    }

    void flush(QueuePair qp) {
        if (!flushing.contains(qp)) {
            flushing.add(qp);
        }
    }

    /**
     * Whether {@link #poll} has anything to take: an entry the core has written and the host has not polled, or a
     * flushed work request. Reads host memory only — no register access — so a program waiting for completions can
     * pass it to {@link rnic.transport.Transport#advanceUntil}. ({@code poll} may still return 0 after it held: an
     * entry of a queue pair already destroyed is taken without a completion.)
     */
    public boolean hasCompletions() {
        ensureOpen();
        return !flushing.isEmpty() || ring.ready();
    }

    /** Polls into {@code out}; returns how many completions were written (0 when none is ready). */
    public int poll(Completion[] out) {
        return poll(out, 0, out.length);
    }

    /** Polls at most {@code max} completions into {@code out[offset …]}; null slots get a new Completion once. */
    public int poll(Completion[] out, int offset, int max) {
        ensureOpen();
        if (offset < 0 || max < 0 || offset + max > out.length) {
            throw new IndexOutOfBoundsException("offset " + offset + ", max " + max + ", array of " + out.length);
        }
        int n = 0;
        while (n < max && ring.next(view)) {
            QueuePair qp = device.queuePair(view.qp);
            Completion c = slot(out, offset + n);
            if (qp != null && qp.complete(view, c, this)) {
                n++;
            } else if (qp == null) {
                strays++;
            }
        }
        ring.release();
        while (n < max && !flushing.isEmpty()) {
            QueuePair qp = flushing.peek();
            if (qp.nextFlush(this, slot(out, offset + n))) {
                n++;
            } else {
                flushing.poll();
            }
        }
        return n;
    }

    /** The core's not yet polled entry of kind {@code kind} for QP {@code qp}, decoded into {@code into}. */
    boolean peek(int qp, rnic.wire.CqeKind kind, CqeView into) {
        return ring.peek(into, v -> v.qp == qp && v.kind == kind.code());
    }

    void stray() {
        strays++;
    }

    private static Completion slot(Completion[] out, int i) {
        Completion c = out[i];
        if (c == null) {
            c = new Completion();
            out[i] = c;
        }
        return c;
    }

    /**
     * Polls until at least one completion arrived or {@code timeout} of device time passed, letting the device run
     * ({@code transport.advance()}) between polls.
     *
     * @return completions written into {@code out} (0 after a timeout)
     */
    public int await(Completion[] out, Duration timeout) {
        return awaitCount(out, 1, timeout);
    }

    /**
     * Polls until {@code count} completions were written into {@code out[0 …]} or {@code timeout} of device time
     * passed.
     *
     * @return completions written (fewer than {@code count} after a timeout)
     */
    public int awaitCount(Completion[] out, int count, Duration timeout) {
        DeviceClock.check(timeout);
        if (count < 1 || count > out.length) {
            throw new IllegalArgumentException("count " + count + " for an array of " + out.length);
        }
        long start = device.nanoTime();
        long limit = timeout.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : timeout.toNanos();
        int n = poll(out, 0, count);
        while (n < count && device.nanoTime() - start <= limit) {
            device.transport().advance();
            n += poll(out, n, count - n);
        }
        return n;
    }

    /** Closes the attached queue pairs, then returns the ring memory. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        for (QueuePair qp : List.copyOf(attached)) {
            qp.close();
        }
        closed = true;
        if (channel != null) {
            device.interrupts().enableCq(number, false);
            channel.detach(this);
        }
        device.interrupts().cancelNotify(number);
        device.clearCqEvent(number);
        memory.close();
        device.forget(this);
    }

    @Override
    public String toString() {
        return "CQ[" + number + ", " + capacity() + " entries" + (closed ? ", closed" : "") + "]";
    }
}
