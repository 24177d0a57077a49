package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.UInt;

/**
 * One beat of a ULPDU (a DDP segment) handed to MPA: {@code data} (octet 0 in bits 7:0) and the ULPDU's length in
 * octets on every beat of it (1 … 64768). The length delimits the ULPDU: it is exactly ⌈L / octets-per-beat⌉ beats,
 * all full but the last; octets past L in the last beat are ignored.
 */
public final class UlpduBeat extends HwBundle {
    public final int dataWidth;
    public final Bits data;
    public final UInt length;

    public UlpduBeat(int dataWidth) {
        this.dataWidth = dataWidth;
        data = field("data", bits(dataWidth));
        length = field("length", uint(16));
    }
}
