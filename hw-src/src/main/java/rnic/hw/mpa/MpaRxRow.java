package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * Complete 32-bit words {@code lo … hi-1} of one row of the received stream: the row of {@code W/8} octets that starts
 * at stream offset {@code rowOff} (octets from the start of Full Operation), word {@code i} in bits {@code 32i+31:32i}.
 * A row may come in several beats with increasing {@code lo}. Because FPDUs and Markers are whole words from that
 * offset and {@code W/8} divides 512, FPDU boundaries fall between words and a Marker can only be word 0 of a row.
 * {@code lost} (no words) says the stream has a hole at {@code rowOff}: nothing after it is usable.
 *
 * <p>In a receiver shared by {@code n ≥ 1} connections ({@link MpaRxShared}) a row also carries its connection
 * {@code conn}; the one-connection receiver's rows ({@code n = 0}) have no such field.
 */
public final class MpaRxRow extends HwBundle {
    public final int words;
    public final Bits data;
    public final UInt lo;
    public final UInt hi;
    public final UInt rowOff;
    public final Bool lost;
    /** The row's connection (null in an untagged row, {@code n = 0}). */
    public final UInt conn;
    public final int n;

    /** A row of {@code words} words, tagged with a connection of {@code n} when {@code n ≥ 1}. */
    public MpaRxRow(int words, int n) {
        this.words = words;
        this.n = n;
        data = field("data", bits(32 * words));
        lo = field("lo", uint(log2Up(words + 1)));
        hi = field("hi", uint(log2Up(words + 1)));
        rowOff = field("rowOff", uint(32));
        lost = field("lost", bool());
        conn = n > 0 ? field("conn", uint(MpaRxPiece.connBits(n))) : null;
    }
}
