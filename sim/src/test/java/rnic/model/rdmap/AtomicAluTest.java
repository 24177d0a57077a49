package rnic.model.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import rnic.wire.AtomicOpcode;

/**
 * The Atomic Operation model against the worked examples of docs/requirements.md §2.9 (golden values from the document) and,
 * over random operands weighted towards edge cases, against restatements of RFC 7306 §5.1 that share no code with
 * the pseudocode: FetchAdd as an independent add per mask-delimited field, CmpSwap as a per-bit compare and select.
 *
 * <p>Requirements: RDMAP-28 (both AOpCodes), RDMAP-32 (masked FetchAdd, mask 0 = plain add), RDMAP-33 (masked
 * CmpSwap, original returned, no write on a mismatch), T-25 (the Add Mask marks field MSBs; Swap and Compare masks
 * select bits).
 */
class AtomicAluTest {
    static final int RANDOM_OPS = 20_000;

    static List<AtomicExamples.Example> examples() {
        return AtomicExamples.conformance();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void workedExample(AtomicExamples.Example e) {
        assertEquals(new AtomicAlu.Result(e.op().original(), e.newValue(), e.write()), e.op().apply());
    }

    @Test
    void aOpCodesAreTheRegistryValues() {
        assertEquals(0x0, AtomicOpcode.FETCH_ADD.code());
        assertEquals(0x2, AtomicOpcode.CMP_SWAP.code());
    }

    @Test
    void maskedFetchAddAddsEachFieldModuloItsSize() {
        for (AtomicOp op : randomOps(AtomicOpcode.FETCH_ADD, 7306)) {
            long expected = 0;
            int lo = 0;
            while (lo < 64) {
                long above = op.addOrSwapMask() & (-1L << lo);
                int hi = above == 0 ? 63 : Long.numberOfTrailingZeros(above);
                long field = (-1L >>> (63 - hi + lo)) << lo;
                expected |= ((op.original() & field) + (op.addOrSwapData() & field)) & field;
                lo = hi + 1;
            }
            assertEquals(new AtomicAlu.Result(op.original(), expected, true), op.apply(), op.toString());
        }
    }

    @Test
    void maskedCmpSwapComparesAndSwapsBitByBit() {
        for (AtomicOp op : randomOps(AtomicOpcode.CMP_SWAP, 5040)) {
            boolean match = true;
            long swapped = 0;
            for (int bit = 0; bit < 64; bit++) {
                boolean orig = bit(op.original(), bit);
                if (bit(op.compareMask(), bit) && bit(op.compareData(), bit) != orig) {
                    match = false;
                }
                if (bit(op.addOrSwapMask(), bit) ? bit(op.addOrSwapData(), bit) : orig) {
                    swapped |= 1L << bit;
                }
            }
            assertEquals(new AtomicAlu.Result(op.original(), match ? swapped : op.original(), match), op.apply(),
                    op.toString());
        }
    }

    @Test
    void unmaskedFormsAreMaskZeroAndAllOnes() {
        Random rng = new Random(7);
        for (int i = 0; i < RANDOM_OPS; i++) {
            long a = rng.nextLong();
            long b = rng.nextLong();
            long c = rng.nextBoolean() ? a : rng.nextLong();
            assertEquals(a + b, AtomicAlu.fetchAdd(a, b).newValue());
            // Add Mask bit 63 alone cuts only the carry out of bit 63, which a 64-bit add loses anyway.
            assertEquals(a + b, AtomicAlu.fetchAdd(a, b, Long.MIN_VALUE).newValue());
            // All ones: 64 one-bit fields, no carry anywhere.
            assertEquals(a ^ b, AtomicAlu.fetchAdd(a, b, -1L).newValue());
            assertEquals(new AtomicAlu.Result(a, a == c ? b : a, a == c), AtomicAlu.cmpSwap(a, b, c));
        }
    }

    /** {@value #RANDOM_OPS} random operations of one kind from {@link AtomicOp#random}. */
    private static List<AtomicOp> randomOps(AtomicOpcode opcode, long seed) {
        Random rng = new Random(seed);
        List<AtomicOp> ops = new ArrayList<>();
        while (ops.size() < RANDOM_OPS) {
            AtomicOp op = AtomicOp.random(rng);
            if (op.opcode() == opcode) {
                ops.add(op);
            }
        }
        return ops;
    }

    private static boolean bit(long v, int bit) {
        return (v >>> bit & 1) != 0;
    }
}
