package rnic.hw.board;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.BlackBox;
import spinal.core.Bool;

/** Xilinx 7-series global clock buffer {@code BUFG} as a black box: puts a clock manager's output on a global net. */
public final class Bufg extends BlackBox {
    /** The primitive's pins. */
    public static final class Io extends HwBundle {
        public final Bool I;
        public final Bool O;

        public Io() {
            I = field("I", in(bool()));
            O = field("O", out(bool()));
        }
    }

    public final Io io;

    public Bufg() {
        setDefinitionName("BUFG", true);
        noIoPrefix();
        io = new Io();
        valCallback(io, "io");
    }
}
