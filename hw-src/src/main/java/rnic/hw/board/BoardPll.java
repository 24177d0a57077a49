package rnic.hw.board;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import spinal.core.Bool;

/**
 * A board's clock generator: the oscillator in, the SoC's clock out, and {@code locked} once that clock is stable.
 * {@link #ecp5_25To48} is the ULX3S's (an {@link Ehxplll}); {@link #passThrough} is for simulation and boards whose
 * oscillator already is the SoC clock (clock out = clock in, locked = 1).
 */
public final class BoardPll extends HwComponent {
    /** Which PLL a board top uses. */
    public enum Kind {
        /** Clock out = clock in, locked = 1. */
        PASS_THROUGH,
        /** ECP5 EHXPLLL, 25 MHz in, 48 MHz out (the ULX3S). */
        ECP5_25_TO_48
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
    /** The primitive (ECP5 only, else null). */
    public final Ehxplll pll;

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
        } else {
            pll = null;
            set(io.clkOut, io.clkIn);
            set(io.locked, True());
        }
    }
}
