package rnic.driver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;
import rnic.wire.MpaErrorCode;
import rnic.wire.MpaStartupFrame;
import rnic.wire.MpaStartupFrame.Enhanced;
import rnic.wire.WqeOpcode;

/**
 * Negotiation outcomes of the MPA startup, both roles, without I/O: the Initiator's Request, the Responder's answer,
 * and what each side then programs.
 *
 * <p>Requirements: MPA-29 (M per direction), §2.4.2 (CRC if either C), MPA-30 (R), MPA-31/MPA-51 (Rev 1 vs Rev 2,
 * enhanced Request ↔ enhanced Reply), MPA-48 (enhanced data), MPA-49 (IRD/ORD rules, 0x3FFF, reject / Terminate
 * 2/0/6), MPA-50 (A/B/C/D, RTR choice, Terminate 2/0/7).
 */
class MpaNegotiationTest {
    static final int NO = MpaNegotiation.NO_NEGOTIATION;

    /** An Offer: markers, crc, enhanced, p2p, RTR forms (send, write, read), IRD, ORD. */
    static MpaNegotiation.Offer offer(boolean m, boolean c, boolean enh, boolean p2p, boolean s, boolean w, boolean r,
            int ird, int ord) {
        return new MpaNegotiation.Offer(m, c, enh, p2p, s, w, r, ird, ord, true, 0, null);
    }

    static MpaNegotiation.Offer rev1(boolean m, boolean c) {
        return offer(m, c, false, false, false, false, false, 4, 4);
    }

    static MpaNegotiation.Offer enhanced(int ird, int ord) {
        return offer(false, true, true, false, false, false, false, ird, ord);
    }

    static MpaNegotiation.Offer p2p(boolean s, boolean w, boolean r, int ird, int ord) {
        return offer(false, true, true, true, s, w, r, ird, ord);
    }

    /** Runs both roles: Request of {@code ini}, answer of {@code resp}, outcome at the Initiator. */
    record Both(MpaStartupFrame request, MpaNegotiation.Answer answer, MpaNegotiation.Outcome initiator) {
    }

    static Both run(MpaNegotiation.Offer ini, MpaNegotiation.Offer resp) throws MpaFailure {
        MpaStartupFrame request = MpaNegotiation.request(ini);
        MpaNegotiation.Answer a = MpaNegotiation.answer(request, resp);
        MpaNegotiation.Outcome o = a.outcome() == null ? null : MpaNegotiation.complete(request, a.reply(), ini);
        return new Both(request, a, o);
    }

    /** MPA-29, T-03: every M combination; Markers only in the direction whose receiver asked for them. */
    @Test
    void markersArePerDirection() throws MpaFailure {
        for (boolean mi : new boolean[] {false, true}) {
            for (boolean mr : new boolean[] {false, true}) {
                Both b = run(rev1(mi, true), rev1(mr, true));
                assertEquals(mi, b.request().markers());
                assertEquals(mr, b.answer().reply().markers());
                assertEquals(mr, b.initiator().txMarkers(), "Initiator inserts iff the Reply has M=1");
                assertEquals(mi, b.initiator().rxMarkers());
                assertEquals(mi, b.answer().outcome().txMarkers(), "Responder inserts iff the Request has M=1");
                assertEquals(mr, b.answer().outcome().rxMarkers());
            }
        }
    }

    /** §2.4.2, T-03: CRC is on in both directions iff either frame has C=1. */
    @Test
    void crcIfEitherSideWantsIt() throws MpaFailure {
        for (boolean ci : new boolean[] {false, true}) {
            for (boolean cr : new boolean[] {false, true}) {
                Both b = run(rev1(false, ci), rev1(false, cr));
                assertEquals(ci || cr, b.initiator().crc());
                assertEquals(ci || cr, b.answer().outcome().crc());
            }
        }
    }

    /** MPA-31, MPA-51: Rev 1 gets an unenhanced Rev 1 Reply even from an enhanced Responder; values stay local. */
    @Test
    void rev1RequestGetsRev1Reply() throws MpaFailure {
        Both b = run(rev1(false, true), p2p(true, true, true, 7, 5));
        MpaStartupFrame reply = b.answer().reply();
        assertEquals(1, reply.rev());
        assertNull(reply.enhanced());
        assertEquals(1, b.answer().outcome().peerRev());
        assertEquals(7, b.answer().outcome().ird(), "IRD/ORD are the ULP's business without RFC 6581");
        assertEquals(5, b.answer().outcome().ord());
        assertEquals(-1, b.initiator().peerIrd());
        assertEquals(Set.of(), b.initiator().rtrForms());
    }

