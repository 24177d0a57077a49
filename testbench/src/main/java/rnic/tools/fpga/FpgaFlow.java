package rnic.tools.fpga;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import rnic.hdl.Rtl;
import rnic.hw.board.BoardSocConfig;
import rnic.hw.board.BoardTop;
import rnic.hw.fpga.OffloadSelfTestBoard;
import rnic.hw.fpga.SelfTestConfig;
import rnic.hw.top.RnicConfig;
import spinal.core.Component;

/**
 * {@code ./rnic fpga --board B [--config selftest|core|soc] [--width W] [--qps N] [--seed N]}: the FPGA flow of one board, output under
 * {@code build/fpga/<board>/<config>/}. Without {@code --config}, a board gets the biggest design it holds: the board
 * SoC on the ULX3S and the Arty A7, the offload self-test on the iCE40 boards.
 *
 * <ul>
 *   <li>{@code selftest} (the iCE40 boards' default): the {@link OffloadSelfTestBoard} top with the board's pins. iCE40: yosys
 *       {@code synth_ice40} → nextpnr-ice40 (with the PCF and the board clock as target) → icepack: a bitstream, the
 *       timing and utilisation report. ECP5: yosys {@code synth_ecp5} → JSON netlist, and the exact nextpnr-ecp5 /
 *       ecppack commands in {@code pnr.sh} (those tools are not packaged for this machine). Xilinx: yosys
 *       {@code synth_xilinx} for the utilisation estimate, and {@code vivado.tcl}, a non-project Vivado script with
 *       the board's XDC that ends in a bitstream.</li>
 *   <li>{@code core}: the whole {@code RnicCore} (default W = 64 and the default QP count; {@code --width} and
 *       {@code --qps} choose others) synthesized with the hierarchy kept, for its utilisation per block; no pins, so
 *       a Vivado out-of-context script.</li>
 *   <li>{@code soc}: the whole board SoC, {@link rnic.hw.board.BoardSoc} as {@link #socConfig} configures it for a board — the RV32IM
 *       core with its firmware image in RAM (built with {@code firmware/}'s Makefile), crossbar, UART, board registers,
 *       TCP bridge, board memory and {@code RnicCore} at W = 32 with two QPs — synthesized with the hierarchy kept
 *       for its area per block, inside its board top {@link BoardTop}: on the ULX3S {@code BoardTop_ulx3s} (the
 *       ECP5 PLL making 48 MHz of the 25 MHz oscillator, the reset held until it locks, the pins of
 *       {@code constraints/ulx3s/ulx3s-soc.lpf}), so {@code pnr.sh} is the full nextpnr-ecp5 / ecppack flow to a
 *       bitstream; on the Arty {@code BoardTop_arty_a7_100t} (an MMCM making 48 MHz of the 100 MHz oscillator, the
 *       pins of {@code constraints/arty-a7-100t/arty-a7-100t-soc.xdc}), so {@code vivado.tcl} ends in a bitstream.
 *       ECP5 and Xilinx boards only (the default there).</li>
 * </ul>
 * Every run writes {@code utilisation.txt} (LUT, FF, BRAM, DSP, carry as % of the device) and {@code versions.txt}.
 */
public final class FpgaFlow {
    private final Board board;
    private final String config;
    private final File out;
    private final File rtl;
    private final int seed;
    /** The core's configuration for {@code --config core}. */
    private final RnicConfig core;

    FpgaFlow(Board board, String config, int seed, File root) {
        this(board, config, seed, root, RnicConfig.defaults().withDataWidth(64));
    }

    FpgaFlow(Board board, String config, int seed, File root, RnicConfig core) {
        this.board = board;
        this.config = config;
        this.seed = seed;
        this.core = core;
        boolean defaultCore = core.dataWidth() == 64 && core.qpCount() == RnicConfig.defaults().qpCount();
        this.out = new File(root, board.id + "/" + config + (config.equals("core") && !defaultCore
                ? "-w" + core.dataWidth() + "-qp" + core.qpCount() : ""));
        this.rtl = new File(out, "rtl");
    }

