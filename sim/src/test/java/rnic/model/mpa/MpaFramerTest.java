package rnic.model.mpa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.model.Hex;

/**
 * The MPA transmitter model against the byte dumps of docs/requirements.md §2.10, §4.2 (RFC 5044 Figs. 5, 6), §4.4 and the
 * repaired Fig. 4 (T-09), and the MULPDU table §2.3.4.
 *
 * <p>Requirements: MPA-01, MPA-02, MPA-07, MPA-08, MPA-12, MPA-13, MPA-15, MPA-19, MPA-21, MPA-22, MPA-37.
 */
class MpaFramerTest {
    static final byte[] SEND_MSN1 = Hex.of("41 43 00000000 00000000 00000001 00000000");
    static final byte[] SEND_MSN2 = Hex.of("41 43 00000000 00000000 00000002 00000000");

    static MpaFramer framer(boolean markers, boolean crc, long seqStart) {
        return new MpaFramer(new MpaDirection(markers, crc, seqStart), 1460);
    }

    /** RFC 5044 Fig. 5 (§4.2): the first FPDU of a marked stream, CRC 52 23 99 83 (MPA-19, MPA-37). */
    @Test
    void rfc5044Figure5() {
        byte[] fpdu = framer(true, true, 7).fpdu(Hex.cat(SEND_MSN1, new byte[24]));
        assertEquals(Hex.show(Hex.cat(Hex.of("00000000 002a"), SEND_MSN1, new byte[24], Hex.of("52 23 99 83"))),
                Hex.show(fpdu));
    }

    /** RFC 5044 Fig. 6 (§4.2): after a 482-octet ULPDU, the next FPDU at 0x1EC with Marker 0x14 at 0x200 (MPA-13). */
    @Test
    void rfc5044Figure6() {
        MpaFramer f = framer(true, true, 0);
        byte[] first = f.fpdu(Hex.cat(SEND_MSN1, new byte[464]));
        assertEquals(0x1EC, first.length);
        byte[] second = f.fpdu(Hex.cat(SEND_MSN2, new byte[24]));
        assertEquals(Hex.show(Hex.cat(Hex.of("002a 41 43 00000000 00000000 00000002 00000000"), Hex.of("00000014"),
                new byte[24], Hex.of("84 92 58 98"))), Hex.show(second));
    }

    /** §4.4: a Marker right after the PAD, before the CRC, is this FPDU's (FPDUPTR 0x1FC) and is covered (MPA-15). */
    @Test
    void markerJustBeforeTheCrc() {
        byte[] fpdu = framer(true, true, 0).fpdu(Hex.cat(SEND_MSN1, new byte[488]));
        byte[] expected = Hex.cat(Hex.of("00000000 01fa"), SEND_MSN1, new byte[488], Hex.of("000001fc"),
                Hex.of("38 cf 64 e8"));
        assertArrayEquals(expected, fpdu, Hex.show(fpdu));
    }

    /** §4.4: a Marker exactly between FPDUs has FPDUPTR 0 and is covered by the next FPDU's CRC (MPA-13, MPA-15). */
    @Test
    void markerBetweenFpdus() {
        MpaFramer f = framer(true, true, 0);
        byte[] first = f.fpdu(Hex.cat(SEND_MSN1, new byte[484]));
        assertArrayEquals(Hex.cat(Hex.of("00000000 01f6"), SEND_MSN1, new byte[484], Hex.of("a0 9b b5 5b")), first);
        byte[] second = f.fpdu(Hex.cat(SEND_MSN2, new byte[8]));
        assertArrayEquals(Hex.cat(Hex.of("00000000 001a"), SEND_MSN2, new byte[8], Hex.of("df a0 b0 e5")), second);
    }

    /** Fig. 4 as repaired in T-09: L=16 split by Marker (0, FPDUPTR 0x0C) after octet 9, then 2 PAD octets (MPA-08). */
    @Test
    void rfc5044Figure4() {
        MpaFramer f = framer(true, true, 0);
        assertEquals(500, f.fpdu(new byte[490]).length); // leading Marker + FPDU up to stream offset 500
        byte[] ulpdu = new byte[16];
        for (int i = 0; i < 16; i++) {
            ulpdu[i] = (byte) (0xA0 + i);
        }
        byte[] fpdu = f.fpdu(ulpdu);
        byte[] head = Hex.cat(Hex.of("0010"), Arrays.copyOfRange(ulpdu, 0, 10), Hex.of("0000 000c"),
                Arrays.copyOfRange(ulpdu, 10, 16), Hex.of("0000"));
        assertArrayEquals(head, Arrays.copyOf(fpdu, head.length));
        assertEquals(head.length + 4, fpdu.length);
    }

