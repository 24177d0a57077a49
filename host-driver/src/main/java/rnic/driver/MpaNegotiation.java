package rnic.driver;

import java.util.EnumSet;
import java.util.Set;
import rnic.wire.MpaErrorCode;
import rnic.wire.MpaStartupFrame;
import rnic.wire.MpaStartupFrame.Enhanced;
import rnic.wire.WqeOpcode;

/**
 * The decisions of the MPA startup, free of I/O: the Initiator's Request, the Responder's Reply, and what both ends
 * then run with (RFC 5044 §7.1; RFC 6581 §5, §9; docs/requirements.md §2.4.2, MPA-29…MPA-32, MPA-48…MPA-51).
 *
 * <ul>
 *   <li>Markers are per direction: this side inserts Markers iff the peer's frame has M=1 (MPA-29).
 *   <li>CRC is on in both directions iff either frame has C=1 (§2.4.2).
 *   <li>IRD/ORD (Rev 2, S=1, MPA-49): the Responder sets IRD = min(Initiator ORD, its own IRD) and
 *       ORD = min(its own ORD, Initiator IRD), and rejects (R=1, Responder ORD = the ORD its ULP requires, E-M6) an
 *       Initiator IRD below the ORD its ULP requires. The Initiator then sets ORD = min(its ORD, Responder IRD) and
 *       keeps its IRD, which must be at least the Responder ORD: it raises it up to its limit, else Terminate 2/0/6. 0x3FFF means "no automatic
 *       negotiation": the receiver keeps its local value and the Responder echoes 0x3FFF.
 *   <li>RTR (A=1, MPA-50): the Responder echoes the requested forms it supports that need no receive buffer
 *       (zero-length RDMA Write, zero-length RDMA Read with IRD raised to 1); a zero-length Send only when it was
 *       requested, no other form matches and the Responder can take it (its receive queue is empty, so the driver's
 *       own receive is the first one); with no match it answers with the forms it supports. The Initiator picks
 *       Write, then Read, then Send among the echoed forms it offered; when the Responder echoed other forms only,
 *       it adopts one it can generate if its offer allows ({@link Offer#adoptPeerRtr()}); none is Terminate 2/0/7. With A=0, B/C/D
 *       are sent 0 and ignored.
 *   <li>Rev: 2 when the frame carries enhanced data, else 1; an enhanced Request gets an enhanced Reply and an
 *       unenhanced one an unenhanced Reply (MPA-51).
 * </ul>
 */
public final class MpaNegotiation {
    /** IRD/ORD value meaning "the ULP negotiates" (RFC 6581 §9.1). */
    public static final int NO_NEGOTIATION = Enhanced.NO_NEGOTIATION;

    private MpaNegotiation() {
    }

