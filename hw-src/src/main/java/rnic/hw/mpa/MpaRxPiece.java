package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * What the receive parser hands {@link MpaRxHold} for one TCP beat of one connection (docs/shared-mpa.md §3.1): the raw row
 * {@code data} (W bits, octet 0 in bits 7:0) and up to two spans of it that are FPDU content to store, in 16-bit
 * half-word units of the row (half-word {@code j} is bits {@code 16j+15:16j}): span A = half-words
 * {@code [aFrom, aTo)}, then span B = {@code [bFrom, bTo)}, A's content before B's in stream order
 * ({@code aFrom ≤ aTo ≤ 2·W/32}, the same for B; an empty span has {@code from = to}). Stored content is the ULPDU and
 * its PAD (RFC 5044 §4.1); the ULPDU_Length half-word, Markers and the CRC word are left out by the spans.
 *
 * <p>{@code verdict} says this piece closes an FPDU: every half-word of it was in this piece's span A or in an earlier
 * piece of the connection, and the FPDU stored exactly {@link MpaRxConfig#storedHalfWords}({@code length}) half-words
 * when it is good. Span B (if any) starts the next FPDU. {@code bad} makes it an MPA error with Error Code {@code code}
 * (then {@code length} is not used, and the FPDU may have stored any part of its content). A piece without a verdict
 * ignores {@code bad}, {@code code} and {@code length}.
 */
public final class MpaRxPiece extends HwBundle {
    public final int dataWidth;
    public final int n;
    public final UInt conn;
    public final Bits data;
    public final UInt aFrom;
    public final UInt aTo;
    public final UInt bFrom;
    public final UInt bTo;
    public final Bool verdict;
    public final Bool bad;
    public final UInt code;
    public final UInt length;

    public MpaRxPiece(int dataWidth, int n) {
        this.dataWidth = dataWidth;
        this.n = n;
        int sb = spanBits(dataWidth);
        conn = field("conn", uint(connBits(n)));
        data = field("data", bits(dataWidth));
        aFrom = field("aFrom", uint(sb));
        aTo = field("aTo", uint(sb));
        bFrom = field("bFrom", uint(sb));
        bTo = field("bTo", uint(sb));
        verdict = field("verdict", bool());
        bad = field("bad", bool());
        code = field("code", uint(8));
        length = field("length", uint(16));
    }

    /** Bits of a span bound: 0 … 2·W/32. */
    public static int spanBits(int dataWidth) {
        return log2Up(2L * (dataWidth / 32) + 1);
    }

    /** Bits of a connection number: log2Up(n), at least 1. */
    public static int connBits(int n) {
        return Math.max(1, log2Up(n));
    }
}
