package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.ddp.DdpPlacer;
import rnic.hw.ddp.DdpRxHeaderInfo;
import rnic.hw.ddp.DdpTagValidator;
import rnic.hw.ddp.TagFault;
import rnic.hw.ddp.TagOp;
import rnic.hw.ddp.TagRequest;
import rnic.hw.ddp.TagResult;
import rnic.wire.DdpQueue;
import rnic.wire.Rdmap;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.Data;
import spinal.core.Mem;
import spinal.core.UInt;
import spinal.core.dontCare$;
import spinal.lib.Stream;

/**
 * The decisions of the DDP/RDMAP receive side, one segment head per cycle: for every received segment exactly one
 * placement command (place its payload, or consume and drop it), and the events, responder jobs and Terminate it
 * causes (RFC 5041 §5–§7, RFC 5040 §4–§7, RFC 7306 §5–§8; docs/requirements.md §2.5–§2.8, §3).
 *
 * <p><b>Stage 1</b> (the head in {@code header}) checks what the head alone decides, in the golden model's order
 * ({@code rnic.model.ddp.DdpHeader}, {@code RdmapDecoder}, {@code DdpUntaggedReceiver}): a segment shorter than its
 * DDP header is E-D0; DV ≠ 01b is E-D7/E-D13; a QN ≥ 4 is E-D8; RV ≠ 01b is E-R8; opcodes 0xC–0xF are E-R9; an
 * opcode on the wrong T flag or queue is E-R10; a Read Response with no Read outstanding is E-R11. Untagged segments
 * then pass DDP's queue checks against the QP's state: a buffer for the QN (queue 0: the oldest posted receive
 * buffer; queue 1: a free IRD slot, else E-R12 1/2/02; queue 3: an outstanding Atomic, else E-D9), the expected MSN
 * (E-D10), MO contiguous and inside the buffer (E-D11), MO + length within it (E-D12). Queues 1–3 take the fixed
 * header of their opcode as the buffer (28, 52, 52 for a Terminate, 12). Message checks: an RDMAP message without ULP
 * payload (queues 1–3, Immediate Data) must arrive whole in one segment, else E-R15 — every MULPDU a peer can
 * negotiate holds the largest of them (70 octets) — and of its exact length (Immediate Data: E-R20; Read Request,
 * Atomic Request, Atomic Response: E-R15); an unsupported AOpCode is E-R17; an Atomic Response's Original Request
 * Identifier must be the oldest outstanding Atomic's (E-R19). Stage 1 also sends the segment's STag check to the tag
 * validator: the Data Sink STag/TO of a Write or Read Response, the Data Source of a Read Request, the Atomic target,
 * or the Invalidate STag of the last segment of a Send with (SE and) Invalidate; anything else is sent as an empty
 * check (length 0, always passes) so results pair with heads by order. A remote invalidation changes the table, so
 * it is sent only when it will take effect: when stage 1 found no error and no earlier check is still in flight (so
 * stage 2 has decided every earlier segment and the QP is known not to have failed).
 *
 * <p><b>Stage 2</b> (the check result) maps a validator fault to the cause of its kind of access (T-17) and decides.
 * The first error of a QP sends one Terminate (the job carries the cause, the segment length and the segment's first
 * 46 octets, from which the Terminate takes the DDP header and, for E-R1…E-R5, the Read Request header) and fails the
 * QP; every later segment of a failed (or not open) QP is dropped silently (DDP-31), its payload consumed, nothing
 * placed. A failing segment places nothing at all.
 *
 * <p><b>Setup.</b> Opening a QP resets its receive state (MSNs, IRD in use, the failed flag) and forgets the Read and
 * Atomic Requests it had outstanding; closing it also flushes the receive buffers posted to it, which belonged to the
 * connection that ended. {@code halt} fails a QP for an error the transmit side found (a local memory error).
 *
 * <p><b>Storage.</b> The QP count costs memory depth, not multiplexers. Per-QP state is in memories indexed by QP, one
 * per writer so each has one write port: the stage-1 context (the expected MSN of each queue, the octets received of
 * the open message, the IRD slots taken), read and rewritten by stage 1 in one cycle, so back-to-back segments of a QP
 * see each other's updates; the IRD slots released (by the responder; in use = taken − released, modulo 256); the
 * setup's PD and IRD. A setup cannot clear a memory: per QP a bit marks its entry as still at the reset value. The
 * receive buffers (queue 0) and the outstanding Reads and Atomics are per-QP FIFOs sharing one memory per kind (QP
 * slots × depth entries, the head of QP q at {q, pop pointer of q}). Only the open and failed flags, those bits and the
 * FIFO pointers are registers per QP. The FIFO memories are read synchronously (block RAM): stage 1 takes a head once
 * the slots read in the cycle before are still the heads of its QP's FIFOs and no push wrote them meanwhile, so a head
 * waits one cycle when its QP differs from the previous read's, or a pop or push moved its FIFOs.
 *
 * <p><b>Order.</b> Placements are issued in segment order; events, responder jobs and Terminates wait until every
 * placement issued before them is done ({@code placed} pulses), so a receive completion follows its data and a Read
 * Response or Atomic Response reflects every earlier Write and Send on any QP (RFC 5040 §5.5, RFC 7306 §7,
 * docs/requirements.md §2.8.4). A job also waits until its segment has been taken whole ({@code consumed}); a
 * Terminate does not (it goes as soon as possible, RFC 5040 §7.1, with its TERMINATE_SENT event), but it waits for
 * the jobs of earlier segments to be finished, so a response owed before the error goes out before it.
 */
public final class RdmapRxControl extends HwComponent {
    /** Entries of each output buffer (events, jobs, Terminates). */
    public static final int OUTPUT_DEPTH = 16;
    /** Heads between the stages: at least the validator's latency plus its output register. */
    public static final int PENDING_DEPTH = 8;
    /** Octets of a failing segment a Terminate may copy: the untagged DDP header and a Read Request header. */
    public static final int TERMINATE_COPY_OCTETS = 18 + Rdmap.READ_REQUEST_HEADER_SIZE;

    /** Segment classes of stage 1. */
    static final int WRITE = 0;
    static final int READ_RESPONSE = 1;
    static final int SEND = 2;
    static final int IMMEDIATE = 3;
    static final int READ_REQUEST = 4;
    static final int ATOMIC_REQUEST = 5;
    static final int ATOMIC_RESPONSE = 6;
    static final int TERMINATE = 7;

    /** Responder job kinds. */
    public static final int JOB_READ = 0;
    public static final int JOB_ATOMIC = 1;
    /** Store an Atomic Response's original value at the requester's local address, then report ATOMIC_DONE. */
    public static final int JOB_STORE = 2;

    /** Bits of a cause: {@code TerminateCause.ordinal() + 1}, 0 for none. */
    public static final int CAUSE_BITS = 6;

    /** The cause value of {@code c} on the ports. */
    public static int causeCode(TerminateCause c) {
        return c.ordinal() + 1;
    }