    /**
     * What one side asks for and can do.
     *
     * @param receiveMarkers this side requires Markers in what it receives (its frame's M)
     * @param crc            its frame's C
     * @param enhanced       Rev 2 with RFC 6581 enhanced data (Initiator; a Responder answers in the Request's format)
     * @param peerToPeer     A: an RTR message follows the Reply (Initiator)
     * @param sendRtr        zero-length Send RTR offered (Initiator) or acceptable now (Responder)
     * @param writeRtr       zero-length RDMA Write RTR offered / supported
     * @param readRtr        zero-length RDMA Read RTR offered / supported
     * @param ird            inbound Read/Atomic Requests this side can take at once (0 … 255)
     * @param ord            outbound Read/Atomic Requests this side wants outstanding (0 … 255)
     * @param negotiate      send IRD/ORD for automatic negotiation; false sends 0x3FFF (Initiator)
     * @param requiredOrd    the ORD the Responder's ULP cannot do without (reject below it)
     * @param privateData    the ULP's private data
     * @param irdLimit       Initiator: the largest IRD this side can give (the device's MAX_IRD); a Responder ORD
     *                       above {@code ird} raises the IRD up to this limit (RFC 6581 §9.1) before Terminate 2/0/6
     * @param adoptPeerRtr   Initiator: when the Responder echoes none of the offered RTR forms but one this side can
     *                       generate, send that one (RFC 6581 §9.2) instead of Terminate 2/0/7
     */
    public record Offer(boolean receiveMarkers, boolean crc, boolean enhanced, boolean peerToPeer, boolean sendRtr,
            boolean writeRtr, boolean readRtr, int ird, int ord, boolean negotiate, int requiredOrd,
            byte[] privateData, int irdLimit, boolean adoptPeerRtr) {

        public Offer {
            if (ird < 0 || ird > 255 || ord < 0 || ord > 255 || requiredOrd < 0 || requiredOrd > 255) {
                throw new IllegalArgumentException("IRD, ORD and required ORD are 0 … 255: " + ird + ", " + ord + ", "
                        + requiredOrd);
            }
            if (irdLimit < ird || irdLimit > 255) {
                throw new IllegalArgumentException("IRD limit " + irdLimit + " must be IRD " + ird + " … 255");
            }
            privateData = privateData == null ? new byte[0] : privateData.clone();
            int room = MpaStartupFrame.MAX_PRIVATE_DATA - (enhanced ? 4 : 0);
            if (privateData.length > room) {
                throw new IllegalArgumentException("private data of " + privateData.length + " octets: at most " + room
                        + (enhanced ? " with RFC 6581 enhanced data (MPA-48)" : " (MPA-32)"));
            }
        }

        /** Strict: the IRD stays {@code ird}, and only offered RTR forms are sent. */
        public Offer(boolean receiveMarkers, boolean crc, boolean enhanced, boolean peerToPeer, boolean sendRtr,
                boolean writeRtr, boolean readRtr, int ird, int ord, boolean negotiate, int requiredOrd,
                byte[] privateData) {
            this(receiveMarkers, crc, enhanced, peerToPeer, sendRtr, writeRtr, readRtr, ird, ord, negotiate,
                    requiredOrd, privateData, ird, false);
        }
    }

    /**
     * What a connection runs with after the startup.
     *
     * @param peerRev    the Rev of the peer's frame (reported to the ULP, MPA-31)
     * @param txMarkers  this side inserts Markers
     * @param rxMarkers  the peer inserts Markers
     * @param crc        CRC in both directions
     * @param ird        this side's IRD
     * @param ord        this side's ORD
     * @param peerIrd    the IRD in the peer's enhanced data (passed to the ULP, MPA-49), or -1 when unenhanced
     * @param peerOrd    the ORD in the peer's enhanced data, or -1
     * @param peerToPeer the A flag of the exchange
     * @param rtrForms   Responder: the RTR forms it accepted; Initiator: the one it sends (empty without RTR)
     * @param peerPrivateData the ULP private data of the peer's frame (MPA-32)
     */
    public record Outcome(int peerRev, boolean txMarkers, boolean rxMarkers, boolean crc, int ird, int ord, int peerIrd,
            int peerOrd, boolean peerToPeer, Set<WqeOpcode> rtrForms, byte[] peerPrivateData) {

        public Outcome {
            rtrForms = Set.copyOf(rtrForms);
            peerPrivateData = peerPrivateData.clone();
        }

        @Override
        public byte[] peerPrivateData() {
            return peerPrivateData.clone();
        }

        /** The RTR message an Initiator sends, or null. */
        public WqeOpcode rtr() {
            return rtrForms.size() == 1 ? rtrForms.iterator().next() : null;
        }
    }

    /**
     * A Responder's answer.
     *
     * @param reply   the Reply to send
     * @param outcome what to run with when accepted, else null
     * @param refusal the error of a reject the driver decided (E-M6), else null
     * @param reason  why, for messages
     */
    public record Answer(MpaStartupFrame reply, Outcome outcome, MpaErrorCode refusal, String reason) {
    }

    /** The Initiator's Request for {@code o}. */
    public static MpaStartupFrame request(Offer o) {
        Enhanced e = null;
        if (o.enhanced()) {
            boolean a = o.peerToPeer();
            e = new Enhanced(a, a && o.sendRtr(), o.negotiate() ? o.ird() : NO_NEGOTIATION, a && o.writeRtr(),
                    a && o.readRtr(), o.negotiate() ? o.ord() : NO_NEGOTIATION);
        }
        return new MpaStartupFrame(false, o.receiveMarkers(), o.crc(), false, o.enhanced() ? 2 : 1, e,
                o.privateData());
    }

