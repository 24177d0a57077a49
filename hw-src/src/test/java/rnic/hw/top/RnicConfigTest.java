package rnic.hw.top;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A generator configuration out of the range the core is built for is refused with a message that names the range,
 * before any hardware is elaborated (the QP count: a power of two, at least two, at most what the register map addresses).
 */
class RnicConfigTest {

    @Test
    void qpCountOutsideTwoToMaxIsRefused() {
        IllegalArgumentException one = assertThrows(IllegalArgumentException.class,
                () -> RnicConfig.defaults().withQpCount(1));
        assertTrue(one.getMessage().contains("2 … " + RnicConfig.MAX_QPS), one.getMessage());
        IllegalArgumentException many = assertThrows(IllegalArgumentException.class,
                () -> RnicConfig.defaults().withQpCount(RnicConfig.MAX_QPS * 2));
        assertTrue(many.getMessage().contains(Integer.toString(RnicConfig.MAX_QPS)), many.getMessage());
    }

    @Test
    void qpCountInRangeIsTaken() {
        assertEquals(2, RnicConfig.defaults().withQpCount(2).qpCount());
        assertEquals(RnicConfig.MAX_QPS, RnicConfig.defaults().withQpCount(RnicConfig.MAX_QPS).qpCount());
    }
}
