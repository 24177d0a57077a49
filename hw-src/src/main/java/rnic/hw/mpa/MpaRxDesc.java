package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * One verdict in {@link MpaRxHold}'s descriptor FIFO, shared by every connection, in the order the verdicts were
 * written (docs/shared-mpa.md §3.1): the connection, good or bad, and the ULPDU_Length of a good FPDU or the Error Code (in bits
 * 7:0) of a bad one. Where the ULPDU sits needs no field: a connection's ULPDUs are stored back to back in its region
 * and taken in order.
 */
public final class MpaRxDesc extends HwBundle {
    public final int n;
    public final UInt conn;
    public final Bool bad;
    public final UInt length;

    public MpaRxDesc(int n) {
        this.n = n;
        conn = field("conn", uint(MpaRxPiece.connBits(n)));
        bad = field("bad", bool());
        length = field("length", uint(16));
    }
}
