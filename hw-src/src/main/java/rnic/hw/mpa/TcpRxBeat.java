package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.UInt;

/**
 * A beat of received TCP payload, in sequence order: {@code tkeep} octets from octet 0 of {@code tdata} (octet 0 in
 * bits 7:0; any count 0 … W/8, on any beat), the first of them at TCP sequence number {@code seq}. Segment boundaries
 * carry no meaning to MPA (RFC 5044 §5.1), so there is no {@code tlast}.
 */
public final class TcpRxBeat extends HwBundle {
    public final int dataWidth;
    public final Bits tdata;
    public final Bits tkeep;
    public final UInt seq;

    public TcpRxBeat(int dataWidth) {
        this.dataWidth = dataWidth;
        tdata = field("tdata", bits(dataWidth));
        tkeep = field("tkeep", bits(dataWidth / 8));
        seq = field("seq", uint(32));
    }
}