    /** MPA-48, MPA-51: an enhanced Request gets an enhanced Rev 2 Reply. */
    @Test
    void enhancedRequestGetsEnhancedReply() throws MpaFailure {
        Both b = run(enhanced(4, 4), enhanced(4, 4));
        assertEquals(2, b.request().rev());
        assertEquals(2, b.answer().reply().rev());
        assertNotNull(b.answer().reply().enhanced());
        assertEquals(2, b.initiator().peerRev());
    }

    /**
     * MPA-49: after negotiation Initiator ORD ≤ Responder IRD and Responder ORD ≤ Initiator IRD, and each side gets
     * the peer's values.
     */
    @Test
    void irdOrdNegotiation() throws MpaFailure {
        int[][] cases = {
            // ini IRD, ini ORD, resp IRD, resp ORD → resp IRD, resp ORD, ini IRD, ini ORD
            {4, 4, 4, 4, 4, 4, 4, 4},
            {8, 2, 16, 16, 2, 8, 8, 2},
            {2, 8, 4, 1, 4, 1, 2, 4},
            {0, 0, 3, 3, 0, 0, 0, 0},
            {1, 16, 16, 16, 16, 1, 1, 16},
        };
        for (int[] c : cases) {
            Both b = run(enhanced(c[0], c[1]), enhanced(c[2], c[3]));
            MpaNegotiation.Outcome r = b.answer().outcome();
            MpaNegotiation.Outcome i = b.initiator();
            String id = java.util.Arrays.toString(c);
            assertEquals(c[4], r.ird(), id);
            assertEquals(c[5], r.ord(), id);
            assertEquals(c[6], i.ird(), id);
            assertEquals(c[7], i.ord(), id);
            assertTrue(i.ord() <= r.ird() && r.ord() <= i.ird(), id);
            assertEquals(c[0], r.peerIrd(), id);
            assertEquals(c[1], r.peerOrd(), id);
            assertEquals(c[4], i.peerIrd(), id);
            assertEquals(c[5], i.peerOrd(), id);
        }
    }

    /** MPA-49: 0x3FFF leaves the local value unchanged and is echoed; the rules are symmetric. */
    @Test
    void allOnesMeansNoAutomaticNegotiation() throws MpaFailure {
        MpaNegotiation.Offer ini = new MpaNegotiation.Offer(false, true, true, false, false, false, false, 6, 3,
                false, 0, null);
        Both b = run(ini, enhanced(2, 9));
        assertEquals(NO, b.request().enhanced().ird());
        assertEquals(NO, b.request().enhanced().ord());
        assertEquals(NO, b.answer().reply().enhanced().ird());
        assertEquals(NO, b.answer().reply().enhanced().ord());
        assertEquals(2, b.answer().outcome().ird());
        assertEquals(9, b.answer().outcome().ord());
        assertEquals(6, b.initiator().ird());
        assertEquals(3, b.initiator().ord());
        // one field at a time: Initiator ORD 0x3FFF only → Responder IRD unchanged and 0x3FFF echoed
        MpaStartupFrame request = new MpaStartupFrame(false, false, true, false, 2,
                new Enhanced(false, false, 5, false, false, NO), null);
        MpaNegotiation.Answer a = MpaNegotiation.answer(request, enhanced(2, 9));
        assertEquals(NO, a.reply().enhanced().ird());
        assertEquals(2, a.outcome().ird());
        assertEquals(5, a.reply().enhanced().ord());
        assertEquals(5, a.outcome().ord());
    }

    /** MPA-49, E-M6: a Responder rejects an Initiator IRD below the ORD its ULP requires and names that ORD. */
    @Test
    void responderRejectsInsufficientInitiatorIrd() throws MpaFailure {
        MpaNegotiation.Offer resp = new MpaNegotiation.Offer(false, true, true, false, false, true, true, 8, 8, true,
                4, new byte[] {9});
        Both b = run(enhanced(2, 4), resp);
        assertNull(b.answer().outcome());
        assertEquals(MpaErrorCode.INSUFFICIENT_IRD, b.answer().refusal());
        MpaStartupFrame reply = b.answer().reply();
        assertTrue(reply.reject());
        assertEquals(4, reply.enhanced().ord(), "the reject names the required ORD");
        assertArrayEquals(new byte[] {9}, reply.privateData());
    }

