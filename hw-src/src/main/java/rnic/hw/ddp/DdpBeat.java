package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.UInt;

/**
 * One beat of a DDP segment (one MPA ULPDU) on the engines' segment streams, received or to send: {@code data}
 * (octet 0 of the beat in bits 7:0), the segment's length in octets on every beat of it (1 … 65535, as MPA's
 * ULPDU_Length), and the QP (DDP stream) it belongs to, also on every beat. As {@link rnic.hw.mpa.UlpduBeat}, the
 * length delimits the segment: it is exactly ⌈length / octets-per-beat⌉ beats, all full but the last, whose octets
 * past the length are don't-care. Knowing the length from the first beat lets the receive side check bounds
 * (E-D4, E-D12) before it places the first octet.
 */
public final class DdpBeat extends HwBundle {
    public final DdpConfig config;
    public final int dataWidth;
    public final int qpBits;
    public final Bits data;
    public final UInt length;
    public final UInt qp;

    public DdpBeat(DdpConfig config) {
        this.config = config;
        this.dataWidth = config.dataWidth();
        this.qpBits = config.qpBits();
        data = field("data", bits(dataWidth));
        length = field("length", uint(16));
        qp = field("qp", uint(qpBits));
    }

    /**
     * Whether beat number {@code beat} (from 0) of a segment of {@code length} octets is its last: the one holding
     * octet {@code length − 1}, i.e. (beat + 1) · octets ≥ length.
     */
    public static spinal.core.Bool isLastBeat(UInt beat, UInt length, int octets) {
        int shift = Integer.numberOfTrailingZeros(octets);
        UInt next = add(beat, U(1, beat.getBitsWidth()));
        return ge(shl(next, shift), length.resize(beat.getBitsWidth() + shift));
    }
}
