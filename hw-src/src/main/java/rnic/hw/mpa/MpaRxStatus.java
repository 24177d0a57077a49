package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * The verdict on one FPDU, in stream order: good, or an MPA error with its Error Code ({@link rnic.wire.MpaErrorCode},
 * Terminate Layer 2 / EType 0) and where the offending FPDU's first octet is (or the hole, for E-M1) as a stream
 * offset from the start of Full Operation ({@code seq}; {@link MpaRxDeframer} adds {@code seqStart} for the TCP
 * sequence number it reports). {@code length} is the FPDU's ULPDU_Length (meaningless on a bad verdict): the receiver hands it on with the
 * ULPDU, so the DDP layer knows a segment's length from its first beat.
 */
public final class MpaRxStatus extends HwBundle {
    public final Bool bad;
    public final UInt code;
    public final UInt seq;
    public final UInt length;

    public MpaRxStatus() {
        bad = field("bad", bool());
        code = field("code", uint(8));
        seq = field("seq", uint(32));
        length = field("length", uint(16));
    }
}
