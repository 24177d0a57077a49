package rnic.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;
import scala.collection.mutable.ArrayBuffer;
import spinal.core.BaseType;
import spinal.core.Bool;
import spinal.core.ClockDomain;
import spinal.core.Component;
import spinal.core.HIGH$;
import spinal.sim.Signal;
import spinal.sim.SimRaw;

/**
 * The testbench context of one simulation run: the clock, reset, signal handles, agents and scoreboards.
 *
 * <p>Each {@link #step()} is one clock cycle: every agent's {@link Agent#sample()} with the inputs settled, the rising
 * edge, every agent's {@link Agent#drive()}, the falling edge. All of it runs on the thread that owns the model with
 * direct signal accessors; there is no thread hand-off per cycle.
 *
 * <p>A design with a top-level input named {@value #INPUT_LATCH} registers its inputs on that clock: the testbench
 * raises it with the falling edge of a cycle in which any input was written, and lowers it with the next rising edge.
 * Inputs written between a rising and the next falling edge (in {@code drive()}) so reach the design as they would
 * wired straight through, and a half cycle without input changes costs Verilator almost nothing. A design may instead
 * have several such clocks, one per group of inputs (the two-RNIC top: one per interface of each core): an input
 * named {@code inputLatch_<g>} clocks the registers of the inputs whose names start with {@code <g>_} (the longest
 * such {@code <g>} wins), and is raised only when one of those inputs was written — so Verilator re-evaluates only
 * the logic behind the interfaces that changed. An input of no group raises them all.
 */
public final class Tb<T extends Component> {
    /** The name of the input that clocks a design's input registers, when it has one. */
    public static final String INPUT_LATCH = "inputLatch";

    /** Whether any input was written since the input registers last took the inputs in. */
    static final class Writes {
        boolean pending = true;
    }

    private final T dut;
    private final SimRaw raw;
    private final NativeModel model;
    private final ArrayBuffer<Signal> signals;
    private final long seed;
    private final Random random;
    private final boolean wave;
    private final SimSignal clk;
    private final SimSignal reset;
    private final boolean resetActiveHigh;
    /** The input-latch clocks, if the design has any (see the class comment). */
    private final Latch[] latches;
    /** Writes of inputs outside every latch group (and of every input when the design has no latch). */
    private final Writes writes = new Writes();
    private final List<Agent> agentList = new ArrayList<>();
    private Agent[] agents = new Agent[0];
    private final List<Scoreboard<?>> scoreboards = new ArrayList<>();
    private long cycle;

    @SuppressWarnings("unchecked")
    Tb(T dut, SimRaw raw, long seed, boolean wave) {
        this.dut = dut;
        this.raw = raw;
        this.model = NativeModel.of(raw);
        this.signals = (ArrayBuffer<Signal>) raw.userData();
        this.seed = seed;
        this.random = new Random(seed);
        this.wave = wave;
        ClockDomain cd = dut.clockDomain().get();
        // The clocks are not inputs in this sense: their writes do not count as input changes.
        this.clk = signal(topLevel(cd.clock()), new Writes());
        this.reset = cd.reset() == null ? null : signal(topLevel(cd.reset()), writes);
        this.resetActiveHigh = cd.config().resetActiveLevel() == HIGH$.MODULE$;
        List<Latch> found = new ArrayList<>();
        var io = dut.getAllIo().iterator();
        while (io.hasNext()) {
            BaseType bt = io.next();
            String n = bt.getName();
            if (bt.isInput() && (n.equals(INPUT_LATCH) || n.startsWith(INPUT_LATCH + "_"))) {
                SimSignal s = signal(bt, new Writes());
                found.add(new Latch(n.equals(INPUT_LATCH) ? null : n.substring(INPUT_LATCH.length() + 1) + "_", s,
                        n.equals(INPUT_LATCH) ? writes : new Writes()));
                s.set(0);
            }
        }
        this.latches = found.toArray(new Latch[0]);
        clk.set(0);
        if (reset != null) {
            reset.set(!resetActiveHigh);
        }
        raw.eval();
    }

    /** The toplevel port that carries a clock-domain signal (SpinalHDL pulls the domain's signals up to the top). */
    private BaseType topLevel(Bool bool) {
        if ((bool.isInput() || bool.isOutput()) && bool.component() != null && bool.component().parent() == null) {
            return bool;
        }
        var pulled = dut.pulledDataCache().get(bool);
        if (pulled.isEmpty()) {
            throw new IllegalStateException("clock-domain signal " + bool + " is not a port of " + dut);
        }
        return (BaseType) pulled.get();
    }

    /** The elaborated design under test. */
    public T dut() {
        return dut;
    }

