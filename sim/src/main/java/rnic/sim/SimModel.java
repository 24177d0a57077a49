package rnic.sim;

import java.io.File;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import rnic.hdl.Rtl;
import rnic.hdl.Scala;
import spinal.core.Component;
import spinal.core.sim.SimCompiled;
import spinal.core.sim.SpinalSimConfig;
import spinal.sim.SimManager;
import spinal.sim.SimManagerContext;

/**
 * A Verilator model of one (component, configuration), compiled once per JVM and reused by every test that asks for
 * the same key.
 *
 * <p>Models are built optimised: SpinalSim's optimisation level does not reach the C++ compile, because Verilator's
 * generated makefile ends the compile line with {@code OPT_FAST=-Os}. The model make is therefore run with
 * {@code OPT_FAST=-O3 OPT_GLOBAL=-O3} on its command line, and the C++ is compiled with {@code -march=native}
 * (measured here: 2.3× and a further 20–50 %). The make command is {@code sim/model-make} ({@code SPINAL_MAKE_CMD},
 * set by {@code ./rnic} and the Maven build), which adds those options.
 *
 * <p>A model from {@link #profileGuided} is compiled profile-guided: {@code sim/model-make} first builds and runs a
 * training program of {@value #TRAINING_CYCLES} idle cycles, then compiles the model with GCC's profile of it (the
 * two-RNIC model evaluates about a sixth faster per cycle). To pay for the second compile, Verilator writes such a
 * model's C++ in pieces of about {@value #SPLIT} statements instead of SpinalSim's 5 000: fewer files, each parsing
 * Verilator's headers once, compile in about 40 % less time at the same speed (the two-RNIC model: 32 s of CPU
 * instead of 51 s). Other models keep SpinalSim's pieces: the {@code Crc32c} harness, the yardstick of the speed
 * benchmarks, stays as it was measured (in larger pieces it gave a median of 2.74 M cycles/s against 3.01 M in five
 * alternated runs, within this machine's noise but not worth the doubt).
 *
 * <p>{@code -Drnic.wave=true} (or {@code vcd}/{@code fst}) adds tracing and writes one waveform per test under
 * {@code target/sim/<model>/<test>/}.
 */
public final class SimModel<T extends Component> {
    private static final Map<String, SimModel<?>> CACHE = new ConcurrentHashMap<>();
    private static final String MAKE_OPT = "OPT_FAST=-O3 OPT_GLOBAL=-O3";
    /** Statements per C++ file of a profile-guided model (Verilator's {@code --output-split}; per function a tenth). */
    static final int SPLIT = 30_000;
    /** Cycles of the training run of a {@link #profileGuided} model. */
    static final int TRAINING_CYCLES = 20_000;

    private final String key;
    private final SimCompiled<T> compiled;
    private final boolean wave;
    private final boolean profileGuided;

    private SimModel(String key, SimCompiled<T> compiled, boolean wave, boolean profileGuided) {
        this.key = key;
        this.compiled = compiled;
        this.wave = wave;
        this.profileGuided = profileGuided;
    }

    /**
     * The model for {@code key}, compiled from {@code factory} on first use. The key must identify the component class
     * and every elaboration parameter (e.g. {@code "Crc32c-w64"}).
     */
    public static <T extends Component> SimModel<T> of(String key, Supplier<T> factory) {
        return of(key, factory, false);
    }