    public static void main(String[] args) throws IOException {
        String board = null;
        String config = null;
        int seed = 1;
        int width = 64;
        int qps = RnicConfig.defaults().qpCount();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--board" -> board = args[++i];
                case "--config" -> config = args[++i];
                case "--seed" -> seed = Integer.parseInt(args[++i]);
                case "--width" -> width = Integer.parseInt(args[++i]);
                case "--qps" -> qps = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException(usage());
            }
        }
        if (board == null) {
            throw new IllegalArgumentException(usage());
        }
        Board b = Board.byId(board);
        if (config == null) {
            config = defaultConfig(b);
        }
        if (!config.equals("selftest") && !config.equals("core") && !config.equals("soc")) {
            throw new IllegalArgumentException("unknown config '" + config + "'; " + usage());
        }
        if (config.equals("soc") && b.family == Family.ICE40) {
            throw new IllegalArgumentException("the board SoC does not fit an iCE40; --config soc is for "
                    + "ulx3s and arty-a7-100t");
        }
        if ((width != 64 || qps != RnicConfig.defaults().qpCount()) && !config.equals("core")) {
            throw new IllegalArgumentException("--width and --qps choose the core of --config core; " + usage());
        }
        new FpgaFlow(b, config, seed, new File("build/fpga"),
                RnicConfig.defaults().withDataWidth(width).withQpCount(qps)).run();
    }

    /** What {@code --board b} builds without {@code --config}: the board SoC where it fits, else the self-test. */
    static String defaultConfig(Board b) {
        return b.family == Family.ICE40 ? "selftest" : "soc";
    }

    static String usage() {
        StringBuilder s = new StringBuilder("usage: fpga --board B [--config selftest|core|soc] [--width W] [--qps N]"
                + " [--seed N]; boards:");
        for (Board b : Board.values()) {
            s.append(' ').append(b.id);
        }
        return s.toString();
    }

    String top() {
        return switch (config) {
            case "core" -> "RnicCore";
            case "soc" -> "BoardTop_" + board.id.replace('-', '_');
            default -> "OffloadSelfTestBoard";
        };
    }

    /** The clock the design runs at: the SoC's after the board's PLL, else the board's oscillator. */
    long clockHz() {
        return config.equals("soc") ? SOC_CLOCK_HZ : board.clockHz;
    }

    /** Whether the SoC is wrapped in its board top (PLL, reset, pins): every board that takes the SoC. */
    boolean boardTop() {
        return config.equals("soc");
    }

    /** Whether the design is synthesized with its hierarchy kept (core and SoC, for the area per block). */
    boolean hier() {
        return !config.equals("selftest");
    }

    /** Whether the design is placed out of context (no board top with pins). */
    boolean ooc() {
        return hier() && !boardTop();
    }

    /** The pin file of the design's top. */
    String constraints() {
        if (!boardTop()) {
            return board.constraints;
        }
        return switch (board) {
            case ULX3S -> "constraints/ulx3s/ulx3s-soc.lpf";
            case ARTY_A7_100T -> "constraints/arty-a7-100t/arty-a7-100t-soc.xdc";
            default -> throw new IllegalStateException("no board top for " + board.id);
        };
    }

    /** The SoC's clock after the board's PLL: a whole multiple of 3 Mbaud × 8 UART samples. */
    static final long SOC_CLOCK_HZ = 48_000_000L;
    /** The host link's baud rate. */
    static final long SOC_BAUD = 3_000_000L;

    /**
     * The board SoC as a board runs it: 48 MHz (the board's oscillator through its PLL), 3 Mbaud, 32 KiB firmware RAM
     * with the image of {@code firmware/}, the board's LEDs and buttons (ULX3S 8 and 7, Arty 4 and 4),
     * {@code RnicCore} at W = 32 with two QPs, 64 KiB of board memory — the configuration the simulated SoC tests
     * run.
     */
    static BoardSocConfig socConfig(Board board) throws IOException {
        byte[] bin = Files.readAllBytes(rnic.board.Firmware.build("board.bin"));
        int leds = board == Board.ARTY_A7_100T ? 4 : 8;
        int buttons = board == Board.ARTY_A7_100T ? 4 : 7;
        return new BoardSocConfig(SOC_CLOCK_HZ, SOC_BAUD, 32 * 1024, BoardSocConfig.words(bin), leds, buttons,
                0x0B0A_0001, RnicConfig.defaults().withDataWidth(32).withQpCount(2), 64 * 1024);
    }

    /**
     * What a run synthesized: the design's area (as the utilisation report counts it), the device, and yosys's cell
     * counts per module (with the hierarchy kept, every module of the design; else the top only).
     */
    record Result(Family.Area area, Board.Capacity capacity, Map<String, Integer> totals,
            Map<String, Map<String, Integer>> modules) {
        /** Share of the device's LUT sites used, in percent. */
        double lutPercent(Family f) {
            return 100.0 * area.lutSites(f) / capacity.lut();
        }

        /** Share of the device's block RAM used, in percent. */
        double bramPercent() {
            return 100.0 * area.bram() / capacity.bram();
        }
    }

    Result run() throws IOException {
        out.mkdirs();
        Files.writeString(new File(out, "versions.txt").toPath(), FpgaTools.versions() + "\n");
        System.out.println("[fpga] " + board.id + " (" + board.device + "), " + config + ": generating " + top());
        generate();
        System.out.println("[fpga] yosys " + board.family.synthFlat.split(" ")[0] + " (log " + new File(out,
                "yosys.log") + ")");
        Map<String, Map<String, Integer>> stat = synthesize();
        Map<String, Integer> totals = FpgaTools.statTotals(statText());
        Family.Area area = board.family.area(totals);
        String util = utilisation(area);
        StringBuilder report = new StringBuilder(util);
        if (hier()) {
            // Inside a board top the table is the SoC's blocks; the PLL and reset synchroniser are in the total above.
            report.append('\n').append(CoreTable.render(board.family, stat, boardTop() ? "BoardSoc" : top()));
        }
        switch (board.family) {
            case ICE40 -> report.append('\n').append(ice40());
            case ECP5 -> report.append('\n').append(ecp5());
            case XILINX -> report.append('\n').append(vivado());
            default -> throw new IllegalStateException();
        }
        Files.writeString(new File(out, "utilisation.txt").toPath(), report.toString());
        System.out.println(report);
        System.out.println("[fpga] tool versions:\n" + FpgaTools.versions());
        return new Result(area, board.capacity, totals, stat);
    }

    private void generate() throws IOException {
        if (rtl.isDirectory()) {
            for (File f : rtl.listFiles()) {
                Files.delete(f.toPath());
            }
        }
        rtl.mkdirs();
        if (config.equals("core")) {
            // The same Verilog `./rnic generate` writes, one file per module.
            RnicConfig cfg = core;
            Supplier<? extends Component> top = () -> new rnic.hw.top.RnicCore(cfg);
            Rtl.generateBlock(rtl, top);
        } else if (config.equals("soc")) {
            BoardSocConfig c = socConfig(board);
            Rtl.generate(rtl, () -> board == Board.ULX3S ? BoardTop.ulx3s(c) : BoardTop.artyA7(c));
        } else {
            SelfTestConfig cfg = SelfTestConfig.board(board.clockHz);
            Rtl.generate(rtl, () -> new OffloadSelfTestBoard(cfg, "OffloadSelfTestBoard"));
        }
    }

    private Map<String, Map<String, Integer>> synthesize() throws IOException {
        StringBuilder ys = new StringBuilder();
        for (String f : FpgaTools.verilogFiles(rtl)) {
            ys.append("read_verilog -defer ").append(f).append('\n');
        }
        ys.append("hierarchy -top ").append(top()).append('\n');
        String synth = hier() ? board.family.synthHier : board.family.synthFlat;
        ys.append(synth).append(" -top ").append(top()).append('\n');
        // synth_xilinx has no -json; write_json works after every synth_* command.
        ys.append("write_json ").append(new File(out, top() + ".json").getAbsolutePath()).append('\n');
        ys.append("tee -q -o ").append(new File(out, "stat.txt").getAbsolutePath()).append(" stat\n");
        BlockTiming.yosys(ys.toString(), new File(out, "synth.ys"), new File(out, "yosys.log"));
        return FpgaTools.statSections(statText());
    }

    private String statText() throws IOException {
        return Files.readString(new File(out, "stat.txt").toPath());
    }

    String utilisation(Family.Area a) {
        Board.Capacity c = board.capacity;
        String lutName = board.family == Family.XILINX ? "LUT6" : "LUT4";
        String bramName = switch (board.family) {
            case ICE40 -> "RAM4K";
            case ECP5 -> "DP16KD";
            case XILINX -> "RAMB36";
        };
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "%s%s on %s (%s), yosys %s%n", top(),
                config.equals("core") ? " (W=" + core.dataWidth() + ", " + core.qpCount() + " QPs)"
                        : config.equals("soc") ? " (RV32IM + firmware, 32 KiB RAM, 64 KiB board memory, RnicCore W=32 "
                        + "2 QPs; hierarchy kept" + (boardTop() ? "; with PLL and reset synchroniser" : "") + ")"
                        : "",
                board.id, board.device, board.family.synthFlat.split(" ")[0]));
        s.append(row(lutName, a.lutSites(board.family), c.lut()));
        if (board.family == Family.XILINX && a.lutram() > 0) {
            s.append(String.format(Locale.ROOT, "           (%d logic + %d as distributed RAM)%n", a.lut(),
                    a.lutram()));
        }
        s.append(row("FF", a.ff(), c.ff()));
        s.append(String.format(Locale.ROOT, "  %-8s %9s of %7d  %6.1f %%%n", bramName,
                a.bram() == Math.rint(a.bram()) ? Integer.toString((int) a.bram())
                        : String.format(Locale.ROOT, "%.1f", a.bram()), c.bram(), 100.0 * a.bram() / c.bram()));
        s.append(c.dsp() > 0 ? row("DSP", a.dsp(), c.dsp()) : String.format("  %-8s %9d (none on this device)%n",
                "DSP", a.dsp()));
        s.append(String.format(Locale.ROOT, "  %-8s %9d%n", "carry", a.carry()));
        if (a.lutram() > 0 && board.family != Family.XILINX) {
            s.append(String.format(Locale.ROOT, "  %-8s %9d (distributed-RAM cells, not in the LUT count)%n",
                    "LUTRAM", a.lutram()));
        }
        int luts = a.lutSites(board.family);
        boolean fits = luts <= c.lut() && a.ff() <= c.ff() && a.bram() <= c.bram();
        double lutPct = 100.0 * luts / c.lut();
        double bramPct = 100.0 * a.bram() / c.bram();
        s.append(String.format(Locale.ROOT, "  %s (LUT %.1f %%, BRAM %.1f %%; the target leaves >= 25 %% of both)%n",
                !fits ? "DOES NOT FIT" : lutPct <= 75 && bramPct <= 75 ? "fits with the 25 % headroom"
                        : "fits, but without the 25 % headroom", lutPct, bramPct));
        return s.toString();
    }

    private static String row(String name, int used, int of) {
        return String.format(Locale.ROOT, "  %-8s %9d of %7d  %6.1f %%%n", name, used, of, 100.0 * used / of);
    }

    private String ice40() throws IOException {
        if (ooc()) {
            return "(no place and route of the " + top() + " on an iCE40)\n";
        }
        FpgaTools.require("nextpnr-ice40", "nextpnr-ice40");
        FpgaTools.require("icepack", "fpga-icestorm");
        File json = new File(out, top() + ".json");
        File asc = new File(out, top() + ".asc");
        File bin = new File(out, top() + ".bin");
        File report = new File(out, "nextpnr-report.json");
        List<String> cmd = new ArrayList<>(List.of("nextpnr-ice40"));
        cmd.addAll(List.of(board.nextpnrIce40Device()));
        cmd.addAll(List.of("--json", json.getAbsolutePath(), "--pcf", new File(board.constraints).getAbsolutePath(),
                "--asc", asc.getAbsolutePath(), "--freq", mhz(board.clockHz), "--seed", Integer.toString(seed),
                "--report", report.getAbsolutePath(), "--log", new File(out, "nextpnr.log").getAbsolutePath(),
                "-q"));
        System.out.println("[fpga] " + String.join(" ", cmd));
        FpgaTools.run(cmd, out, new File(out, "nextpnr.out"));
        FpgaTools.run(List.of("icepack", asc.getAbsolutePath(), bin.getAbsolutePath()), out,
                new File(out, "icepack.log"));
        String r = Files.readString(report.toPath());
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "nextpnr-ice40 (seed %d): fmax %.1f MHz, target %s MHz%n", seed,
                FpgaTools.fmaxMhz(r), mhz(board.clockHz)));
        for (Map.Entry<String, int[]> e : FpgaTools.pnrUtilisation(r).entrySet()) {
            if (e.getValue()[0] > 0) {
                s.append(String.format(Locale.ROOT, "  %-14s %6d of %6d%n", e.getKey(), e.getValue()[0],
                        e.getValue()[1]));
            }
        }
        s.append("timing report: ").append(new File(out, "nextpnr.log")).append(" (critical path), ")
                .append(report).append('\n');
        s.append("bitstream: ").append(bin).append('\n');
        s.append("program:   ").append(board.loader).append(' ').append(bin)
                .append("   (iceprog ").append(bin).append(" also works)\n");
        return s.toString();
    }

    private String ecp5() throws IOException {
        File json = new File(out, top() + ".json");
        File cfg = new File(out, top() + ".config");
        File bit = new File(out, top() + ".bit");
        String lpf = new File(constraints()).getAbsolutePath();
        String pnr = ooc()
                ? "nextpnr-ecp5 --85k --package CABGA381 --speed 6 --json " + json.getAbsolutePath()
                        + " --out-of-context --freq " + mhz(clockHz()) + " --report "
                        + new File(out, "nextpnr-report.json").getAbsolutePath() + "\n"
                : "nextpnr-ecp5 --85k --package CABGA381 --speed 6 --json " + json.getAbsolutePath() + " --lpf " + lpf
                        + " --textcfg " + cfg.getAbsolutePath() + " --freq " + mhz(clockHz()) + " --report "
                        + new File(out, "nextpnr-report.json").getAbsolutePath() + "\n"
                        + "ecppack --compress " + cfg.getAbsolutePath() + " " + bit.getAbsolutePath() + "\n"
                        + board.loader + " " + bit.getAbsolutePath() + "\n";
        Files.writeString(new File(out, "pnr.sh").toPath(), "#!/bin/sh\n# nextpnr-ecp5 and ecppack (Project Trellis)"
                + " are not packaged for this machine; run these where they are installed.\nset -e\n" + pnr);
        new File(out, "pnr.sh").setExecutable(true);
        String status = FpgaTools.onPath("nextpnr-ecp5") ? "nextpnr-ecp5 is installed: run " : "nextpnr-ecp5 is not"
                + " installed here; run these where it is (also in ";
        return "netlist: " + json + "\n" + status + new File(out, "pnr.sh")
                + (FpgaTools.onPath("nextpnr-ecp5") ? "" : ")") + ":\n" + pnr.replaceAll("(?m)^", "  ");
    }

    private String vivado() throws IOException {
        StringBuilder tcl = new StringBuilder();
        tcl.append("# Vivado non-project flow for ").append(top()).append(" on ").append(board.id)
                .append(". Run from the repository root:\n#   vivado -mode batch -source ")
                .append(new File(out, "vivado.tcl").getPath()).append("\n");
        tcl.append("set out ").append(out.getAbsolutePath()).append("\n");
        tcl.append("read_verilog [list");
        for (String f : FpgaTools.verilogFiles(rtl)) {
            tcl.append(" \\\n  ").append(f);
        }
        tcl.append("]\n");
        if (ooc()) {
            tcl.append("synth_design -top ").append(top()).append(" -part ").append(board.device)
                    .append(" -mode out_of_context\n");
            tcl.append("create_clock -name clk -period ").append(String.format(Locale.ROOT, "%.3f",
                    1e9 / clockHz())).append(" [get_ports clk]\n");
            tcl.append("report_utilization -hierarchical -file $out/vivado_utilization.rpt\n");
            tcl.append("opt_design\nplace_design\nroute_design\n");
            tcl.append("report_timing_summary -file $out/vivado_timing.rpt\n");
        } else {
            tcl.append("read_xdc ").append(new File(constraints()).getAbsolutePath()).append('\n');
            tcl.append("synth_design -top ").append(top()).append(" -part ").append(board.device).append('\n');
            tcl.append("opt_design\nplace_design\nroute_design\n");
            tcl.append("report_utilization -file $out/vivado_utilization.rpt\n");
            tcl.append("report_timing_summary -file $out/vivado_timing.rpt\n");
            tcl.append("write_bitstream -force $out/").append(top()).append(".bit\n");
        }
        File script = new File(out, "vivado.tcl");
        Files.writeString(script.toPath(), tcl.toString());
        String program = ooc() ? "" : "program:   " + board.loader + " " + new File(out, top() + ".bit")
                + "\n";
        return "Vivado script: vivado -mode batch -source " + script + "\n" + program;
    }

    static String mhz(long hz) {
        double m = hz / 1e6;
        return m == Math.rint(m) ? Long.toString((long) m) : String.format(Locale.ROOT, "%.3f", m);
    }
}
