package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * One beat of a validated ULPDU out of {@link MpaRxHold}: {@code data} (octet 0 of the beat in bits 7:0; the ULPDU's
 * octet 0 is octet 0 of its first beat), the ULPDU_Length {@code length} and the connection {@code conn} on every beat,
 * {@code last} on the final one. A ULPDU is {@code max(1, ⌈length / (W/8)⌉)} beats, all full but the last, whose octets
 * past {@code length} are don't-care (as {@link UlpduBeat} and {@code rnic.hw.ddp.DdpBeat} have it).
 */
public final class MpaRxHoldBeat extends HwBundle {
    public final int dataWidth;
    public final int n;
    public final Bits data;
    public final UInt length;
    public final UInt conn;
    public final Bool last;

    public MpaRxHoldBeat(int dataWidth, int n) {
        this.dataWidth = dataWidth;
        this.n = n;
        data = field("data", bits(dataWidth));
        length = field("length", uint(16));
        conn = field("conn", uint(MpaRxPiece.connBits(n)));
        last = field("last", bool());
    }
}