    /** The Responder's answer to a valid {@code request}. */
    public static Answer answer(MpaStartupFrame request, Offer o) {
        Enhanced q = request.enhanced();
        if (q == null) {
            MpaStartupFrame reply = new MpaStartupFrame(true, o.receiveMarkers(), o.crc(), false, 1, null,
                    o.privateData());
            return new Answer(reply, new Outcome(request.rev(), request.markers(), o.receiveMarkers(),
                    request.crc() || o.crc(), o.ird(), o.ord(), -1, -1, false, Set.of(), request.privateData()), null,
                    null);
        }
        boolean a = q.peerToPeer();
        EnumSet<WqeOpcode> echo = EnumSet.noneOf(WqeOpcode.class);
        if (a) {
            if (q.writeRtr() && o.writeRtr()) {
                echo.add(WqeOpcode.RDMA_WRITE);
            }
            if (q.readRtr() && o.readRtr() && o.ird() >= 1) {
                echo.add(WqeOpcode.RDMA_READ);
            }
            if (echo.isEmpty() && q.sendRtr() && o.sendRtr()) {
                echo.add(WqeOpcode.SEND);
            }
            if (echo.isEmpty()) {
                // none of the requested forms: say which ones this side supports (RFC 6581 §9.2)
                if (o.writeRtr()) {
                    echo.add(WqeOpcode.RDMA_WRITE);
                }
                if (o.readRtr() && o.ird() >= 1) {
                    echo.add(WqeOpcode.RDMA_READ);
                }
                if (echo.isEmpty() && o.sendRtr()) {
                    echo.add(WqeOpcode.SEND);
                }
            }
        }
        int ird;
        int replyIrd;
        if (q.ord() == NO_NEGOTIATION) {
            ird = o.ird();
            replyIrd = NO_NEGOTIATION;
        } else {
            ird = Math.min(q.ord(), o.ird());
            replyIrd = ird;
        }
        if (echo.contains(WqeOpcode.RDMA_READ) && ird == 0) {
            ird = 1; // a zero-length Read RTR needs one IRD slot (RFC 6581 §9.1)
            replyIrd = replyIrd == NO_NEGOTIATION ? NO_NEGOTIATION : 1;
        }
        int ord;
        int replyOrd;
        if (q.ird() == NO_NEGOTIATION) {
            ord = o.ord();
            replyOrd = NO_NEGOTIATION;
        } else if (q.ird() < o.requiredOrd()) {
            Enhanced re = new Enhanced(a, false, replyIrd, false, false, o.requiredOrd());
            MpaStartupFrame reject = new MpaStartupFrame(true, o.receiveMarkers(), o.crc(), true, 2, re,
                    o.privateData());
            return new Answer(reject, null, MpaErrorCode.INSUFFICIENT_IRD, "the Initiator's IRD " + q.ird()
                    + " is below the ORD " + o.requiredOrd() + " this side's ULP requires (MPA-49)");
        } else {
            ord = Math.min(o.ord(), q.ird());
            replyOrd = ord;
        }
        Enhanced re = new Enhanced(a, echo.contains(WqeOpcode.SEND), replyIrd, echo.contains(WqeOpcode.RDMA_WRITE),
                echo.contains(WqeOpcode.RDMA_READ), replyOrd);
        MpaStartupFrame reply = new MpaStartupFrame(true, o.receiveMarkers(), o.crc(), false, 2, re, o.privateData());
        return new Answer(reply, new Outcome(request.rev(), request.markers(), o.receiveMarkers(),
                request.crc() || o.crc(), ird, ord, q.ird(), q.ord(), a, echo, request.privateData()), null, null);
    }

    /** A Reply with R=1 and the ULP's private data, in the Request's format (MPA-34, MPA-49). */
    public static MpaStartupFrame reject(MpaStartupFrame request, Offer o) {
        Enhanced q = request.enhanced();
        Enhanced re = q == null ? null
                : new Enhanced(q.peerToPeer(), false, q.ord() == NO_NEGOTIATION ? NO_NEGOTIATION : o.ird(), false,
                        false, q.ird() == NO_NEGOTIATION ? NO_NEGOTIATION : o.ord());
        return new MpaStartupFrame(true, o.receiveMarkers(), o.crc(), true, q == null ? 1 : 2, re, o.privateData());
    }