    /** MPA-49, E-M6: an Initiator that cannot give IRD ≥ Responder ORD fails with Terminate code 6. */
    @Test
    void initiatorFailsWhenResponderOrdExceedsItsIrd() {
        MpaStartupFrame request = MpaNegotiation.request(enhanced(2, 4));
        MpaStartupFrame reply = new MpaStartupFrame(true, false, true, false, 2,
                new Enhanced(false, false, 4, false, false, 3), null);
        MpaFailure f = assertThrows(MpaFailure.class, () -> MpaNegotiation.complete(request, reply, enhanced(2, 4)));
        assertEquals(MpaFailure.Kind.NEGOTIATION, f.kind());
        assertEquals(MpaErrorCode.INSUFFICIENT_IRD, f.code());
    }

    /** MPA-50: the Initiator prefers a zero-length Write, then Read, then Send among the forms the Responder echoed. */
    @Test
    void rtrChoice() throws MpaFailure {
        assertEquals(WqeOpcode.RDMA_WRITE, run(p2p(true, true, true, 4, 4), p2p(true, true, true, 4, 4))
                .initiator().rtr());
        assertEquals(WqeOpcode.RDMA_READ, run(p2p(true, false, true, 4, 4), p2p(true, true, true, 4, 4))
                .initiator().rtr());
        Both send = run(p2p(true, false, false, 4, 4), p2p(true, true, true, 4, 4));
        assertEquals(WqeOpcode.SEND, send.initiator().rtr());
        assertEquals(Set.of(WqeOpcode.SEND), send.answer().outcome().rtrForms(), "Send is echoed alone");
        Enhanced e = send.answer().reply().enhanced();
        assertTrue(e.peerToPeer() && e.sendRtr() && !e.writeRtr() && !e.readRtr());
    }

    /** MPA-50: a Responder echoes the requested forms needing no receive buffer, and A. */
    @Test
    void responderEchoesSupportedForms() throws MpaFailure {
        Both b = run(p2p(true, true, true, 4, 4), p2p(true, true, true, 4, 4));
        Enhanced e = b.answer().reply().enhanced();
        assertTrue(e.peerToPeer());
        assertFalse(e.sendRtr(), "Send is offered only when nothing else matches");
        assertTrue(e.writeRtr());
        assertTrue(e.readRtr());
        assertEquals(Set.of(WqeOpcode.RDMA_WRITE, WqeOpcode.RDMA_READ), b.answer().outcome().rtrForms());
    }

    /** MPA-50: with no requested form supported, the Responder names the ones it supports; the Initiator gives up. */
    @Test
    void noMatchingRtrIsTerminateCode7() {
        MpaStartupFrame request = MpaNegotiation.request(p2p(true, false, false, 4, 4));
        // this Responder cannot take a Send RTR now (its application posted receive buffers)
        MpaNegotiation.Answer a = MpaNegotiation.answer(request, p2p(false, true, true, 4, 4));
        Enhanced e = a.reply().enhanced();
        assertTrue(e.peerToPeer() && e.writeRtr() && e.readRtr() && !e.sendRtr());
        MpaFailure f = assertThrows(MpaFailure.class,
                () -> MpaNegotiation.complete(request, a.reply(), p2p(true, false, false, 4, 4)));
        assertEquals(MpaErrorCode.NO_MATCHING_RTR, f.code());
    }

    /** MPA-50: A=1 in the Request must come back as A=1. */
    @Test
    void replyWithoutPeerToPeerIsCode7() {
        MpaStartupFrame request = MpaNegotiation.request(p2p(false, true, false, 4, 4));
        MpaStartupFrame reply = new MpaStartupFrame(true, false, true, false, 2,
                new Enhanced(false, false, 4, true, false, 4), null);
        MpaFailure f = assertThrows(MpaFailure.class,
                () -> MpaNegotiation.complete(request, reply, p2p(false, true, false, 4, 4)));
        assertEquals(MpaErrorCode.NO_MATCHING_RTR, f.code());
    }

    /** RFC 6581 §9.1, MPA-49/50: a zero-length Read RTR raises a Responder IRD of 0 to 1; needs Initiator ORD ≥ 1. */
    @Test
    void readRtrNeedsOneIrdSlot() throws MpaFailure {
        Both b = run(p2p(false, false, true, 4, 1), p2p(false, false, true, 4, 4));
        assertEquals(WqeOpcode.RDMA_READ, b.initiator().rtr());
        MpaStartupFrame request = MpaNegotiation.request(p2p(false, false, true, 4, 0));
        MpaNegotiation.Answer zero = MpaNegotiation.answer(request, p2p(false, false, true, 4, 4));
        assertEquals(1, zero.outcome().ird(), "IRD raised to 1 for the Read RTR");
        assertEquals(1, zero.reply().enhanced().ird());
        // the Initiator's ORD stays 0, so it cannot send the Read itself
        MpaFailure f = assertThrows(MpaFailure.class, () -> MpaNegotiation.complete(request, zero.reply(),
                p2p(false, false, true, 4, 0)));
        assertEquals(MpaErrorCode.NO_MATCHING_RTR, f.code());
    }

