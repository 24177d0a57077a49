package rnic.bench;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import rnic.tools.fpga.BlockTiming;
import rnic.tools.fpga.Family;
import rnic.tools.fpga.FpgaTools;

/**
 * {@code ./rnic bench fpga [--seeds N] [--only ID,ID]}: the offload-pipeline blocks of {@link BlockTiming#offloadBlocks}
 * synthesized alone for iCE40, ECP5 and Xilinx 7-series (LUT / FF / block RAM / carry from yosys) and placed and routed
 * on an iCE40 HX8K inside their registered-port harness (fmax, best of seeds 1…N, default 3; logic cells and RAM
 * tiles of the harness). Prints one Markdown table and writes it to {@code build/fpga/blocks/table.md}.
 */
public final class FpgaBench {
    private FpgaBench() {
    }

    public static void main(String[] args) throws IOException {
        int seeds = 3;
        List<String> only = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seeds" -> seeds = Integer.parseInt(args[++i]);
                case "--only" -> only = List.of(args[++i].split(","));
                default -> throw new IllegalArgumentException("usage: bench fpga [--seeds N] [--only ID,ID]");
            }
        }
        File root = new File("build/fpga/blocks");
        System.out.println(FpgaTools.versions());
        System.out.println();
        List<String> rows = new ArrayList<>();
        rows.add("| block | iCE40 LUT4 / FF / RAM4K / carry | ECP5 LUT4 / FF / DP16KD / CCU2C | Xilinx LUT6 / FF / RAMB36 /"
                + " CARRY4 | HX8K fmax MHz (best of " + seeds + ", seed) | HX8K LC / RAM (harness) | note |");
        rows.add("|---|---|---|---|---|---|---|");
        System.out.println(rows.get(0));
        System.out.println(rows.get(1));
        int[] seedList = new int[seeds];
        for (int s = 0; s < seeds; s++) {
            seedList[s] = s + 1;
        }
        for (BlockTiming.Block b : BlockTiming.offloadBlocks()) {
            if (only != null && !only.contains(b.id())) {
                continue;
            }
            BlockTiming t = new BlockTiming(b, root);
            String ice = area(t, Family.ICE40);
            String ecp = area(t, Family.ECP5);
            String xil = area(t, Family.XILINX);
            String pnr;
            String lc;
            try {
                if (ice.startsWith("does not")) {
                    throw new IOException("no iCE40 netlist");
                }
                BlockTiming.Placement p = t.bestOf(seedList);
                pnr = String.format(Locale.ROOT, "%.1f (%d)", p.fmaxMhz(), p.seed());
                lc = p.logicCells() + " / " + p.ram() + " of " + p.lcAvailable();
            } catch (IOException e) {
                pnr = "does not place";
                lc = "-";
                System.err.println(b.id() + ": " + e.getMessage());
            }
            String row = String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s |", b.id(), ice, ecp, xil,
                    pnr, lc, b.note());
            rows.add(row);
            System.out.println(row);
        }
        Files.writeString(new File(root, "table.md").toPath(), String.join("\n", rows) + "\n");
    }

    /** The block's area in {@code f}, or why yosys could not map it (the table goes on with the next block). */
    static String area(BlockTiming t, Family f) {
        try {
            return cells(t.area(f));
        } catch (IOException e) {
            String why = e.getMessage().lines().filter(l -> l.startsWith("ERROR:")).findFirst().orElse("yosys failed");
            System.err.println(t.block().id() + " " + f.id + ": " + e.getMessage());
            return "does not synthesize (" + why.replace("ERROR: ", "").replace("|", "/") + ")";
        }
    }

    static String cells(Family.Area a) {
        String bram = a.bram() == Math.rint(a.bram()) ? Integer.toString((int) a.bram())
                : String.format(Locale.ROOT, "%.1f", a.bram());
        return a.lut() + " / " + a.ff() + " / " + bram + " / " + a.carry() + (a.lutram() > 0 ? " (+" + a.lutram()
                + " LUTRAM)" : "");
    }
}
