package rnic.model.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import rnic.wire.MpaErrorCode;

/**
 * The MPA receiver model: loop-back through random re-segmentation, and every MPA error it must detect.
 *
 * <p>Requirements: MPA-04, MPA-08, MPA-09, MPA-10, MPA-14, MPA-16, MPA-20, MPA-23, MPA-24, MPA-25, MPA-42, MPA-44.
 */
class MpaDeframerTest {

    /** Cuts a stream into segments of 1 … maxCut octets (1-octet segments included). */
    static List<TcpSegment> resegment(List<TcpSegment> in, Random rng, int maxCut) {
        byte[] all = concat(in);
        List<TcpSegment> out = new ArrayList<>();
        long seq = in.get(0).seq();
        for (int off = 0; off < all.length;) {
            int n = Math.min(all.length - off, rng.nextInt(4) == 0 ? 1 : 1 + rng.nextInt(maxCut));
            byte[] p = new byte[n];
            System.arraycopy(all, off, p, 0, n);
            out.add(new TcpSegment((seq + off) & 0xFFFF_FFFFL, p));
            off += n;
        }
        return out;
    }

    static byte[] concat(List<TcpSegment> segs) {
        int n = segs.stream().mapToInt(s -> s.payload().length).sum();
        byte[] all = new byte[n];
        int off = 0;
        for (TcpSegment s : segs) {
            System.arraycopy(s.payload(), 0, all, off, s.payload().length);
            off += s.payload().length;
        }
        return all;
    }

    static List<MpaDeframer.Event> feed(MpaDeframer rx, List<TcpSegment> segs) {
        List<MpaDeframer.Event> out = new ArrayList<>();
        for (TcpSegment s : segs) {
            out.addAll(rx.receive(s));
        }
        return out;
    }