    /**
     * The Initiator's outcome after an accepting Reply.
     *
     * @throws MpaFailure {@code INVALID_FRAME} when the Reply's format does not match the Request's (MPA-51);
     *                    {@code NEGOTIATION} with E-M6 when this side cannot give the IRD the Responder's ORD needs,
     *                    with E-M7 when no RTR form can be used (the caller sends the Terminate and closes)
     */
    public static Outcome complete(MpaStartupFrame request, MpaStartupFrame reply, Offer o) throws MpaFailure {
        Enhanced q = request.enhanced();
        Enhanced r = reply.enhanced();
        if ((q == null) != (r == null)) {
            throw new MpaFailure(MpaFailure.Kind.INVALID_FRAME, MpaErrorCode.INVALID_STARTUP_FRAME, reply,
                    q == null ? "enhanced Reply (S=1) to an unenhanced Request (MPA-51)"
                            : "unenhanced Reply (S=0) to an enhanced Request (MPA-51)");
        }
        boolean txMarkers = reply.markers();
        boolean rxMarkers = request.markers();
        boolean crc = request.crc() || reply.crc();
        if (r == null) {
            return new Outcome(reply.rev(), txMarkers, rxMarkers, crc, o.ird(), o.ord(), -1, -1, false, Set.of(),
                    reply.privateData());
        }
        int ord = r.ird() == NO_NEGOTIATION ? o.ord() : Math.min(o.ord(), r.ird());
        int ird = o.ird();
        if (r.ord() != NO_NEGOTIATION && r.ord() > ird) {
            if (r.ord() > o.irdLimit()) {
                throw new MpaFailure(MpaFailure.Kind.NEGOTIATION, MpaErrorCode.INSUFFICIENT_IRD, reply,
                        "the Responder's ORD " + r.ord() + " exceeds the IRD " + o.irdLimit()
                                + " this side can give (MPA-49)");
            }
            ird = r.ord(); // RFC 6581 §9.1: the Initiator sets IRD ≥ the Responder's ORD when it can
        }
        Set<WqeOpcode> rtr = Set.of();
        if (q.peerToPeer()) {
            if (!r.peerToPeer()) {
                throw new MpaFailure(MpaFailure.Kind.NEGOTIATION, MpaErrorCode.NO_MATCHING_RTR, reply,
                        "the Responder answered A=0 to a peer-to-peer Request (MPA-50)");
            }
            WqeOpcode pick = null;
            if (r.writeRtr() && o.writeRtr()) {
                pick = WqeOpcode.RDMA_WRITE;
            } else if (r.readRtr() && o.readRtr() && ord >= 1) {
                pick = WqeOpcode.RDMA_READ;
            } else if (r.sendRtr() && o.sendRtr()) {
                pick = WqeOpcode.SEND;
            } else if (o.adoptPeerRtr()) {
                // RFC 6581 §9.2: the Responder named the forms it supports; the core generates each of them
                if (r.writeRtr()) {
                    pick = WqeOpcode.RDMA_WRITE;
                } else if (r.readRtr() && ord >= 1) {
                    pick = WqeOpcode.RDMA_READ;
                } else if (r.sendRtr()) {
                    pick = WqeOpcode.SEND;
                }
            }
            if (pick == null) {
                throw new MpaFailure(MpaFailure.Kind.NEGOTIATION, MpaErrorCode.NO_MATCHING_RTR, reply,
                        "no RTR form both sides support: Responder B/C/D = " + bit(r.sendRtr()) + bit(r.writeRtr())
                                + bit(r.readRtr()) + ", this side " + bit(o.sendRtr()) + bit(o.writeRtr())
                                + bit(o.readRtr()) + (r.readRtr() && o.readRtr() ? " (Read needs ORD ≥ 1)" : "")
                                + " (MPA-50)");
            }
            rtr = Set.of(pick);
        }
        return new Outcome(reply.rev(), txMarkers, rxMarkers, crc, ird, ord, r.ird(), r.ord(), q.peerToPeer(), rtr,
                reply.privateData());
    }

    private static int bit(boolean b) {
        return b ? 1 : 0;
    }
}
