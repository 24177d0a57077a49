package rnic.hw.axis;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.Bool;

/**
 * One AXI-Stream beat: {@code tdata} (octet 0 in bits 7:0), {@code tkeep} (one bit per octet, contiguous from octet 0;
 * only the last beat of a message may be partial), {@code tlast}.
 */
public final class AxisBeat extends HwBundle {
    public final int dataWidth;
    public final Bits tdata;
    public final Bits tkeep;
    public final Bool tlast;

    public AxisBeat(int dataWidth) {
        this.dataWidth = dataWidth;
        tdata = field("tdata", bits(dataWidth));
        tkeep = field("tkeep", bits(dataWidth / 8));
        tlast = field("tlast", bool());
    }
}
