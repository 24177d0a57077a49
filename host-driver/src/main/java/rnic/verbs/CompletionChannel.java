package rnic.verbs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import rnic.driver.DeviceClock;

/**
 * A completion channel (verbs {@code ibv_comp_channel}): completion queues are created on it
 * ({@link Device#createCompletionQueue(int, CompletionChannel)}), each arms its notify request
 * ({@link CompletionQueue#requestNotify}), and {@link #await} blocks until one of them has an event — backed by the
 * core's interrupt output ({@code Transport.awaitInterrupt}), so nothing polls the device while it waits. The usual
 * loop:
 *
 * <pre>{@code
 * cq.requestNotify(false);
 * while (running) {
 *     CompletionQueue ready = channel.await(Duration.ofMillis(10));
 *     if (ready == null) continue;                  // timeout
 *     ready.requestNotify(false);                   // re-arm first, then drain: nothing is missed
 *     for (int n; (n = ready.poll(completions)) > 0; ) { ... }
 * }
 * }</pre>
 *
 * <p>An event is one per notify request: the request fires at the first completion entry that counts (any, or only
 * solicited and failed ones) and is then disarmed. Flush completions the driver makes for a queue pair that entered
 * ERR count as failed completions: an armed queue with such completions waiting is returned at once. Closing the
 * channel is refused while completion queues are still on it.
 */
public final class CompletionChannel implements AutoCloseable {
    private final Device device;
    private final List<CompletionQueue> queues = new ArrayList<>();
    private int next;
    private boolean closed;

    CompletionChannel(Device device) {
        this.device = device;
    }

    public Device device() {
        return device;
    }

    /** The completion queues created on this channel and not closed. */
    public List<CompletionQueue> completionQueues() {
        return List.copyOf(queues);
    }

    public boolean isClosed() {
        return closed;
    }

    void ensureOpen() {
        if (closed) {
            throw new ResourceClosedException("completion channel of " + device.describe() + " is closed");
        }
        device.ensureOpen();
    }

    void attach(CompletionQueue cq) {
        queues.add(cq);
    }

    void detach(CompletionQueue cq) {
        queues.remove(cq);
    }

    /**
     * Blocks until a completion queue of this channel has an event or {@code timeout} of device time has passed.
     *
     * @return the queue whose notify request fired (poll it, then re-arm it), or null after the timeout
     * @throws IllegalArgumentException for a negative or null timeout
     */
    public CompletionQueue await(Duration timeout) {
        ensureOpen();
        long deadline = device.nanoTime() + DeviceClock.check(timeout).toNanos();
        while (true) {
            CompletionQueue ready = take();
            if (ready != null) {
                return ready;
            }
            if (!device.waitForInterrupt(deadline)) {
                return null;
            }
        }
    }

    /** The next queue with an event already seen (round robin), or null; does not wait. */
    public CompletionQueue poll() {
        ensureOpen();
        device.serviceInterrupt();
        return take();
    }

    private CompletionQueue take() {
        int n = queues.size();
        for (int i = 0; i < n; i++) {
            CompletionQueue cq = queues.get((next + i) % n);
            if (device.takeCqEvent(cq.number()) || cq.flushEventDue()) {
                next = (next + i + 1) % n;
                cq.notified();
                return cq;
            }
        }
        return null;
    }

    /**
     * Closes the channel. Idempotent.
     *
     * @throws InvalidRequestException when completion queues are still on it (close them first)
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (!queues.isEmpty()) {
            throw new InvalidRequestException("completion channel still has " + queues.size()
                    + " completion queue(s): close them first");
        }
        closed = true;
        device.forget(this);
    }

    @Override
    public String toString() {
        return "CompletionChannel[" + queues.size() + " CQs" + (closed ? ", closed" : "") + "]";
    }
}
