package rnic.hw.qp;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.Data;
import spinal.core.UInt;

/**
 * Elaboration-time helpers shared by the ring blocks, building hardware in the calling component: ring index
 * arithmetic on the 16-bit free-running indices of the issue-5 register map, little-endian field access to descriptor
 * octets ({@link rnic.wire.SqWqe}, {@link rnic.wire.RqWqe}, {@link rnic.wire.Cqe} are little-endian), and a
 * round-robin pick. Not hardware itself.
 */
final class QpRingMath {
    private QpRingMath() {
    }

    /**
     * {@code 2^size − 1} as a 16-bit mask (slot = index &amp; mask); a size above {@link QpRingsConfig#MAX_SIZE_LOG2}
     * is taken as that maximum, the largest ring 16-bit free-running indices can tell from an empty one.
     */
    static UInt slotMask(UInt size) {
        int ib = QpRingsConfig.INDEX_BITS;
        UInt mask = combInit(U((1L << QpRingsConfig.MAX_SIZE_LOG2) - 1, ib));
        for (int s = QpRingsConfig.MAX_SIZE_LOG2 - 1; s >= 0; s--) {
            final int sz = s;
            when(eq(size, U(sz, size.getBitsWidth())), () -> set(mask, U((1L << sz) - 1, ib)));
        }
        return mask;
    }

    /** Whether a ring with {@code produced − consumed} entries in use is full (in use &gt; mask, i.e. ≥ 2^size). */
    static Bool full(UInt produced, UInt consumed, UInt mask) {
        return gt(sub(produced, consumed), mask);
    }

    /**
     * The phase a completion written at free-running index {@code index} carries ({@link rnic.wire.Cqe#OWNER} bit 0):
     * 1 on the first pass through a ring of {@code 2^size} slots, flipped at every wrap — the complement of index bit
     * {@code size} (size clamped as in {@link #slotMask}).
     */
    static Bool phase(UInt index, UInt size) {
        Bool p = combInit(not(index.apply(QpRingsConfig.MAX_SIZE_LOG2)));
        for (int s = QpRingsConfig.MAX_SIZE_LOG2 - 1; s >= 0; s--) {
            final int sz = s;
            when(eq(size, U(sz, size.getBitsWidth())), () -> set(p, not(index.apply(sz))));
        }
        return p;
    }

    /** The byte address of slot {@code index & mask} of a ring of {@code 2^log2Entry}-octet entries at {@code base}. */
    static UInt slotAddress(UInt base, UInt index, UInt mask, int log2Entry) {
        UInt slot = and(index.asBits(), mask.asBits()).asUInt();
        return add(base, shl(slot, log2Entry).resize(64));
    }

    /** The little-endian field of {@code octets} octets at octet {@code offset} of a vector (octet 0 in bits 7:0). */
    static Bits le(Bits vector, int offset, int octets) {
        return range(vector, 8 * (offset + octets) - 1, 8 * offset);
    }

    /**
     * A little-endian octet vector of {@code size} octets built from fields put at their offsets (octets never put are
     * 0): the inverse of {@link #le}.
     */
    static final class Octets {
        private final List<Bits> octets = new ArrayList<>();

        Octets(int size) {
            for (int i = 0; i < size; i++) {
                octets.add(null);
            }
        }

        /** Puts {@code value} (a multiple of 8 bits) little-endian at {@code offset}. */
        Octets put(int offset, Data value) {
            Bits b = value.asBits();
            int n = b.getBitsWidth() / 8;
            if (n * 8 != b.getBitsWidth() || offset + n > octets.size()) {
                throw new IllegalArgumentException("field of " + b.getBitsWidth() + " bits at octet " + offset);
            }
            for (int i = 0; i < n; i++) {
                octets.set(offset + i, range(b, 8 * i + 7, 8 * i));
            }
            return this;
        }

        /** The vector, octet 0 in bits 7:0. */
        Bits bits() {
            List<Bits> out = new ArrayList<>();
            for (Bits o : octets) {
                out.add(o == null ? B(0, 8) : o);
            }
            return catLsbFirst(out);
        }
    }
}
