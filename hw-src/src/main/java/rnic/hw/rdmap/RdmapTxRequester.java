package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.ddp.DdpSegmentBuilder;
import rnic.wire.Ddp;
import rnic.wire.DdpQueue;
import rnic.wire.Rdmap;
import rnic.wire.RdmapOpcode;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Stream;

/**
 * The requester half of the RDMAP transmit side: turns host work requests into DDP segments, one segment per cycle
 * (RFC 5040 §4–§5, RFC 7306 §5–§6, RFC 5041 §5; docs/requirements.md §2.5–§2.8, DDP-05, DDP-14…DDP-17, RDMAP-02…RDMAP-07,
 * RDMAP-12, RDMAP-30, RDMAP-40).
 *
 * <p>RDMA Write becomes tagged segments to the remote STag with the TO advancing; the Send family becomes untagged
 * segments on queue 0 with the MO advancing and the Invalidate STag in RsvdULP for the two invalidating opcodes; each
 * segment carries at most the QP's MULPDU octets of ULPDU (header included), and a zero-length message is one L=1
 * segment. RDMA Read Request (28-octet header), Atomic Request (52) and Immediate Data (8) are one header-only
 * segment each. MSNs count per QP and queue from 1 (queue 0: Sends and Immediate Data; queue 1: Read and Atomic
 * Requests). Read and Atomic Requests wait while the QP has ORD of them outstanding (RDMAP: ORD is never exceeded)
 * and are then announced to the receive side ({@code outstanding}), which matches their responses. An Atomic
 * Request's Request Identifier is its own queue-1 MSN: unique among the outstanding requests, and what the model uses.
 * Every request is announced on {@code completions} (submitted) when its last segment has been handed on; a Write,
 * Send or Immediate Data is complete only when the transmit output has sent that segment whole, its payload read
 * from memory (the segment's tag bits {@link #TAG_REQUEST}, {@link #TAG_LAST}, {@link #TAG_COMPLETES} say so;
 * RDMAP-23), and {@link RdmapCompletionOrder} reports it in submission order.
 *
 * <p>A request waiting for ORD holds the requests behind it, of every QP (one queue in order; a per-QP send queue
 * is the driver's ring, not this block's).
 */
public final class RdmapTxRequester extends HwComponent {
    /** Segment tag bit: the segment is the requester's (the responder's tags are 0). */
    public static final int TAG_REQUEST = 0;
    /** Segment tag bit: the last segment of its message. */
    public static final int TAG_LAST = 1;
    /** Segment tag bit: the message completes when sent (a Write, Send or Immediate Data, not a Read or Atomic). */
    public static final int TAG_COMPLETES = 2;

    /** A work request from the host (the send queue's WQE as the hardware sees it). */
    public static final class WorkRequest extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        /** The RDMAP opcode: Write, Read Request, the Send family, Immediate Data (with SE), Atomic Request. */
        public final UInt opcode;
        public final Bits wrId;
        /** Write/Send: the source buffer; Atomic: where the original value goes. */
        public final UInt localAddress;
        public final UInt length;
        /** Read: the local Data Sink STag and TO (a region of this side registered for remote write). */
        public final Bits localStag;
        public final UInt localTo;
        /** Write: Data Sink; Read: Data Source; Atomic: target. */
        public final Bits remoteStag;
        public final UInt remoteTo;
        public final Bits invalidateStag;
        /** Immediate Data; Atomic: Add or Swap Data. */
        public final Bits data;
        public final Bits mask;
        public final Bits compareData;
        public final Bits compareMask;
        public final UInt aop;