    /**
     * Cause values from here on are MPA errors (Terminate Layer LLP, EType 0, Error Code = value − this; docs/requirements.md
     * §3.1), which only a {@link TerminateJob} carries: the transmit side sends them for its connection's MPA receiver.
     */
    public static final int LLP_CAUSE_BASE = 48;

    /** The cause value of the MPA error {@code c} on a {@link TerminateJob}. */
    public static int llpCauseCode(rnic.wire.MpaErrorCode c) {
        return LLP_CAUSE_BASE + c.code();
    }

    /** The cause of a port value, or null for 0 (and for an MPA error's value, which is no {@link TerminateCause}). */
    public static TerminateCause cause(int code) {
        return code == 0 || code > TerminateCause.values().length ? null : TerminateCause.values()[code - 1];
    }

    /** An event for the host, see {@link RxEventKind}. */
    public static final class Event extends HwBundle {
        public final DdpConfig config;
        public final UInt kind;
        public final UInt qp;
        public final Bits wrId;
        public final UInt length;
        public final Bits info;
        public final UInt cause;
        public final UInt opcode;
        public final Bits stag;

        public Event(DdpConfig config) {
            this.config = config;
            DdpConfig c = config;
            kind = field("kind", uint(3));
            qp = field("qp", uint(c.qpBits()));
            wrId = field("wrId", bits(32));
            length = field("length", uint(32));
            info = field("info", bits(64));
            cause = field("cause", uint(CAUSE_BITS));
            opcode = field("opcode", uint(4));
            stag = field("stag", bits(32));
        }
    }

    /** Work for the responder: a validated Read Request or Atomic Request, or a requester-side store. */
    public static final class Job extends HwBundle {
        public final DdpConfig config;
        public final UInt kind;
        public final UInt qp;
        /** Read: Data Source host address; Atomic: target host address; Store: the requester's local address. */
        public final UInt address;
        /** Read: RDMARDSZ. */
        public final UInt size;
        /** Read: Data Sink STag. */
        public final Bits sinkStag;
        /** Read: Data Sink TO. */
        public final UInt sinkTo;
        /** Atomic: AOpCode; Store: unused. */
        public final UInt aop;
        /** Atomic: Request Identifier. */
        public final Bits reqId;
        /** Store: the outstanding Atomic's wrId. */
        public final Bits wrId;
        /** Atomic: Add or Swap Data; Store: the original value. */
        public final Bits data;
        public final Bits mask;
        public final Bits compareData;
        public final Bits compareMask;

        public Job(DdpConfig config) {
            this.config = config;
            DdpConfig c = config;
            kind = field("kind", uint(2));
            qp = field("qp", uint(c.qpBits()));
            address = field("address", uint(64));
            size = field("size", uint(32));
            sinkStag = field("sinkStag", bits(32));
            sinkTo = field("sinkTo", uint(64));
            aop = field("aop", uint(4));
            reqId = field("reqId", bits(32));
            wrId = field("wrId", bits(32));
            data = field("data", bits(64));
            mask = field("mask", bits(64));
            compareData = field("compareData", bits(64));
            compareMask = field("compareMask", bits(64));
        }
    }

    /** A Terminate to send: its cause and what it copies of the failing segment (RFC 5040 §4.8). */
    public static final class TerminateJob extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        public final UInt cause;
        public final UInt segmentLength;
        /** The failing segment's first {@value #TERMINATE_COPY_OCTETS} octets (octet 0 in bits 7:0). */
        public final Bits octets;

