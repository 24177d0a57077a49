package rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The queue pair's arithmetic that needs no device: the contract's 16-bit consumer registers read as free-running
 * indices (wrap at 2^16, clamped to what was posted), and the configuration limits.
 */
class QueuePairArithmeticTest {

    @Test
    void consumerIndexAcrossTheSixteenBitWrap() {
        // posted 65530 … 65539, the core consumed up to 65537: QP_SQ_CONS reads 65537 mod 2^16 = 1
        assertEquals(65537, QueuePair.hardwareIndex(1, 65530, 65530, 65540));
        assertEquals(65540, QueuePair.hardwareIndex(65540 & 0xFFFF, 65530, 65530, 65540));
        // never past the producer index, never behind what is known done
        assertEquals(65540, QueuePair.hardwareIndex(200, 65530, 65530, 65540));
        assertEquals(65535, QueuePair.hardwareIndex(65532, 65530, 65535, 65540));
        assertEquals(0, QueuePair.hardwareIndex(0, 0, 0, 0));
        // far beyond int range of posts the arithmetic still holds
        int tail = Integer.MAX_VALUE - 3;
        assertEquals(tail + 5, QueuePair.hardwareIndex((tail + 5) & 0xFFFF, tail, tail, tail + 10));
    }

    @Test
    void configLimits() {
        CompletionQueue cq = null;
        assertThrows(IllegalArgumentException.class, () -> QueuePair.Config.of(cq, cq));
        assertThrows(IllegalArgumentException.class,
                () -> new QueuePair.Config(null, null, 1, 1, 0, -1));
    }
}
