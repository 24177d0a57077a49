package rnic.tools.fpga;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The boards {@code ./rnic fpga --board B} knows: family, device, oscillator, pin file under {@code constraints/} and
 * the device's capacity (for utilisation in percent).
 */
public enum Board {
    /** iCEBreaker: iCE40UP5K-SG48, 12 MHz. */
    ICEBREAKER("icebreaker", Family.ICE40, "iCE40UP5K-SG48", 12_000_000L, "constraints/icebreaker/icebreaker.pcf",
            new Capacity(5_280, 5_280, 30, 8), "openFPGALoader -b ice40_generic"),
    /** Lattice iCE40-HX8K Breakout Board: iCE40HX8K-CT256, 12 MHz. */
    HX8K_BREAKOUT("hx8k-breakout", Family.ICE40, "iCE40HX8K-CT256", 12_000_000L,
            "constraints/hx8k-breakout/hx8k-breakout.pcf", new Capacity(7_680, 7_680, 32, 0),
            "openFPGALoader -b ice40_generic"),
    /** Radiona ULX3S: Lattice ECP5 LFE5U-85F-6BG381C, 25 MHz. */
    ULX3S("ulx3s", Family.ECP5, "LFE5U-85F-6BG381C", 25_000_000L, "constraints/ulx3s/ulx3s.lpf",
            new Capacity(83_640, 83_640, 208, 156), "openFPGALoader -b ulx3s"),
    /** Digilent Arty A7-100T: xc7a100tcsg324-1, 100 MHz. */
    ARTY_A7_100T("arty-a7-100t", Family.XILINX, "xc7a100tcsg324-1", 100_000_000L,
            "constraints/arty-a7-100t/arty-a7-100t.xdc", new Capacity(63_400, 126_800, 135, 240),
            "openFPGALoader -b arty_a7_100t");

    /**
     * What the device holds: logic (LUT4 for Lattice, LUT6 for Xilinx; on iCE40 a logic cell is one LUT4 + one FF),
     * flip-flops, block RAM (iCE40 4-kbit, ECP5 18-kbit DP16KD, Xilinx 36-kbit RAMB36) and multipliers.
     */
    public record Capacity(int lut, int ff, int bram, int dsp) {
    }

    public final String id;
    public final Family family;
    public final String device;
    public final long clockHz;
    public final String constraints;
    public final Capacity capacity;
    /** The openFPGALoader command that loads a bitstream into the FPGA's SRAM (without the file name). */
    public final String loader;

    Board(String id, Family family, String device, long clockHz, String constraints, Capacity capacity,
            String loader) {
        this.id = id;
        this.family = family;
        this.device = device;
        this.clockHz = clockHz;
        this.constraints = constraints;
        this.capacity = capacity;
        this.loader = loader;
    }

    /** The board named {@code id}, or an exception listing the known ones. */
    public static Board byId(String id) {
        for (Board b : values()) {
            if (b.id.equals(id)) {
                return b;
            }
        }
        throw new IllegalArgumentException("unknown board '" + id + "'; choose one of "
                + Arrays.stream(values()).map(b -> b.id).collect(Collectors.joining(", ")));
    }

    /** nextpnr-ice40's device arguments (iCE40 boards only). */
    public String[] nextpnrIce40Device() {
        return switch (this) {
            case ICEBREAKER -> new String[] {"--up5k", "--package", "sg48"};
            case HX8K_BREAKOUT -> new String[] {"--hx8k", "--package", "ct256"};
            default -> throw new IllegalStateException(id + " is not an iCE40 board");
        };
    }
}
