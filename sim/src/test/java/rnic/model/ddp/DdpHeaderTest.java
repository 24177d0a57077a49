package rnic.model.ddp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static rnic.model.TerminateAssert.assertTerminates;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.model.Hex;
import rnic.wire.TerminateCause;

/**
 * DDP headers and segments against docs/requirements.md §2.5 and the DDP headers inside the §2.10 and §4.2 dumps, the DV and
 * truncation errors of §3.2, and random round trips.
 *
 * <p>Requirements: DDP-06, DDP-07, DDP-08, DDP-09, DDP-10, DDP-11, DDP-12, DDP-13, DDP-14, DDP-16, DDP-32; rows
 * E-D0, E-D7, E-D13.
 */
class DdpHeaderTest {

    static byte[] encode(DdpHeader h) {
        ByteBuffer b = ByteBuffer.allocate(h.size());
        h.writeTo(b);
        return b.array();
    }

    /** §2.5.1 common DDP Control values 0xC1, 0x81, 0x41, 0x01 (DDP-06, DDP-07, DDP-09). */
    @Test
    void controlOctets() {
        assertEquals(0xC1, encode(new DdpTaggedHeader(true, 0, 0, 0))[0] & 0xFF);
        assertEquals(0x81, encode(new DdpTaggedHeader(false, 0, 0, 0))[0] & 0xFF);
        assertEquals(0x41, encode(new DdpUntaggedHeader(true, 0, 0, 0, 0))[0] & 0xFF);
        assertEquals(0x01, encode(new DdpUntaggedHeader(false, 0, 0, 0, 0))[0] & 0xFF);
    }

    /**
     * The RDMA Write of §2.10 (STag 0x1234, TO 0x1000, payload de ad be ef): a 14-octet tagged header, encoded and
     * parsed (DDP-06, DDP-10, DDP-11, DDP-12).
     */
    @Test
    void taggedHeaderOfTheGoldenWrite() throws TerminateException {
        byte[] golden = Hex.ulpdu("""
                0000: 00 12 c1 40 00 00 12 34 00 00 00 00 00 00 10 00
                0010: de ad be ef bd bc 30 f4""");
        DdpSegment segment = new DdpSegment(new DdpTaggedHeader(true, 0x40, 0x1234, 0x1000), Hex.of("de ad be ef"));
        assertEquals(Hex.show(golden), Hex.show(segment.encode()));
        assertEquals(18, segment.length());
        assertEquals(segment, DdpSegment.parse(golden));
    }

    /**
     * The Send of RFC 5044 Fig. 5 (§4.2: untagged, Last, RDMAP Send, QN 0, MSN 1, MO 0, 24 zero octets) and the Read
     * Request of §2.10 (QN 1, MSN 1): 18-octet untagged headers (DDP-06, DDP-13, DDP-14, DDP-16).
     */
    @Test
    void untaggedHeadersOfTheGoldenSendAndReadRequest() throws TerminateException {
        byte[] send = Hex.cat(Hex.of("41 43 00000000 00000000 00000001 00000000"), new byte[24]);
        DdpSegment sendSegment = new DdpSegment(new DdpUntaggedHeader(true, 0x43_0000_0000L, 0, 1, 0), new byte[24]);
        assertArrayEquals(send, sendSegment.encode());
        assertEquals(sendSegment, DdpSegment.parse(send));

        byte[] read = Hex.ulpdu("""
                0000: 00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01
                0010: 00 00 00 00 11 11 11 11 00 00 00 00 00 00 20 00
                0020: 00 00 01 00 22 22 22 22 00 00 00 00 00 00 30 00
                0030: d5 2e c5 b9""");
        DdpSegment readSegment = DdpSegment.parse(read);
        assertEquals(new DdpUntaggedHeader(true, 0x41_0000_0000L, 1, 1, 0), readSegment.header());
        assertEquals(28, readSegment.payload().length);
        assertArrayEquals(read, readSegment.encode());
    }

    /** The 40-bit RsvdULP keeps its first octet and the four below it apart (§2.5.3; DDP-13). */
    @Test
    void untaggedRsvdUlpLayout() {
        byte[] b = encode(new DdpUntaggedHeader(false, 0x44_1234_5678L, 0xA, 0xB, 0xC));
        assertEquals("01 44 12 34 56 78 00 00 00 0a 00 00 00 0b 00 00 00 0c", Hex.show(b));
    }

