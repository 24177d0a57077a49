package rnic.verbs;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import rnic.driver.CqeView;
import rnic.driver.DeviceClock;
import rnic.wire.CqeKind;
import rnic.wire.QpState;

/**
 * The asynchronous events of a {@link Device} (verbs {@code ibv_get_async_event}), from
 * {@link Device#asyncEventChannel()}: a queue pair the core moved to ERR (IRQ_STATUS.ASYNC; the cause from QP_ERROR
 * and, for a received Terminate, its octets from the queue pair's error entry on the send completion queue, read
 * without taking it), a TCP connection the peer closed, and a completion queue the core marked overflowed
 * (CQ_STATUS.OVERFLOW, also IRQ_STATUS.ASYNC). One event per failure: a queue pair is reported again only after it was
 * seen out of ERR, a completion queue once.
 *
 * <p>Waiting blocks on the core's interrupt; TCP connections are looked at between slices of
 * {@link #TCP_CHECK_INTERVAL} device time, since a closing peer raises no interrupt of the core.
 */
public final class AsyncEventChannel {
    /** How often a wait looks at the TCP connections. */
    public static final Duration TCP_CHECK_INTERVAL = Duration.ofNanos(10_000);
    /** Device cycles to wait for a received Terminate's entry to reach host memory after QP_STATE shows ERR. */
    static final int ENTRY_WAIT_CYCLES = 2_000;

    private final Device device;
    private final ArrayDeque<AsyncEvent> events = new ArrayDeque<>();
    private final Set<QueuePair> errorReported = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<QueuePair> closeReported = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<CompletionQueue> overflowReported = Collections.newSetFromMap(new IdentityHashMap<>());
    private final CqeView view = new CqeView();

    AsyncEventChannel(Device device) {
        this.device = device;
    }

    public Device device() {
        return device;
    }

    /** The next event, or null when none has happened; lets no device time pass beyond one register access. */
    public AsyncEvent poll() {
        device.ensureOpen();
        device.serviceInterrupt();
        collect();
        return events.poll();
    }

    /**
     * Blocks until an event arrives or {@code timeout} of device time has passed.
     *
     * @return the event, or null after the timeout
     * @throws IllegalArgumentException for a negative or null timeout
     */
    public AsyncEvent await(Duration timeout) {
        device.ensureOpen();
        long deadline = device.nanoTime() + DeviceClock.check(timeout).toNanos();
        long slice = TCP_CHECK_INTERVAL.toNanos();
        while (true) {
            collect();
            AsyncEvent e = events.poll();
            if (e != null) {
                return e;
            }
            long now = device.nanoTime();
            if (now >= deadline) {
                return null;
            }
            device.waitForInterrupt(Math.min(deadline, now + slice));
        }
    }

    private void collect() {
        if (device.takeAsyncEvent()) {
            scanErrors();
            for (CompletionQueue cq : device.completionQueues()) {
                if (!overflowReported.contains(cq) && cq.overflowed()) {
                    overflowReported.add(cq);
                    events.add(new AsyncEvent(AsyncEvent.Type.CQ_ERROR, null, null, device.nanoTime(), cq));
                }
            }
        }
        for (QueuePair qp : device.queuePairs()) {
            if (qp.isClosed() || qp.tcpConnection() == null || closeReported.contains(qp)) {
                continue;
            }
            if (qp.tcpConnection().closed()) {
                closeReported.add(qp);
                events.add(new AsyncEvent(AsyncEvent.Type.TCP_CLOSED, qp, null, device.nanoTime()));
            }
        }
    }

    private void scanErrors() {
        for (QueuePair qp : device.queuePairs()) {
            if (qp.isClosed()) {
                continue;
            }
            if (qp.state() != QpState.ERR) {
                errorReported.remove(qp);
                closeReported.remove(qp);
                continue;
            }
            if (!errorReported.add(qp)) {
                continue;
            }
            Completion cause = qp.error();
            if (cause == null) {
                continue; // the host moved it to ERR: not an asynchronous event
            }
            if (cause.cqeKind() == CqeKind.TERMINATE_RECEIVED && cause.info() == 0) {
                Completion full = receivedTerminate(qp, cause);
                if (full != null) {
                    cause = full;
                }
            }
            events.add(new AsyncEvent(AsyncEvent.Type.QP_ERROR, qp, cause, device.nanoTime()));
        }
    }

    /** The QP's TERMINATE_RECEIVED entry, not yet polled, as a completion with the Terminate's octets; or null. */
    private Completion receivedTerminate(QueuePair qp, Completion cause) {
        CompletionQueue cq = qp.sendCompletionQueue();
        long start = device.cycles();
        while (!cq.peek(qp.number(), CqeKind.TERMINATE_RECEIVED, view)) {
            if (device.cycles() - start > ENTRY_WAIT_CYCLES) {
                return null; // already polled by the application, or not written: the octets stay unknown
            }
            device.transport().advance();
        }
        Completion c = new Completion();
        c.reset(Completion.NO_WR_ID, CompletionStatus.of(CqeKind.TERMINATE_RECEIVED, view.status, view.info),
                CompletionOpcode.QP_ERROR, qp.number());
        c.raw(CqeKind.TERMINATE_RECEIVED, view.status, view.info);
        return c;
    }

    @Override
    public String toString() {
        return "AsyncEventChannel[" + events.size() + " queued]";
    }
}
