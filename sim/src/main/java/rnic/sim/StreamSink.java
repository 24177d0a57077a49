package rnic.sim;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Takes beats from a valid/ready stream of the design, with {@code ready} driven by a {@link Pacer} (back-pressure).
 * It also checks the stream contract: a beat that was presented and not taken must stay presented, unchanged.
 *
 * @param <B> the beat type; a reader builds one beat from the payload signals
 */
public class StreamSink<B> implements Agent {
    private final String name;
    private final SimSignal valid;
    private final SimSignal ready;
    private final Supplier<B> reader;
    private final Pacer pacer;
    private final Consumer<B> onBeat;
    private boolean readyNow;
    private B stalled;
    private long received;

    public StreamSink(String name, SimSignal valid, SimSignal ready, Supplier<B> reader, Pacer pacer,
            Consumer<B> onBeat) {
        this.name = name;
        this.valid = valid;
        this.ready = ready;
        this.reader = reader;
        this.pacer = pacer;
        this.onBeat = onBeat;
        ready.set(false);
    }

    /**
     * The design restarts this stream (its source is reset): a beat shown and not yet taken may be withdrawn from
     * the next cycle on, which the contract otherwise forbids.
     */
    public void restart() {
        stalled = null;
    }

    /** Beats taken so far. */
    public long received() {
        return received;
    }

    @Override
    public void sample() {
        boolean v = valid.getBool();
        if (stalled != null) {
            if (!v) {
                throw new AssertionError(name + ": valid dropped while a beat was waiting for ready");
            }
            B now = reader.get();
            if (!Objects.deepEquals(now, stalled)) {
                throw new AssertionError(name + ": payload changed while waiting for ready: " + stalled + " -> "
                        + now);
            }
        }
        if (!v) {
            return;
        }
        B beat = stalled != null ? stalled : reader.get();
        if (readyNow) {
            stalled = null;
            received++;
            onBeat.accept(beat);
        } else {
            stalled = beat;
        }
    }

    @Override
    public void drive() {
        readyNow = pacer.allow();
        ready.set(readyNow);
    }
}
