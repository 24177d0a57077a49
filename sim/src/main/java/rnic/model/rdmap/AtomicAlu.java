package rnic.model.rdmap;

/**
 * Golden model of the two RFC 7306 Atomic Operations on one 64-bit value (RFC 7306 §5.1.1 FetchAdd, §5.1.2 CmpSwap;
 * docs/requirements.md §2.9, RDMAP-32, RDMAP-33, trap T-25). Values are in the target memory's byte order: the byte swap of
 * the big-endian wire operands (T-26) and the read-modify-write belong to the caller.
 *
 * <p>Each operation is written straight from the RFC's pseudocode, FetchAdd as its bit loop, so that this model stays
 * independent of the carry-save formula the hardware uses.
 */
public final class AtomicAlu {
    private AtomicAlu() {
    }

    /**
     * What an Atomic Operation does to the 64-bit value it targets.
     *
     * @param original the Original Remote Data Value, returned to the Requester in every case
     * @param newValue the Remote Data Value after the operation (equal to {@code original} when nothing is written)
     * @param write    whether the operation writes memory: always for FetchAdd, only on a match for CmpSwap
     */
    public record Result(long original, long newValue, boolean write) {
        @Override
        public String toString() {
            return String.format("original %016x new %016x%s", original, newValue, write ? " write" : " no write");
        }
    }

    /**
     * Masked FetchAdd, the RFC 7306 §5.1.1 pseudocode: a bit-serial add from bit 0 to bit 63 in which the carry out of
     * every bit set in {@code addMask} is dropped. A set mask bit marks the most significant bit of a field; the fields
     * are added independently, each modulo its own size. {@code addMask} 0 is one 64-bit add modulo 2<sup>64</sup>.
     */
    public static Result fetchAdd(long original, long addData, long addMask) {
        long bitLocation = 1;
        long carry = 0;
        long remoteDataValue = 0;
        for (int bit = 0; bit <= 63; bit++) {
            if (bit != 0) {
                bitLocation = bitLocation << 1;
            }
            long val1 = (original & bitLocation) >>> bit;
            long val2 = (addData & bitLocation) >>> bit;
            long sum = carry + val1 + val2;
            carry = (sum & 2) >> 1;
            sum = sum & 1;
            if (sum != 0) {
                remoteDataValue |= bitLocation;
            }
            carry = carry != 0 && (addMask & bitLocation) == 0 ? 1 : 0;
        }
        return new Result(original, remoteDataValue, true);
    }

    /** Unmasked FetchAdd: Add Mask 0, a plain 64-bit add (RFC 7306 §5.1.1). */
    public static Result fetchAdd(long original, long addData) {
        return fetchAdd(original, addData, 0L);
    }

    /**
     * Masked CmpSwap, the RFC 7306 §5.1.2 pseudocode: when {@code original} equals {@code compareData} on the bits set
     * in {@code compareMask}, the bits set in {@code swapMask} are replaced by those of {@code swapData}; otherwise
     * memory is left unchanged (and not written). {@code compareMask} 0 always matches.
     */
    public static Result cmpSwap(long original, long swapData, long swapMask, long compareData, long compareMask) {
        if (((compareData ^ original) & compareMask) == 0) {
            return new Result(original, (original & ~swapMask) | (swapData & swapMask), true);
        }
        return new Result(original, original, false);
    }

    /** Unmasked CmpSwap: Compare Mask and Swap Mask all ones, a full 64-bit compare and swap. */
    public static Result cmpSwap(long original, long swapData, long compareData) {
        return cmpSwap(original, swapData, -1L, compareData, -1L);
    }
}
