package rnic.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link DmaAllocator}: page alignment, requested alignment, no overlap, merging on free, exhaustion, misuse. */
class DmaAllocatorTest {
    static final long BASE = 0x1_0000_0000L;

    @Test
    void regionsArePageAlignedAndDisjoint() {
        DmaAllocator a = new DmaAllocator(BASE, 64 * 4096);
        long r1 = a.allocate(1, 1);
        long r2 = a.allocate(4097, 8);
        long r3 = a.allocate(100, 16384);
        assertEquals(BASE, r1);
        assertEquals(4096, a.sizeOf(r1));
        assertEquals(BASE + 4096, r2);
        assertEquals(8192, a.sizeOf(r2));
        assertEquals(0, r3 % 16384);
        assertTrue(r3 >= r2 + 8192);
        assertTrue(a.contains(r2 + 100, 8000));
        assertFalse(a.contains(r2 + 100, 9000), "runs past the region");
        assertFalse(a.contains(r1 + 4096 + 8192, 1), "a gap left by alignment");
        assertEquals(3, a.regions());
        assertEquals(4 * 4096, a.inUse());
    }

    @Test
    void exhaustionAndMerging() {
        DmaAllocator a = new DmaAllocator(BASE, 8 * 4096);
        List<Long> r = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            r.add(a.allocate(4096, 4096));
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.allocate(1, 1));
        assertTrue(e.getMessage().contains("exhausted") && e.getMessage().contains("0 of 32768 octets free"),
                e.getMessage());
        a.free(r.get(2));
        a.free(r.get(4));
        assertThrows(IllegalStateException.class, () -> a.allocate(8192, 1), "two free pages, not adjacent");
        a.free(r.get(3));
        assertEquals(r.get(2), a.allocate(3 * 4096, 1), "pages 2-4 merged on free");
        assertThrows(IllegalArgumentException.class, () -> a.free(r.get(3)), "inside a region, not its start");
        assertThrows(IllegalArgumentException.class, () -> a.free(BASE + 123));
        assertThrows(IllegalArgumentException.class, () -> a.allocate(0, 1));
        assertThrows(IllegalArgumentException.class, () -> a.allocate(1, 3));
    }

    @Test
    void randomAllocateFreeKeepsRegionsDisjoint() {
        Random rng = new Random(1);
        DmaAllocator a = new DmaAllocator(BASE, 256 * 4096);
        List<long[]> live = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            if (!live.isEmpty() && (rng.nextBoolean() || live.size() > 40)) {
                long[] x = live.remove(rng.nextInt(live.size()));
                a.free(x[0]);
            } else {
                int align = 1 << rng.nextInt(16);
                try {
                    long at = a.allocate(1 + rng.nextInt(5 * 4096), align);
                    long len = a.sizeOf(at);
                    assertEquals(0, at % Math.max(4096, align));
                    assertTrue(at >= BASE && at + len <= BASE + 256 * 4096);
                    for (long[] y : live) {
                        assertTrue(at + len <= y[0] || y[0] + y[1] <= at, "overlap");
                    }
                    live.add(new long[] {at, len});
                } catch (IllegalStateException full) {
                    // fragmentation: acceptable, the next frees make room
                }
            }
        }
        for (long[] x : live) {
            a.free(x[0]);
        }
        assertEquals(0, a.inUse());
        assertEquals(BASE, a.allocate(256 * 4096, 1), "everything merged back into one block");
    }

    /** A board's small memory in 256-octet granules: regions are rounded to granules, not pages. */
    @Test
    void fineGranules() {
        DmaAllocator a = new DmaAllocator(0x1000_0000L, 64 * 1024, 256);
        long x = a.allocate(1, 8);
        long y = a.allocate(300, 8);
        assertEquals(0x1000_0000L, x);
        assertEquals(0x1000_0100L, y);
        assertEquals(512, a.sizeOf(y));
        assertEquals(768, a.inUse());
        assertEquals(0x1000_1000L, a.allocate(64, 4096), "a coarser alignment still applies");
        assertThrows(IllegalArgumentException.class, () -> new DmaAllocator(0, 4096, 300));
    }
}