    /** MPA-50: with A=0, B/C/D are sent as 0 and ignored on receipt; no RTR. */
    @Test
    void clientServerIgnoresRtrFlags() throws MpaFailure {
        Enhanced sent = MpaNegotiation.request(offer(false, true, true, false, true, true, true, 4, 4)).enhanced();
        assertFalse(sent.peerToPeer() || sent.sendRtr() || sent.writeRtr() || sent.readRtr());
        MpaStartupFrame request = new MpaStartupFrame(false, false, true, false, 2,
                new Enhanced(false, true, 4, true, true, 4), null);
        MpaNegotiation.Answer a = MpaNegotiation.answer(request, p2p(true, true, true, 4, 4));
        Enhanced e = a.reply().enhanced();
        assertFalse(e.peerToPeer() || e.sendRtr() || e.writeRtr() || e.readRtr());
        assertEquals(Set.of(), a.outcome().rtrForms());
    }

    /** MPA-51: a Reply whose format (S) differs from the Request's is an invalid frame. */
    @Test
    void replyFormatMustMatchRequest() {
        MpaStartupFrame enhancedRequest = MpaNegotiation.request(enhanced(4, 4));
        MpaStartupFrame plainReply = new MpaStartupFrame(true, false, true, false, 1, null, null);
        MpaFailure f = assertThrows(MpaFailure.class,
                () -> MpaNegotiation.complete(enhancedRequest, plainReply, enhanced(4, 4)));
        assertEquals(MpaFailure.Kind.INVALID_FRAME, f.kind());
        assertEquals(MpaErrorCode.INVALID_STARTUP_FRAME, f.code());
        MpaStartupFrame plainRequest = MpaNegotiation.request(rev1(false, true));
        MpaStartupFrame enhancedReply = new MpaStartupFrame(true, false, true, false, 2,
                new Enhanced(false, false, 1, false, false, 1), null);
        assertThrows(MpaFailure.class, () -> MpaNegotiation.complete(plainRequest, enhancedReply, rev1(false, true)));
    }

    /** MPA-32, MPA-48: the ULP gets at most 512 octets of private data, 508 with enhanced data. */
    @Test
    void privateDataLimits() {
        new MpaNegotiation.Offer(false, true, false, false, false, false, false, 1, 1, true, 0, new byte[512]);
        new MpaNegotiation.Offer(false, true, true, false, false, false, false, 1, 1, true, 0, new byte[508]);
        assertThrows(IllegalArgumentException.class, () -> new MpaNegotiation.Offer(false, true, false, false, false,
                false, false, 1, 1, true, 0, new byte[513]));
        assertThrows(IllegalArgumentException.class, () -> new MpaNegotiation.Offer(false, true, true, false, false,
                false, false, 1, 1, true, 0, new byte[509]));
        assertThrows(IllegalArgumentException.class, () -> new MpaNegotiation.Offer(false, true, true, false, false,
                false, false, 256, 1, true, 0, null));
    }

    /** MPA-32: both sides get the peer's private data. */
    @Test
    void privateDataReachesBothSides() throws MpaFailure {
        MpaNegotiation.Offer ini = new MpaNegotiation.Offer(false, true, true, true, true, true, true, 4, 4, true, 0,
                "hello".getBytes());
        MpaNegotiation.Offer resp = new MpaNegotiation.Offer(false, true, true, true, true, true, true, 4, 4, true,
                0, "world!".getBytes());
        Both b = run(ini, resp);
        assertArrayEquals("hello".getBytes(), b.answer().outcome().peerPrivateData());
        assertArrayEquals("world!".getBytes(), b.initiator().peerPrivateData());
    }

    /** An interop Offer (what the connection manager sends): IRD limit {@code limit}, peer RTR forms adopted. */
    static MpaNegotiation.Offer interop(boolean s, boolean w, boolean r, int ird, int ord, int limit) {
        return new MpaNegotiation.Offer(false, true, true, true, s, w, r, ird, ord, true, 0, null, limit, true);
    }

