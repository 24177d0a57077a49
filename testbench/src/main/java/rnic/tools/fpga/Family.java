package rnic.tools.fpga;

import java.util.Map;

/**
 * An FPGA family as yosys synthesizes it: the {@code synth_*} command and how its cell types count as LUTs,
 * flip-flops, block RAM, DSPs, carry cells and distributed-RAM cells.
 */
public enum Family {
    /** Lattice iCE40: SB_LUT4, SB_DFF*, SB_RAM40_4K (4 kbit), SB_MAC16 (UP5K only), SB_CARRY. */
    ICE40("ice40", "synth_ice40", "synth_ice40 -noflatten"),
    /** Lattice ECP5: LUT4 (plus PFUMX/L6MUX21 wide muxes), TRELLIS_FF, DP16KD (18 kbit), MULT18X18D, CCU2C. */
    ECP5("ecp5", "synth_ecp5", "synth_ecp5 -noflatten"),
    /** Xilinx 7-series: LUT1…LUT6, FD*E, RAMB36E1/RAMB18E1, DSP48E1, CARRY4, LUTRAM/SRL. */
    XILINX("xilinx", "synth_xilinx -family xc7 -flatten", "synth_xilinx -family xc7");

    /** Short name used in folders and tables. */
    public final String id;
    /** The yosys synthesis command (without {@code -top}), flattening the design: area of one block. */
    public final String synthFlat;
    /** The same keeping the hierarchy: area per submodule of a large design. */
    public final String synthHier;

    Family(String id, String synthFlat, String synthHier) {
        this.id = id;
        this.synthFlat = synthFlat;
        this.synthHier = synthHier;
    }

    /**
     * Area of one synthesized design in this family's primitive terms. BRAM in the family's natural block (iCE40
     * SB_RAM40_4K, ECP5 DP16KD, Xilinx RAMB36 with a RAMB18 as one half). {@code lut} counts logic LUTs only;
     * {@code lutram} counts distributed RAM: on Xilinx in LUT sites (a RAM32M or RAM64M takes the four LUTs of a SLICEM),
     * on ECP5 in TRELLIS_DPR16X4 cells (16 × 4 bits each).
     */
    public record Area(int lut, int ff, double bram, int dsp, int carry, int lutram) {
        /** LUT sites used: logic plus, on Xilinx, distributed RAM (which sits in LUTs). */
        public int lutSites(Family f) {
            return f == XILINX ? lut + lutram : lut;
        }

        /** Sum of two areas. */
        public Area plus(Area o) {
            return new Area(lut + o.lut, ff + o.ff, bram + o.bram, dsp + o.dsp, carry + o.carry, lutram + o.lutram);
        }
    }

    /** Classifies the cell counts of a yosys {@code stat} report. */
    public Area area(Map<String, Integer> cells) {
        int lut = 0;
        int ff = 0;
        double bram = 0;
        int dsp = 0;
        int carry = 0;
        int lutram = 0;
        for (Map.Entry<String, Integer> e : cells.entrySet()) {
            String t = e.getKey();
            int n = e.getValue();
            switch (this) {
                case ICE40 -> {
                    if (t.equals("SB_LUT4")) {
                        lut += n;
                    } else if (t.startsWith("SB_DFF")) {
                        ff += n;
                    } else if (t.startsWith("SB_RAM40_4K")) {
                        bram += n;
                    } else if (t.equals("SB_MAC16")) {
                        dsp += n;
                    } else if (t.equals("SB_CARRY")) {
                        carry += n;
                    }
                }
                case ECP5 -> {
                    if (t.equals("LUT4")) {
                        lut += n;
                    } else if (t.equals("TRELLIS_FF")) {
                        ff += n;
                    } else if (t.equals("DP16KD") || t.equals("PDPW16KD")) {
                        bram += n;
                    } else if (t.startsWith("MULT18X18") || t.startsWith("ALU54")) {
                        dsp += n;
                    } else if (t.equals("CCU2C")) {
                        carry += n;
                    } else if (t.equals("TRELLIS_DPR16X4")) {
                        lutram += n;
                    }
                }
                case XILINX -> {
                    if (t.matches("LUT[1-6]")) {
                        lut += n;
                    } else if (t.matches("FD[RSCP]E(_1)?")) {
                        ff += n;
                    } else if (t.startsWith("RAMB36")) {
                        bram += n;
                    } else if (t.startsWith("RAMB18")) {
                        bram += 0.5 * n;
                    } else if (t.startsWith("DSP48")) {
                        dsp += n;
                    } else if (t.equals("CARRY4")) {
                        carry += n;
                    } else if (t.equals("RAM32M") || t.equals("RAM64M") || t.equals("RAM128X1D")
                            || t.equals("RAM256X1S")) {
                        lutram += 4 * n; // LUT sites of a SLICEM: a RAM32M/RAM64M takes all four
                    } else if (t.equals("RAM32X1D") || t.equals("RAM64X1D") || t.equals("RAM128X1S")) {
                        lutram += 2 * n;
                    } else if (t.matches("RAM(32|64)X1S") || t.startsWith("SRL")) {
                        lutram += n;
                    }
                }
                default -> throw new IllegalStateException();
            }
        }
        return new Area(lut, ff, bram, dsp, carry, lutram);
    }
}
