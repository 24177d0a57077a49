package rnic.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The scoreboard and pacers, on their own: they are what makes every testbench able to fail. */
class ScoreboardTest {

    @Test
    void matchesInOrderAndRejectsMismatchesExtrasAndMissingItems() {
        Scoreboard<Long> sb = new Scoreboard<>("sb");
        sb.expect(1L);
        sb.expect(2L);
        sb.actual(1L);
        assertEquals(1, sb.pending());
        AssertionError wrong = assertThrows(AssertionError.class, () -> sb.actual(3L));
        assertTrue(wrong.getMessage().contains("expected 2 but got 3"), wrong.getMessage());
        assertThrows(AssertionError.class, () -> sb.actual(4L), "an item nobody expected must fail");
        sb.expect(5L);
        AssertionError missing = assertThrows(AssertionError.class, sb::assertEmpty);
        assertTrue(missing.getMessage().contains("never seen"), missing.getMessage());
        sb.actual(5L);
        sb.assertEmpty();
        assertEquals(2, sb.matched());
    }

    /** A lossy sink: only items the predicate allows may be skipped, order still holds, and discard drops the rest. */
    @Test
    void lossySinkSkipsOnlyItemsThatMayBeLost() {
        Scoreboard<Long> sb = new Scoreboard<>("lossy");
        for (long i = 1; i <= 6; i++) {
            sb.expect(i);
        }
        assertEquals(2, sb.actualAfterLosses(3L, x -> x < 10));
        AssertionError kept = assertThrows(AssertionError.class, () -> sb.actualAfterLosses(6L, x -> x != 4));
        assertTrue(kept.getMessage().contains("expected 4 but got 6"), kept.getMessage());
        Scoreboard<Long> strict = new Scoreboard<>("strict");
        strict.expect(1L);
        strict.expect(2L);
        assertThrows(AssertionError.class, () -> strict.actualAfterLosses(2L, x -> false),
                "an item that may not be lost must not be skipped");
        Scoreboard<Long> rest = new Scoreboard<>("rest");
        rest.expect(1L);
        rest.expect(20L);
        rest.expect(3L);
        assertEquals(2, rest.discard(x -> x < 10));
        assertEquals(1, rest.pending());
        rest.actual(20L);
        rest.assertEmpty();
    }

    @Test
    void pacersProduceTheirDutyCycles() {
        Random rng = new Random(1);
        int n = 100_000;
        assertEquals(n, count(Pacer.always(), n));
        int coin = count(Pacer.random(rng, 0.25), n);
        assertTrue(Math.abs(coin - n / 4) < n / 50, "coin flips at 25 %: " + coin);
        int bursty = count(Pacer.bursty(rng, 16), n);
        assertTrue(bursty > n / 3 && bursty < n, "bursts allow some and stall some: " + bursty);
        assertThrows(IllegalArgumentException.class, () -> Pacer.random(rng, 0));
    }

    private static int count(Pacer p, int n) {
        int on = 0;
        for (int i = 0; i < n; i++) {
            on += p.allow() ? 1 : 0;
        }
        return on;
    }
}
