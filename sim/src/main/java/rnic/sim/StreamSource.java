package rnic.sim;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * Drives a valid/ready stream into the design: beats are queued with {@link #push}, presented when the {@link Pacer}
 * allows (idle insertion), and held stable until the design accepts them, as the stream contract requires.
 *
 * @param <B> the beat type; a writer puts one beat on the payload signals
 */
public class StreamSource<B> implements Agent {
    private final SimSignal valid;
    private final SimSignal ready;
    private final Consumer<B> writer;
    private final Pacer pacer;
    private final ArrayDeque<B> queue = new ArrayDeque<>();
    private B current;
    private long sent;
    private Consumer<B> accepted = b -> {
    };

    public StreamSource(SimSignal valid, SimSignal ready, Consumer<B> writer, Pacer pacer) {
        this.valid = valid;
        this.ready = ready;
        this.writer = writer;
        this.pacer = pacer;
        valid.set(false);
    }

    /** Calls {@code listener} with each beat in the cycle the design accepts it. */
    public StreamSource<B> onAccepted(Consumer<B> listener) {
        this.accepted = listener;
        return this;
    }

    /** Queues a beat. */
    public void push(B beat) {
        queue.add(beat);
    }

    /** Beats accepted by the design so far. */
    public long sent() {
        return sent;
    }

    /** Beats queued and not yet accepted. */
    public int pending() {
        return queue.size() + (current == null ? 0 : 1);
    }

    @Override
    public void sample() {
        if (current != null && ready.getBool()) {
            B done = current;
            current = null;
            sent++;
            accepted.accept(done);
        }
    }

    @Override
    public void drive() {
        if (current != null) {
            return; // presented and not yet accepted: keep valid and payload
        }
        if (!queue.isEmpty() && pacer.allow()) {
            current = queue.poll();
            writer.accept(current);
            valid.set(true);
        } else {
            valid.set(false);
        }
    }

    @Override
    public boolean busy() {
        return current != null || !queue.isEmpty();
    }
}