    /** docs/requirements.md §2.10 golden FPDUs (no Markers, CRC on): the framer reproduces each one octet for octet. */
    @Test
    void goldenFpdus() {
        String[] dumps = {
            """
            0000: 00 12 c1 40 00 00 12 34 00 00 00 00 00 00 10 00
            0010: de ad be ef bd bc 30 f4""",
            """
            0000: 00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01
            0010: 00 00 00 00 11 11 11 11 00 00 00 00 00 00 20 00
            0020: 00 00 01 00 22 22 22 22 00 00 00 00 00 00 30 00
            0030: d5 2e c5 b9""",
            """
            0000: 00 2a 41 47 00 00 00 00 00 00 00 02 00 00 00 01
            0010: 00 00 00 00 12 01 c0 00 00 22 41 43 00 00 00 00
            0020: 00 00 00 07 00 00 00 01 00 00 00 00 9c 3a f7 b1""",
            """
            0000: 00 46 41 4a 00 00 00 00 00 00 00 01 00 00 00 01
            0010: 00 00 00 00 00 00 00 00 ca fe 00 01 33 33 33 33
            0020: 00 00 00 00 00 00 40 00 00 00 00 00 00 00 00 01
            0030: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
            0040: ff ff ff ff ff ff ff ff 29 64 f3 c6""",
            """
            0000: 00 1e 41 4b 00 00 00 00 00 00 00 03 00 00 00 01
            0010: 00 00 00 00 ca fe 00 01 00 00 00 00 00 00 00 29
            0020: 33 a0 f5 39""",
            """
            0000: 00 1a 41 48 00 00 00 00 00 00 00 00 00 00 00 01
            0010: 00 00 00 00 01 02 03 04 05 06 07 08 06 c2 28 05"""};
        for (String d : dumps) {
            byte[] golden = Hex.dump(d);
            int l = ((golden[0] & 0xFF) << 8) | (golden[1] & 0xFF);
            byte[] fpdu = framer(false, true, 12345).fpdu(Arrays.copyOfRange(golden, 2, 2 + l));
            assertEquals(Hex.show(golden), Hex.show(fpdu));
        }
    }

    /** §2.3.4 MULPDU table and the 128 floor (MPA-02, MPA-21). */
    @Test
    void mulpduTable() {
        int[][] table = {{536, 522, 530}, {1448, 1430, 1442}, {1460, 1442, 1454}, {8960, 8882, 8954},
            {9000, 8922, 8994}};
        for (int[] row : table) {
            assertEquals(row[1], Mpa.mulpdu(row[0], true), "EMSS " + row[0] + " with Markers");
            assertEquals(row[2], Mpa.mulpdu(row[0], false), "EMSS " + row[0] + " without Markers");
        }
        for (int emss = 1; emss < 200; emss++) {
            assertTrue(Mpa.mulpdu(emss, true) >= 128 && Mpa.mulpdu(emss, false) >= 128);
        }
        assertEquals(64768, Mpa.mulpdu(65535, false));
    }

    /**
     * Random ULPDUs with the stream starting near 2^32: every segment starts at an FPDU (or its leading Marker), is at
     * most EMSS, and every 512th octet from SeqStart (mod 2^32) is a Marker pointing back at its FPDU (MPA-12, MPA-13,
     * MPA-22).
     */
    @Test
    void segmentsStartAtFpdusAndMarkersFollowTheGrid() {
        Random rng = new Random(5);
        long seqStart = 0xFFFF_FFFFL - 3000;
        int emss = 1460;
        MpaFramer f = new MpaFramer(new MpaDirection(true, true, seqStart), emss);
        int markers = 0;
        for (int i = 0; i < 2000; i++) {
            byte[] u = new byte[1 + rng.nextInt(f.mulpdu())];
            List<TcpSegment> segs = f.send(u);
            assertEquals(1, segs.size(), "an FPDU of at most MULPDU fits one segment");
            TcpSegment s = segs.get(0);
            assertTrue(s.payload().length <= emss);
            long hdr = -1;
            for (int k = 0; k < s.payload().length; k += 4) {
                long seq = (s.seq() + k) & 0xFFFF_FFFFL;
                if (Mpa.distance(seqStart, seq) % 512 == 0) {
                    int ptr = ((s.payload()[k + 2] & 0xFF) << 8) | (s.payload()[k + 3] & 0xFF);
                    assertEquals(hdr < 0 ? 0 : Mpa.distance(hdr, seq), ptr, "FPDUPTR of Marker at seq " + seq);
                    markers++;
                    continue;
                }
                if (hdr < 0) {
                    hdr = seq;
                    assertEquals(u.length, ((s.payload()[k] & 0xFF) << 8) | (s.payload()[k + 1] & 0xFF));
                }
            }
        }
        assertTrue(markers > 1000, "markers seen: " + markers);
    }

    @Test
    void rejectsEmptyAndOversizedUlpdus() {
        MpaFramer f = framer(false, true, 0);
        assertThrows(IllegalArgumentException.class, () -> f.send(new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> f.send(new byte[64769]));
    }
}