        public TerminateJob(DdpConfig config) {
            this.config = config;
            DdpConfig c = config;
            qp = field("qp", uint(c.qpBits()));
            cause = field("cause", uint(CAUSE_BITS));
            segmentLength = field("segmentLength", uint(16));
            octets = field("octets", bits(8 * TERMINATE_COPY_OCTETS));
        }
    }

    /** Opens (resets the receive state of) or closes a QP, with its Protection Domain and IRD. */
    public static final class QpSetup extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        public final Bool open;
        public final UInt pd;
        public final UInt ird;

        public QpSetup(DdpConfig config) {
            this.config = config;
            DdpConfig c = config;
            qp = field("qp", uint(c.qpBits()));
            open = field("open", bool());
            pd = field("pd", uint(c.pdWidth()));
            ird = field("ird", uint(8));
        }
    }

    /** A receive buffer posted to a QP's queue 0. */
    public static final class RecvPost extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        public final UInt address;
        public final UInt capacity;
        public final Bits wrId;

        public RecvPost(DdpConfig config) {
            this.config = config;
            DdpConfig c = config;
            qp = field("qp", uint(c.qpBits()));
            address = field("address", uint(64));
            capacity = field("capacity", uint(32));
            wrId = field("wrId", bits(32));
        }
    }

    /** A Read or Atomic Request this side sent, awaiting its response (pushed by the transmit side). */
    public static final class Outstanding extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        public final Bool atomic;
        public final Bits wrId;
        public final Bits reqId;
        public final UInt localAddress;

        public Outstanding(DdpConfig config) {
            this.config = config;
            DdpConfig c = config;
            qp = field("qp", uint(c.qpBits()));
            atomic = field("atomic", bool());
            wrId = field("wrId", bits(32));
            reqId = field("reqId", bits(32));
            localAddress = field("localAddress", uint(64));
        }
    }

    /** What stage 1 hands to stage 2 for one segment. */
    public static final class Decided extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        public final UInt length;
        public final Bits octets;
        public final UInt kind;
        public final Bool last;
        public final UInt cause;
        public final UInt check;
        public final UInt payload;
        public final UInt skip;
        /** Untagged: receive buffer address + MO. */
        public final UInt address;
        /** Untagged: MO + payload length. */
        public final UInt messageLength;
        public final Bits wrId;
        public final UInt localAddress;

        public Decided(DdpConfig config) {
            this.config = config;
            DdpConfig c = config;
            qp = field("qp", uint(c.qpBits()));
            length = field("length", uint(16));
            octets = field("octets", bits(8 * DdpConfig.HEADER_OCTETS));
            kind = field("kind", uint(3));
            last = field("last", bool());
            cause = field("cause", uint(CAUSE_BITS));
            check = field("check", uint(2));
            payload = field("payload", uint(16));
            skip = field("skip", uint(7));
            address = field("address", uint(64));
            messageLength = field("messageLength", uint(32));
            wrId = field("wrId", bits(32));
            localAddress = field("localAddress", uint(64));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final Stream<DdpRxHeaderInfo> header;
        public final Stream<TagRequest> check;
        public final Stream<TagResult> checkResult;
        public final Stream<DdpPlacer.Command> place;
        /** One pulse per placement command completed (the placer's done, in command order). */
        public final Bool placed;
        /** One pulse per received segment whose last beat the placer has taken (in segment order). */
        public final Bool consumed;
        public final Stream<Event> events;
        public final Stream<Job> jobs;
        public final Stream<TerminateJob> terminates;
        public final Stream<QpSetup> setup;
        public final Stream<RecvPost> recv;
        public final Stream<Outstanding> outstanding;
        /** One pulse per inbound Read or Atomic Request whose response has been generated: frees an IRD slot. */
        public final Stream<UInt> irdRelease;
        /** Per QP: its receive side has failed (a Terminate is on its way or arrived); nothing else may be sent. */
        public final Bits failed;
        /**
         * Per QP, a pulse: the transmit side failed the QP for a local error (its own Terminate is on its way); the QP
         * counts as failed from the next cycle, so later inbound segments are dropped (RFC 5040 §5.4, DDP-31).
         */
        public final Bits halt;
        /** A pulse: stage 1 took a segment's head. */
        public final Bool headTaken;
        /**
         * Nothing of the segments whose heads were taken is left here: none between the stages, every placement
         * issued done, no event waiting to leave. With no head waiting either, every segment handed in has been
         * decided, placed and its event shown (what an MPA end of stream, E-M1, waits for).
         */
        public final Bool quiet;

        public Io(DdpConfig c) {
            header = field("header", Streams.slaveStream(() -> new DdpRxHeaderInfo(c.qpBits())));
            check = field("check", Streams.masterStream(() -> new TagRequest(c, DdpTagValidator.DEFAULT_TAG_WIDTH)));
            checkResult = field("checkResult", Streams.slaveStream(
                    () -> new TagResult(DdpTagValidator.DEFAULT_TAG_WIDTH)));
            place = field("place", Streams.masterStream(() -> new DdpPlacer.Command(DdpPlacer.DEFAULT_TAG_WIDTH)));
            placed = field("placed", in(bool()));
            consumed = field("consumed", in(bool()));
            headTaken = field("headTaken", out(bool()));
            quiet = field("quiet", out(bool()));
            events = field("events", Streams.masterStream(() -> new Event(c)));
            jobs = field("jobs", Streams.masterStream(() -> new Job(c)));
            terminates = field("terminates", Streams.masterStream(() -> new TerminateJob(c)));
            setup = field("setup", Streams.slaveStream(() -> new QpSetup(c)));
            recv = field("recv", Streams.slaveStream(() -> new RecvPost(c)));
            outstanding = field("outstanding", Streams.slaveStream(() -> new Outstanding(c)));
            irdRelease = field("irdRelease", Streams.slaveStream(() -> uint(c.qpBits())));
            failed = field("failed", out(bits(c.qpCount())));
            halt = field("halt", in(bits(c.qpCount())));
        }
    }

    public final DdpConfig config;
    public final Io io;

    public RdmapRxControl(DdpConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        int qps = c.qpCount();
        int qb = c.qpBits();

        // ---- per-QP state ----
        // Per-QP state lives in memories indexed by QP, one memory per writer (so each has one write port): the
        // stage-1 context (MSNs, receive progress, IRD slots taken), the IRD slots released, the setup's PD and IRD.
        // A reset or a setup cannot clear a memory: a per-QP bit says "this QP's entry is still the reset value",
        // set by the reset and every setup, cleared by the memory's own write.
        List<Bool> open = new ArrayList<>();
        List<Bool> failed = new ArrayList<>();
        List<Bool> ctxFresh = new ArrayList<>();
        List<Bool> releasedFresh = new ArrayList<>();
        List<Bool> configured = new ArrayList<>();
        for (int q = 0; q < qps; q++) {
            open.add(regInit("open_" + q, bool(), False()));
            failed.add(regInit("failed_" + q, bool(), False()));
            ctxFresh.add(regInit("ctxFresh_" + q, bool(), True()));
            releasedFresh.add(regInit("releasedFresh_" + q, bool(), True()));
            configured.add(regInit("configured_" + q, bool(), False()));
        }
        int qpSlots = 1 << qb;
        Mem<QpContext> ctxMem = field("ctxMem", new Mem<>(hardType(QpContext::new), qpSlots));
        Mem<UInt> releasedMem = field("releasedMem", new Mem<>(hardType(() -> uint(8)), qpSlots));
        Mem<QpConfig> configMem = field("configMem", new Mem<>(hardType(() -> new QpConfig(c)), qpSlots));

        // Receive buffers and outstanding requests: per QP a FIFO, all of a kind in one memory.
        QpQueues<RecvPost> rq = qpQueues("rq", io.recv, io.recv.payload().qp, () -> new RecvPost(c), c.recvDepth(),
                qps, qb, io.header.payload().qp);
        Stream<Outstanding> reads = wire("readsIn", Streams.stream(() -> new Outstanding(c)));
        Stream<Outstanding> atomics = wire("atomicsIn", Streams.stream(() -> new Outstanding(c)));
        set(reads.valid(), and(io.outstanding.valid(), not(io.outstanding.payload().atomic)));
        set(atomics.valid(), and(io.outstanding.valid(), io.outstanding.payload().atomic));
        set(reads.payload(), io.outstanding.payload());
        set(atomics.payload(), io.outstanding.payload());
        set(io.outstanding.ready(), mux(io.outstanding.payload().atomic, atomics.ready(), reads.ready()));
        QpQueues<Outstanding> orq = qpQueues("orq", reads, reads.payload().qp, () -> new Outstanding(c), c.maxOrd(),
                qps, qb, io.header.payload().qp);
        QpQueues<Outstanding> ara = qpQueues("ara", atomics, atomics.payload().qp, () -> new Outstanding(c),
                c.maxOrd(), qps, qb, io.header.payload().qp);

        // ---- stage 1 ----
        DdpRxHeaderInfo h = io.header.payload();
        Bits o = h.octets;
        UInt q = h.qp;
        Bool tagged = wire("tagged", o.apply(7));
        Bool last = wire("last", o.apply(6));
        Bits dv = wire("dv", range(o, 1, 0));
        Bits rv = wire("rv", range(o, 15, 14));
        UInt opcode = wire("opcode", range(o, 11, 8).asUInt());
        UInt hdrLen = wire("hdrLen", mux(tagged, U(14, 16), U(18, 16)));
        UInt payload = wire("payload", sub(h.length, hdrLen));
        UInt qn = wire("qn", DdpRxHeaderInfo.beField(o, 6, 4).asUInt());
        UInt segMsn = wire("segMsn", DdpRxHeaderInfo.beField(o, 10, 4).asUInt());
        UInt mo = wire("mo", DdpRxHeaderInfo.beField(o, 14, 4).asUInt());
        Function<RdmapOpcode, Bool> is = op -> eq(opcode, U(op.code(), 4));

        QpConfig cfgRead = wire("cfgRead", configMem.readAsync(q, dontCare$.MODULE$));
        Bool cfgKnown = wire("cfgKnown", vec(configured).apply(q));
        UInt qpPd = wire("qpPd", mux(cfgKnown, cfgRead.pd, U(0, c.pdWidth())));
        UInt qpIrd = wire("qpIrd", mux(cfgKnown, cfgRead.ird, U(0, 8)));
        QpContext ctxRead = wire("ctxRead", ctxMem.readAsync(q, dontCare$.MODULE$));
        Bool ctxReset = wire("ctxReset", vec(ctxFresh).apply(q));
        QpContext ctx = wire("ctx", new QpContext());
        set(ctx.received, mux(ctxReset, U(0, 32), ctxRead.received));
        set(ctx.taken, mux(ctxReset, U(0, 8), ctxRead.taken));
        for (int k = 0; k < 4; k++) {
            set(ctx.msn(k), mux(ctxReset, U(1, 32), ctxRead.msn(k)));
        }
        UInt releasedRead = wire("releasedRead", releasedMem.readAsync(q, dontCare$.MODULE$));
        UInt qpReleased = wire("qpReleased", mux(vec(releasedFresh).apply(q), U(0, 8), releasedRead));
        // IRD slots in use: taken (stage 1) − released (the responder), both counted modulo 256.
        UInt qpInUse = wire("qpInUse", sub(ctx.taken, qpReleased));
        UInt qpReceived = ctx.received;
        UInt qn2 = wire("qn2", range(qn, 1, 0));
        UInt expectedMsn = wire("expectedMsn", vec(List.of(ctx.msn0, ctx.msn1, ctx.msn2, ctx.msn3)).apply(qn2));
        Bool rqValid = rq.headValid;
        RecvPost rqHead = rq.head;
        Bool orqValid = orq.headValid;
        Outstanding orqHead = orq.head;
        Bool araValid = ara.headValid;
        Outstanding araHead = ara.head;
        // The queue heads come from block RAM read a cycle before: a head whose QP or queue pointer changed waits.
        Bool headsRead = wire("headsRead", and(rq.headRead, orq.headRead, ara.headRead));

        // Segment class and the fixed RDMAP header a queue 1–3 message is.
        UInt kind = wire("kind", U(WRITE, 3));
        UInt fixed = wire("fixed", U(0, 32));
        when(is.apply(RdmapOpcode.RDMA_READ_RESPONSE), () -> set(kind, U(READ_RESPONSE, 3)));
        for (RdmapOpcode op : List.of(RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_INVALIDATE, RdmapOpcode.SEND_WITH_SE,
                RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE)) {
            when(is.apply(op), () -> set(kind, U(SEND, 3)));
        }
        when(or(is.apply(RdmapOpcode.IMMEDIATE_DATA), is.apply(RdmapOpcode.IMMEDIATE_DATA_WITH_SE)), () -> {
            set(kind, U(IMMEDIATE, 3));
            set(fixed, U(Rdmap.IMMEDIATE_DATA_SIZE, 32));
        });
        when(is.apply(RdmapOpcode.RDMA_READ_REQUEST), () -> {
            set(kind, U(READ_REQUEST, 3));
            set(fixed, U(Rdmap.READ_REQUEST_HEADER_SIZE, 32));
        });
        when(is.apply(RdmapOpcode.ATOMIC_REQUEST), () -> {
            set(kind, U(ATOMIC_REQUEST, 3));
            set(fixed, U(Rdmap.ATOMIC_REQUEST_HEADER_SIZE, 32));
        });
        when(is.apply(RdmapOpcode.ATOMIC_RESPONSE), () -> {
            set(kind, U(ATOMIC_RESPONSE, 3));
            set(fixed, U(Rdmap.ATOMIC_RESPONSE_HEADER_SIZE, 32));
        });
        when(is.apply(RdmapOpcode.TERMINATE), () -> {
            set(kind, U(TERMINATE, 3));
            set(fixed, U(Rdmap.TERMINATE_CONTROL_SIZE + 2 + 18 + Rdmap.READ_REQUEST_HEADER_SIZE, 32));
        });
        Bool isSend = wire("isSend", eq(kind, U(SEND, 3)));
        Bool isQn0 = wire("isQn0", or(isSend, eq(kind, U(IMMEDIATE, 3))));

        // Opcode ↔ T flag and queue (E-R10): the expected QN of an untagged opcode.
        Bool opTagged = wire("opTagged", or(is.apply(RdmapOpcode.RDMA_WRITE), is.apply(RdmapOpcode.RDMA_READ_RESPONSE)));
        UInt opQn = wire("opQn", U(DdpQueue.SEND.qn(), 32));
        when(or(eq(kind, U(READ_REQUEST, 3)), eq(kind, U(ATOMIC_REQUEST, 3))),
                () -> set(opQn, U(DdpQueue.READ_REQUEST.qn(), 32)));
        when(eq(kind, U(TERMINATE, 3)), () -> set(opQn, U(DdpQueue.TERMINATE.qn(), 32)));
        when(eq(kind, U(ATOMIC_RESPONSE, 3)), () -> set(opQn, U(DdpQueue.ATOMIC_RESPONSE.qn(), 32)));

        // The buffer an untagged segment goes to: present, and its capacity. Queues 1 and 2 have slots of 52 octets
        // (the larger of a Read and an Atomic Request; the largest Terminate), queue 3 of 12 (an Atomic Response).
        Bool hasBuffer = wire("hasBuffer", True());
        UInt capacity = wire("capacity", mux(eq(qn2, U(DdpQueue.ATOMIC_RESPONSE.qn(), 2)),
                U(Rdmap.ATOMIC_RESPONSE_HEADER_SIZE, 32), U(Rdmap.ATOMIC_REQUEST_HEADER_SIZE, 32)));
        when(isQn0, () -> {
            set(hasBuffer, rqValid);
            set(capacity, rqHead.capacity);
        });
        when(eq(kind, U(ATOMIC_RESPONSE, 3)), () -> set(hasBuffer, araValid));
        when(eq(qn2, U(DdpQueue.READ_REQUEST.qn(), 2)), () -> set(hasBuffer, lt(qpInUse, qpIrd)));
        UInt end = wire("end", add(mo, payload.resize(32)));
        UInt aop = wire("aop", range(o, 8 * 21 + 3, 8 * 21).asUInt());
        Bits atomicReqId = DdpRxHeaderInfo.beField(o, 22, 4);
        Bits responseReqId = DdpRxHeaderInfo.beField(o, 18, 4);

        // The first failing check decides (model order).
        List<Object[]> checks = new ArrayList<>();
        checks.add(new Object[] {lt(h.length, hdrLen), TerminateCause.DDP_LOCAL_CATASTROPHIC});
        checks.add(new Object[] {and(tagged, neq(dv, B(1, 2))),
                TerminateCause.DDP_TAGGED_INVALID_VERSION});
        checks.add(new Object[] {and(not(tagged), neq(dv, B(1, 2))),
                TerminateCause.DDP_UNTAGGED_INVALID_VERSION});
        checks.add(new Object[] {and(not(tagged), ge(qn, U(4, 32))), TerminateCause.DDP_INVALID_QN});
        checks.add(new Object[] {neq(rv, B(Rdmap.VERSION, 2)), TerminateCause.INVALID_RDMAP_VERSION});
        checks.add(new Object[] {ge(opcode, U(0xC, 4)), TerminateCause.UNEXPECTED_OPCODE});
        checks.add(new Object[] {or(neq(opTagged, tagged), and(not(tagged), neq(opQn, qn))),
                TerminateCause.OPCODE_MISMATCH});
        checks.add(new Object[] {and(eq(kind, U(READ_RESPONSE, 3)), not(orqValid)),
                TerminateCause.UNEXPECTED_READ_RESPONSE});
        checks.add(new Object[] {and(not(tagged), not(hasBuffer), eq(qn2, U(1, 2))), TerminateCause.IRD_EXCEEDED});
        checks.add(new Object[] {and(not(tagged), not(hasBuffer)), TerminateCause.DDP_NO_BUFFER});
        checks.add(new Object[] {and(not(tagged), neq(segMsn, expectedMsn)), TerminateCause.DDP_INVALID_MSN});
        UInt already = wire("already", mux(isQn0, qpReceived, U(0, 32)));
        checks.add(new Object[] {and(not(tagged), or(neq(mo, already),
                and(neq(payload, U(0, 16)), ge(mo, capacity)))), TerminateCause.DDP_INVALID_MO});
        checks.add(new Object[] {and(not(tagged), or(gt(end, capacity), lt(end, mo))),
                TerminateCause.DDP_MESSAGE_TOO_LONG});
        Bool whole = wire("whole", and(not(tagged), not(isSend), not(eq(kind, U(TERMINATE, 3)))));
        Bool wrongLength = wire("wrongLength", neq(end, fixed));
        checks.add(new Object[] {and(eq(kind, U(IMMEDIATE, 3)), or(not(last), wrongLength)),
                TerminateCause.IMMEDIATE_DATA_LENGTH});
        checks.add(new Object[] {and(whole, or(not(last), wrongLength)), TerminateCause.UNSPECIFIED_REMOTE_OPERATION});
        // A Terminate is exactly the fields its HdrCt announces (the model's Terminate.parse): 4 octets, + 2 and the
        // Terminated DDP Header (14 or 18 by its own T bit) when D, + the 28-octet RDMA header when R.
        Bool termD = wire("termD", o.apply(8 * 20 + 6));
        Bool termR = wire("termR", o.apply(8 * 20 + 5));
        Bool termCopiedTagged = wire("termCopiedTagged", o.apply(8 * 24 + 7));
        UInt termExpected = wire("termExpected", add(add(U(Rdmap.TERMINATE_CONTROL_SIZE, 32),
                mux(termD, mux(termCopiedTagged, U(2 + 14, 32), U(2 + 18, 32)), U(0, 32))),
                mux(termR, U(Rdmap.READ_REQUEST_HEADER_SIZE, 32), U(0, 32))));
        checks.add(new Object[] {and(eq(kind, U(TERMINATE, 3)), or(not(last), neq(end, termExpected))),
                TerminateCause.UNSPECIFIED_REMOTE_OPERATION});
        checks.add(new Object[] {and(eq(kind, U(ATOMIC_REQUEST, 3)), neq(aop, U(0, 4)), neq(aop, U(2, 4))),
                TerminateCause.ATOMIC_UNSUPPORTED_OPCODE});
        checks.add(new Object[] {and(eq(kind, U(ATOMIC_RESPONSE, 3)), neq(responseReqId, araHead.reqId)),
                TerminateCause.UNEXPECTED_ATOMIC_RESPONSE});
        UInt cause1 = wire("cause1", U(0, CAUSE_BITS));
        for (int i = checks.size() - 1; i >= 0; i--) {
            Bool failing = (Bool) checks.get(i)[0];
            TerminateCause tc = (TerminateCause) checks.get(i)[1];
            when(failing, () -> set(cause1, U(causeCode(tc), CAUSE_BITS)));
        }
        Bool ok1 = wire("ok1", eq(cause1, U(0, CAUSE_BITS)));

        // The STag check of this segment.
        TagRequest chk = wire("chk", new TagRequest(c, DdpTagValidator.DEFAULT_TAG_WIDTH));
        set(chk.op, U(TagOp.PLACE.code(), 2));
        set(chk.stag, DdpRxHeaderInfo.beField(o, 2, 4).asUInt());
        set(chk.to, DdpRxHeaderInfo.beField(o, 6, 8).asUInt());
        set(chk.length, U(0, 32));
        set(chk.pd, qpPd);
        set(chk.qp, q);
        set(chk.tag, B(0, DdpTagValidator.DEFAULT_TAG_WIDTH)); // results come back in order: no tag needed
        Bool invalidates = wire("invalidates", and(ok1, last, not(vec(failed).apply(q)), vec(open).apply(q), or(is.apply(RdmapOpcode.SEND_WITH_INVALIDATE),
                is.apply(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE))));
        when(ok1, () -> {
            when(tagged, () -> set(chk.length, payload.resize(32)));
            when(eq(kind, U(READ_REQUEST, 3)), () -> {
                set(chk.op, U(TagOp.READ.code(), 2));
                set(chk.stag, DdpRxHeaderInfo.beField(o, 34, 4).asUInt());
                set(chk.to, DdpRxHeaderInfo.beField(o, 38, 8).asUInt());
                set(chk.length, DdpRxHeaderInfo.beField(o, 30, 4).asUInt());
            });
            when(eq(kind, U(ATOMIC_REQUEST, 3)), () -> {
                set(chk.op, U(TagOp.ATOMIC.code(), 2));
                set(chk.stag, DdpRxHeaderInfo.beField(o, 26, 4).asUInt());
                set(chk.to, DdpRxHeaderInfo.beField(o, 30, 8).asUInt());
                set(chk.length, U(8, 32));
            });
            when(invalidates, () -> set(chk.op, U(TagOp.INVALIDATE.code(), 2)));
        });

        Decided d = wire("decided", new Decided(c));
        set(d.qp, q);
        set(d.length, h.length);
        set(d.octets, o);
        set(d.kind, kind);
        set(d.last, last);
        set(d.cause, cause1);
        set(d.check, chk.op);
        set(d.payload, mux(ok1, payload, U(0, 16)));
        set(d.skip, hdrLen.resize(7));
        set(d.address, add(rqHead.address, mo.resize(64)));
        set(d.messageLength, end);
        set(d.wrId, mux(isQn0, rqHead.wrId, mux(eq(kind, U(ATOMIC_RESPONSE, 3)), araHead.wrId, orqHead.wrId)));
        set(d.localAddress, mux(eq(kind, U(READ_RESPONSE, 3)), orqHead.localAddress, araHead.localAddress));

        // Checks in flight between the stages: a remote invalidation waits until there are none.
        UInt inFlight = regInit("inFlight", uint(4), U(0, 4));
        Stream<Decided> toPending = wire("toPending", Streams.stream(() -> new Decided(c)));
        Bool invalidateWaits = wire("invalidateWaits", and(invalidates, neq(inFlight, U(0, 4))));
        Bool go = wire("go", and(io.header.valid(), io.check.ready(), toPending.ready(), not(invalidateWaits),
                headsRead));
        set(io.header.ready(), and(io.check.ready(), toPending.ready(), not(invalidateWaits), headsRead));
        set(io.check.valid(), and(io.header.valid(), toPending.ready(), not(invalidateWaits), headsRead));
        set(io.check.payload(), chk);
        set(toPending.valid(), and(io.header.valid(), io.check.ready(), not(invalidateWaits), headsRead));
        set(toPending.payload(), d);
        // Latency 1: stage 2's readiness must not reach back into stage 1 through an empty FIFO (stage 1 waits for
        // the validator, whose readiness follows stage 2's).
        Stream<Decided> pending = Streams.fifo(toPending, PENDING_DEPTH, 1);

        // Stage-1 state updates (only for segments that passed stage 1; a later failure fails the QP anyway).
        Bool accept = wire("accept", and(go, ok1, not(tagged)));
        QpContext ctxNext = wire("ctxNext", new QpContext());
        set(ctxNext.received, mux(isQn0, mux(last, U(0, 32), end), ctx.received));
        set(ctxNext.taken, mux(eq(qn2, U(1, 2)), add(ctx.taken, U(1, 8)), ctx.taken));
        for (int k = 0; k < 4; k++) {
            set(ctxNext.msn(k), mux(and(last, eq(qn2, U(k, 2))), add(ctx.msn(k), U(1, 32)), ctx.msn(k)));
        }
        ctxMem.write(q, ctxNext, accept, null);
        for (int p = 0; p < qps; p++) {
            final int qp = p;
            when(and(accept, eq(q, U(qp, qb))), () -> set(ctxFresh.get(qp), False()));
        }
        Bool acceptRead = wire("acceptRead", and(go, ok1, eq(kind, U(READ_RESPONSE, 3)), last));
        rq.pop(and(accept, isQn0, last));
        ara.pop(and(accept, eq(kind, U(ATOMIC_RESPONSE, 3))));
        orq.pop(acceptRead);

        // ---- stage 2 ----
        Decided s = pending.payload();
        TagResult r = io.checkResult.payload();
        Bool both = wire("both", and(pending.valid(), io.checkResult.valid()));
        Stream<Event> evIn = wire("evIn", Streams.stream(() -> new Event(c)));
        Stream<Job> jobIn = wire("jobIn", Streams.stream(() -> new Job(c)));
        Stream<TerminateJob> termIn = wire("termIn", Streams.stream(() -> new TerminateJob(c)));
        Stream<DdpPlacer.Command> placeOut = wire("placeOut",
                Streams.stream(() -> new DdpPlacer.Command(DdpPlacer.DEFAULT_TAG_WIDTH)));
        Bool room = wire("room", and(evIn.ready(), jobIn.ready(), termIn.ready(), placeOut.ready()));
        Bool fire2 = wire("fire2", and(both, room));
        set(pending.ready(), fire2);
        set(io.checkResult.ready(), fire2);
        when(and(go, not(fire2)), () -> set(inFlight, add(inFlight, U(1, 4))));
        when(and(fire2, not(go)), () -> set(inFlight, sub(inFlight, U(1, 4))));

        UInt sq = s.qp;
        Bool dead = wire("dead", or(vec(failed).apply(sq), not(vec(open).apply(sq))));
        // The validator's fault, reported with the cause of its kind of access (T-17; TagFault.cause).
        UInt faultCause = wire("faultCause", U(0, CAUSE_BITS));
        for (TagOp op : TagOp.values()) {
            for (TagFault f : TagFault.values()) {
                if (!f.possibleFor(op)) {
                    continue;
                }
                f.cause(op).ifPresent(tc -> when(and(eq(s.check, U(op.code(), 2)), eq(r.fault, U(f.code(), 3))),
                        () -> set(faultCause, U(causeCode(tc), CAUSE_BITS))));
            }
        }
        UInt cause2 = wire("cause2", mux(neq(s.cause, U(0, CAUSE_BITS)), s.cause, faultCause));
        Bool bad = wire("bad", and(not(dead), neq(cause2, U(0, CAUSE_BITS))));
        Bool good = wire("good", and(not(dead), eq(cause2, U(0, CAUSE_BITS))));
        Function<Integer, Bool> sk = k -> eq(s.kind, U(k, 3));
        // A Send with Invalidate whose invalidation fails is still placed, then fails (the model's order: placed,
        // invalidated, completed). Immediate Data is placed at the start of the buffer it consumes (RDMAP-40).
        Bool invalidateFailed = wire("invalidateFailed", and(eq(s.cause, U(0, CAUSE_BITS)),
                eq(s.check, U(TagOp.INVALIDATE.code(), 2)), neq(r.fault, U(TagFault.NONE.code(), 3))));
        Bool placesData = wire("placesData", and(not(dead), or(good, invalidateFailed),
                or(sk.apply(WRITE), sk.apply(READ_RESPONSE), sk.apply(SEND), sk.apply(IMMEDIATE)),
                neq(s.payload, U(0, 16))));

        UInt seq = regInit("seq", uint(16), U(0, 16));
        UInt doneCount = regInit("doneCount", uint(16), U(0, 16));
        when(fire2, () -> set(seq, add(seq, U(1, 16))));
        when(io.placed, () -> set(doneCount, add(doneCount, U(1, 16))));
        UInt consumedCount = regInit("consumedCount", uint(16), U(0, 16));
        when(io.consumed, () -> set(consumedCount, add(consumedCount, U(1, 16))));
        // A response is acted on once its segment (and every earlier one) has been received whole, even when its
        // head decided it early: the older of the two counts gates.
        UInt wholeCount = wire("wholeCount", mux(lt(sub(doneCount, consumedCount), U(1 << 15, 16)), consumedCount,
                doneCount));

        set(placeOut.valid(), fire2);
        set(placeOut.payload().address, mux(or(sk.apply(WRITE), sk.apply(READ_RESPONSE)), r.address, s.address));
        set(placeOut.payload().length, s.payload);
        set(placeOut.payload().skip, s.skip);
        set(placeOut.payload().drop, not(placesData));
        set(placeOut.payload().tag, B(0, DdpPlacer.DEFAULT_TAG_WIDTH));
        Streams.connect(placeOut, io.place);

        Bits opc = wire("opc", range(s.octets, 11, 8));
        Event ev = evIn.payload();
        set(evIn.valid(), False());
        set(ev.kind, U(RxEventKind.RECEIVE.code(), 3));
        set(ev.qp, sq);
        set(ev.wrId, s.wrId);
        set(ev.length, s.messageLength);
        set(ev.info, B(0, 64));
        set(ev.cause, cause2);
        set(ev.opcode, opc.asUInt());
        set(ev.stag, B(0, 32));
        Job job = jobIn.payload();
        set(jobIn.valid(), False());
        set(job.kind, U(JOB_READ, 2));
        set(job.qp, sq);
        set(job.address, r.address);
        set(job.size, DdpRxHeaderInfo.beField(s.octets, 30, 4).asUInt());
        set(job.sinkStag, DdpRxHeaderInfo.beField(s.octets, 18, 4));
        set(job.sinkTo, DdpRxHeaderInfo.beField(s.octets, 22, 8).asUInt());
        set(job.aop, range(s.octets, 8 * 21 + 3, 8 * 21).asUInt());
        set(job.reqId, DdpRxHeaderInfo.beField(s.octets, 22, 4));
        set(job.wrId, s.wrId);
        set(job.data, DdpRxHeaderInfo.beField(s.octets, 38, 8));
        set(job.mask, DdpRxHeaderInfo.beField(s.octets, 46, 8));
        set(job.compareData, DdpRxHeaderInfo.beField(s.octets, 54, 8));
        set(job.compareMask, DdpRxHeaderInfo.beField(s.octets, 62, 8));
        TerminateJob tj = termIn.payload();
        set(termIn.valid(), and(fire2, bad));
        set(tj.qp, sq);
        set(tj.cause, cause2);
        set(tj.segmentLength, s.length);
        set(tj.octets, range(s.octets, 8 * TERMINATE_COPY_OCTETS - 1, 0));

        when(fire2, () -> {
            when(bad, () -> {
                set(evIn.valid(), True());
                set(ev.kind, U(RxEventKind.TERMINATE_SENT.code(), 3));
                set(ev.length, s.length.resize(32));
            });
            when(good, () -> {
                when(and(sk.apply(SEND), s.last), () -> {
                    set(evIn.valid(), True());
                    when(or(eq(opc, B(RdmapOpcode.SEND_WITH_INVALIDATE.code(), 4)),
                            eq(opc, B(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE.code(), 4))),
                            () -> set(ev.stag, DdpRxHeaderInfo.beField(s.octets, 2, 4)));
                });
                when(sk.apply(IMMEDIATE), () -> {
                    set(evIn.valid(), True());
                    set(ev.kind, U(RxEventKind.RECEIVE_IMMEDIATE.code(), 3));
                    set(ev.info, DdpRxHeaderInfo.beField(s.octets, 18, 8));
                });
                when(and(sk.apply(READ_RESPONSE), s.last), () -> {
                    set(evIn.valid(), True());
                    set(ev.kind, U(RxEventKind.READ_DONE.code(), 3));
                    set(ev.length, s.localAddress.resize(32));
                });
                when(sk.apply(TERMINATE), () -> {
                    set(evIn.valid(), True());
                    set(ev.kind, U(RxEventKind.TERMINATE_RECEIVED.code(), 3));
                    set(ev.info, DdpRxHeaderInfo.beField(s.octets, 18, 8));
                    set(ev.length, s.length.resize(32));
                });
                when(sk.apply(READ_REQUEST), () -> set(jobIn.valid(), True()));
                when(sk.apply(ATOMIC_REQUEST), () -> {
                    set(jobIn.valid(), True());
                    set(job.kind, U(JOB_ATOMIC, 2));
                });
                when(sk.apply(ATOMIC_RESPONSE), () -> {
                    set(jobIn.valid(), True());
                    set(job.kind, U(JOB_STORE, 2));
                    set(job.address, s.localAddress);
                    set(job.reqId, DdpRxHeaderInfo.beField(s.octets, 18, 4));
                    set(job.data, DdpRxHeaderInfo.beField(s.octets, 22, 8));
                });
            });
        });
        for (int p = 0; p < qps; p++) {
            final int qp = p;
            when(and(fire2, eq(sq, U(qp, qb)), or(bad, and(good, sk.apply(TERMINATE)))),
                    () -> set(failed.get(qp), True()));
        }

        set(io.failed, catLsbFirst(failed));

        // Outputs wait until every placement issued before their segment is done.
        // The output queues show an item the cycle after its push (latency 1, no bypass multiplexer): quiet also
        // looks at the event queue's push side, so an event on its way in counts.
        Stream<Sequenced<Event>> evPush = withSeq("ev", evIn, seq);
        Stream<Sequenced<Event>> evQueued = Streams.fifo(evPush, OUTPUT_DEPTH, 1);
        set(io.quiet, and(eq(inFlight, U(0, 4)), eq(seq, doneCount), not(evPush.valid()), not(evQueued.valid()),
                not(io.events.valid())));
        set(io.headTaken, go);
        connectGated(evQueued, doneCount, io.events);
        Stream<Sequenced<Job>> jobQueued = Streams.fifo(withSeq("job", jobIn, seq), OUTPUT_DEPTH, 1);
        Stream<Sequenced<TerminateJob>> termQueued = Streams.fifo(withSeq("term", termIn, seq), OUTPUT_DEPTH, 1);
        // A Terminate goes as soon as possible (RFC 5040 §7.1): once every placement before its segment is done (as
        // its TERMINATE_SENT event), not after the rest of its segment — dropped anyway — has been taken. Waiting for
        // that (the fuzzer's findings F16/F17) let the host see the QP in ERR and reset it, a long segment later,
        // before the Terminate had gone: it was lost in the reset or came out on the next connection. It still waits
        // for the responder jobs of earlier segments (they wait for their segments whole), so a Read or Atomic
        // Response owed before the error is not overtaken by it and cut off (RFC 5040 §5.4).
        UInt jobFirst = sub(termQueued.payload().seq, jobQueued.payload().seq);
        Bool olderJob = wire("termAfterJob", and(jobQueued.valid(), lt(jobFirst, U(1 << 15, 16)),
                neq(jobFirst, U(0, 16))));
        connectGated(jobQueued, wholeCount, io.jobs);
        connectGated(termQueued, doneCount, olderJob, io.terminates);

        // ---- host side: QP setup and IRD release ----
        set(io.setup.ready(), True());
        set(io.irdRelease.ready(), True());
        QpSetup su = io.setup.payload();
        QpConfig cfgWrite = wire("cfgWrite", new QpConfig(c));
        set(cfgWrite.pd, su.pd);
        set(cfgWrite.ird, su.ird);
        configMem.write(su.qp, cfgWrite, io.setup.valid(), null);
        UInt releaseQp = io.irdRelease.payload();
        UInt releasedOld = wire("releasedOld", mux(vec(releasedFresh).apply(releaseQp), U(0, 8),
                releasedMem.readAsync(releaseQp, dontCare$.MODULE$)));
        releasedMem.write(releaseQp, add(releasedOld, U(1, 8)), io.irdRelease.valid(), null);
        // Buffers posted to a QP that is closed belong to the connection that ended: the close flushes them, so
        // a reopened QP starts with an empty queue (the host posts its new buffers after the close). Read and Atomic
        // Requests still awaiting their responses belong to the connection that ended, whether the QP is closed or
        // opened again: a response to them can no longer arrive.
        rq.flush(and(io.setup.valid(), not(su.open)), su.qp);
        orq.flush(io.setup.valid(), su.qp);
        ara.flush(io.setup.valid(), su.qp);
        for (int p = 0; p < qps; p++) {
            final int qp = p;
            Bool setupMine = and(io.setup.valid(), eq(su.qp, U(qp, qb)));
            Bool releaseMine = and(io.irdRelease.valid(), eq(releaseQp, U(qp, qb)));
            when(releaseMine, () -> set(releasedFresh.get(qp), False()));
            when(io.halt.apply(qp), () -> set(failed.get(qp), True()));
            when(setupMine, () -> {
                set(open.get(qp), su.open);
                set(failed.get(qp), False());
                set(configured.get(qp), True());
                set(ctxFresh.get(qp), True());
                set(releasedFresh.get(qp), True());
            });
        }
        rq.build();
        orq.build();
        ara.build();
    }

    /** The stage-1 context of a QP: the expected MSN of each queue, the octets of the open message, IRD slots taken. */
    public static final class QpContext extends HwBundle {
        public final UInt msn0;
        public final UInt msn1;
        public final UInt msn2;
        public final UInt msn3;
        public final UInt received;
        public final UInt taken;

        public QpContext() {
            msn0 = field("msn0", uint(32));
            msn1 = field("msn1", uint(32));
            msn2 = field("msn2", uint(32));
            msn3 = field("msn3", uint(32));
            received = field("received", uint(32));
            taken = field("taken", uint(8));
        }

        UInt msn(int qn) {
            return switch (qn) {
                case 0 -> msn0;
                case 1 -> msn1;
                case 2 -> msn2;
                default -> msn3;
            };
        }
    }

    /** What a setup records of a QP: its Protection Domain and IRD. */
    public static final class QpConfig extends HwBundle {
        public final DdpConfig config;
        public final UInt pd;
        public final UInt ird;

        public QpConfig(DdpConfig config) {
            this.config = config;
            pd = field("pd", uint(config.pdWidth()));
            ird = field("ird", uint(8));
        }
    }

    /**
     * Per-QP FIFOs of {@code depth} sharing one memory of QP slots × depth' entries (depth' the next power of two):
     * QP q's entries at {q, pointer}, with a push and a pop pointer per QP; the head of the segment's QP is read at
     * {q, pop[q]}, synchronously (block RAM), so the head is shown the cycle after its slot was read
     * ({@code headRead}). Otherwise a StreamFifo per QP: full at {@code depth} entries, a flush empties the QP's FIFO
     * and wins over a push or pop in the same cycle.
     */
    private static final class QpQueues<T extends Data> {
        final List<UInt> push = new ArrayList<>();
        final List<UInt> pop = new ArrayList<>();
        Bool pushFire;
        UInt pushQp;
        int width;
        int qb;
        Bool headValid;
        T head;
        /** The head shown is the head of the segment's QP (else stage 1 waits a cycle for its read). */
        Bool headRead;
        UInt headQp;
        Bool popFire;
        Bool flushFire;
        UInt flushQp;

        /** Pops the head of the segment's QP ({@code popping} without a head is ignored, as a StreamFifo does). */
        void pop(Bool popping) {
            popFire = and(popping, headValid);
        }

        /** Empties QP {@code qp}'s FIFO. */
        void flush(Bool flushing, UInt qp) {
            flushFire = flushing;
            flushQp = qp;
        }

        /** The pointer updates, once push, pop and flush are known. */
        void build() {
            for (int p = 0; p < push.size(); p++) {
                final int i = p;
                when(and(pushFire, eq(pushQp, U(i, qb))), () -> set(push.get(i), add(push.get(i), U(1, width))));
                when(and(popFire, eq(headQp, U(i, qb))), () -> set(pop.get(i), add(pop.get(i), U(1, width))));
                when(and(flushFire, eq(flushQp, U(i, qb))), () -> {
                    set(push.get(i), U(0, width));
                    set(pop.get(i), U(0, width));
                });
            }
        }
    }

    private <T extends Data> QpQueues<T> qpQueues(String name, Stream<T> in, UInt inQp,
            java.util.function.Supplier<T> type, int depth, int qps, int qb, UInt q) {
        QpQueues<T> x = new QpQueues<>();
        int slots = depth <= 1 ? 1 : Integer.highestOneBit(depth - 1) << 1;
        int a = Integer.numberOfTrailingZeros(slots);
        int pw = a + 1;
        x.width = pw;
        x.qb = qb;
        x.pushQp = inQp;
        x.headQp = q;
        for (int p = 0; p < qps; p++) {
            x.push.add(regInit(name + "PushPtr_" + p, uint(pw), U(0, pw)));
            x.pop.add(regInit(name + "PopPtr_" + p, uint(pw), U(0, pw)));
        }
        Mem<T> mem = field(name + "Mem", new Mem<>(hardType(type), (1 << qb) * slots));
        UInt inPush = wire(name + "InPush", vec(x.push).apply(inQp));
        UInt inPop = wire(name + "InPop", vec(x.pop).apply(inQp));
        Bool full = wire(name + "Full", eq(sub(inPush, inPop), U(depth, pw)));
        set(in.ready(), not(full));
        x.pushFire = wire(name + "PushFire", and(in.valid(), not(full)));
        mem.write(slot(inQp, inPush, a), in.payload(), x.pushFire, null);
        UInt headPush = wire(name + "HeadPush", vec(x.push).apply(q));
        UInt headPop = wire(name + "HeadPop", vec(x.pop).apply(q));
        x.headValid = wire(name + "Valid", neq(headPush, headPop));
        // Read synchronously (block RAM) at the head's slot every cycle: the entry shown is the current head once
        // the slot read in the previous cycle is still the head's and no push wrote it in that cycle.
        UInt readAt = wire(name + "ReadAt", slot(q, headPop, a));
        x.head = wire(name + "Head", mem.readSync(readAt, True(), dontCare$.MODULE$, false));
        UInt readAtBefore = reg(name + "ReadAtBefore", uint(readAt.getBitsWidth()));
        set(readAtBefore, readAt);
        Bool readMissed = regInit(name + "ReadMissed", bool(), True());
        set(readMissed, and(x.pushFire, eq(slot(inQp, inPush, a), readAt)));
        x.headRead = wire(name + "HeadRead", and(not(readMissed), eq(readAtBefore, readAt)));
        return x;
    }

    private static UInt slot(UInt qp, UInt ptr, int a) {
        return a == 0 ? qp : cat(qp, range(ptr, a - 1, 0)).asUInt();
    }

    /** A payload with the placement sequence number it waits for. */
    public static final class Sequenced<T extends Data> extends HwBundle {
        public final java.util.function.Supplier<T> type;
        public final T value;
        public final UInt seq;

        public Sequenced(java.util.function.Supplier<T> type) {
            this.type = type;
            this.value = field("value", type.get());
            seq = field("seq", uint(16));
        }
    }

    private <T extends Data> Stream<Sequenced<T>> withSeq(String name, Stream<T> in, UInt seq) {
        @SuppressWarnings("unchecked")
        Stream<Sequenced<T>> out = wire(name + "Seq", Streams.stream(
                () -> new Sequenced<T>(() -> (T) in.payloadType().apply())));
        set(out.valid(), in.valid());
        set(out.payload().value, in.payload());
        set(out.payload().seq, seq);
        set(in.ready(), out.ready());
        return out;
    }

    private static <T extends Data> void connectGated(Stream<Sequenced<T>> in, UInt doneCount, Stream<T> out) {
        connectGated(in, doneCount, False(), out);
    }

    private static <T extends Data> void connectGated(Stream<Sequenced<T>> in, UInt doneCount, Bool hold,
            Stream<T> out) {
        // seq is the number of placements issued before this segment's own: released once doneCount passes it.
        UInt ahead = sub(doneCount, in.payload().seq);
        Bool reached = and(lt(ahead, U(1 << 15, 16)), neq(ahead, U(0, 16)), not(hold));
        set(out.valid(), and(in.valid(), reached));
        set(out.payload(), in.payload().value);
        set(in.ready(), and(out.ready(), reached));
    }
}
