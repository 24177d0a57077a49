package rnic.tools.fpga;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import rnic.hdl.Rtl;
import rnic.hw.crc.Crc32c;
import rnic.hw.crc.Crc32cConfig;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.ddp.DdpTagValidator;
import rnic.hw.fpga.PortScan;
import rnic.hw.mpa.MpaRxDeframer;
import rnic.hw.mpa.MpaTxFramer;
import rnic.hw.rdmap.RdmapAtomicUnit;
import spinal.core.Component;

/**
 * Per-block area and timing: a block is generated inside a {@link PortScan} harness (registers on every port, four
 * pins), synthesized alone with yosys for iCE40, ECP5 and Xilinx 7-series (area), and the harness is placed and routed
 * on an iCE40 HX8K (ct256) with nextpnr-ice40 (fmax). Files go to {@code build/fpga/blocks/<id>/}.
 */
public final class BlockTiming {

    /**
     * One block to measure.
     *
     * @param id        folder and table name, e.g. {@code Crc32c-w64}
     * @param module    the block's Verilog module name
     * @param factory   builds it
     * @param blackbox  modules left out of synthesis (regex), with the reason in {@code note}
     * @param note      what the figures leave out, or ""
     */
    public record Block(String id, String module, Supplier<? extends Component> factory, String blackbox,
            String note) {
    }

    /** The offload-pipeline blocks {@code ./rnic bench fpga} measures. */
    public static List<Block> offloadBlocks() {
        List<Block> b = new ArrayList<>();
        b.add(crc32c(32));
        b.add(crc32c(64));
        b.add(new Block("MpaTxFramer-w32", "MpaTxFramer", () -> new MpaTxFramer(32), null, ""));
        b.add(new Block("MpaTxShared-w32-n4", "MpaTxShared", () -> new rnic.hw.mpa.MpaTxShared(32, 4), null,
                "one transmitter for 4 connections"));
        b.add(new Block("MpaRxDeframer-w32", "MpaRxDeframer", () -> new MpaRxDeframer(32), null,
                "its ULPDU store (MpaRxHold) included"));
        b.add(new Block("MpaRxShared-w32-n4", "MpaRxShared",
                () -> new rnic.hw.mpa.MpaRxShared(new rnic.hw.mpa.MpaRxConfig(32, 1460), 4), null,
                "one receiver for 4 connections, MSS 1460 (the default 9000 needs 74 RAM4K, the HX8K has 32), "
                        + "its ULPDU store (MpaRxHold) included"));
        b.add(atomicUnit());
        b.add(new Block("DdpTagValidator", "DdpTagValidator",
                () -> new DdpTagValidator(DdpConfig.defaults(), DdpTagValidator.DEFAULT_TAG_WIDTH), null, ""));
        return b;
    }

    /** {@code Crc32c} at width {@code w}. */
    public static Block crc32c(int w) {
        return new Block("Crc32c-w" + w, "Crc32c", () -> new Crc32c(new Crc32cConfig(w)), null, "");
    }

    /** {@code RdmapAtomicUnit} with the default tag width. */
    public static Block atomicUnit() {
        return new Block("RdmapAtomicUnit", "RdmapAtomicUnit",
                () -> new RdmapAtomicUnit(RdmapAtomicUnit.DEFAULT_TAG_WIDTH), null, "");
    }

    /** The outcome of placing and routing one harness with one seed. */
    public record Placement(int seed, double fmaxMhz, int logicCells, int lcAvailable, int ram) {
    }

    private final Block block;
    private final File dir;
    private final File rtl;
    private final String harness;

    /** Prepares {@code block} under {@code root/<id>} (generates its Verilog on the first call). */
    public BlockTiming(Block block, File root) throws IOException {
        this.block = block;
        this.dir = new File(root, block.id());
        this.rtl = new File(dir, "rtl");
        this.harness = block.id().replace('-', '_') + "_PortScan";
        generate();
    }

    private void generate() throws IOException {
        // Nothing of an earlier run may survive: the harness netlist is reused across seeds within one run only.
        for (String sub : new String[] {"rtl", "hx8k"}) {
            File d = new File(dir, sub);
            if (d.isDirectory()) {
                for (File f : d.listFiles()) {
                    Files.delete(f.toPath());
                }
            }
        }
        rtl.mkdirs();
        Rtl.generate(rtl, () -> new PortScan(harness, block.factory()));
    }

