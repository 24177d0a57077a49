package rnic.hw.board;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.BlackBox;
import spinal.core.Bool;

/**
 * Lattice's ECP5 PLL primitive {@code EHXPLLL} as a black box (yosys {@code synth_ecp5} and nextpnr-ecp5 know it; see
 * Lattice TN1263 "ECP5 and ECP5-5G sysCLOCK PLL/DLL Design and Usage Guide"). Only the ports this project drives are
 * declared besides the ones the primitive needs tied off; feedback is from CLKOP ({@code FEEDBK_PATH = "CLKOP"}), so
 * f(CLKOP) = f(CLKI) / CLKI_DIV × CLKFB_DIV, f(VCO) = f(CLKOP) × CLKOP_DIV and f(CLKOS) = f(VCO) / CLKOS_DIV.
 */
public final class Ehxplll extends BlackBox {
    /** The primitive's pins, under their Lattice names. */
    public static final class Io extends HwBundle {
        public final Bool CLKI;
        public final Bool CLKFB;
        public final Bool RST;
        public final Bool STDBY;
        public final Bool PHASESEL0;
        public final Bool PHASESEL1;
        public final Bool PHASEDIR;
        public final Bool PHASESTEP;
        public final Bool PHASELOADREG;
        public final Bool PLLWAKESYNC;
        public final Bool ENCLKOP;
        public final Bool ENCLKOS;
        public final Bool CLKOP;
        public final Bool CLKOS;
        public final Bool LOCK;

        public Io() {
            CLKI = field("CLKI", in(bool()));
            CLKFB = field("CLKFB", in(bool()));
            RST = field("RST", in(bool()));
            STDBY = field("STDBY", in(bool()));
            PHASESEL0 = field("PHASESEL0", in(bool()));
            PHASESEL1 = field("PHASESEL1", in(bool()));
            PHASEDIR = field("PHASEDIR", in(bool()));
            PHASESTEP = field("PHASESTEP", in(bool()));
            PHASELOADREG = field("PHASELOADREG", in(bool()));
            PLLWAKESYNC = field("PLLWAKESYNC", in(bool()));
            ENCLKOP = field("ENCLKOP", in(bool()));
            ENCLKOS = field("ENCLKOS", in(bool()));
            CLKOP = field("CLKOP", out(bool()));
            CLKOS = field("CLKOS", out(bool()));
            LOCK = field("LOCK", out(bool()));
        }
    }

    public final Io io;

    /**
     * @param clkiDiv  reference divider (PFD = f(CLKI) / clkiDiv)
     * @param clkfbDiv feedback divider (from CLKOP)
     * @param clkopDiv CLKOP's output divider (sets the VCO)
     * @param clkosDiv CLKOS's output divider
     */
    public Ehxplll(int clkiDiv, int clkfbDiv, int clkopDiv, int clkosDiv) {
        setDefinitionName("EHXPLLL", true);
        noIoPrefix();
        io = new Io();
        valCallback(io, "io");
        addGeneric("PLLRST_ENA", "DISABLED");
        addGeneric("INTFB_WAKE", "DISABLED");
        addGeneric("STDBY_ENABLE", "DISABLED");
        addGeneric("DPHASE_SOURCE", "DISABLED");
        addGeneric("OUTDIVIDER_MUXA", "DIVA");
        addGeneric("OUTDIVIDER_MUXB", "DIVB");
        addGeneric("CLKOP_ENABLE", "ENABLED");
        addGeneric("CLKOS_ENABLE", "ENABLED");
        addGeneric("FEEDBK_PATH", "CLKOP");
        addGeneric("CLKI_DIV", clkiDiv);
        addGeneric("CLKFB_DIV", clkfbDiv);
        addGeneric("CLKOP_DIV", clkopDiv);
        // Coarse phase = divider - 1 is zero phase shift (as Project Trellis' ecppll writes it).
        addGeneric("CLKOP_CPHASE", clkopDiv - 1);
        addGeneric("CLKOP_FPHASE", 0);
        addGeneric("CLKOS_DIV", clkosDiv);
        addGeneric("CLKOS_CPHASE", clkosDiv - 1);
        addGeneric("CLKOS_FPHASE", 0);
    }
}
