package rnic.cm;

import java.time.Duration;
import java.util.ArrayDeque;

/**
 * A queue of connection events (librdmacm's {@code rdma_event_channel}); {@link #await} is
 * {@code rdma_get_cm_event}. Waiting lets the device run ({@code Transport.advance()}) and drives every connection
 * setup of the manager, so one thread can serve many connections. Events stay until taken; there is nothing to
 * acknowledge.
 */
public final class CmEventChannel {
    private final ConnectionManager manager;
    private final ArrayDeque<CmEvent> events = new ArrayDeque<>();

    CmEventChannel(ConnectionManager manager) {
        this.manager = manager;
    }

    ConnectionManager manager() {
        return manager;
    }

    void post(CmEvent e) {
        events.add(e);
    }

    /** The next event if one is ready after one round of progress, else null (never waits). */
    public CmEvent poll() {
        manager.progress();
        return events.poll();
    }

    /**
     * The next event, waiting up to {@code timeout} of device time for one.
     *
     * @return the event, or null when none came in time
     */
    public CmEvent await(Duration timeout) {
        long start = manager.nanoTime();
        long limit = timeout.toNanos();
        while (true) {
            manager.progress();
            CmEvent e = events.poll();
            if (e != null || manager.nanoTime() - start > limit) {
                return e;
            }
            manager.advance();
        }
    }

    /**
     * The next event, which must be of type {@code type}, waiting up to {@code timeout}.
     *
     * @throws ConnectionTimeoutException when none came in time
     * @throws IllegalStateException      when another kind of event came first (it is returned to the head)
     */
    public <E extends CmEvent> E await(Class<E> type, Duration timeout) {
        CmEvent e = await(timeout);
        if (e == null) {
            throw new ConnectionTimeoutException("no " + type.getSimpleName() + " event within " + timeout);
        }
        if (!type.isInstance(e)) {
            events.addFirst(e);
            throw new IllegalStateException("expected " + type.getSimpleName() + ", got " + e);
        }
        return type.cast(e);
    }

    /** Events waiting. */
    public int pending() {
        return events.size();
    }
}
