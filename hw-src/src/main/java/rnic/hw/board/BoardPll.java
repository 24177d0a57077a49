package rnic.hw.board;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import spinal.core.Bool;

/**
 * A board's clock generator: the oscillator in, the SoC's clock out, and {@code locked} once that clock is stable.
 * {@link Kind#ECP5_25_TO_48} is the ULX3S's (an {@link Ehxplll}), {@link Kind#XILINX_100_TO_48} the Arty A7's (an
 * {@link Mmcme2Base} whose output goes through a {@link Bufg}); {@link Kind#PASS_THROUGH} is for simulation and boards
 * whose oscillator already is the SoC clock (clock out = clock in, locked = 1).
 */
public final class BoardPll extends HwComponent {
    /** Which PLL a board top uses. */
    public enum Kind {
        /** Clock out = clock in, locked = 1. */
        PASS_THROUGH,
        /** ECP5 EHXPLLL, 25 MHz in, 48 MHz out (the ULX3S). */
        ECP5_25_TO_48,
        /** Xilinx 7-series MMCME2_BASE, 100 MHz in, 48 MHz out (the Arty A7). */
        XILINX_100_TO_48
    }

    /**
     * The ECP5 dividers for 25 MHz → 48 MHz. 48/25 needs a reference divider that is a multiple of 25 when the output
     * is fed back (CLKI_DIV = 25 puts the PFD at 1 MHz, under the ECP5's 3.125 MHz floor), so the VCO is set through
     * CLKOP and 48 MHz is taken from the secondary output CLKOS: CLKI_DIV = 5 → PFD 5 MHz (3.125–400); CLKFB_DIV = 12
     * → CLKOP = 60 MHz; CLKOP_DIV = 12 → VCO 720 MHz (400–800); CLKOS_DIV = 15 → CLKOS = 720 / 15 = 48 MHz exactly.
     */
    public static final int ECP5_CLKI_DIV = 5;
    public static final int ECP5_CLKFB_DIV = 12;
    public static final int ECP5_CLKOP_DIV = 12;
    public static final int ECP5_CLKOS_DIV = 15;

    /**
     * The MMCM settings for 100 MHz → 48 MHz on an Artix-7 (speed grade -1: PFD 10–450 MHz, VCO 600–1200 MHz):
     * DIVCLK_DIVIDE = 1 → PFD 100 MHz; CLKFBOUT_MULT_F = 9.0 → VCO 900 MHz, the middle of the range;
     * CLKOUT0_DIVIDE_F = 18.75 (a multiple of the 0.125 step CLKOUT0 allows) → 48 MHz exactly.
     */
    public static final double XILINX_IN_PERIOD_NS = 10.0;
    public static final int XILINX_DIVCLK_DIVIDE = 1;
    public static final double XILINX_CLKFBOUT_MULT = 9.0;
    public static final double XILINX_CLKOUT0_DIVIDE = 18.75;

    /** Ports. */
    public static final class Io extends HwBundle {
        public final Bool clkIn;
        public final Bool clkOut;
        public final Bool locked;

        public Io() {
            clkIn = field("clkIn", in(bool()));
            clkOut = field("clkOut", out(bool()));
            locked = field("locked", out(bool()));
        }
    }

    public final Kind kind;
    public final Io io;
    /** The ECP5 primitive (ECP5 only, else null). */
    public final Ehxplll pll;
    /** The Xilinx primitive and its global buffer (Xilinx only, else null). */
    public final Mmcme2Base mmcm;
    public final Bufg bufg;

    public BoardPll(Kind kind) {
        this.kind = kind;
        io = io(new Io());
        if (kind == Kind.ECP5_25_TO_48) {
            pll = child("pll", () -> new Ehxplll(ECP5_CLKI_DIV, ECP5_CLKFB_DIV, ECP5_CLKOP_DIV, ECP5_CLKOS_DIV));
            set(pll.io.CLKI, io.clkIn);
            set(pll.io.CLKFB, pll.io.CLKOP);
            for (Bool zero : new Bool[] {pll.io.RST, pll.io.STDBY, pll.io.PHASESEL0, pll.io.PHASESEL1,
                    pll.io.PHASEDIR, pll.io.PHASESTEP, pll.io.PHASELOADREG, pll.io.PLLWAKESYNC}) {
                set(zero, False());
            }
            set(pll.io.ENCLKOP, True());
            set(pll.io.ENCLKOS, True());
            set(io.clkOut, pll.io.CLKOS);
            set(io.locked, pll.io.LOCK);
            mmcm = null;
            bufg = null;
        } else if (kind == Kind.XILINX_100_TO_48) {
            pll = null;
            mmcm = child("mmcm", () -> new Mmcme2Base(XILINX_IN_PERIOD_NS, XILINX_CLKFBOUT_MULT,
                    XILINX_DIVCLK_DIVIDE, XILINX_CLKOUT0_DIVIDE));
            bufg = child("bufg", Bufg::new);
            set(mmcm.io.CLKIN1, io.clkIn);
            set(mmcm.io.CLKFBIN, mmcm.io.CLKFBOUT);
            set(mmcm.io.RST, False());
            set(mmcm.io.PWRDWN, False());
            set(bufg.io.I, mmcm.io.CLKOUT0);
            set(io.clkOut, bufg.io.O);
            set(io.locked, mmcm.io.LOCKED);
        } else {
            pll = null;
            mmcm = null;
            bufg = null;
            set(io.clkOut, io.clkIn);
            set(io.locked, True());
        }
    }
}
