package rnic.model.rdmap;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import rnic.model.MemoryView;
import rnic.model.ddp.DdpHeader;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.ddp.DdpTaggedHeader;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.ddp.DdpUntaggedReceiver;
import rnic.model.ddp.StagTable;
import rnic.model.ddp.TerminateException;
import rnic.model.mpa.Mpa;
import rnic.model.rdmap.EndpointAction.Dropped;
import rnic.model.rdmap.EndpointAction.Failure;
import rnic.model.rdmap.EndpointAction.Outbound;
import rnic.model.rdmap.EndpointAction.Place;
import rnic.model.rdmap.EndpointAction.ReceiveCompletion;
import rnic.model.rdmap.EndpointAction.RequestCompletion;
import rnic.model.rdmap.EndpointAction.TerminateReceived;
import rnic.wire.Ddp;
import rnic.wire.DdpQueue;
import rnic.wire.Rdmap;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * Golden model of one RNIC's DDP/RDMAP engine (RFC 5040, RFC 5041, RFC 7306 over an in-order MPA/TCP stream per QP):
 * the scoreboard reference for the hardware. It is built from the single-purpose models — {@link StagTable},
 * {@link DdpUntaggedReceiver}, {@link DdpSegmenter}, {@link RdmapDecoder}, {@link AtomicAlu}, {@link Terminate} — and
 * keeps their check orders; what it adds is the state that ties them together and the decisions below, which the
 * hardware follows.
 *
 * <h2>Interface</h2>
 * <ul>
 * <li>Host side: {@link #register}/{@link #invalidate} STags (local, DDP-34); {@link #postReceive} (queue 0 buffers);
 * {@link #postSend} ({@link WorkRequest}s).</li>
 * <li>Wire side: {@link #receive}(qp, ULPDU) for every inbound DDP segment; {@link #transmit}(qp, source) for every
 * outbound one.</li>
 * <li>Every call returns the {@link EndpointAction}s it causes, in order: memory writes ({@link Place}, also applied to
 * the {@link MemoryView}), completions and events, outbound segments ({@link Outbound}), drops.</li>
 * </ul>
 *
 * <h2>Segment by segment, with the transmit order as an input</h2>
 * The model handles each inbound segment as it arrives, as the hardware must (it places a Write or Send segment
 * before the message has ended). It never sends on its own: {@code receive} and {@code postSend} only queue work, and
 * each {@link #transmit} generates exactly one segment. This is deliberate: what a responder has outstanding (the
 * IRD check, E-R12), when a Read Response reads its source (RDMAP-22 lets it see later Writes), when an Atomic executes
 * and where a Terminate cuts the outbound stream all depend on how far the transmitter has got. A testbench replays the
 * hardware's own order — each segment the RTL accepted into {@code receive}, each segment it sent into
 * {@code transmit(qp, }{@link #sourceOf}{@code (segment))} — and the model's memory writes, events and outbound octets
 * are then exact. {@link #transmitAll} sends everything that can go, for eager use.
 *
 * <h2>Decisions (the hardware follows these)</h2>
 * <ol>
 * <li><b>Inbound check order</b> (the first failure decides; docs/requirements.md §3, RDMAP-17 (4)): (a) a failed QP drops the
 * segment ({@link Dropped}, DDP-31); (b) the DDP header, {@link DdpSegment#parse}: too short for its header E-D0, DV
 * E-D7/E-D13; (c) {@link RdmapDecoder#check}: QN not an RDMAP queue E-D8, RV E-R8, opcode E-R9, opcode against T/QN
 * E-R10; (d) tagged: a Read Response with no Read outstanding E-R11, then {@link StagTable#checkPlacement} E-D1 … E-D6
 * (none for a zero-length segment, DDP-19); (e) untagged: {@link DdpUntaggedReceiver} E-D9 (E-R12 on QN 1), E-D10,
 * E-D11, E-D12; (f) at the message's L=1 segment, the message checks of decisions 4–8 and 13. The opcode (c) is
 * checked before the buffer and STag checks because it decides which resource — receive buffer, IRD slot, QN 3 slot,
 * STag — the segment addresses; every check still precedes placement, as RFC 5040 §7.2 requires.</li>
 * <li><b>A message's RsvdULP is its L=1 segment's</b> (opcode and Invalidate STag): the Send-family opcode its
 * completion names, whether it asks for a Solicited Event, and the STag it invalidates are the last segment's; every
 * segment passes check (c) on its own (DDP-13: the receiver need not verify that the RsvdULP is the same in every
 * segment and may use any segment's; the last one's is the one still at hand when the message is delivered). A
 * segment whose opcode has no ULP payload continuing a message of its queue is malformed, like a split one
 * (decision 4).</li>
 * <li><b>Untagged buffers</b> (docs/requirements.md §2.8.1): QN 0 holds the posted receive buffers; QN 1 holds IRD slots of 52
 * octets (the larger of a Read Request, 28, and an Atomic Request, 52), IRD of them free at start; QN 2 one 52-octet
 * slot (the largest Terminate: 4 + 2 + 18 + 28); QN 3 one 12-octet slot per Atomic Request this endpoint has started
 * sending (decision 11) and not yet seen answered. Hence: more requests outstanding than IRD is the receiver's
 * no-buffer check on QN 1, reported as {@link TerminateCause#IRD_EXCEEDED} 1/2/02 (E-R12, Appendix B item 4); an
 * Atomic Response with no Atomic outstanding is E-D9 1/2/02 (no QN 3 slot, E-R19's "1/2/02 if no QN 3
 * buffer"); a header-only message longer than its slot is E-D12, one that fits but has the wrong length is
 * E-R15/E-R20 (decision 4).</li>
 * <li><b>Header-only messages</b> (Read Request, Atomic Request/Response, Terminate, Immediate Data) arrive whole, in
 * one segment with L = 1; a segment of one with L = 0 fails the QP after the DDP checks of (e): E-R20 (Immediate
 * Data) or E-R15 (the others). The largest of them is 70 octets with its DDP header, and MPA never lets MULPDU fall
 * under 128 (MPA-21), so every peer can send each whole, and DDP is to fill segments up to MULPDU: one split over
 * segments is malformed (docs/requirements.md §3.3, E-R15). The segment is decoded by {@link RdmapDecoder#decode}
 * under its RsvdULP: wrong length E-R20 (Immediate Data, RDMAP-41) or E-R15 (the others, malformed Terminate),
 * AOpCode E-R17. Send-type payload is placed segment by segment at the buffer address + MO (DDP-18).</li>
 * <li><b>Immediate Data</b> is placed, its 8 octets as received, at the start of the receive buffer it consumes
 * (RFC 7306 §6.2: "transferred … to an untagged Buffer"; RDMAP-40), and its value (read big-endian) is in the
 * completion (§6.1). A buffer under 8 octets is E-D12, like any untagged message; nothing is placed on E-R20.</li>
 * <li><b>Send with (SE and) Invalidate</b>: {@link StagTable#invalidateRemote} at its L=1 segment, after that segment
 * is placed and before the completion, which names the invalidated STag (RDMAP-13, T-30); failure E-R6, 0/1/09 for an
 * STag of another PD/QP, 0/2/09 for an unknown one, M D R = 1 1 0 (T-46). Only opcodes 0x4 and 0x6 invalidate.</li>
 * <li><b>Read Request</b>: {@link StagTable#checkReadSource} when it is delivered (none for RDMARDSZ = 0, RDMAP-09),
 * E-R1 … E-R5 with the request as Terminated RDMA Header; the source is resolved to a host address then, and the
 * response is queued: a later local invalidation of the source STag does not stop a Read already accepted. The header
 * is never advanced (RDMAP-16): a Read can only fail here, before any response octet.</li>
 * <li><b>Atomic Request</b>: {@link StagTable#checkAtomic} when it is delivered (E-R18, then alignment of the host
 * address E-R16, T-26/T-27), R = 0 (RFC 7306 §8.1); the target is resolved then, as for a Read. It <i>executes when
 * its response is generated</i>: read 8 octets little-endian (T-26), {@link AtomicAlu}, write back ({@link Place})
 * only when the ALU says so, then the Atomic Response on QN 3 (its MSN counting Atomic Responses, T-23) with the
 * original value big-endian. So a second Atomic is not processed until the first's response is generated (RFC 7306
 * §7).</li>
 * <li><b>Responses in request order</b>: one FIFO per QP for Read and Atomic responses (RFC 7306 §7, docs/requirements.md
 * §2.8.4, RDMAP-11, RDMAP-35); a request holds its IRD slot from its delivery until the last segment of its response
 * is generated.</li>
 * <li><b>Read Response</b>: {@link TaggedMessage#readResponse} through the QP's {@link DdpSegmenter} at its MULPDU,
 * i.e. MULPDU − 14 payload octets per segment with the TO advancing (DDP-12), Sink STag/TO copied (RDMAP-08); a
 * zero-length Read still gets one L=1 segment (T-31).</li>
 * <li><b>Requester</b>: the send queue is processed in order, one message at a time; a Read or Atomic at its head while
 * ORD requests are outstanding blocks it — and everything posted behind it — until a response frees a slot (RDMAP-24).
 * The slot is taken when the request starts to be sent and freed when the Read's last Read Response segment is placed
 * or the Atomic Response is matched. MSNs per QN from 1 ({@link DdpSegmenter}, DDP-15).</li>
 * <li><b>Request Identifier</b> of an Atomic Request = its own QN 1 MSN: unique among outstanding requests, known to
 * the segmenter.</li>
 * <li><b>Responses at the requester</b>: a Read Response is checked as a placement (E-D1 … E-D6, on the requester's own
 * sink region, which must grant remote write) and against E-R11; its STag, TO and length are not compared with the
 * Read (RDMAP-11's MAY is not taken); the L=1 segment completes the oldest outstanding Read. An Atomic Response must
 * carry the Request Identifier of the oldest outstanding Atomic, else E-R19 0/2/06 (Appendix B item 5); the original
 * value is stored little-endian at the request's local address ({@link Place}). Read and Atomic responses are matched
 * in separate FIFOs: RFC 7306 §7 gives no order between the two at the requester.</li>
 * <li><b>Completions in submission order</b> (RDMAP-23, T-33): a Write, Send or Immediate Data completes when its last
 * segment is sent (the hardware: once that segment has left whole, every payload octet read from memory), but its {@link RequestCompletion} waits for every earlier request's.</li>
 * <li><b>Errors</b>: each is reported once, by {@link Failure} and one Terminate built by
 * {@link Terminate#inbound(TerminateCause, byte[], ReadRequest)} from the failing segment (the whole DDP segment's
 * length, Appendix B item 6), on QN 2 with MSN 1 (T-21). The QP fails at once: later inbound segments are dropped, and
 * the queued work — unsent requests, queued responses, the rest of a message being sent — is discarded; the Terminate
 * is the next segment the QP sends, cutting in at a segment boundary, and the last (RDMAP-14, RDMAP-17). Discarded work
 * gets no completion (flushing is the QP layer's). Other QPs are unaffected.</li>
 * <li><b>A received Terminate</b> ({@link TerminateReceived}) fails the QP the same way, and nothing more is sent, no
 * Terminate in reply (RDMAP-14: a peer MAY stop sending).</li>
 * <li><b>Transmission</b>: a QP sends one message at a time, never interleaving the segments of two (DDP-21); a
 * message comes from one of three {@link Source}s; {@link #transmit(int)} picks the Terminate, else the message in
 * progress, else a response, else a request. Each segment's payload is read from memory when that segment is
 * generated, as the hardware's DMA does.</li>
 * <li><b>Scope</b>: MULPDU ≥ 128 (MPA's floor, T-10), so every header-only message this endpoint sends is one
 * segment; RFC 7306 is always supported; RDMAC (RV 00b) is not (T-32). The only local fault source is a failing
 * payload read (decision 19), so E-R7, E-R13, E-R14 and E-R21 are never generated; messages above 2^31 − 1 octets
 * are refused ({@link UnsupportedOperationException}).</li>
 * <li><b>Local memory errors</b> ({@link #readFault}): a segment whose payload read meets a faulting range still goes
 * out whole, those octets zero (the hardware zeroes each memory burst that meets the range; a test keeps its ranges
 * aligned to the bursts). A request message (Write, Send) that read a fault in any of its segments completes, at its
 * last segment, with {@link RequestCompletion#error()} = {@link TerminateCause#RDMAP_LOCAL_CATASTROPHIC}; then the
 * QP fails as in decision 15 with {@link Failure} of that cause and the Terminate
 * {@link Terminate#outbound(TerminateCause) 0/0/00 without headers} (RFC 5040 §7.1 rule 1: no segment caused it;
 * E-R0). A Read Response segment that read a fault fails the QP right after it (the rest of the response is
 * discarded).</li>
 * <li><b>LLP errors</b> ({@link #llpError}): an MPA receive error of the QP's connection fails the QP like decision 15
 * with the Terminate of docs/requirements.md §3.1 (Layer LLP, no headers) and no {@link Failure} (the MPA layer reports it to
 * the host).</li>
 * </ol>
 */
public final class RdmapEndpoint {

    /**
     * The configuration of one QP (one DDP stream).
     *
     * @param pd     its Protection Domain
     * @param ird    inbound Read and Atomic Requests it accepts outstanding (RDMAP-24), 0 … 255
     * @param ord    outbound Read and Atomic Requests it keeps outstanding, 0 … 255
     * @param mulpdu the largest DDP segment it sends, header included (DDP-17): 128 … 64768 (MPA-21, T-10)
     */
    public record QpConfig(int pd, int ird, int ord, int mulpdu) {
        public QpConfig {
            if (ird < 0 || ird > 255 || ord < 0 || ord > 255) {
                throw new IllegalArgumentException("IRD and ORD must be 0 … 255, got " + ird + ", " + ord);
            }
            if (mulpdu < Mpa.MIN_MULPDU || mulpdu > Mpa.MAX_ULPDU) {
                throw new IllegalArgumentException("MULPDU must be " + Mpa.MIN_MULPDU + " … " + Mpa.MAX_ULPDU
                        + " (MPA-21, T-10), got " + mulpdu);
            }
        }
    }

    /** Where an outbound message comes from; a QP sends one message at a time, from one source. */
    public enum Source {
        /** The Terminate this endpoint generates after an inbound error (QN 2); cuts in before anything else. */
        TERMINATE,
        /** Responder output: Read Responses (tagged, opcode 0x2) and Atomic Responses (QN 3), in request order. */
        RESPONSE,
        /** Send queue output: Writes, Read Requests, the Send family, Immediate Data, Atomic Requests, in order. */
        REQUEST
    }

    /** The cause of a local memory error (decision 19): E-R0, Terminate 0/0/00 without headers. */
    public static final TerminateCause LOCAL_ERROR = TerminateCause.RDMAP_LOCAL_CATASTROPHIC;
    /** An IRD slot: the larger of a Read Request and an Atomic Request (decision 3). */
    static final int IRD_SLOT = Rdmap.ATOMIC_REQUEST_HEADER_SIZE;
    /** The QN 2 slot: the largest Terminate (decision 3). */
    static final int TERMINATE_SLOT = Rdmap.TERMINATE_CONTROL_SIZE + Rdmap.TERMINATE_SEGMENT_LENGTH_SIZE
            + Ddp.UNTAGGED_HEADER_SIZE + Rdmap.READ_REQUEST_HEADER_SIZE;
    /** A QN 3 slot: one Atomic Response (decision 3). */
    static final int ATOMIC_RESPONSE_SLOT = Rdmap.ATOMIC_RESPONSE_HEADER_SIZE;
    /** Offset of QN in an untagged DDP header (docs/requirements.md §2.5.3). */
    private static final int QN_OFFSET = 6;
    /** Octets of a header-only message kept (decision 4): the largest RDMAP header. */
    static final int CAPTURE = Rdmap.ATOMIC_REQUEST_HEADER_SIZE;

    private final MemoryView memory;
    private final StagTable stags = new StagTable();
    private final RdmapDecoder decoder = new RdmapDecoder(true);
    private final List<Qp> qps = new ArrayList<>();
    /** Host address ranges [from, to) whose reads fail (decision 19). */
    private final List<long[]> readFaults = new ArrayList<>();

    /**
     * An endpoint with one QP per entry of {@code qps} (QP numbers 0 … n−1), reading and writing {@code memory}.
     */
    public RdmapEndpoint(MemoryView memory, List<QpConfig> qps) {
        if (qps.isEmpty()) {
            throw new IllegalArgumentException("an endpoint has at least one QP");
        }
        this.memory = memory;
        for (QpConfig c : qps) {
            this.qps.add(new Qp(this.qps.size(), c));
        }
    }

    // ---------------------------------------------------------------------------------------------- host side

    /** Makes a region's STag valid (local registration). */
    public void register(StagTable.Region region) {
        stags.register(region);
    }

    /** Local invalidation or deregistration of {@code stag} (DDP-34); returns whether it was valid. */
    public boolean invalidate(int stag) {
        return stags.invalidate(stag);
    }

    /**
     * Reads of host memory in {@code [from, to)} fail from now on (the memory answers SLVERR): decision 19. For the
     * hardware to match, the range must cover whole read bursts of its segment builder.
     */
    public void readFault(long from, long to) {
        if (Long.compareUnsigned(from, to) >= 0) {
            throw new IllegalArgumentException("empty fault range");
        }
        readFaults.add(new long[] {from, to});
    }

    /** Whether {@code stag} is currently valid (e.g. after a Send with Invalidate, RDMAP-13). */
    public boolean isValid(int stag) {
        return stags.isValid(stag);
    }

    /**
     * Posts a receive buffer of {@code capacity} octets at {@code address} to QP {@code qp}'s queue 0; buffers are
     * consumed oldest first, one per Send-type or Immediate Data message (RDMAP-12, RDMAP-40). Returns false, posting
     * nothing, once the QP has failed.
     */
    public boolean postReceive(int qp, long address, long capacity, long wrId) {
        Qp q = qp(qp);
        if (q.failed) {
            return false;
        }
        q.rx.post(DdpQueue.SEND.qn(), capacity);
        q.receives.add(new RecvBuffer(address, capacity, wrId));
        return true;
    }

    /**
     * Queues a work request on QP {@code qp}'s send queue; {@link #transmit} sends it. Returns false, queueing nothing,
     * once the QP has failed (the QP layer completes it in error, RDMAP-14).
     */
    public boolean postSend(int qp, WorkRequest wr) {
        Qp q = qp(qp);
        if (q.failed) {
            return false;
        }
        SqEntry e = new SqEntry(wr);
        q.sendQueue.add(e);
        q.completions.add(e);
        return true;
    }

    /**
     * The MPA receiver of QP {@code qp}'s connection failed after Full Operation with {@code code} (CRC, Marker,
     * framing: E-M2, E-M3; decision 20): the QP fails as in decision 15 — inbound dropped, queued work discarded — and
     * its next and last segment is the Terminate {@link Terminate#llp(rnic.wire.MpaErrorCode) Layer LLP, EType 0,
     * that Error Code, no headers} (docs/requirements.md §3.1; MPA-45 keeps the transmit half). No event: the MPA layer
     * reports the error. Nothing happens to a QP that has failed already (one Terminate per QP).
     */
    public void llpError(int qp, rnic.wire.MpaErrorCode code) {
        Qp q = qp(qp);
        if (q.failed) {
            return;
        }
        stop(q);
        q.terminate = new Sending(Source.TERMINATE, Terminate.llp(code).segments(q.ddp, q.config.mulpdu()), null, 0,
                o -> {
                });
    }

    /** Whether QP {@code qp} has failed: it found an error or received a Terminate. */
    public boolean failed(int qp) {
        return qp(qp).failed;
    }

    // ---------------------------------------------------------------------------------------------- receive

    /**
     * Handles one inbound DDP segment of QP {@code qp} (decisions 1–8, 13, 15, 16).
     *
     * @param ulpdu the segment as MPA delivered it (its ULPDU), at most {@link Mpa#MAX_ULPDU} octets
     * @return the memory writes and events it causes, in order; {@link Dropped} alone once the QP has failed
     */
    public List<EndpointAction> receive(int qp, byte[] ulpdu) {
        Qp q = qp(qp);
        if (ulpdu.length > Mpa.MAX_ULPDU) {
            throw new IllegalArgumentException("MPA delivers at most " + Mpa.MAX_ULPDU + " octets, not "
                    + ulpdu.length);
        }
        List<EndpointAction> out = new ArrayList<>();
        if (q.failed) {
            out.add(new Dropped(qp, ulpdu.length));
            return out;
        }
        try {
            accept(q, ulpdu, out);
        } catch (TerminateException e) {
            fail(q, e.cause(), ulpdu, null, out);
        } catch (ReadRejected e) {
            fail(q, e.cause, ulpdu, e.request, out);
        }
        return out;
    }

    /** A Read Request whose source fails its checks (E-R1 … E-R5): the Terminate carries the request. */
    private static final class ReadRejected extends Exception {
        private static final long serialVersionUID = 1L;
        final transient TerminateCause cause;
        final transient ReadRequest request;

        ReadRejected(TerminateCause cause, ReadRequest request) {
            super(cause + ": " + request, null, false, false);
            this.cause = cause;
            this.request = request;
        }
    }

    private void accept(Qp q, byte[] ulpdu, List<EndpointAction> out) throws TerminateException, ReadRejected {
        DdpSegment segment = DdpSegment.parse(ulpdu);
        DdpHeader h = segment.header();
        RdmapOpcode opcode = decoder.check(h);
        byte[] payload = segment.payload();
        if (h instanceof DdpTaggedHeader t) {
            tagged(q, opcode, t, payload, out);
        } else {
            untagged(q, opcode, (DdpUntaggedHeader) h, payload, ulpdu, out);
        }
    }

    /** Decision 1 (d): RDMA Write and Read Response. */
    private void tagged(Qp q, RdmapOpcode opcode, DdpTaggedHeader t, byte[] payload, List<EndpointAction> out)
            throws TerminateException {
        boolean response = opcode == RdmapOpcode.RDMA_READ_RESPONSE;
        if (response && q.reads.isEmpty()) {
            throw new TerminateException(TerminateCause.UNEXPECTED_READ_RESPONSE, "no RDMA Read outstanding");
        }
        Optional<TerminateCause> fault = stags.checkPlacement(q.stream, t.stag(), t.to(), payload.length);
        if (fault.isPresent()) {
            throw new TerminateException(fault.get(), String.format("%s at %08x/%016x +%d", opcode, t.stag(),
                    t.to(), payload.length));
        }
        if (payload.length > 0) {
            place(stags.region(t.stag()).orElseThrow().address(t.to()), payload, out);
        }
        if (response && t.last()) {
            q.reads.remove().done = true;
            complete(q, out);
        }
    }

    /** Decision 1 (e), 2, 4: untagged segments; the message is handled at its L=1 segment. */
    private void untagged(Qp q, RdmapOpcode opcode, DdpUntaggedHeader u, byte[] payload, byte[] ulpdu,
            List<EndpointAction> out) throws TerminateException, ReadRejected {
        Optional<DdpUntaggedReceiver.Delivery> delivered;
        try {
            delivered = q.rx.receive(u, payload.length);
        } catch (TerminateException e) {
            if (e.cause() == TerminateCause.DDP_NO_BUFFER && u.qn() == DdpQueue.READ_REQUEST.qn()) {
                throw new TerminateException(TerminateCause.IRD_EXCEEDED, "all " + q.config.ird()
                        + " IRD slots are held");
            }
            throw e;
        }
        int qn = (int) u.qn();
        Inbound m = q.inbound[qn];
        if (!opcode.ulpPayload() && (!u.last() || m != null)) {
            throw new TerminateException(opcode == RdmapOpcode.IMMEDIATE_DATA
                    || opcode == RdmapOpcode.IMMEDIATE_DATA_WITH_SE ? TerminateCause.IMMEDIATE_DATA_LENGTH
                    : TerminateCause.UNSPECIFIED_REMOTE_OPERATION, opcode + (u.last()
                            ? " continuing a message of its queue" : " split over segments (L = 0)"));
        }
        if (m == null) {
            m = new Inbound(opcode, u.rsvdUlp());
            q.inbound[qn] = m;
        }
        if (m.opcode.ulpPayload()) {
            if (payload.length > 0) {
                place(q.receives.element().address() + u.mo(), payload, out);
            }
        } else {
            m.capture(payload);
        }
        if (delivered.isPresent()) {
            q.inbound[qn] = null;
            deliver(q, m.opcode.ulpPayload() ? new Inbound(opcode, u.rsvdUlp()) : m, delivered.get(), out);
        }
    }

    /** Decisions 4–8, 13: a whole untagged message, at its L=1 segment. */
    private void deliver(Qp q, Inbound m, DdpUntaggedReceiver.Delivery d, List<EndpointAction> out)
            throws TerminateException, ReadRejected {
        if (m.opcode.ulpPayload()) {
            RecvBuffer b = q.receives.remove();
            OptionalInt invalidated = OptionalInt.empty();
            if (m.opcode.invalidates()) {
                int stag = (int) m.rsvdUlp;
                Optional<TerminateCause> fault = stags.invalidateRemote(q.stream, stag);
                if (fault.isPresent()) {
                    throw new TerminateException(fault.get(), String.format("cannot invalidate %08x", stag));
                }
                invalidated = OptionalInt.of(stag);
            }
            out.add(new ReceiveCompletion(q.index, b.wrId(), m.opcode, d.length(), m.opcode.solicitedEvent(),
                    OptionalLong.empty(), invalidated));
            return;
        }
        RdmapMessage message = decoder.decode(List.of(new DdpSegment(
                new DdpUntaggedHeader(true, m.rsvdUlp, d.qn(), d.msn(), 0), m.captured.toByteArray())));
        if (message instanceof ImmediateData imm) {
            RecvBuffer b = q.receives.remove();
            place(b.address(), imm.ddpPayload(), out);
            out.add(new ReceiveCompletion(q.index, b.wrId(), imm.opcode(), d.length(), imm.opcode().solicitedEvent(),
                    OptionalLong.of(imm.data()), OptionalInt.empty()));
        } else if (message instanceof ReadRequest r) {
            long address = 0;
            if (r.readSize() > 0) {
                Optional<TerminateCause> fault = stags.checkReadSource(q.stream, r.sourceStag(), r.sourceTo(),
                        r.readSize());
                if (fault.isPresent()) {
                    throw new ReadRejected(fault.get(), r);
                }
                address = stags.region(r.sourceStag()).orElseThrow().address(r.sourceTo());
            }
            q.responses.add(new ReadWork(r, address));
        } else if (message instanceof AtomicRequest a) {
            Optional<TerminateCause> fault = stags.checkAtomic(q.stream, a.remoteStag(), a.remoteTo());
            if (fault.isPresent()) {
                throw new TerminateException(fault.get(), a.toString());
            }
            q.responses.add(new AtomicWork(a, stags.region(a.remoteStag()).orElseThrow().address(a.remoteTo())));
        } else if (message instanceof AtomicResponse r) {
            SqEntry e = q.atomics.element(); // a QN 3 slot exists only while an Atomic is outstanding
            if (e.requestId != r.originalRequestId()) {
                throw new TerminateException(TerminateCause.UNEXPECTED_ATOMIC_RESPONSE, String.format(
                        "Original Request Identifier %08x, expected %08x", r.originalRequestId(), e.requestId));
            }
            q.atomics.remove();
            place(((WorkRequest.Atomic) e.wr).localAddress(), littleEndian(r.originalValue()), out);
            e.done = true;
            complete(q, out);
        } else if (message instanceof Terminate t) {
            out.add(new TerminateReceived(q.index, t));
            stop(q);
        } else {
            throw new IllegalStateException("the decoder's checks let " + message + " through");
        }
    }

    /** Decision 15: the first error fails the QP and queues its one Terminate. */
    private void fail(Qp q, TerminateCause cause, byte[] ulpdu, ReadRequest request, List<EndpointAction> out) {
        Terminate t = Terminate.inbound(cause, ulpdu, request);
        stop(q);
        q.terminate = new Sending(Source.TERMINATE, t.segments(q.ddp, q.config.mulpdu()), null, 0, o -> {
        });
        out.add(new Failure(q.index, cause));
    }

    /** Decision 19: a local memory error fails the QP; its Terminate carries no headers. */
    private static void failLocal(Qp q, List<EndpointAction> out) {
        stop(q);
        q.terminate = new Sending(Source.TERMINATE, Terminate.outbound(LOCAL_ERROR).segments(q.ddp,
                q.config.mulpdu()), null, 0, o -> {
                });
        out.add(new Failure(q.index, LOCAL_ERROR));
    }

    /** Zeroes the octets of {@code data} (read from {@code from}) that lie in a fault range; whether any did. */
    private boolean zeroFaults(long from, byte[] data) {
        boolean hit = false;
        for (long[] f : readFaults) {
            for (int i = 0; i < data.length; i++) {
                long a = from + i;
                if (Long.compareUnsigned(a, f[0]) >= 0 && Long.compareUnsigned(a, f[1]) < 0) {
                    data[i] = 0;
                    hit = true;
                }
            }
        }
        return hit;
    }

    /** Fails the QP: inbound dropped from now on, queued outbound work discarded (decisions 15, 16). */
    private static void stop(Qp q) {
        q.failed = true;
        q.sendQueue.clear();
        q.responses.clear();
        q.sending = null;
    }

    // ---------------------------------------------------------------------------------------------- transmit

    /**
     * Whether {@link #transmit(int, Source)} can send a segment from {@code source} now: after a failure only the
     * pending Terminate; else the source of the message in progress, if any; else a queued response, or the head of the
     * send queue unless it is a Read or Atomic with ORD requests outstanding (decisions 11, 15–17).
     */
    public boolean canTransmit(int qp, Source source) {
        Qp q = qp(qp);
        if (q.terminate != null) {
            return source == Source.TERMINATE;
        }
        if (q.failed || source == Source.TERMINATE) {
            return false;
        }
        if (q.sending != null) {
            return q.sending.source == source;
        }
        if (source == Source.RESPONSE) {
            return !q.responses.isEmpty();
        }
        SqEntry head = q.sendQueue.peek();
        return head != null && !(head.wr.usesOrd() && q.reads.size() + q.atomics.size() >= q.config.ord());
    }

    /**
     * Sends the next segment of QP {@code qp} from {@code source}: one {@link Outbound}, preceded by an Atomic's
     * write-back when it is an Atomic Response (decision 8) and followed by the completions its last segment releases.
     *
     * @throws IllegalStateException when {@link #canTransmit} is false: the hardware sent something the model would
     *                               not
     */
    public List<EndpointAction> transmit(int qp, Source source) {
        Qp q = qp(qp);
        if (!canTransmit(qp, source)) {
            throw new IllegalStateException("QP " + qp + " has nothing to send from " + source + ": " + q.describe());
        }
        List<EndpointAction> out = new ArrayList<>();
        Sending s = switch (source) {
            case TERMINATE -> q.terminate;
            case RESPONSE -> q.sending != null ? q.sending : startResponse(q, out);
            case REQUEST -> q.sending != null ? q.sending : startRequest(q);
        };
        DdpSegment segment = s.segments.remove();
        if (s.payloadAddress != null && segment.payload().length > 0) {
            DdpHeader h = segment.header();
            long offset = h instanceof DdpTaggedHeader t ? t.to() - s.firstOffset : ((DdpUntaggedHeader) h).mo();
            long from = s.payloadAddress + offset;
            byte[] data = memory.read(from, segment.payload().length);
            s.readError |= zeroFaults(from, data);
            segment = new DdpSegment(h, data);
        }
        out.add(new Outbound(qp, segment.encode()));
        boolean finished = s.segments.isEmpty();
        if (source == Source.TERMINATE) {
            if (finished) {
                q.terminate = null;
            }
        } else {
            q.sending = finished ? null : s;
            if (finished) {
                if (s.readError && s.entry != null) {
                    s.entry.error = LOCAL_ERROR;
                }
                s.onLast.finish(out);
            }
            if (s.readError && (finished || source == Source.RESPONSE)) {
                failLocal(q, out);
            }
        }
        return out;
    }

    /**
     * Sends the next segment of QP {@code qp} from the first source that can send, in the order Terminate, message in
     * progress, response, request (decision 17); nothing when none can.
     */
    public List<EndpointAction> transmit(int qp) {
        for (Source s : Source.values()) {
            if (canTransmit(qp, s)) {
                return transmit(qp, s);
            }
        }
        return new ArrayList<>();
    }

    /** Sends segments of QP {@code qp} with {@link #transmit(int)} until nothing more can go. */
    public List<EndpointAction> transmitAll(int qp) {
        List<EndpointAction> out = new ArrayList<>();
        for (List<EndpointAction> step = transmit(qp); !step.isEmpty(); step = transmit(qp)) {
            out.addAll(step);
        }
        return out;
    }

    /**
     * The source an outbound segment comes from, for replaying the hardware's transmit order: QN 2 is
     * {@link Source#TERMINATE}; a tagged Read Response and QN 3 are {@link Source#RESPONSE}; everything else is
     * {@link Source#REQUEST}.
     */
    public static Source sourceOf(byte[] ulpdu) {
        if (ulpdu.length < Ddp.TAGGED_HEADER_SIZE) {
            throw new IllegalArgumentException(ulpdu.length + " octets hold no DDP header");
        }
        if ((ulpdu[0] & Ddp.T_FLAG) != 0) {
            return (ulpdu[1] & Rdmap.OPCODE_MASK) == RdmapOpcode.RDMA_READ_RESPONSE.code() ? Source.RESPONSE
                    : Source.REQUEST;
        }
        if (ulpdu.length < Ddp.UNTAGGED_HEADER_SIZE) {
            throw new IllegalArgumentException(ulpdu.length + " octets hold no untagged DDP header");
        }
        long qn = ByteBuffer.wrap(ulpdu, QN_OFFSET, Integer.BYTES).getInt() & Ddp.U32_MASK;
        if (qn == DdpQueue.TERMINATE.qn()) {
            return Source.TERMINATE;
        }
        return qn == DdpQueue.ATOMIC_RESPONSE.qn() ? Source.RESPONSE : Source.REQUEST;
    }

    /** Decision 8–10: the next queued response, started. */
    private Sending startResponse(Qp q, List<EndpointAction> out) {
        Response r = q.responses.remove();
        Finish releaseSlot = o -> q.rx.post(DdpQueue.READ_REQUEST.qn(), IRD_SLOT);
        if (r instanceof ReadWork w) {
            TaggedMessage m = TaggedMessage.readResponse(w.request, new byte[octets(w.request.readSize())]);
            return new Sending(Source.RESPONSE, m.segments(q.ddp, q.config.mulpdu()), w.address, w.request.sinkTo(),
                    releaseSlot);
        }
        AtomicWork w = (AtomicWork) r;
        AtomicRequest a = w.request;
        long original = memory.readLong(w.address);
        AtomicAlu.Result result = new AtomicOp(a.aOpCode(), original, a.addOrSwapData(), a.addOrSwapMask(),
                a.compareData(), a.compareMask()).apply();
        if (result.write()) {
            place(w.address, littleEndian(result.newValue()), out);
        }
        AtomicResponse response = new AtomicResponse(a.requestId(), original);
        return new Sending(Source.RESPONSE, response.segments(q.ddp, q.config.mulpdu()), null, 0, releaseSlot);
    }

    /** Decisions 11, 12, 14: the head of the send queue, started. */
    private Sending startRequest(Qp q) {
        SqEntry e = q.sendQueue.remove();
        WorkRequest wr = e.wr;
        RdmapMessage message;
        Long source = null;
        long firstOffset = 0;
        if (wr instanceof WorkRequest.Write w) {
            message = TaggedMessage.write(w.remoteStag(), w.remoteTo(), new byte[w.length()]);
            source = w.localAddress();
            firstOffset = w.remoteTo();
        } else if (wr instanceof WorkRequest.Read r) {
            message = new ReadRequest(r.sinkStag(), r.sinkTo(), r.size(), r.sourceStag(), r.sourceTo());
            q.reads.add(e);
        } else if (wr instanceof WorkRequest.Send s) {
            message = new SendMessage(s.opcode(), s.invalidateStag(), new byte[s.length()]);
            source = s.localAddress();
        } else if (wr instanceof WorkRequest.Immediate i) {
            message = new ImmediateData(i.opcode(), i.data());
        } else {
            WorkRequest.Atomic a = (WorkRequest.Atomic) wr;
            e.requestId = (int) q.ddp.nextMsn(DdpQueue.READ_REQUEST.qn());
            message = a.request(e.requestId);
            q.atomics.add(e);
            q.rx.post(DdpQueue.ATOMIC_RESPONSE.qn(), ATOMIC_RESPONSE_SLOT);
        }
        Finish finish = wr.usesOrd() ? o -> {
        } : o -> {
            e.done = true;
            complete(q, o);
        };
        Sending sending = new Sending(Source.REQUEST, message.segments(q.ddp, q.config.mulpdu()), source,
                firstOffset, finish);
        sending.entry = e;
        return sending;
    }

    /** Decision 14: reports the completions at the head of the send queue whose requests are done. */
    private static void complete(Qp q, List<EndpointAction> out) {
        while (!q.completions.isEmpty() && q.completions.element().done) {
            SqEntry e = q.completions.remove();
            WorkRequest wr = e.wr;
            out.add(new RequestCompletion(q.index, wr.wrId(), wr.opcode(), wr.completionLength(), e.error));
        }
    }

    // ---------------------------------------------------------------------------------------------- helpers

    private void place(long address, byte[] data, List<EndpointAction> out) {
        memory.write(address, data);
        out.add(new Place(address, data));
    }

    private static byte[] littleEndian(long value) {
        byte[] b = new byte[Long.BYTES];
        for (int i = 0; i < Long.BYTES; i++) {
            b[i] = (byte) (value >>> 8 * i);
        }
        return b;
    }

    private static int octets(long size) {
        if (size > Integer.MAX_VALUE - 16) {
            throw new UnsupportedOperationException("the model handles messages below 2^31 octets, not " + size);
        }
        return (int) size;
    }

    private Qp qp(int qp) {
        if (qp < 0 || qp >= qps.size()) {
            throw new IllegalArgumentException("QP " + qp + " does not exist (0 … " + (qps.size() - 1) + ")");
        }
        return qps.get(qp);
    }

    /** What finishing a message does: completions, or freeing an IRD slot. */
    private interface Finish {
        void finish(List<EndpointAction> out);
    }

    /** A message being sent: its remaining segments and where their payload comes from. */
    private static final class Sending {
        final Source source;
        final ArrayDeque<DdpSegment> segments;
        /** Host address of payload offset 0, or null when the segments carry their own octets. */
        final Long payloadAddress;
        /** TO of payload offset 0 for a tagged message (0 for untagged, whose MO is the offset). */
        final long firstOffset;
        final Finish onLast;
        /** The request being sent, or null for a response or Terminate. */
        SqEntry entry;
        /** A payload read of this message met a fault range (decision 19). */
        boolean readError;

        Sending(Source source, List<DdpSegment> segments, Long payloadAddress, long firstOffset, Finish onLast) {
            this.source = source;
            this.segments = new ArrayDeque<>(segments);
            this.payloadAddress = payloadAddress;
            this.firstOffset = firstOffset;
            this.onLast = onLast;
        }
    }

    /** A posted receive buffer (queue 0). */
    private record RecvBuffer(long address, long capacity, long wrId) {
    }

    /** A queued response (decision 9). */
    private sealed interface Response permits ReadWork, AtomicWork {
    }

    /** A Read Response to generate from {@code address}. */
    private record ReadWork(ReadRequest request, long address) implements Response {
    }

    /** An Atomic to execute at {@code address} when its response is generated. */
    private record AtomicWork(AtomicRequest request, long address) implements Response {
    }

    /** A posted work request, from posting until its completion is reported. */
    private static final class SqEntry {
        final WorkRequest wr;
        boolean done;
        int requestId;
        /** The local error it completes with, or null (decision 19). */
        TerminateCause error;

        SqEntry(WorkRequest wr) {
            this.wr = wr;
        }
    }

    /** The untagged message being received on one QN: the latched RsvdULP (decision 2) and captured octets. */
    private static final class Inbound {
        final RdmapOpcode opcode;
        final long rsvdUlp;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();

        Inbound(RdmapOpcode opcode, long rsvdUlp) {
            this.opcode = opcode;
            this.rsvdUlp = rsvdUlp;
        }

        void capture(byte[] payload) {
            captured.write(payload, 0, Math.min(payload.length, CAPTURE - captured.size()));
        }
    }

    /** One QP: its DDP stream state on both sides. */
    private static final class Qp {
        final int index;
        final QpConfig config;
        final StagTable.Stream stream;
        final DdpSegmenter ddp = new DdpSegmenter();
        final DdpUntaggedReceiver rx = new DdpUntaggedReceiver();
        final ArrayDeque<RecvBuffer> receives = new ArrayDeque<>();
        final Inbound[] inbound = new Inbound[DdpQueue.values().length];
        final ArrayDeque<SqEntry> sendQueue = new ArrayDeque<>();
        final ArrayDeque<SqEntry> completions = new ArrayDeque<>();
        final ArrayDeque<SqEntry> reads = new ArrayDeque<>();
        final ArrayDeque<SqEntry> atomics = new ArrayDeque<>();
        final ArrayDeque<Response> responses = new ArrayDeque<>();
        Sending sending;
        Sending terminate;
        boolean failed;

        Qp(int index, QpConfig config) {
            this.index = index;
            this.config = config;
            this.stream = new StagTable.Stream(config.pd(), index);
            for (DdpQueue qn : DdpQueue.values()) {
                rx.open(qn.qn());
            }
            for (int i = 0; i < config.ird(); i++) {
                rx.post(DdpQueue.READ_REQUEST.qn(), IRD_SLOT);
            }
            rx.post(DdpQueue.TERMINATE.qn(), TERMINATE_SLOT);
        }

        String describe() {
            return String.format("failed=%s terminate pending=%s sending=%s responses=%d send queue=%d"
                    + " outstanding reads=%d atomics=%d (ORD %d)", failed, terminate != null,
                    sending == null ? "-" : sending.source, responses.size(), sendQueue.size(), reads.size(),
                    atomics.size(), config.ord());
        }
    }
}
