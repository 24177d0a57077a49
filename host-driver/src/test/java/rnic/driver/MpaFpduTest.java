package rnic.driver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import rnic.wire.MpaErrorCode;

/**
 * The driver's own FPDU framing (the startup-failure Terminate) against the golden vectors of docs/requirements.md §2.10,
 * §4.2 and §4.4, and a bitwise CRC32c written from §4.1 (independent of {@code java.util.zip.CRC32C}).
 *
 * <p>Requirements: MPA-37 (leading Marker at SeqStart), MPA-49/MPA-50 (Terminate 2/0/6, 2/0/7), RDMAP-15 (Terminate
 * header), T-05 (PAD on 2+L), T-06 (CRC coverage of Markers), T-07 (CRC octet order).
 */
class MpaFpduTest {

    /** §4.1 bitwise reference. */
    static long crc32c(byte[] b, int from, int to) {
        long crc = 0xFFFFFFFFL;
        for (int i = from; i < to; i++) {
            crc ^= b[i] & 0xFF;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 1) != 0 ? crc >>> 1 ^ 0x82F63B78L : crc >>> 1;
            }
        }
        return crc ^ 0xFFFFFFFFL;
    }

    /** §4.1: the catalogue check value, so the reference itself is right. */
    @Test
    void referenceCrcCheckValue() {
        assertEquals(0xE3069283L, crc32c("123456789".getBytes(), 0, 9));
    }

    /** §2.10: the Terminate for Invalid QN, D=1 with the Terminated DDP header, no Markers. */
    @Test
    void terminateVectorOfSection2_10() {
        byte[] golden = Hex.parse("""
                0000: 00 2a 41 47 00 00 00 00 00 00 00 02 00 00 00 01
                0010: 00 00 00 00 12 01 c0 00 00 22 41 43 00 00 00 00
                0020: 00 00 00 07 00 00 00 01 00 00 00 00 9c 3a f7 b1
                """);
        byte[] tail = Hex.parse("00 22 41 43 00 00 00 00 00 00 00 07 00 00 00 01 00 00 00 00");
        byte[] fpdu = MpaFpdu.first(MpaFpdu.terminateUlpdu(0x12, 0x01, 0xC0, tail), false);
        assertArrayEquals(golden, fpdu, Hex.format(fpdu));
    }

    /** §4.2 Fig. 5: the first FPDU of a stream with Markers: leading Marker 0, CRC over it, 52 23 99 83. */
    @Test
    void leadingMarkerVectorOfFigure5() {
        byte[] ulpdu = new byte[42];
        ulpdu[0] = 0x41;
        ulpdu[1] = 0x43;
        ulpdu[13] = 1; // MSN 1
        byte[] fpdu = MpaFpdu.first(ulpdu, true);
        assertEquals(52, fpdu.length);
        assertArrayEquals(Hex.parse("00 00 00 00 00 2a 41 43"), Arrays.copyOf(fpdu, 8));
        assertArrayEquals(Hex.parse("52 23 99 83"), Arrays.copyOfRange(fpdu, 48, 52));
    }

    /** §4.4: a Marker right after the PAD, before the CRC (FPDUPTR 0x1FC), covered by the CRC 38 cf 64 e8. */
    @Test
    void markerBeforeTheCrcOfSection4_4() {
        byte[] ulpdu = new byte[506];
        ulpdu[0] = 0x41;
        ulpdu[1] = 0x43;
        ulpdu[13] = 1;
        byte[] fpdu = MpaFpdu.first(ulpdu, true);
        assertEquals(4 + 2 + 506 + 4 + 4, fpdu.length);
        assertArrayEquals(Hex.parse("00 00 01 fc"), Arrays.copyOfRange(fpdu, 0x200, 0x204));
        assertArrayEquals(Hex.parse("38 cf 64 e8"), Arrays.copyOfRange(fpdu, 0x204, 0x208));
    }

    /** T-05, T-06, T-07: PAD from 2+L, Markers every 512 octets, CRC over them, least significant octet first. */
    @Test
    void padAndCrcForEveryLengthModFour() {
        for (int len = 1; len <= 700; len += 1) {
            byte[] ulpdu = new byte[len];
            for (int i = 0; i < len; i++) {
                ulpdu[i] = (byte) (i * 7 + len);
            }
            for (boolean markers : new boolean[] {false, true}) {
                byte[] f = MpaFpdu.first(ulpdu, markers);
                int pad = (4 - (2 + len) % 4) % 4;
                int plain = 2 + len + pad + 4;
                int k = markers ? countMarkers(2 + len + pad) : 0;
                assertEquals(plain + 4 * k, f.length, "len " + len + " markers " + markers);
                assertEquals(0, f.length % 4);
                long crc = crc32c(f, 0, f.length - 4);
                for (int i = 0; i < 4; i++) {
                    assertEquals((byte) (crc >>> (8 * i)), f[f.length - 4 + i], "CRC octet " + i + ", len " + len);
                }
            }
        }
    }

    /** Markers in a stream whose first {@code body} octets after the leading Marker are one FPDU without its CRC. */
    private static int countMarkers(int body) {
        int n = 0;
        int pos = 0;
        for (int written = 0; written <= body; written++) {
            if (pos % 512 == 0) {
                n++;
                pos += 4;
            }
            if (written < body) {
                pos++;
            }
        }
        return n;
    }

    /** E-M5…E-M7: the startup Terminate is 2/0/code with HdrCt 0, untagged on QN 2, MSN 1, MO 0 (28 octets). */
    @Test
    void startupTerminate() {
        for (MpaErrorCode code : new MpaErrorCode[] {MpaErrorCode.ENHANCED_SETUP_FAILURE,
                MpaErrorCode.INSUFFICIENT_IRD, MpaErrorCode.NO_MATCHING_RTR}) {
            byte[] f = MpaFpdu.first(MpaFpdu.terminateUlpdu(code.layerEtype(), code.code(), 0, new byte[0]), false);
            byte[] head = Hex.parse("00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 20");
            assertArrayEquals(head, Arrays.copyOf(f, head.length));
            assertEquals(code.code(), f[21]);
            assertEquals(0, f[22]);
            assertEquals(28, f.length);
        }
    }

    @Test
    void ulpduLengthIsChecked() {
        assertThrows(IllegalArgumentException.class, () -> MpaFpdu.first(new byte[0], false));
    }
}