    /** Framer → random re-segmentation → deframer delivers every ULPDU unchanged, for every setting (MPA-23). */
    @Test
    void loopBackThroughRandomSegmentation() {
        Random rng = new Random(42);
        for (int run = 0; run < 24; run++) {
            boolean markers = (run & 1) != 0;
            boolean crc = (run & 2) != 0;
            long seqStart = run < 12 ? 0xFFFF_FFFFL - rng.nextInt(100_000) : rng.nextLong() & 0xFFFF_FFFFL;
            MpaDirection dir = new MpaDirection(markers, crc, seqStart);
            MpaFramer tx = new MpaFramer(dir, 536 + rng.nextInt(9000));
            MpaDeframer rx = new MpaDeframer(dir);
            List<TcpSegment> wire = new ArrayList<>();
            List<MpaDeframer.Event> expected = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                byte[] u = new byte[1 + rng.nextInt(tx.mulpdu())];
                rng.nextBytes(u);
                long hdr = tx.nextSeq();
                if (markers && Mpa.distance(seqStart, hdr) % 512 == 0) {
                    hdr = (hdr + 4) & 0xFFFF_FFFFL;
                }
                expected.add(new MpaDeframer.Ulpdu(hdr, u));
                wire.addAll(tx.send(u));
            }
            List<MpaDeframer.Event> got = feed(rx, resegment(wire, rng, 3000));
            assertEquals(expected, got, "run " + run + " markers=" + markers + " crc=" + crc);
        }
    }

    private static List<TcpSegment> stream(MpaDirection dir, int count, Random rng) {
        MpaFramer tx = new MpaFramer(dir, 1460);
        List<TcpSegment> wire = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] u = new byte[1 + rng.nextInt(tx.mulpdu())];
            rng.nextBytes(u);
            wire.addAll(tx.send(u));
        }
        return wire;
    }

    /** One flipped bit anywhere in an FPDU — length, ULPDU, PAD, Marker, CRC — is a CRC error (MPA-20, MPA-44). */
    @Test
    void everyCorruptedOctetIsACrcErrorAndNothingFollows() {
        Random rng = new Random(7);
        MpaDirection dir = new MpaDirection(true, true, 0xFFFF_FF00L);
        List<TcpSegment> wire = stream(dir, 40, rng);
        byte[] all = concat(wire);
        int fpdus = wire.size();
        for (int trial = 0; trial < 400; trial++) {
            byte[] bad = all.clone();
            int at = rng.nextInt(bad.length);
            bad[at] ^= (byte) (1 << rng.nextInt(8));
            MpaDeframer rx = new MpaDeframer(dir);
            List<MpaDeframer.Event> ev = feed(rx, List.of(new TcpSegment(dir.seqStart(), bad)));
            MpaDeframer.Event last = ev.get(ev.size() - 1);
            boolean lengthHit = isLengthOctet(wire, at, dir);
            if (!lengthHit) {
                assertTrue(last instanceof MpaDeframer.Error e && e.code() == MpaErrorCode.CRC_ERROR,
                        "flip at " + at + " gave " + last);
                assertTrue(ev.size() <= fpdus);
            } else {
                // A corrupted ULPDU_Length re-frames the stream: whatever is parsed then fails CRC or waits for
                // octets that never come; it never delivers the corrupted FPDU.
                assertTrue(ev.stream().filter(e -> e instanceof MpaDeframer.Ulpdu).count() < fpdus);
            }
            assertTrue(rx.failed() || lengthHit);
            if (rx.failed()) {
                assertTrue(rx.receive(new TcpSegment(rx.nextSeq(), concat(stream(dir, 1, rng)))).isEmpty(),
                        "nothing is delivered after an error");
            }
        }
    }

    private static boolean isLengthOctet(List<TcpSegment> wire, int at, MpaDirection dir) {
        int off = 0;
        for (TcpSegment s : wire) {
            int lead = dir.markers() && Mpa.distance(dir.seqStart(), s.seq()) % 512 == 0 ? 4 : 0;
            if (at == off + lead || at == off + lead + 1) {
                return true;
            }
            off += s.payload().length;
        }
        return false;
    }

    /** A Marker whose FPDUPTR is off by 4 in an FPDU whose CRC is correct: MPA error 3 (MPA-42, E-M3). */
    @Test
    void wrongMarkerPointerWithGoodCrcIsAMarkerError() {
        MpaDirection dir = new MpaDirection(true, true, 0);
        MpaFramer tx = new MpaFramer(dir, 1460);
        byte[] first = tx.fpdu(new byte[1000]); // Marker at 0 (leading) and at 512 (inside)
        int marker = 512;
        assertEquals(512 - 4, ((first[marker + 2] & 0xFF) << 8) | (first[marker + 3] & 0xFF));
        first[marker + 3] += 4;
        fixCrc(first);
        List<MpaDeframer.Event> ev = new MpaDeframer(dir).receive(new TcpSegment(0, first));
        assertEquals(List.of(new MpaDeframer.Error(MpaErrorCode.MARKER_ERROR, 0)), ev);
    }

    /** A leading Marker with a non-zero FPDUPTR is a Marker error too (MPA-13). */
    @Test
    void leadingMarkerMustPointNowhere() {
        MpaDirection dir = new MpaDirection(true, true, 100);
        byte[] f = new MpaFramer(dir, 1460).fpdu(new byte[40]);
        f[3] = 8;
        fixCrc(f);
        assertEquals(List.of(new MpaDeframer.Error(MpaErrorCode.MARKER_ERROR, 100)),
                new MpaDeframer(dir).receive(new TcpSegment(100, f)));
    }

    /** RESERVED = 0xFFFF and FPDUPTR low bits 11 with a correct CRC: accepted (MPA-10). Non-zero PAD too (MPA-08). */
    @Test
    void markerReservedBitsPointerLowBitsAndPadAreIgnored() {
        MpaDirection dir = new MpaDirection(true, true, 0);
        byte[] u = new byte[1001]; // PAD 1
        new Random(3).nextBytes(u);
        byte[] f = new MpaFramer(dir, 1460).fpdu(u);
        f[0] = (byte) 0xFF; // leading Marker RESERVED
        f[1] = (byte) 0xFF;
        f[3] |= 3;          // leading Marker FPDUPTR low bits
        f[512] = (byte) 0xFF;
        f[515] |= 3;
        f[f.length - 5] = (byte) 0x5A; // the PAD octet
        fixCrc(f);
        List<MpaDeframer.Event> ev = new MpaDeframer(dir).receive(new TcpSegment(0, f));
        assertEquals(List.of(new MpaDeframer.Ulpdu(4, u)), ev);
    }

    /** With CRC off, any CRC value is accepted (MPA-09); with CRC on the same octets are an error. */
    @Test
    void crcOffIgnoresTheCrcField() {
        for (boolean crc : new boolean[] {false, true}) {
            MpaDirection dir = new MpaDirection(false, crc, 9);
            byte[] f = new MpaFramer(dir, 1460).fpdu(new byte[] {1, 2, 3});
            f[f.length - 1] ^= 0x55;
            List<MpaDeframer.Event> ev = new MpaDeframer(dir).receive(new TcpSegment(9, f));
            if (crc) {
                assertEquals(List.of(new MpaDeframer.Error(MpaErrorCode.CRC_ERROR, 9)), ev);
            } else {
                assertEquals(List.of(new MpaDeframer.Ulpdu(9, new byte[] {1, 2, 3})), ev);
            }
        }
    }

    /** A truncated FPDU is never delivered (MPA-25 c). */
    @Test
    void truncatedFpduIsNotDelivered() {
        MpaDirection dir = new MpaDirection(false, true, 0);
        byte[] f = new MpaFramer(dir, 1460).fpdu(new byte[100]);
        byte[] cut = java.util.Arrays.copyOf(f, f.length - 1);
        assertEquals(List.of(), new MpaDeframer(dir).receive(new TcpSegment(0, cut)));
    }

    /** Recomputes the CRC of a whole FPDU (its last four octets) after a deliberate edit. */
    static void fixCrc(byte[] fpdu) {
        CRC32C c = new CRC32C();
        c.update(fpdu, 0, fpdu.length - 4);
        long v = c.getValue();
        for (int i = 0; i < 4; i++) {
            fpdu[fpdu.length - 4 + i] = (byte) (v >>> (8 * i));
        }
    }
}
