package rnic.sim;

/**
 * A per-cycle callback pair, the {@code onSamplings} style of driving a model: {@link Tb} calls every agent once per
 * clock cycle, on the thread that owns the model, with no thread hand-off.
 *
 * <ul>
 *   <li>{@link #sample()} runs just before the rising edge, with inputs settled: read outputs and decide what this
 *       edge transfers (for a stream, {@code valid && ready}).</li>
 *   <li>{@link #drive()} runs just after the rising edge: set the inputs for the next cycle.</li>
 * </ul>
 */
public interface Agent {
    /** Called before each rising edge with all signals settled. */
    default void sample() {
    }

    /** Called after each rising edge; writes the inputs of the next cycle. */
    default void drive() {
    }

    /** True while the agent still has work queued; {@link Tb#runUntilIdle} waits for every agent. */
    default boolean busy() {
        return false;
    }
}