    /**
     * RFC 6581 §9.2, MPA-50: a Responder that echoes none of the offered RTR forms but names others is followed
     * when this side can send one of them (Write first, then Read with ORD ≥ 1, then Send); the strict Offer still
     * gives Terminate 2/0/7 for the same Reply.
     */
    @Test
    void initiatorAdoptsTheResponderRtrForm() throws MpaFailure {
        MpaStartupFrame request = MpaNegotiation.request(interop(true, false, false, 4, 4, 8));
        for (Object[] c : new Object[][] {
            {new Enhanced(true, false, 4, true, false, 4), WqeOpcode.RDMA_WRITE},
            {new Enhanced(true, false, 4, false, true, 4), WqeOpcode.RDMA_READ},
            {new Enhanced(true, false, 4, true, true, 4), WqeOpcode.RDMA_WRITE},
        }) {
            MpaStartupFrame reply = new MpaStartupFrame(true, false, true, false, 2, (Enhanced) c[0], null);
            MpaNegotiation.Outcome o = MpaNegotiation.complete(request, reply, interop(true, false, false, 4, 4, 8));
            assertEquals(c[1], o.rtr(), c[0].toString());
            assertEquals(Set.of(c[1]), o.rtrForms());
            MpaFailure strict = assertThrows(MpaFailure.class,
                    () -> MpaNegotiation.complete(request, reply, p2p(true, false, false, 4, 4)));
            assertEquals(MpaErrorCode.NO_MATCHING_RTR, strict.code());
        }
        // a Read needs ORD ≥ 1: with ORD 0 and only Read named, nothing can be sent → 2/0/7 even when adopting
        MpaStartupFrame request0 = MpaNegotiation.request(interop(true, false, false, 4, 0, 8));
        MpaStartupFrame readOnly = new MpaStartupFrame(true, false, true, false, 2,
                new Enhanced(true, false, 4, false, true, 0), null);
        MpaFailure f = assertThrows(MpaFailure.class,
                () -> MpaNegotiation.complete(request0, readOnly, interop(true, false, false, 4, 0, 8)));
        assertEquals(MpaErrorCode.NO_MATCHING_RTR, f.code());
        // A=1 with no form at all is still 2/0/7
        MpaStartupFrame none = new MpaStartupFrame(true, false, true, false, 2,
                new Enhanced(true, false, 4, false, false, 4), null);
        assertEquals(MpaErrorCode.NO_MATCHING_RTR, assertThrows(MpaFailure.class,
                () -> MpaNegotiation.complete(request, none, interop(true, false, false, 4, 4, 8))).code());
    }

    /**
     * RFC 6581 §9.1, MPA-49: the Initiator sets ORD ≤ the Responder's IRD (lower or higher than asked) and raises its
     * IRD to a Responder ORD above it when the device allows (limit), else Terminate 2/0/6.
     */
    @Test
    void initiatorFollowsTheResponderIrdOrd() throws MpaFailure {
        MpaStartupFrame request = MpaNegotiation.request(interop(false, true, false, 2, 4, 8));
        // ird, ord in the Reply → Initiator IRD, ORD
        int[][] cases = {
            {1, 2, 2, 1},   // peer IRD below our ORD: ORD lowered to it
            {16, 2, 2, 4},  // peer IRD above what we asked: ORD stays ours
            {4, 6, 6, 4},   // peer ORD above our IRD: IRD raised to it (within the limit 8)
            {4, 8, 8, 4},   // … up to the limit
            {4, 0, 2, 4},   // peer ORD lower: IRD stays
        };
        for (int[] c : cases) {
            MpaStartupFrame reply = new MpaStartupFrame(true, false, true, false, 2,
                    new Enhanced(true, false, c[0], true, false, c[1]), null);
            MpaNegotiation.Outcome o = MpaNegotiation.complete(request, reply, interop(false, true, false, 2, 4, 8));
            String id = java.util.Arrays.toString(c);
            assertEquals(c[2], o.ird(), id);
            assertEquals(c[3], o.ord(), id);
            assertTrue(o.ord() <= c[0] && c[1] <= o.ird(), "MPA-49 invariant " + id);
            assertEquals(c[0], o.peerIrd(), id);
            assertEquals(c[1], o.peerOrd(), id);
        }
        MpaStartupFrame tooMuch = new MpaStartupFrame(true, false, true, false, 2,
                new Enhanced(true, false, 4, true, false, 9), null);
        MpaFailure f = assertThrows(MpaFailure.class,
                () -> MpaNegotiation.complete(request, tooMuch, interop(false, true, false, 2, 4, 8)));
        assertEquals(MpaErrorCode.INSUFFICIENT_IRD, f.code());
        assertTrue(f.getMessage().contains("IRD 8"), f.getMessage());
        assertThrows(IllegalArgumentException.class, () -> interop(false, true, false, 9, 4, 8),
                "a limit below the IRD is a programming error");
    }
}
