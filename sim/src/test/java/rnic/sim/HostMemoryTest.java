package rnic.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link HostMemory}: sparse pages, unsigned 64-bit addresses wrapping at 2^64, the access hook (only the design's
 * accesses through the port are reported), copies and comparison. Checked against a plain octet array for random
 * writes over a small window that straddles page boundaries.
 */
class HostMemoryTest {

    @Test
    void neverWrittenOctetsReadAsZeroAndNoPageIsCreatedByReading() {
        HostMemory m = new HostMemory();
        assertArrayEquals(new byte[10_000], m.read(0x1234_5678_9ABCL, 10_000));
        assertEquals(0, m.pageCount());
        assertEquals(0L, m.readLong(-8L));
    }

    @Test
    void writesAcrossPagesAndAroundTwoToTheSixtyFourWrap() {
        HostMemory m = new HostMemory();
        byte[] data = new byte[9000];
        new Random(1).nextBytes(data);
        long near = -3000L; // 0xFFFF_FFFF_FFFF_F448: the write wraps to address 0
        m.write(near, data);
        assertArrayEquals(data, m.read(near, data.length));
        assertEquals(data[2999], m.read(-1L, 1)[0]);
        assertEquals(data[3000], m.read(0L, 1)[0]);
        assertEquals(3, m.pageCount()); // ...F000, 0x0000, 0x1000
        m.writeLong(0xFFF_CL, 0x0123_4567_89AB_CDEFL);
        assertEquals(0x0123_4567_89AB_CDEFL, m.readLong(0xFFF_CL));
        assertEquals((byte) 0xEF, m.read(0xFFF_CL, 1)[0]); // little-endian (T-26)
    }

    @Test
    void randomAccessesMatchAFlatArray() {
        Random rng = new Random(7);
        long base = 0x7FFF_FFFF_FFFF_E000L; // a window over three pages around a sign change of the long
        byte[] flat = new byte[3 * HostMemory.PAGE];
        HostMemory m = new HostMemory();
        for (int i = 0; i < 2000; i++) {
            int off = rng.nextInt(flat.length);
            int len = rng.nextInt(flat.length - off + 1);
            if (rng.nextBoolean()) {
                byte[] d = new byte[len];
                rng.nextBytes(d);
                m.write(base + off, d);
                System.arraycopy(d, 0, flat, off, len);
            } else {
                assertArrayEquals(java.util.Arrays.copyOfRange(flat, off, off + len), m.read(base + off, len));
            }
        }
    }

    @Test
    void onlyPortAccessesAreReported() {
        List<String> seen = new ArrayList<>();
        HostMemory m = new HostMemory().onAccess((a, n, w) -> seen.add((w ? "W " : "R ") + HostMemory.hex(a) + "+" + n));
        m.write(0x100, new byte[] {1, 2, 3});
        m.read(0x100, 3);
        assertTrue(seen.isEmpty(), seen.toString());
        m.writeByPort(0x200, new byte[] {9, 8, 7, 6}, 1, 2);
        assertArrayEquals(new byte[] {1, 2, 3}, m.readByPort(0x100, 3));
        m.notifyAccess(-1L, 2, true);
        assertEquals(List.of("W 0x200+2", "R 0x100+3", "W 0xffffffffffffffff+2"), seen);
        assertArrayEquals(new byte[] {8, 7}, m.read(0x200, 2));
        assertThrows(IllegalArgumentException.class, () -> m.readByPort(0, 0));
    }

    @Test
    void copiesAreIndependentAndComparisonFindsTheFirstDifference() {
        HostMemory a = new HostMemory();
        a.write(-16L, new byte[] {1, 2, 3});
        a.write(0x5000, new byte[] {4});
        HostMemory b = a.copy();
        assertEquals(OptionalLong.empty(), a.firstDifference(b));
        b.write(0x5000, new byte[] {5});
        assertEquals(OptionalLong.of(0x5000), a.firstDifference(b));
        b.write(-15L, new byte[] {0});
        // Unsigned order: 0x5000 comes before 0xFFFF_FFFF_FFFF_FFF1.
        assertEquals(OptionalLong.of(0x5000), b.firstDifference(a));
        b.write(0x5000, new byte[] {4});
        assertEquals(OptionalLong.of(-15L), b.firstDifference(a));
        AssertionError e = assertThrows(AssertionError.class, () -> b.assertSameAs(a, "copy"));
        assertTrue(e.getMessage().contains("0xfffffffffffffff1"), e.getMessage());

        HostMemory zeros = new HostMemory();
        zeros.write(0x9000, new byte[64]); // a page of zeros is the same as a page never written
        assertEquals(OptionalLong.empty(), zeros.firstDifference(new HostMemory()));

        HostMemory c = new HostMemory();
        a.copyTo(-16L, c, 0x10, 3);
        assertArrayEquals(new byte[] {1, 2, 3}, c.read(0x10, 3));
    }
}
