package rnic.model.ddp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The DDP segmenter against the segmentation vectors of docs/requirements.md §1.2 (DDP-12, DDP-16), the MSN rules of §2.8.2 and
 * random message sizes and MULPDUs.
 *
 * <p>Requirements: DDP-01, DDP-07, DDP-12, DDP-14, DDP-15, DDP-16, DDP-17, DDP-19, MPA-03 (DDP side).
 */
class DdpSegmenterTest {
    static final long SEND_ULP = 0x43_0000_0000L;

    static byte[] counting(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    /** DDP-12: 2048 octets at TO 16384 with MULPDU 1500 are (TO 16384, 1486 octets) and (TO 17870, 562 octets). */
    @Test
    void taggedVector() {
        byte[] message = counting(2048);
        List<DdpSegment> s = new DdpSegmenter().tagged(0x40, 0x1234, 16384, message, 1500);
        assertEquals(List.of(new DdpTaggedHeader(false, 0x40, 0x1234, 16384), new DdpTaggedHeader(true, 0x40, 0x1234,
                17870)), s.stream().map(DdpSegment::header).toList());
        assertEquals(1486, s.get(0).payload().length);
        assertEquals(562, s.get(1).payload().length);
        assertEquals(1500, s.get(0).length());
        assertArrayEquals(message, join(s));
    }

    /** DDP-16: 2048 untagged octets with MULPDU 1500 are (MO 0, 1482 octets) and (MO 1482, 566 octets), one MSN. */
    @Test
    void untaggedVector() {
        byte[] message = counting(2048);
        List<DdpSegment> s = new DdpSegmenter().untagged(SEND_ULP, 0, message, 1500);
        assertEquals(List.of(new DdpUntaggedHeader(false, SEND_ULP, 0, 1, 0), new DdpUntaggedHeader(true, SEND_ULP, 0,
                1, 1482)), s.stream().map(DdpSegment::header).toList());
        assertEquals(1482, s.get(0).payload().length);
        assertEquals(566, s.get(1).payload().length);
        assertArrayEquals(message, join(s));
    }

    /** DDP-15: MSNs start at 1, count messages (not segments) per QN, and QNs count independently. */
    @Test
    void msnPerQueueFromOne() {
        DdpSegmenter ddp = new DdpSegmenter();
        assertEquals(1, msn(ddp.untagged(SEND_ULP, 0, new byte[3000], 1500)));
        assertEquals(2, msn(ddp.untagged(SEND_ULP, 0, new byte[10], 1500)));
        assertEquals(1, msn(ddp.untagged(0x41_0000_0000L, 1, new byte[28], 1500)));
        ddp.tagged(0x40, 1, 0, new byte[100], 1500); // tagged messages touch no MSN
        assertEquals(3, msn(ddp.untagged(SEND_ULP, 0, new byte[10], 1500)));
        assertEquals(2, ddp.nextMsn(1));
        assertEquals(1, ddp.nextMsn(2));
    }

    /** DDP-15: a counter preloaded to 0xFFFFFFFE gives 0xFFFFFFFE, 0xFFFFFFFF, 0, 1. */
    @Test
    void msnWraps() {
        DdpSegmenter ddp = new DdpSegmenter(0xFFFF_FFFEL);
        long[] seen = new long[4];
        for (int i = 0; i < 4; i++) {
            seen[i] = msn(ddp.untagged(SEND_ULP, 0, new byte[1], 1500));
        }
        assertArrayEquals(new long[] {0xFFFF_FFFEL, 0xFFFF_FFFFL, 0, 1}, seen);
    }

    /** DDP-19: a zero-length message is exactly one segment, L=1, MO 0 or the given TO. */
    @Test
    void zeroLengthMessage() {
        List<DdpSegment> u = new DdpSegmenter().untagged(SEND_ULP, 0, new byte[0], 128);
        assertEquals(List.of(new DdpSegment(new DdpUntaggedHeader(true, SEND_ULP, 0, 1, 0), new byte[0])), u);
        List<DdpSegment> t = new DdpSegmenter().tagged(0x40, 0xFFFF_FFFF, -1L, new byte[0], 128);
        assertEquals(List.of(new DdpSegment(new DdpTaggedHeader(true, 0x40, 0xFFFF_FFFF, -1L), new byte[0])), t);
    }

    /**
     * DDP-01, MPA-03: MULPDU applies per message, so a change leaves a message already segmented alone; a MULPDU over
     * 64768, or one leaving no room after the header, is refused.
     */
    @Test
    void mulpduPerMessageAndItsLimits() {
        DdpSegmenter ddp = new DdpSegmenter();
        List<DdpSegment> before = ddp.untagged(SEND_ULP, 0, new byte[1000], 530);
        List<DdpSegment> after = ddp.untagged(SEND_ULP, 0, new byte[1000], 1442);
        assertEquals(List.of(512, 488), before.stream().map(s -> s.payload().length).toList());
        assertEquals(List.of(1000), after.stream().map(s -> s.payload().length).toList());
        assertThrows(IllegalArgumentException.class, () -> ddp.tagged(0x40, 0, 0, new byte[1], 64769));
        assertThrows(IllegalArgumentException.class, () -> ddp.untagged(SEND_ULP, 0, new byte[1], 18));
        assertEquals(3, ddp.nextMsn(0), "a refused message takes no MSN");
        assertEquals(64768, ddp.tagged(0x40, 0, 0, new byte[70000], 64768).get(0).length());
    }

    /**
     * DDP-07, DDP-12, DDP-16, DDP-17: for random sizes and MULPDUs every segment is at most MULPDU, all but the last
     * are full, only the last has L=1, offsets advance by the payload sent, and the payloads join to the message.
     */
    @Test
    void randomMessages() {
        Random rng = new Random(16);
        DdpSegmenter ddp = new DdpSegmenter();
        for (int i = 0; i < 2000; i++) {
            int mulpdu = 19 + rng.nextInt(rng.nextBoolean() ? 200 : 64768 - 18);
            byte[] message = new byte[rng.nextInt(5) == 0 ? rng.nextInt(4) : rng.nextInt(5 * mulpdu)];
            rng.nextBytes(message);
            boolean tagged = rng.nextBoolean();
            long to = rng.nextLong();
            long msn = ddp.nextMsn(0);
            List<DdpSegment> s = tagged ? ddp.tagged(0x40, 7, to, message, mulpdu)
                    : ddp.untagged(SEND_ULP, 0, message, mulpdu);
            int headerSize = tagged ? 14 : 18;
            int expectedSegments = Math.max(1, (message.length + mulpdu - headerSize - 1) / (mulpdu - headerSize));
            assertEquals(expectedSegments, s.size());
            long offset = 0;
            for (int k = 0; k < s.size(); k++) {
                DdpSegment seg = s.get(k);
                boolean last = k == s.size() - 1;
                assertTrue(seg.length() <= mulpdu);
                assertTrue(last || seg.length() == mulpdu);
                assertEquals(last, seg.header().last());
                if (seg.header() instanceof DdpTaggedHeader t) {
                    assertEquals(to + offset, t.to());
                } else {
                    DdpUntaggedHeader u = (DdpUntaggedHeader) seg.header();
                    assertEquals(offset, u.mo());
                    assertEquals(msn, u.msn());
                }
                offset += seg.payload().length;
            }
            assertArrayEquals(message, join(s));
        }
    }

    static long msn(List<DdpSegment> segments) {
        long msn = ((DdpUntaggedHeader) segments.get(0).header()).msn();
        for (DdpSegment s : segments) {
            assertEquals(msn, ((DdpUntaggedHeader) s.header()).msn(), "one MSN for every segment of a message");
        }
        return msn;
    }

    static byte[] join(List<DdpSegment> segments) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        segments.forEach(s -> o.writeBytes(s.payload()));
        return o.toByteArray();
    }
}