        public WorkRequest(DdpConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            opcode = field("opcode", uint(4));
            wrId = field("wrId", bits(32));
            localAddress = field("localAddress", uint(64));
            length = field("length", uint(32));
            localStag = field("localStag", bits(32));
            localTo = field("localTo", uint(64));
            remoteStag = field("remoteStag", bits(32));
            remoteTo = field("remoteTo", uint(64));
            invalidateStag = field("invalidateStag", bits(32));
            data = field("data", bits(64));
            mask = field("mask", bits(64));
            compareData = field("compareData", bits(64));
            compareMask = field("compareMask", bits(64));
            aop = field("aop", uint(4));
        }
    }

    /** Opens a QP for sending (MSNs back to 1, nothing outstanding) with its MULPDU and ORD. */
    public static final class TxSetup extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        public final UInt mulpdu;
        public final UInt ord;

        public TxSetup(DdpConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            mulpdu = field("mulpdu", uint(16));
            ord = field("ord", uint(8));
        }
    }

    /** A request whose last segment was handed on (complete then, or when its response arrives). */
    public static final class Completion extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        public final Bits wrId;
        public final UInt opcode;
        /** The length the completion reports: payload octets, RDMARDSZ for a Read, 8 for Immediate Data and Atomics. */
        public final UInt length;
        /** {@link RdmapCompletionOrder#SENT}, {@code READ} or {@code ATOMIC}: when the request is complete. */
        public final UInt kind;

        public Completion(DdpConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            wrId = field("wrId", bits(32));
            opcode = field("opcode", uint(4));
            length = field("length", uint(32));
            kind = field("kind", uint(2));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final Stream<WorkRequest> requests;
        public final Stream<DdpSegmentBuilder.Command> segments;
        public final Stream<RdmapRxControl.Outstanding> outstanding;
        public final Stream<Completion> completions;
        public final Stream<TxSetup> setup;
        /** One pulse per Read or Atomic completed at this side (its response arrived): frees an ORD slot. */
        public final Stream<UInt> ordRelease;

        public Io(DdpConfig c) {
            requests = field("requests", Streams.slaveStream(() -> new WorkRequest(c)));
            segments = field("segments", Streams.masterStream(
                    () -> new DdpSegmentBuilder.Command(DdpSegmentBuilder.DEFAULT_TAG_WIDTH, c.qpBits())));
            outstanding = field("outstanding", Streams.masterStream(() -> new RdmapRxControl.Outstanding(c)));
            completions = field("completions", Streams.masterStream(() -> new Completion(c)));
            setup = field("setup", Streams.slaveStream(() -> new TxSetup(c)));
            ordRelease = field("ordRelease", Streams.slaveStream(() -> uint(c.qpBits())));
        }
    }

    public final DdpConfig config;
    public final Io io;

    public RdmapTxRequester(DdpConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        int qps = c.qpCount();
        int qb = c.qpBits();

        List<UInt> mulpdu = new ArrayList<>();
        List<UInt> ord = new ArrayList<>();
        List<UInt> ordInUse = new ArrayList<>();
        List<UInt> msn0 = new ArrayList<>();
        List<UInt> msn1 = new ArrayList<>();
        for (int q = 0; q < qps; q++) {
            mulpdu.add(regInit("mulpdu_" + q, uint(16), U(128, 16)));
            ord.add(regInit("ord_" + q, uint(8), U(0, 8)));
            ordInUse.add(regInit("ordInUse_" + q, uint(8), U(0, 8)));
            msn0.add(regInit("msn0_" + q, uint(32), U(1, 32)));
            msn1.add(regInit("msn1_" + q, uint(32), U(1, 32)));
        }
        UInt offset = regInit("offset", uint(32), U(0, 32));

        WorkRequest wr = io.requests.payload();
        UInt q = wr.qp;
        java.util.function.Function<RdmapOpcode, Bool> is = op -> eq(wr.opcode, U(op.code(), 4));
        Bool write = wire("write", is.apply(RdmapOpcode.RDMA_WRITE));
        Bool read = wire("read", is.apply(RdmapOpcode.RDMA_READ_REQUEST));
        Bool atomic = wire("atomic", is.apply(RdmapOpcode.ATOMIC_REQUEST));
        Bool immediate = wire("immediate", or(is.apply(RdmapOpcode.IMMEDIATE_DATA),
                is.apply(RdmapOpcode.IMMEDIATE_DATA_WITH_SE)));
        Bool invalidating = wire("invalidating", or(is.apply(RdmapOpcode.SEND_WITH_INVALIDATE),
                is.apply(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE)));
        Bool withPayload = wire("withPayload", not(or(read, atomic, immediate)));
        Bool needsOrd = wire("needsOrd", or(read, atomic));

        UInt hdrLen = wire("hdrLen", U(Ddp.UNTAGGED_HEADER_SIZE, 16));
        when(write, () -> set(hdrLen, U(Ddp.TAGGED_HEADER_SIZE, 16)));
        when(read, () -> set(hdrLen, U(Ddp.UNTAGGED_HEADER_SIZE + Rdmap.READ_REQUEST_HEADER_SIZE, 16)));
        when(atomic, () -> set(hdrLen, U(Ddp.UNTAGGED_HEADER_SIZE + Rdmap.ATOMIC_REQUEST_HEADER_SIZE, 16)));
        when(immediate, () -> set(hdrLen, U(Ddp.UNTAGGED_HEADER_SIZE + Rdmap.IMMEDIATE_DATA_SIZE, 16)));
        UInt maxPayload = wire("maxPayload", sub(vec(mulpdu).apply(q), hdrLen).resize(32));
        UInt remaining = wire("remaining", sub(wr.length, offset));
        Bool lastSeg = wire("lastSeg", or(not(withPayload), le(remaining, maxPayload)));
        UInt segPayload = wire("segPayload", mux(withPayload, mux(lastSeg, remaining, maxPayload), U(0, 32)));
        Bool ordFull = wire("ordFull", and(needsOrd, ge(vec(ordInUse).apply(q), vec(ord).apply(q))));

        UInt msn = wire("msn", mux(needsOrd, vec(msn1).apply(q), vec(msn0).apply(q)));
        UInt qn = wire("qn", mux(needsOrd, U(DdpQueue.READ_REQUEST.qn(), 32), U(DdpQueue.SEND.qn(), 32)));
        Bits ddpCtrl = wire("ddpCtrl", cat(write, lastSeg, B(0, 4), B(Ddp.VERSION, 2)));
        Bits rdmapCtrl = wire("rdmapCtrl", cat(B(Rdmap.VERSION, 2), B(0, 2), wr.opcode.asBits()));

        HeaderOctets tagged = new HeaderOctets().put(0, ddpCtrl).put(1, rdmapCtrl).put(2, wr.remoteStag)
                .put(6, add(wr.remoteTo, offset.resize(64)));
        HeaderOctets untagged = new HeaderOctets().put(0, ddpCtrl).put(1, rdmapCtrl)
                .put(2, mux(invalidating, wr.invalidateStag, B(0, 32))).put(6, qn).put(10, msn).put(14, offset);
        HeaderOctets readReq = new HeaderOctets().put(0, ddpCtrl).put(1, rdmapCtrl).put(6, qn).put(10, msn)
                .put(18, wr.localStag).put(22, wr.localTo).put(30, wr.length).put(34, wr.remoteStag)
                .put(38, wr.remoteTo);
        HeaderOctets atomicReq = new HeaderOctets().put(0, ddpCtrl).put(1, rdmapCtrl).put(6, qn).put(10, msn)
                .put(18, cat(B(0, 28), wr.aop.asBits())).put(22, msn).put(26, wr.remoteStag)
                .put(30, wr.remoteTo).put(38, wr.data).put(46, wr.mask).put(54, wr.compareData)
                .put(62, wr.compareMask);
        HeaderOctets imm = new HeaderOctets().put(0, ddpCtrl).put(1, rdmapCtrl).put(6, qn).put(10, msn)
                .put(18, wr.data);
        Bits header = wire("header", mux(write, tagged.bits(), mux(read, readReq.bits(),
                mux(atomic, atomicReq.bits(), mux(immediate, imm.bits(), untagged.bits())))));

        DdpSegmentBuilder.Command seg = io.segments.payload();
        // The tag tells the transmit output what the segment ends: a Write, Send or Immediate Data completes when its
        // last segment has left the builder whole (every payload octet read from memory, RDMAP-23).
        set(seg.tag, cat(B(0, DdpSegmentBuilder.DEFAULT_TAG_WIDTH - 3), not(needsOrd), lastSeg, True()));
        // A request starts only when its completion will have room (nothing else fills that QP's queue meanwhile):
        // a request stalled after its first segment would hold the transmit side mid-message, and the responses
        // the completion queue waits for could then never be sent.
        Bool blocked = wire("blocked", or(ordFull, and(lastSeg, needsOrd, not(io.outstanding.ready())),
                and(eq(offset, U(0, 32)), not(io.completions.ready()))));
        set(io.segments.valid(), and(io.requests.valid(), not(blocked)));
        set(seg.qp, q);
        set(seg.header, header);
        set(seg.headerLength, hdrLen.resize(7));
        set(seg.address, add(wr.localAddress, offset.resize(64)));
        set(seg.payloadLength, segPayload.resize(16));
        Bool fire = wire("fire", io.segments.fire());
        set(io.requests.ready(), and(fire, lastSeg));

        RdmapRxControl.Outstanding out = io.outstanding.payload();
        set(io.outstanding.valid(), and(fire, lastSeg, needsOrd));
        set(out.qp, q);
        set(out.atomic, atomic);
        set(out.wrId, wr.wrId);
        set(out.reqId, msn.asBits());
        // A Read's entry carries its RDMARDSZ where an Atomic's carries its local address: READ_DONE reports it.
        set(out.localAddress, mux(atomic, wr.localAddress, wr.length.resize(64)));
        Completion done = io.completions.payload();
        set(io.completions.valid(), and(fire, lastSeg));
        set(done.kind, mux(read, U(RdmapCompletionOrder.READ, 2), mux(atomic, U(RdmapCompletionOrder.ATOMIC, 2),
                U(RdmapCompletionOrder.SENT, 2))));
        set(done.qp, q);
        set(done.wrId, wr.wrId);
        set(done.opcode, wr.opcode);
        set(done.length, mux(or(immediate, atomic), U(Rdmap.IMMEDIATE_DATA_SIZE, 32), wr.length));

        when(fire, () -> set(offset, mux(lastSeg, U(0, 32), add(offset, segPayload))));
        set(io.setup.ready(), True());
        set(io.ordRelease.ready(), True());
        for (int p = 0; p < qps; p++) {
            final int qp = p;
            Bool mine = wire("mine_" + p, and(fire, lastSeg, eq(q, U(qp, qb))));
            when(and(mine, not(needsOrd), not(write)), () -> set(msn0.get(qp), add(msn0.get(qp), U(1, 32))));
            when(and(mine, needsOrd), () -> set(msn1.get(qp), add(msn1.get(qp), U(1, 32))));
            Bool take = and(mine, needsOrd);
            Bool release = and(io.ordRelease.valid(), eq(io.ordRelease.payload(), U(qp, qb)));
            when(and(take, not(release)), () -> set(ordInUse.get(qp), add(ordInUse.get(qp), U(1, 8))));
            when(and(release, not(take)), () -> set(ordInUse.get(qp), sub(ordInUse.get(qp), U(1, 8))));
            when(and(io.setup.valid(), eq(io.setup.payload().qp, U(qp, qb))), () -> {
                set(mulpdu.get(qp), io.setup.payload().mulpdu);
                set(ord.get(qp), io.setup.payload().ord);
                set(ordInUse.get(qp), U(0, 8));
                set(msn0.get(qp), U(1, 32));
                set(msn1.get(qp), U(1, 32));
            });
        }
    }
}
