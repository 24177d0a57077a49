package rnic.driver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import rnic.wire.MpaErrorCode;
import rnic.wire.MpaStartupFrame;
import rnic.wire.MpaStartupFrame.Enhanced;

/**
 * The startup exchange over a TCP byte stream: octet-exact reading (the first FPDU octets stay for the core), what
 * is sent, and what each failure does to the connection (docs/requirements.md §3.1).
 *
 * <p>Requirements: MPA-26 (SeqStart = the octet after the frame), MPA-27, MPA-28 and MPA-38 (wrong key,
 * Initiator/Initiator), MPA-31 (Rev), MPA-32 (PD_Length, truncation), MPA-34/MPA-35 (reject leaves TCP open,
 * malformed frames close it), MPA-39 (timeout in device time, a Duration), MPA-49/MPA-50 (Terminate 2/0/6, 2/0/7 before
 * closing), E-M1, E-M4.
 */
class MpaConnectionTest {
    static final byte[] FPDU_OCTETS = {0x00, 0x12, (byte) 0xc1, 0x40, 1, 2, 3, 4};

    private long now;

    private static Duration ns(long n) {
        return Duration.ofNanos(n);
    }

    private MpaConnection mpa(ByteStream s) {
        return new MpaConnection(s, () -> now, () -> {
            now += 10;
            s.tick();
        });
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    static MpaNegotiation.Offer offer(boolean enhanced, boolean p2p) {
        return new MpaNegotiation.Offer(false, true, enhanced, p2p, true, true, true, 4, 4, true, 0,
                new byte[] {7, 7});
    }

    static MpaStartupFrame reply(boolean reject, Enhanced e, byte[] pd) {
        return new MpaStartupFrame(true, true, false, reject, e == null ? 1 : 2, e, pd);
    }

    /** MPA-26, MPA-27, MPA-33, MPA-35: Request sent, Reply read exactly; what follows it stays for the core. */
    @Test
    void initiatorReadsExactlyTheReply() throws MpaFailure {
        byte[] reply = reply(false, null, new byte[] {5, 6, 7}).encode();
        for (int drip : new int[] {0, 1, 3, 20}) {
            ByteStream s = new ByteStream(concat(reply, FPDU_OCTETS), drip, false, 1000, 5000);
            MpaNegotiation.Outcome o = mpa(s).initiate(offer(false, false), ns(1_000_000));
            assertArrayEquals(MpaNegotiation.request(offer(false, false)).encode(), s.sent());
            assertArrayEquals(FPDU_OCTETS, Arrays.copyOf(s.unread(), FPDU_OCTETS.length), "drip " + drip);
            assertEquals(1000 + reply.length, s.receiveSequence(), "SeqStart of the receive direction");
            assertEquals(5000 + 22, s.sendSequence(), "SeqStart of the transmit direction: after the Request");
            assertArrayEquals(new byte[] {5, 6, 7}, o.peerPrivateData());
            assertTrue(o.txMarkers(), "the Reply asked for Markers");
            assertFalse(s.hostClosed());
        }
    }

    /** MPA-26, MPA-34: the Responder reads exactly the Request, then sends its Reply. */
    @Test
    void responderReadsExactlyTheRequestAndReplies() throws Exception {
        byte[] request = MpaNegotiation.request(offer(true, true)).encode();
        ByteStream s = new ByteStream(concat(request, FPDU_OCTETS), 5, false, 77, 99);
        MpaConnection m = mpa(s);
        MpaStartupFrame got = m.awaitRequest(ns(1_000_000));
        assertEquals(MpaNegotiation.request(offer(true, true)), got);
        assertEquals(77 + request.length, s.receiveSequence());
        MpaNegotiation.Outcome o = m.accept(got, offer(true, true));
        MpaStartupFrame sentReply = MpaStartupFrame.decode(java.nio.ByteBuffer.wrap(s.sent()), true, true);
        assertEquals(MpaNegotiation.answer(got, offer(true, true)).reply(), sentReply);
        assertArrayEquals(new byte[] {7, 7}, o.peerPrivateData());
        assertFalse(s.hostClosed());
    }

    /** MPA-35: a Reply with R=1 is reported with the peer's private data and IRD/ORD; TCP stays open. */
    @Test
    void rejectLeavesTcpOpen() {
        byte[] reply = reply(true, new Enhanced(false, false, 1, false, false, 6), "no".getBytes()).encode();
        ByteStream s = new ByteStream(reply);
        MpaFailure f = assertThrows(MpaFailure.class, () -> mpa(s).initiate(offer(true, false), ns(1000)));
        assertEquals(MpaFailure.Kind.REJECTED, f.kind());
        assertNull(f.code());
        assertArrayEquals("no".getBytes(), f.peerFrame().privateData());
        assertEquals(6, f.peerFrame().enhanced().ord());
        assertFalse(s.hostClosed());
    }

    /** MPA-34: a Responder's reject is a Reply with R=1 and its private data; TCP stays open. */
    @Test
    void responderReject() throws Exception {
        ByteStream s = new ByteStream(MpaNegotiation.request(offer(false, false)).encode());
        MpaConnection m = mpa(s);
        MpaStartupFrame request = m.awaitRequest(ns(1000));
        m.reject(request, new MpaNegotiation.Offer(false, true, false, false, false, false, false, 1, 1, true, 0,
                "busy".getBytes()));
        MpaStartupFrame sent = MpaStartupFrame.decode(java.nio.ByteBuffer.wrap(s.sent()), true, true);
        assertTrue(sent.reject());
        assertEquals(1, sent.rev());
        assertArrayEquals("busy".getBytes(), sent.privateData());
        assertFalse(s.hostClosed());
    }

    /** MPA-28, MPA-38: an Initiator that receives a Request (Initiator/Initiator) closes TCP, error 4. */
    @Test
    void initiatorInitiatorIsDetected() {
        ByteStream s = new ByteStream(MpaNegotiation.request(offer(false, false)).encode());
        MpaFailure f = assertThrows(MpaFailure.class, () -> mpa(s).initiate(offer(false, false), ns(1000)));
        assertEquals(MpaFailure.Kind.INVALID_FRAME, f.kind());
        assertEquals(MpaErrorCode.INVALID_STARTUP_FRAME, f.code());
        assertTrue(f.getMessage().contains("MPA-38"), f.getMessage());
        assertTrue(s.hostClosed());
    }

    /** MPA-28, MPA-31, MPA-32, MPA-52: malformed frames close TCP with error 4 (E-M4), no Terminate sent. */
    @Test
    void malformedFramesCloseTcp() {
        byte[] good = MpaNegotiation.request(offer(false, false)).encode();
        byte[] wrongKey = good.clone();
        wrongKey[0] = 'm';
        byte[] rev0 = good.clone();
        rev0[17] = 0;
        byte[] rev3 = good.clone();
        rev3[17] = 3;
        byte[] pd513 = Arrays.copyOf(good, 20);
        pd513[18] = 0x02;
        pd513[19] = 0x01;
        for (byte[] bad : new byte[][] {wrongKey, rev0, rev3, pd513}) {
            ByteStream s = new ByteStream(bad);
            MpaFailure f = assertThrows(MpaFailure.class, () -> mpa(s).awaitRequest(ns(1000)));
            assertEquals(MpaErrorCode.INVALID_STARTUP_FRAME, f.code(), f.getMessage());
            assertTrue(s.hostClosed());
            assertEquals(0, s.sent().length, "no Terminate before Full Operation");
        }
    }

    /** MPA-32: PD_Length 8 with only 4 octets, then FIN: truncated, error 4. */
    @Test
    void truncatedPrivateDataIsInvalid() {
        byte[] frame = Arrays.copyOf(MpaNegotiation.request(offer(false, false)).encode(), 20);
        frame[19] = 8;
        ByteStream s = new ByteStream(concat(frame, new byte[4]), 0, true, 0, 0);
        MpaFailure f = assertThrows(MpaFailure.class, () -> mpa(s).awaitRequest(ns(1000)));
        assertEquals(MpaFailure.Kind.INVALID_FRAME, f.kind());
        assertTrue(s.hostClosed());
    }

    /** E-M1: the peer closes before sending anything. */
    @Test
    void closedBeforeAnything() {
        ByteStream s = new ByteStream(new byte[0], 0, true, 0, 0);
        MpaFailure f = assertThrows(MpaFailure.class, () -> mpa(s).awaitRequest(ns(1000)));
        assertEquals(MpaFailure.Kind.TCP_CLOSED, f.kind());
        assertEquals(MpaErrorCode.TCP_CLOSED, f.code());
    }

    /** MPA-38, MPA-39: no (complete) frame within the timeout, a Duration of device time, closes TCP. */
    @Test
    void timeoutInDeviceTime() {
        byte[] reply = reply(false, null, null).encode();
        ByteStream s = new ByteStream(Arrays.copyOf(reply, 12), 0, false, 0, 0);
        now = 500;
        MpaFailure f = assertThrows(MpaFailure.class, () -> mpa(s).initiate(offer(false, false), ns(2000)));
        assertEquals(MpaFailure.Kind.TIMEOUT, f.kind());
        assertTrue(now >= 2500 && now <= 2520, "gave up after the timeout, at " + now + " ns");
        assertTrue(s.hostClosed());
        ByteStream quiet = new ByteStream(new byte[0]);
        assertEquals(MpaFailure.Kind.TIMEOUT,
                assertThrows(MpaFailure.class, () -> mpa(quiet).awaitRequest(ns(100))).kind());
    }

    /**
     * MPA-49, MPA-50, E-M6/E-M7: a failed enhanced negotiation at the Initiator sends Terminate 2/0/6 or 2/0/7 as the
     * first FPDU of its direction (with the leading Marker when the Reply asked for Markers) and closes TCP.
     */
    @Test
    void failedNegotiationSendsTerminateAndCloses() {
        // Reply: A=0 to a peer-to-peer Request → code 7; M=1 → Markers in the Initiator's direction
        byte[] reply = reply(false, new Enhanced(false, false, 4, false, false, 4), null).encode();
        ByteStream s = new ByteStream(reply);
        MpaFailure f = assertThrows(MpaFailure.class, () -> mpa(s).initiate(offer(true, true), ns(1000)));
        assertEquals(MpaErrorCode.NO_MATCHING_RTR, f.code());
        assertTrue(s.hostClosed());
        byte[] request = MpaNegotiation.request(offer(true, true)).encode();
        byte[] term = Arrays.copyOfRange(s.sent(), request.length, s.sent().length);
        assertArrayEquals(MpaFpdu.first(MpaFpdu.terminateUlpdu(0x20, 0x07, 0, new byte[0]), true), term);
        assertArrayEquals(Hex.parse("00 00 00 00  00 16 41 47"), Arrays.copyOf(term, 8), Hex.format(term));
        // Responder ORD 9 above the Initiator's IRD 4 → code 6, no Markers this time
        byte[] reply6 = new MpaStartupFrame(true, false, true, false, 2, new Enhanced(false, false, 4, false, false,
                9), null).encode();
        ByteStream s6 = new ByteStream(reply6);
        MpaFailure f6 = assertThrows(MpaFailure.class, () -> mpa(s6).initiate(offer(true, false), ns(1000)));
        assertEquals(MpaErrorCode.INSUFFICIENT_IRD, f6.code());
        byte[] term6 = Arrays.copyOfRange(s6.sent(), 24 + 2, s6.sent().length);
        assertEquals(28, term6.length);
        assertEquals(0x20, term6[20] & 0xFF, "Layer 2 (LLP), EType 0 (MPA)");
        assertEquals(0x06, term6[21] & 0xFF);
        assertTrue(s6.hostClosed());
    }

    /** MPA-49: a Responder whose ULP requires more ORD than the Initiator's IRD rejects, TCP open. */
    @Test
    void responderRefusalSendsRejectReply() throws Exception {
        ByteStream s = new ByteStream(MpaNegotiation.request(new MpaNegotiation.Offer(false, true, true, false,
                false, false, false, 2, 4, true, 0, null)).encode());
        MpaConnection m = mpa(s);
        MpaStartupFrame request = m.awaitRequest(ns(1000));
        MpaFailure f = assertThrows(MpaFailure.class, () -> m.accept(request, new MpaNegotiation.Offer(false, true,
                true, false, false, true, true, 8, 8, true, 4, null)));
        assertEquals(MpaErrorCode.INSUFFICIENT_IRD, f.code());
        MpaStartupFrame sent = MpaStartupFrame.decode(java.nio.ByteBuffer.wrap(s.sent()), true, true);
        assertTrue(sent.reject());
        assertEquals(4, sent.enhanced().ord());
        assertFalse(s.hostClosed());
    }
}
