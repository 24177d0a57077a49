package rnic.tools.fpga;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Timing floors on an iCE40 HX8K: {@code Crc32c} (W = 64), {@code RdmapAtomicUnit}, {@code DdpTagValidator},
 * {@code MpaTxFramer} (W = 32) and {@code MpaTxShared} (W = 32, 4 connections; both at the 100 MHz the project targets
 * for the MPA blocks), {@code MpaRxDeframer} (W = 32, its ULPDU store included as in
 * {@link BlockTiming#offloadBlocks()}) and {@code MpaRxShared} (W = 32, 4 connections), each inside its
 * registered-port
 * harness ({@link rnic.hw.fpga.PortScan}), synthesized with yosys and placed and routed with nextpnr-ice40 at the fixed
 * seed of {@code constraints/floors.properties}; the fmax nextpnr reports must not fall under the floor recorded there
 * (a path made longer by a change shows up here). The same file records what {@code ./rnic bench fpga} measured when
 * the floor was set. About a minute per block on a quiet machine (the deframer and the shared receiver, the
 * largest, about two); yosys and nextpnr-ice40 must be installed
 * ({@code ./rnic test} installs them). The blocks' Verilog is generated one after another on the test's thread (the
 * HDL elaboration is not shared between threads); their yosys and nextpnr runs, external processes in a directory of
 * their own and deterministic for a fixed seed, go two at a time (197 s for the seven, 305 s one at a time).
 */
@Tag("fpga")
class FpgaTimingFloorTest {

    static Properties floors() throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(repositoryFile("constraints/floors.properties").toPath())) {
            p.load(r);
        }
        return p;
    }

    static File repositoryFile(String path) {
        for (File dir = new File("").getAbsoluteFile(); dir != null; dir = dir.getParentFile()) {
            File f = new File(dir, path);
            if (f.isFile()) {
                return f;
            }
        }
        throw new IllegalStateException(path + " not found above " + new File("").getAbsolutePath());
    }

    /** The blocks, the largest first (so the two workers finish close together). */
    static final String[] BLOCKS = {"MpaRxShared-w32-n4", "MpaRxDeframer-w32", "MpaTxShared-w32-n4",
            "DdpTagValidator", "MpaTxFramer-w32", "Crc32c-w64", "RdmapAtomicUnit"};

    private static ExecutorService workers;
    private static final Map<String, Future<BlockTiming.Placement>> RUNS = new HashMap<>();

    /** Generates every block's harness in turn and hands its synthesis and placement to the two workers. */
    @BeforeAll
    static void start() throws IOException {
        int seed = Integer.parseInt(floors().getProperty("hx8k.seed"));
        workers = Executors.newFixedThreadPool(2);
        for (String id : BLOCKS) {
            BlockTiming.Block block = BlockTiming.offloadBlocks().stream().filter(b -> b.id().equals(id))
                    .findFirst().orElseThrow();
            BlockTiming timing = new BlockTiming(block, new File("target/fpga-floor"));
            RUNS.put(id, workers.submit(() -> timing.placeAndRoute(seed)));
        }
    }

    @AfterAll
    static void stop() {
        if (workers != null) {
            workers.shutdownNow();
        }
    }

    @ParameterizedTest
    @MethodSource("blocks")
    void fmaxOnHx8kStaysAboveTheFloor(String id) throws Exception {
        Properties floors = floors();
        double floor = Double.parseDouble(floors.getProperty("hx8k." + id + ".fmax.floor.mhz"));
        int seed = Integer.parseInt(floors.getProperty("hx8k.seed"));
        BlockTiming.Placement p;
        try {
            p = RUNS.get(id).get();
        } catch (ExecutionException e) {
            throw new AssertionError(id + ": synthesis or place and route failed: " + e.getCause(), e.getCause());
        }
        System.out.printf("%s on HX8K, seed %d: %.1f MHz (floor %.1f), %d LC%n", id, seed, p.fmaxMhz(), floor,
                p.logicCells());
        assertTrue(p.fmaxMhz() >= floor, id + ": " + BlockTiming.mhz(p.fmaxMhz()) + " MHz on HX8K (seed " + seed
                + ") is under the floor of " + floor + " MHz in constraints/floors.properties");
        assertTrue(p.logicCells() > 0 && p.logicCells() <= p.lcAvailable(), "placed within the device");
    }

    static Stream<String> blocks() {
        return Stream.of(BLOCKS);
    }
}
