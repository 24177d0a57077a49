package rnic.hw.board;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.BlackBox;
import spinal.core.Bool;

/**
 * Xilinx 7-series clock manager {@code MMCME2_BASE} as a black box (Vivado and yosys {@code synth_xilinx} know it; see
 * Xilinx UG472 "7 Series FPGAs Clocking Resources", and DS181 for the Artix-7 -1 ranges): f(VCO) = f(CLKIN1) ×
 * CLKFBOUT_MULT_F / DIVCLK_DIVIDE with the feedback from CLKFBOUT, f(CLKOUT0) = f(VCO) / CLKOUT0_DIVIDE_F. Only
 * the ports this project uses are declared; the primitive's other outputs stay unconnected.
 */
public final class Mmcme2Base extends BlackBox {
    /** The primitive's pins, under their Xilinx names. */
    public static final class Io extends HwBundle {
        public final Bool CLKIN1;
        public final Bool CLKFBIN;
        public final Bool RST;
        public final Bool PWRDWN;
        public final Bool CLKFBOUT;
        public final Bool CLKOUT0;
        public final Bool LOCKED;

        public Io() {
            CLKIN1 = field("CLKIN1", in(bool()));
            CLKFBIN = field("CLKFBIN", in(bool()));
            RST = field("RST", in(bool()));
            PWRDWN = field("PWRDWN", in(bool()));
            CLKFBOUT = field("CLKFBOUT", out(bool()));
            CLKOUT0 = field("CLKOUT0", out(bool()));
            LOCKED = field("LOCKED", out(bool()));
        }
    }

    public final Io io;

    /**
     * @param inPeriodNs  the input clock's period (CLKIN1_PERIOD)
     * @param mult        CLKFBOUT_MULT_F (2.000–64.000 in steps of 0.125)
     * @param divclk      DIVCLK_DIVIDE (the PFD divider)
     * @param out0Divide  CLKOUT0_DIVIDE_F (1.000–128.000 in steps of 0.125)
     */
    public Mmcme2Base(double inPeriodNs, double mult, int divclk, double out0Divide) {
        setDefinitionName("MMCME2_BASE", true);
        noIoPrefix();
        io = new Io();
        valCallback(io, "io");
        addGeneric("BANDWIDTH", "OPTIMIZED");
        addGeneric("CLKIN1_PERIOD", inPeriodNs);
        addGeneric("CLKFBOUT_MULT_F", mult);
        addGeneric("DIVCLK_DIVIDE", divclk);
        addGeneric("CLKOUT0_DIVIDE_F", out0Divide);
        addGeneric("CLKOUT0_PHASE", 0.0);
        addGeneric("CLKOUT0_DUTY_CYCLE", 0.5);
        addGeneric("STARTUP_WAIT", "FALSE");
    }
}
