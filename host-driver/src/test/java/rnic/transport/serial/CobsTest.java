package rnic.transport.serial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Cobs} against the published examples of Consistent Overhead Byte Stuffing (Cheshire and Baker; the table of
 * its Wikipedia article), and round trips of random data with no zero in any encoding.
 */
class CobsTest {
    private static byte[] b(int... v) {
        byte[] r = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            r[i] = (byte) v[i];
        }
        return r;
    }

    private static void check(byte[] in, byte[] expect) {
        assertArrayEquals(expect, Cobs.encode(in, 0, in.length));
        assertArrayEquals(in, Cobs.decode(expect, 0, expect.length));
    }

    @Test
    void publishedExamples() {
        check(b(0x00), b(0x01, 0x01));
        check(b(0x00, 0x00), b(0x01, 0x01, 0x01));
        check(b(0x00, 0x11, 0x00), b(0x01, 0x02, 0x11, 0x01));
        check(b(0x11, 0x22, 0x00, 0x33), b(0x03, 0x11, 0x22, 0x02, 0x33));
        check(b(0x11, 0x22, 0x33, 0x44), b(0x05, 0x11, 0x22, 0x33, 0x44));
        check(b(0x11, 0x00, 0x00, 0x00), b(0x02, 0x11, 0x01, 0x01, 0x01));
        byte[] ones = new byte[254];
        byte[] onesEnc = new byte[255];
        onesEnc[0] = (byte) 0xFF;
        for (int i = 0; i < 254; i++) {
            ones[i] = (byte) (i + 1);
            onesEnc[i + 1] = (byte) (i + 1);
        }
        check(ones, onesEnc); // 01..FE: one full block, no trailing code
        byte[] zeroFirst = new byte[255];
        byte[] zeroFirstEnc = new byte[256];
        zeroFirstEnc[0] = 0x01;
        zeroFirstEnc[1] = (byte) 0xFF;
        for (int i = 1; i < 255; i++) {
            zeroFirst[i] = (byte) i;
            zeroFirstEnc[i + 1] = (byte) i;
        }
        check(zeroFirst, zeroFirstEnc); // 00..FE
    }

    @Test
    void randomRoundTripsHaveNoZero() {
        Random r = new Random(5);
        for (int t = 0; t < 2000; t++) {
            byte[] in = new byte[r.nextInt(1100)];
            for (int i = 0; i < in.length; i++) {
                in[i] = (byte) (r.nextInt(4) == 0 ? 0 : r.nextInt(256));
            }
            byte[] enc = Cobs.encode(in, 0, in.length);
            for (byte x : enc) {
                if (x == 0) {
                    throw new AssertionError("zero in the encoding of " + in.length + " octets");
                }
            }
            assertArrayEquals(in, Cobs.decode(enc, 0, enc.length));
        }
    }

    @Test
    void malformedEncodingsAreRefused() {
        assertNull(Cobs.decode(b(0x05, 0x11, 0x22), 0, 3)); // block runs past the end
        assertNull(Cobs.decode(b(0x03, 0x11, 0x00), 0, 3)); // zero inside a block
        assertNull(Cobs.decode(b(0x00), 0, 1)); // code 0
    }
}