    /** Rsvd = 1111b from the peer is not checked, and a sender writes it as zero (DDP-08). */
    @Test
    void reservedControlBitsAreIgnored() throws TerminateException {
        byte[] tagged = Hex.of("fd 40 00001234 0000000000001000");
        DdpSegment s = DdpSegment.parse(tagged);
        assertEquals(new DdpTaggedHeader(true, 0x40, 0x1234, 0x1000), s.header());
        assertEquals(0xC1, s.encode()[0] & 0xFF);
        byte[] untagged = Hex.of("3d 43 00000000 00000000 00000001 00000000");
        assertEquals(new DdpUntaggedHeader(false, 0x43_0000_0000L, 0, 1, 0), DdpSegment.parse(untagged).header());
    }

    /** DV = 0, 2 or 3: 1/1/04 on a tagged segment (E-D7), 1/2/06 on an untagged one (E-D13) (DDP-09, DDP-32). */
    @Test
    void invalidDdpVersion() {
        for (int dv : new int[] {0, 2, 3}) {
            byte[] tagged = Hex.of("c1 40 00001234 0000000000001000 deadbeef");
            tagged[0] = (byte) (0xC0 | dv);
            assertTerminates("1/1/04 110", TerminateCause.DDP_TAGGED_INVALID_VERSION, () -> DdpSegment.parse(tagged));
            byte[] untagged = Hex.of("41 43 00000000 00000000 00000001 00000000");
            untagged[0] = (byte) (0x40 | dv);
            assertTerminates("1/2/06 110", TerminateCause.DDP_UNTAGGED_INVALID_VERSION,
                    () -> DdpSegment.parse(untagged));
        }
    }

    /**
     * A ULPDU shorter than the header its T bit implies (§2.2: "DDP reports an invalid header") is E-D0, the DDP row
     * sent without a Terminated DDP Header, checked before DV (DDP-27, DDP-32).
     */
    @Test
    void truncatedHeader() {
        byte[] tagged = Hex.of("c1 40 00001234 00000000000010");
        assertTerminates("1/0/00 000", TerminateCause.DDP_LOCAL_CATASTROPHIC, () -> DdpSegment.parse(tagged));
        byte[] untagged = Hex.of("42 43 00000000 00000000 00000001 000000");
        assertTerminates("1/0/00 000", TerminateCause.DDP_LOCAL_CATASTROPHIC, () -> DdpSegment.parse(untagged));
        assertTerminates("1/0/00 000", TerminateCause.DDP_LOCAL_CATASTROPHIC, () -> DdpSegment.parse(new byte[0]));
    }

    /** Random headers and payloads survive encode and parse, and encoding puts every field where §2.5 says. */
    @Test
    void randomRoundTrips() throws TerminateException {
        Random rng = new Random(5041);
        for (int i = 0; i < 5000; i++) {
            byte[] payload = new byte[rng.nextInt(40)];
            rng.nextBytes(payload);
            boolean last = rng.nextBoolean();
            DdpHeader h;
            ByteBuffer expected = ByteBuffer.allocate(18);
            if (rng.nextBoolean()) {
                int ulp = rng.nextInt(256);
                int stag = rng.nextInt();
                long to = rng.nextLong();
                h = new DdpTaggedHeader(last, ulp, stag, to);
                expected.put((byte) (last ? 0xC1 : 0x81)).put((byte) ulp).putInt(stag).putLong(to);
            } else {
                long ulp = rng.nextLong() >>> 24;
                long qn = rng.nextLong() >>> 32;
                long msn = rng.nextLong() >>> 32;
                long mo = rng.nextLong() >>> 32;
                h = new DdpUntaggedHeader(last, ulp, qn, msn, mo);
                expected.put((byte) (last ? 0x41 : 0x01)).put((byte) (ulp >> 32)).putInt((int) ulp).putInt((int) qn)
                        .putInt((int) msn).putInt((int) mo);
            }
            DdpSegment s = new DdpSegment(h, payload);
            byte[] wire = s.encode();
            assertArrayEquals(Hex.cat(Arrays.copyOf(expected.array(), expected.position()), payload), wire);
            assertEquals(s, DdpSegment.parse(wire));
        }
    }
}