    /**
     * As {@link #of}, compiled profile-guided (class comment): for the large models of long runs (the two-RNIC
     * system). A key names one model: asking for it both ways fails.
     */
    public static <T extends Component> SimModel<T> profileGuided(String key, Supplier<T> factory) {
        return of(key, factory, true);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Component> SimModel<T> of(String key, Supplier<T> factory, boolean profileGuided) {
        SimModel<T> m = (SimModel<T>) CACHE.computeIfAbsent(key, k -> compile(k, factory, profileGuided));
        if (m.profileGuided != profileGuided) {
            throw new IllegalArgumentException("model " + key + " is already compiled "
                    + (m.profileGuided ? "profile-guided" : "without a profile") + "; ask for it one way only");
        }
        return m;
    }

    private static synchronized <T extends Component> SimModel<T> compile(String key, Supplier<T> factory,
            boolean profileGuided) {
        warnUnlessModelMakeOptimised();
        String waveMode = System.getProperty("rnic.wave", "false").toLowerCase();
        boolean wave = !waveMode.equals("false") && !waveMode.isEmpty();
        File workspace = new File(System.getProperty("rnic.simDir", "target/sim"));
        SpinalSimConfig cfg = spinal.core.sim.package$.MODULE$.SimConfig()
                .withVerilator()
                .withConfig(Rtl.reproducibleConfig())
                .workspacePath(workspace.getPath())
                .workspaceName(key)
                .cachePath(new File(workspace, ".verilator-cache").getPath())
                .allOptimisation()
                .addSimulatorFlag("-CFLAGS -march=native");
        if (profileGuided) {
            // The macro is read by sim/model-make (and is part of the cache key: the two builds never mix).
            cfg = cfg.addSimulatorFlag("--output-split " + SPLIT + " --output-split-cfuncs " + SPLIT / 10)
                    .addSimulatorFlag("-CFLAGS -DRNIC_PGO_CYCLES=" + TRAINING_CYCLES);
        }
        // Extra Verilator flags for experiments (e.g. -Drnic.verilatorFlags="--x-assign fast"); part of the cache key.
        String extra = System.getProperty("rnic.verilatorFlags", "").trim();
        if (!extra.isEmpty()) {
            cfg = cfg.addSimulatorFlag(extra);
        }
        if (wave) {
            cfg = waveMode.equals("fst") ? cfg.withFstWave() : cfg.withVcdWave();
        }
        SimCompiled<T> compiled = cfg.compile(Scala.byName(() -> Rtl.elaborate(factory)));
        return new SimModel<>(key, compiled, wave, profileGuided);
    }

    /**
     * Checks that the model's make gets {@code OPT_FAST=-O3 OPT_GLOBAL=-O3}: SpinalSim takes its make command once, at
     * class initialisation, from the environment variable {@code SPINAL_MAKE_CMD} (else "make"), and Verilator's
     * makefile compiles with {@code -Os} unless told otherwise. The Maven build and {@code ./rnic} set the variable;
     * anyone else gets a warning, and slower models.
     */
    private static void warnUnlessModelMakeOptimised() {
        String cmd = spinal.SpinalEnv$.MODULE$.makeCmd();
        if (!cmd.contains("OPT_FAST=") && !cmd.endsWith("model-make")) {
            System.err.println("[rnic.sim] warning: SpinalSim runs \"" + cmd + "\"; set SPINAL_MAKE_CMD to this"
                    + " project's sim/model-make (or \"make " + MAKE_OPT + "\") for optimised Verilator models");
        }
    }

    /** The model's key. */
    public String key() {
        return key;
    }

    /** The elaborated top of the model (for reading its structure; drive it only through {@link Tb}). */
    public T dut() {
        return compiled.dut();
    }

    /**
     * Runs one simulation: a fresh model instance with registers randomised from {@code seed}, clock low, then
     * {@code body} inside one SpinalSim callback, so it may drive the model directly at full speed. At the end every
     * scoreboard of the {@link Tb} must be empty.
     */
    public void run(String testName, long seed, Consumer<Tb<T>> body) {
        int simSeed = (int) (seed ^ (seed >>> 32)) & 0x7FFFFFFF;
        compiled.doSim(testName, simSeed, Scala.function1(dut -> {
            SimManager manager = SimManagerContext.current().manager();
            boolean[] done = {false};
            // The model's C++ wrapper keeps its handle in a thread_local of the thread that created it, which is the
            // one running the manager loop: drive it only from a manager callback, never from a SimThread.
            manager.schedule(0L, Scala.block(() -> {
                Tb<T> tb = new Tb<>(dut, manager.raw(), seed, wave);
                body.accept(tb);
                tb.finish();
                done[0] = true;
            }));
            SimManagerContext.current().thread().waitUntil(() -> done[0]);
        }));
    }

    /**
     * Runs {@code body} as a plain SpinalSim simulation thread, SpinalSim's own threaded style ({@code forkStimulus},
     * {@code waitSampling()} per cycle, {@code #=}). It is about an order of magnitude slower than {@link #run} and
     * exists to measure that difference and for tests that need SpinalSim's thread API.
     */
    public void runSpinalThread(String testName, long seed, Consumer<T> body) {
        int simSeed = (int) (seed ^ (seed >>> 32)) & 0x7FFFFFFF;
        compiled.doSim(testName, simSeed, Scala.function1(body::accept));
    }
}
