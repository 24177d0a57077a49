package rnic.driver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import rnic.wire.MpaStartupFrame;

/**
 * The startup frames the driver builds are byte for byte the golden vectors of docs/requirements.md §2.4.4, and those vectors
 * decode to the fields they were made from.
 *
 * <p>Requirements: MPA-27 (startup frames are plain octets, no CRC, no Markers), MPA-28 (Req/Rep keys), MPA-30 (R),
 * MPA-31 (Rev 1 / 2), MPA-32 (PD_Length), MPA-48 (S bit and enhanced data, network order, 14-bit IRD/ORD).
 */
class MpaStartupVectorsTest {
    /** §2.4.4: MPA Request, M=0 C=1 R=0 Rev=1, no PD (20 B). */
    static final byte[] REQUEST_REV1 = Hex.parse(
            "4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65  40 01 00 00");
    /** §2.4.4: MPA Reply, M=0 C=1 R=0 Rev=1, no PD. */
    static final byte[] REPLY_REV1 = Hex.parse(
            "4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65  40 01 00 00");
    /** §2.4.4: Enhanced Request, C=1 S=1 Rev=2, PD_Length=4, A=1 B=1 IRD=16, C=0 D=0 ORD=16. */
    static final byte[] REQUEST_ENHANCED = Hex.parse(
            "4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65  50 02 00 04  c0 10 00 10");

    static MpaNegotiation.Offer offer(boolean markers, boolean crc, boolean enhanced, boolean p2p, boolean send,
            boolean write, boolean read, int ird, int ord) {
        return new MpaNegotiation.Offer(markers, crc, enhanced, p2p, send, write, read, ird, ord, true, 0, null);
    }

    static MpaStartupFrame decode(byte[] b, boolean reply) throws Exception {
        ByteBuffer buf = ByteBuffer.wrap(b);
        MpaStartupFrame f = MpaStartupFrame.decode(buf, reply, true);
        assertEquals(b.length, buf.position(), "decode consumes exactly the frame");
        return f;
    }

    /** MPA-27, MPA-28, MPA-31: an Initiator's Rev 1 Request with C=1 is the §2.4.4 vector. */
    @Test
    void rev1RequestIsTheConformanceVector() {
        byte[] sent = MpaNegotiation.request(offer(false, true, false, false, false, false, false, 4, 4)).encode();
        assertArrayEquals(REQUEST_REV1, sent, Hex.format(sent));
    }

    /** MPA-28, MPA-30, MPA-51: the Reply to the Rev 1 vector, accepting with C=1, is the §2.4.4 Reply vector. */
    @Test
    void rev1ReplyIsTheConformanceVector() throws Exception {
        MpaStartupFrame request = decode(REQUEST_REV1, false);
        MpaNegotiation.Answer a = MpaNegotiation.answer(request, offer(false, true, true, true, true, true, true, 4,
                4));
        byte[] sent = a.reply().encode();
        assertArrayEquals(REPLY_REV1, sent, Hex.format(sent));
        assertNull(a.refusal());
    }

    /** MPA-48, MPA-50: A=1 B=1 IRD=16, C=0 D=0 ORD=16 with C=1 is the §2.4.4 enhanced vector (network order). */
    @Test
    void enhancedRequestIsTheConformanceVector() {
        byte[] sent = MpaNegotiation.request(offer(false, true, true, true, true, false, false, 16, 16)).encode();
        assertArrayEquals(REQUEST_ENHANCED, sent, Hex.format(sent));
    }

    /** MPA-27…MPA-32, MPA-48: the vectors decode to their fields. */
    @Test
    void vectorsDecodeToTheirFields() throws Exception {
        MpaStartupFrame req = decode(REQUEST_REV1, false);
        assertFalse(req.reply());
        assertFalse(req.markers());
        assertTrue(req.crc());
        assertEquals(1, req.rev());
        assertNull(req.enhanced());
        assertEquals(0, req.privateData().length);
        MpaStartupFrame rep = decode(REPLY_REV1, true);
        assertTrue(rep.reply());
        assertFalse(rep.reject());
        assertTrue(rep.crc());
        MpaStartupFrame enh = decode(REQUEST_ENHANCED, false);
        assertEquals(2, enh.rev());
        assertEquals(4, enh.pdLength());
        assertEquals(new MpaStartupFrame.Enhanced(true, true, 16, false, false, 16), enh.enhanced());
        assertEquals(0, enh.privateData().length, "the 4 enhanced octets are not ULP private data");
    }

    /** MPA-48: PD_Length counts the 4 enhanced octets; the ULP's data follows them. */
    @Test
    void enhancedPrivateDataFollowsTheEnhancedOctets() throws Exception {
        byte[] pd = {1, 2, 3};
        MpaNegotiation.Offer o = new MpaNegotiation.Offer(true, false, true, false, false, false, false, 3, 200, true,
                0, pd);
        byte[] sent = MpaNegotiation.request(o).encode();
        // M=1 C=0 R=0 S=1, Rev 2, PD_Length 7, A=0: B/C/D sent as 0 (MPA-50), IRD 3, ORD 200
        assertArrayEquals(Hex.parse("90 02 00 07 00 03 00 c8 01 02 03"), java.util.Arrays.copyOfRange(sent, 16, 27),
                Hex.format(sent));
        MpaStartupFrame back = decode(sent, false);
        assertArrayEquals(pd, back.privateData());
    }
}