    /** The block's area in {@code family}'s primitives, synthesized alone (its ports kept as the design's ports). */
    public Family.Area area(Family family) throws IOException {
        File out = new File(dir, family.id);
        out.mkdirs();
        String stat = new File(out, "stat.txt").getAbsolutePath();
        String script = readAll() + blackboxes(block.module()) + family.synthFlat + " -top " + block.module() + "\n"
                + "tee -q -o " + stat + " stat\n";
        yosys(script, new File(out, "synth.ys"), new File(out, "yosys.log"));
        return family.area(FpgaTools.statTotals(Files.readString(new File(stat).toPath())));
    }

    /** Synthesizes the harness for iCE40 (once) and places and routes it on an HX8K with {@code seed}. */
    public Placement placeAndRoute(int seed) throws IOException {
        File out = new File(dir, "hx8k");
        out.mkdirs();
        File json = new File(out, harness + ".json");
        if (!json.isFile()) {
            String script = readAll() + blackboxes(harness) + "synth_ice40 -top " + harness + " -json "
                    + json.getAbsolutePath() + "\n";
            yosys(script, new File(out, "synth_harness.ys"), new File(out, "yosys_harness.log"));
        }
        File report = new File(out, "report-seed" + seed + ".json");
        FpgaTools.require("nextpnr-ice40", "nextpnr-ice40");
        List<String> cmd = List.of("nextpnr-ice40", "--hx8k", "--package", "ct256", "--json", json.getAbsolutePath(),
                "--seed", Integer.toString(seed), "--freq", "100", "--timing-allow-fail", "--report",
                report.getAbsolutePath(), "-q", "--log", new File(out, "nextpnr-seed" + seed + ".log").getAbsolutePath());
        FpgaTools.run(cmd, out, new File(out, "nextpnr-seed" + seed + ".out"));
        String r = Files.readString(report.toPath());
        int[] lc = FpgaTools.pnrUtilisation(r).getOrDefault("ICESTORM_LC", new int[] {0, 0});
        int[] ram = FpgaTools.pnrUtilisation(r).getOrDefault("ICESTORM_RAM", new int[] {0, 0});
        return new Placement(seed, FpgaTools.fmaxMhz(r), lc[0], lc[1], ram[0]);
    }

    /** The best of {@code seeds} placements (highest fmax). */
    public Placement bestOf(int... seeds) throws IOException {
        Placement best = null;
        for (int s : seeds) {
            Placement p = placeAndRoute(s);
            if (best == null || p.fmaxMhz() > best.fmaxMhz()) {
                best = p;
            }
        }
        return best;
    }

    /** The block measured. */
    public Block block() {
        return block;
    }

    private String readAll() {
        StringBuilder s = new StringBuilder();
        for (String f : FpgaTools.verilogFiles(rtl)) {
            s.append("read_verilog -defer ").append(f).append('\n');
        }
        return s.toString();
    }

    private String blackboxes(String top) {
        if (block.blackbox() == null) {
            return "";
        }
        Pattern p = Pattern.compile(block.blackbox());
        StringBuilder s = new StringBuilder();
        for (String f : FpgaTools.verilogFiles(rtl)) {
            String module = new File(f).getName().replaceAll("\\.v$", "");
            if (p.matcher(module).matches()) {
                // The module is replaced by an empty box of the same ports: its outputs become free inputs of the rest.
                s.append("hierarchy -top ").append(top).append('\n')
                        .append("blackbox ").append(module).append('\n');
            }
        }
        return s.toString();
    }

    static void yosys(String script, File ys, File log) throws IOException {
        FpgaTools.require("yosys", "yosys");
        Files.writeString(ys.toPath(), script);
        FpgaTools.run(List.of("yosys", "-q", "-l", log.getAbsolutePath(), "-s", ys.getAbsolutePath()),
                ys.getParentFile(), new File(ys.getParentFile(), ys.getName() + ".out"));
    }

    static String mhz(double f) {
        return String.format(Locale.ROOT, "%.1f", f);
    }
}
