package rnic.model.rdmap;

import java.util.Random;
import rnic.wire.AtomicOpcode;

/**
 * The operands of one Atomic Operation as the Atomic Request carries them (RFC 7306 §5.2.1, docs/requirements.md §2.7.3),
 * together with the Original Remote Data Value read from the target, all in the target memory's byte order.
 *
 * @param opcode        FetchAdd or CmpSwap
 * @param original      the 64-bit value read from the target
 * @param addOrSwapData Add Data (FetchAdd) or Swap Data (CmpSwap)
 * @param addOrSwapMask Add Mask (field-MSB markers) or Swap Mask (bit select)
 * @param compareData   Compare Data (CmpSwap; ignored by FetchAdd)
 * @param compareMask   Compare Mask (CmpSwap; ignored by FetchAdd)
 */
public record AtomicOp(AtomicOpcode opcode, long original, long addOrSwapData, long addOrSwapMask, long compareData,
        long compareMask) {

    /** A FetchAdd with the compare fields as a Requester sends them (0 and all ones, docs/requirements.md §2.7.3). */
    public static AtomicOp fetchAdd(long original, long addData, long addMask) {
        return new AtomicOp(AtomicOpcode.FETCH_ADD, original, addData, addMask, 0L, -1L);
    }

    /** A CmpSwap. */
    public static AtomicOp cmpSwap(long original, long swapData, long swapMask, long compareData, long compareMask) {
        return new AtomicOp(AtomicOpcode.CMP_SWAP, original, swapData, swapMask, compareData, compareMask);
    }

    /** The operation applied by {@link AtomicAlu}. */
    public AtomicAlu.Result apply() {
        return switch (opcode) {
            case FETCH_ADD -> AtomicAlu.fetchAdd(original, addOrSwapData, addOrSwapMask);
            case CMP_SWAP -> AtomicAlu.cmpSwap(original, addOrSwapData, addOrSwapMask, compareData, compareMask);
        };
    }

    @Override
    public String toString() {
        return String.format("%s original %016x data %016x mask %016x compare %016x/%016x", opcode, original,
                addOrSwapData, addOrSwapMask, compareData, compareMask);
    }

    /**
     * A random operation weighted towards the edge cases: either operation; values 0, all ones, one bit, runs of ones,
     * or uniform; masks 0, all ones, one bit, sparse, dense, the 8/16/32-bit field grids, or uniform. A FetchAdd
     * carries random compare fields half of the time (they must be ignored). A CmpSwap's Compare Data matches the
     * original under the Compare Mask half of the time and differs in at least one masked bit otherwise.
     */
    public static AtomicOp random(Random rng) {
        long original = value(rng);
        if (rng.nextBoolean()) {
            AtomicOp op = fetchAdd(original, value(rng), mask(rng));
            return rng.nextBoolean() ? op : new AtomicOp(op.opcode, original, op.addOrSwapData, op.addOrSwapMask,
                    rng.nextLong(), rng.nextLong());
        }
        long compareMask = mask(rng);
        long differ = 0;
        if (rng.nextBoolean()) {
            differ = rng.nextLong() & compareMask;
            if (differ == 0) {
                differ = Long.lowestOneBit(compareMask); // stays 0 (a match) only for Compare Mask 0
            }
        }
        long compareData = original ^ differ ^ (rng.nextLong() & ~compareMask);
        return cmpSwap(original, value(rng), mask(rng), compareData, compareMask);
    }

    private static long value(Random rng) {
        return switch (rng.nextInt(8)) {
            case 0 -> 0L;
            case 1 -> -1L;
            case 2 -> 1L << rng.nextInt(64);
            case 3 -> -1L >>> rng.nextInt(64) << rng.nextInt(64);
            default -> rng.nextLong();
        };
    }

    private static long mask(Random rng) {
        return switch (rng.nextInt(8)) {
            case 0 -> 0L;
            case 1 -> -1L;
            case 2 -> 1L << rng.nextInt(64);
            case 3 -> rng.nextLong() & rng.nextLong() & rng.nextLong();
            case 4 -> rng.nextLong() | rng.nextLong() | rng.nextLong();
            case 5 -> new long[] {0x8080_8080_8080_8080L, 0x8000_8000_8000_8000L, 0x8000_0000_8000_0000L}[rng.nextInt(3)];
            default -> rng.nextLong();
        };
    }
}
