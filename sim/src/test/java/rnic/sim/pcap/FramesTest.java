package rnic.sim.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * IPv4 and TCP headers and the Internet checksum (RFC 791, RFC 9293 §3.1, RFC 1071), checked against known vectors and
 * against the separately written one's-complement sum in {@link PcapFile#onesComplementSum}.
 */
class FramesTest {
    static final byte[] A = {10, 0, 0, 1};
    static final byte[] B = {10, 0, 0, 2};

    /** The classic example header (Wikipedia "IPv4 header checksum"): 192.168.0.1 → 192.168.0.199, UDP, checksum b861. */
    @Test
    void ipv4KnownVector() {
        byte[] p = Frames.ipv4(new byte[] {(byte) 192, (byte) 168, 0, 1}, new byte[] {(byte) 192, (byte) 168, 0,
            (byte) 199}, 17, 0, 64, new byte[0x73 - 20]);
        assertArrayEquals(PcapWriterTest.hex("4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7"),
                Arrays.copyOf(p, 20));
    }

    /** Any header we build sums (one's complement, checksum field included) to 0xFFFF, i.e. verifies to 0. */
    @Test
    void ipv4HeaderChecksumVerifiesToZero() {
        Random r = new Random(1);
        for (int i = 0; i < 1000; i++) {
            byte[] src = new byte[4];
            byte[] dst = new byte[4];
            r.nextBytes(src);
            r.nextBytes(dst);
            byte[] p = Frames.ipv4(src, dst, Frames.PROTO_TCP, r.nextInt(0x10000), 1 + r.nextInt(255),
                    new byte[r.nextInt(1480)]);
            byte[] header = Arrays.copyOf(p, 20);
            assertEquals(0xFFFF, PcapFile.onesComplementSum(header), "header " + Arrays.toString(header));
            assertEquals(0, Frames.checksum(header, 0, 20));
            assertEquals(0x45, header[0]);
            assertEquals(0x4000, PcapFile.u16(header, 6), "DF, no fragment offset");
            assertEquals(p.length, PcapFile.u16(header, 2));
        }
    }

    /** Two segments whose checksums were computed with a separate script (Python, RFC 1071 sum). */
    @Test
    void tcpChecksumKnownVectors() {
        byte[] syn = Frames.tcp(A, B, 49152, 20049, 0x1000_0000L, 0, Frames.SYN, 65535, Frames.mssOption(1460),
                new byte[0]);
        assertArrayEquals(PcapWriterTest.hex("c000 4e51 10000000 00000000 6002 ffff 65d2 0000 020405b4"), syn);

        byte[] data = Frames.tcp(B, A, 20049, 49152, 0x7000_0001L, 0x1000_0001L, Frames.PSH | Frames.ACK, 65535,
                new byte[0], "MPA".getBytes(StandardCharsets.US_ASCII));
        assertEquals(0x7f22, PcapFile.u16(data, 16), "odd-length payload is padded with a zero octet");
        assertEquals(0x5018, PcapFile.u16(data, 12));
    }

    /** Random segments verify under the independent sum over pseudo-header and segment. */
    @Test
    void tcpChecksumVerifiesUnderIndependentSum() {
        Random r = new Random(2);
        for (int i = 0; i < 1000; i++) {
            byte[] src = new byte[4];
            byte[] dst = new byte[4];
            r.nextBytes(src);
            r.nextBytes(dst);
            byte[] payload = new byte[r.nextInt(1461)];
            r.nextBytes(payload);
            byte[] opt = r.nextBoolean() ? Frames.mssOption(536 + r.nextInt(9000)) : new byte[0];
            byte[] seg = Frames.tcp(src, dst, r.nextInt(0x10000), r.nextInt(0x10000), r.nextLong() & 0xFFFF_FFFFL,
                    r.nextLong() & 0xFFFF_FFFFL, r.nextInt(0x40), r.nextInt(0x10000), opt, payload);
            assertEquals(0xFFFF, PcapFile.onesComplementSum(PcapFile.pseudoHeader(src, dst, seg.length), seg));
            assertEquals(0, Frames.tcpChecksum(src, dst, seg));
        }
    }

    @Test
    void checksumOfOddLengthAndCarries() {
        // RFC 1071 §3 example: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2, checksum 220d
        assertEquals(0x220d, Frames.checksum(PcapWriterTest.hex("0001f203f4f5f6f7"), 0, 8));
        assertEquals(~0xab00 & 0xFFFF, Frames.checksum(new byte[] {(byte) 0xab}, 0, 1));
        byte[] ff = new byte[4000];
        Arrays.fill(ff, (byte) 0xFF);
        assertEquals(0, Frames.checksum(ff, 0, ff.length));
    }
}
