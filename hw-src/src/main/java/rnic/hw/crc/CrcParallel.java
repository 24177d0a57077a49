package rnic.hw.crc;

import static rnic.hdl.Hdl.*;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * Hardware for one parallel CRC step over a bus beat whose valid octets are {@code 0 … k-1} ({@code k = n - empty},
 * {@code n} octets per beat).
 *
 * <p>Rather than one full matrix per octet count, the data is moved up by {@code empty} octets so the valid octets are
 * the last ones consumed; zero octets consumed from a zero register leave it zero, so the one shared data matrix
 * {@code B_n} gives {@code B_k·data}. The register part then needs {@code A_k}, a small {@code width × width} matrix per
 * octet count: {@code next = A_k·state ⊕ B_n·(data << 8·empty)}. Every output bit is a balanced XOR of a fixed set of
 * bits, computed at elaboration by {@link CrcMatrix}.
 */
public final class CrcParallel {
    private CrcParallel() {
    }

    /**
     * The register after one beat.
     *
     * @param state current register ({@code m.width()} bits)
     * @param data  the beat, octet 0 in bits 7:0
     * @param empty number of invalid octets at the top of the beat (0 … n); {@code null} means a full beat
     */
    public static Bits next(CrcMatrix m, Bits state, Bits data, UInt empty) {
        return xor(statePart(m, state, data.getBitsWidth() / 8, empty), dataPart(m, data, empty));
    }

    /**
     * The data half of {@link #next}, {@code B_n·(data << 8·empty)}: it does not depend on the register, so a pipeline
     * can compute it a cycle ahead of the register update and keep the loop to {@link #statePart}.
     */
    public static Bits dataPart(CrcMatrix m, Bits data, UInt empty) {
        int octets = data.getBitsWidth() / 8;
        Bits aligned = empty == null ? data : data.$bar$less$less(concat(empty.asBits(), B(0, 3)).asUInt());
        return apply(m.dataRows(octets), aligned, m.width());
    }

    /** {@code A_k·state}: the register after {@code octets} zero octets. */
    public static Bits stateAfter(CrcMatrix m, Bits state, int octets) {
        return applyState(m.stateRows(octets), state);
    }

    /**
     * The register half of {@link #next} for a beat of {@code octets} octets: {@code A_k·state} with
     * {@code k = octets − empty} ({@code empty} null: a full beat).
     */
    public static Bits statePart(CrcMatrix m, Bits state, int octets, UInt empty) {
        if (empty == null) {
            return applyState(m.stateRows(octets), state);
        }
        List<Bits> candidates = new ArrayList<>();
        for (int e = 0; e <= octets; e++) {
            candidates.add(applyState(m.stateRows(octets - e), state));
        }
        return vec(candidates).apply(empty.resize(log2Up(octets + 1)));
    }

    /**
     * The register after the 32-bit words {@code lo … hi-1} of a beat (word 0 in bits 31:0), the others ignored. Words
     * below {@code lo} are masked to zero — leading zeros add nothing to the data part — and the span is moved up so it
     * ends at the top of the beat, where trailing zeros can no longer follow it; the register part then advances by
     * exactly {@code 4·(hi − lo)} octets. {@code lo ≤ hi ≤ words}; an empty span leaves the register unchanged.
     */
    public static Bits nextWords(CrcMatrix m, Bits state, Bits data, UInt lo, UInt hi) {
        int words = data.getBitsWidth() / 32;
        int cw = log2Up(words + 1);
        UInt first = lo.resize(cw);
        UInt end = hi.resize(cw);
        List<Bool> keep = new ArrayList<>();
        for (int i = 0; i < words; i++) {
            Bool in = and(le(first, U(i, cw)), lt(U(i, cw), end));
            for (int b = 0; b < 32; b++) {
                keep.add(in);
            }
        }
        Bits masked = and(data, catLsbFirst(keep));
        Bits aligned = masked.$bar$less$less(concat(sub(U(words, cw), end).asBits(), B(0, 5)).asUInt());
        Bits fromData = apply(m.dataRows(4 * words), aligned, m.width());
        List<Bits> candidates = new ArrayList<>();
        for (int c = 0; c <= words; c++) {
            candidates.add(applyState(m.stateRows(4 * c), state));
        }
        Bits fromState = vec(candidates).apply(sub(end, first));
        return xor(fromState, fromData);
    }

    private static Bits applyState(long[] rows, Bits state) {
        BigInteger[] big = new BigInteger[rows.length];
        for (int i = 0; i < rows.length; i++) {
            big[i] = BigInteger.valueOf(rows[i]);
        }
        return apply(big, state, rows.length);
    }

    /**
     * {@code out[i] = ^(in & rows[i])}: the XOR of the input bits a row selects. Written as a reduction over a constant
     * mask, so the Verilog is one line per output bit; synthesis folds the constant AND away and builds a balanced XOR
     * tree, and Verilator evaluates it as a masked parity of machine words.
     */
    private static Bits apply(BigInteger[] rows, Bits in, int outWidth) {
        int inWidth = in.getBitsWidth();
        List<Bool> outBits = new ArrayList<>();
        for (int i = 0; i < outWidth; i++) {
            outBits.add(and(in, B(rows[i], inWidth)).xorR());
        }
        return catLsbFirst(outBits);
    }
}