    /** The seed of this run (printed by failing tests so they can be replayed). */
    public long seed() {
        return seed;
    }

    /** A random source derived from the seed. */
    public Random random() {
        return random;
    }

    /** Clock cycles since the start of the run. */
    public long cycle() {
        return cycle;
    }

    /** A handle on a port (or a {@code simPublic()} signal) of the design. */
    public SimSignal signal(BaseType bt) {
        Latch group = null;
        if (bt.isInput()) {
            String n = bt.getName();
            for (Latch l : latches) {
                if (l.prefix != null && n.startsWith(l.prefix)
                        && (group == null || l.prefix.length() > group.prefix.length())) {
                    group = l;
                }
            }
        }
        return signal(bt, group == null ? writes : group.writes);
    }

    /** One input-latch clock: the inputs it registers are those whose names start with {@code prefix} (null: all). */
    private record Latch(String prefix, SimSignal clock, Writes writes) {
    }

    private SimSignal signal(BaseType bt, Writes noted) {
        if (bt.algoIncremental() != -1 || bt.algoInt() < 0 || bt.algoInt() >= signals.size()) {
            throw new IllegalArgumentException(bt + " is not accessible in simulation: use a port or call simPublic()");
        }
        return new SimSignal(raw, model, signals.apply(bt.algoInt()), bt.getName(), noted);
    }

    /** Adds an agent; it is called from the next cycle on. */
    public <A extends Agent> A add(A agent) {
        if (agentList.contains(agent)) {
            // An agent added twice samples twice per cycle: it would take every handshake twice.
            throw new IllegalArgumentException(agent + " is already added to this testbench");
        }
        agentList.add(agent);
        agents = agentList.toArray(new Agent[0]);
        return agent;
    }

    /** Registers a scoreboard that must be empty at the end of the run. */
    public <S> Scoreboard<S> add(Scoreboard<S> scoreboard) {
        scoreboards.add(scoreboard);
        return scoreboard;
    }

    /** Holds reset for {@code cycles} cycles, then releases it for one cycle. */
    public void reset(int cycles) {
        if (reset == null) {
            step(cycles);
            return;
        }
        reset.set(resetActiveHigh);
        raw.eval();
        step(cycles);
        reset.set(!resetActiveHigh);
        raw.eval();
        step(1);
    }

    private void eval() {
        if (model != null) {
            model.eval();
        } else {
            raw.eval();
        }
    }

    /**
     * Whether the cycles from now on go to the wave file, for a model built with waves ({@code -Drnic.wave}); without
     * one, nothing happens. A long run can so record only the stretch it is after.
     */
    public void recordWave(boolean on) {
        if (wave) {
            if (on) {
                raw.enableWave();
            } else {
                raw.disableWave();
            }
        }
    }

    /** One clock cycle. */
    public void step() {
        Agent[] a = agents;
        for (Agent agent : a) {
            agent.sample();
        }
        clk.set(1);
        for (Latch l : latches) {
            l.clock.set(0);
        }
        eval();
        if (wave) {
            raw.sleep(1);
        }
        cycle++;
        for (Agent agent : a) {
            agent.drive();
        }
        clk.set(0);
        if (latches.length > 0) {
            boolean all = writes.pending;
            for (Latch l : latches) {
                if (all || l.writes.pending) {
                    l.clock.set(1);
                    l.writes.pending = false;
                }
            }
            writes.pending = false;
        }
        eval();
        if (wave) {
            raw.sleep(1);
        }
    }

    /** {@code n} clock cycles. */
    public void step(long n) {
        for (long i = 0; i < n; i++) {
            step();
        }
    }

    /**
     * Steps until {@code done} holds (checked after each cycle); fails with {@code what} after {@code maxCycles}.
     *
     * @return the cycles it took
     */
    public long runUntil(BooleanSupplier done, long maxCycles, String what) {
        long start = cycle;
        while (!done.getAsBoolean()) {
            if (cycle - start >= maxCycles) {
                throw new AssertionError("timeout after " + maxCycles + " cycles waiting for " + what
                        + " (seed " + seed + ")");
            }
            step();
        }
        return cycle - start;
    }

    /** Steps until no agent is busy and every scoreboard is drained. */
    public long runUntilIdle(long maxCycles) {
        return runUntil(this::idle, maxCycles, "agents and scoreboards to drain");
    }

    private boolean idle() {
        for (Agent a : agents) {
            if (a.busy()) {
                return false;
            }
        }
        for (Scoreboard<?> s : scoreboards) {
            if (s.pending() != 0) {
                return false;
            }
        }
        return true;
    }

    void finish() {
        for (Scoreboard<?> s : scoreboards) {
            s.assertEmpty();
        }
    }
}
