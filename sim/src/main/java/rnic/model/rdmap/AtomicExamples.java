package rnic.model.rdmap;

import java.util.List;

/**
 * The worked examples of docs/requirements.md §2.9 (RFC 7306 §5.1), with the new memory value the document gives for each:
 * golden data for the model and for the hardware, not computed by either.
 */
public final class AtomicExamples {
    private AtomicExamples() {
    }

    /**
     * One worked example.
     *
     * @param id       the row of docs/requirements.md §2.9 (F1 … F6, C1 … C4)
     * @param op       the operands
     * @param newValue the memory value after the operation, as the document gives it
     * @param write    whether memory is written (false only where the document says "unchanged")
     */
    public record Example(String id, AtomicOp op, long newValue, boolean write) {
        @Override
        public String toString() {
            return id;
        }
    }

    /** F1 … F6 and C1 … C4, in the document's order. C4's Compare Data ("anything") is an arbitrary value. */
    public static List<Example> conformance() {
        long orig = 0x11223344_55667788L;
        long swap = 0xAAAABBBB_CCCCDDDDL;
        return List.of(
                new Example("F1", AtomicOp.fetchAdd(0x0000FFFF_FFFFFFFFL, 0x00000001_00000001L, 0x80008000_80008000L),
                        0x00000000_FFFF0000L, true),
                new Example("F2", AtomicOp.fetchAdd(0x0000FFFF_FFFFFFFFL, 0x00000001_00000001L, 0L),
                        0x00010001_00000000L, true),
                new Example("F3", AtomicOp.fetchAdd(0x00000000_FFFFFFFFL, 0x00000000_00000001L, 0x80000000_80000000L),
                        0x00000000_00000000L, true),
                new Example("F4", AtomicOp.fetchAdd(0x00000000_FFFFFFFFL, 0x00000000_00000001L, 0L),
                        0x00000001_00000000L, true),
                new Example("F5", AtomicOp.fetchAdd(0x00000000_000000FFL, 0x00000000_00000001L, 0x00000000_00000080L),
                        0x00000000_00000000L, true),
                new Example("F6", AtomicOp.fetchAdd(0xFFFFFFFF_FFFFFFFFL, 1L, 0L),
                        0x00000000_00000000L, true),
                new Example("C1", AtomicOp.cmpSwap(orig, swap, 0x00000000_FFFFFFFFL, 0x11220000_00000000L,
                        0xFFFF0000_00000000L), 0x11223344_CCCCDDDDL, true),
                new Example("C2", AtomicOp.cmpSwap(orig, swap, 0x00000000_FFFFFFFFL, 0x11230000_00000000L,
                        0xFFFF0000_00000000L), 0x11223344_55667788L, false),
                new Example("C3", AtomicOp.cmpSwap(orig, swap, -1L, orig, -1L), 0xAAAABBBB_CCCCDDDDL, true),
                new Example("C4", AtomicOp.cmpSwap(orig, swap, -1L, 0x01234567_89ABCDEFL, 0L),
                        0xAAAABBBB_CCCCDDDDL, true));
    }
}
