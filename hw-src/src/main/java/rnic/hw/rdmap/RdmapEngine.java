package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.DdpBeat;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.ddp.DdpPlacer;
import rnic.hw.ddp.DdpRxHeader;
import rnic.hw.ddp.DdpSegmentBuilder;
import rnic.hw.ddp.DdpTagValidator;
import rnic.hw.ddp.MemoryArbiter;
import rnic.hw.ddp.MemoryPort;
import rnic.hw.ddp.StagProgram;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Flow;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4;

/**
 * The DDP and RDMAP engines of one RNIC, for {@code qpCount} QPs (one DDP stream each), between the MPA layer
 * (segments in and out, {@link DdpBeat}) and host memory (the {@link MemoryPort}), with the host's work requests,
 * receive buffers, STag registrations and QP setup as inputs and its events as output (RFC 5040, RFC 5041, RFC 7306;
 * docs/requirements.md §1.2, §1.3).
 *
 * <pre>
 *  rx ─► DdpRxHeader ─ head ─► RdmapRxControl ◄─► DdpTagValidator ◄─ stagProgram / stagInvalidate
 *             │                  │ place  │ jobs, terminates
 *             └─ payload FIFO ─► DdpPlacer │──► RdmapResponder ◄─► RdmapAtomicEngine
 *                                  │       │          │ segments
 *  requests ─► RdmapTxRequester ───┼───────┼──────────┴─► DdpSegmentBuilder ─► tx
 *                                  └── MemoryArbiter ◄┘ (reads, writes) ─► axi
 * </pre>
 *
 * <p>Received segments are decided by {@link RdmapRxControl} and placed by {@link DdpPlacer}; the payload waits in a
 * FIFO of {@value #PAYLOAD_DEPTH} beats while its head is decided, so placement starts before a long segment has
 * ended. Segments to send come from the responder (Read Responses, Atomic Responses, Terminates — first) and the
 * requester (work requests), built with their payload by {@link DdpSegmentBuilder}. After this side has sent a
 * Terminate on a QP nothing more is sent on it (RFC 5040 §5.4: the stream is dead). Events of the receive side, the
 * responder (ATOMIC_DONE) and the requester (SEND_DONE) are merged onto {@code events}, the requester's completions
 * of each QP in submission order ({@link RdmapCompletionOrder}, RDMAP-23), which also frees ORD slots. A Write, Send
 * or Immediate Data completes when its last segment has left on {@code tx} whole — every payload octet read, so the
 * host may reuse the source buffer the cycle SEND_DONE arrives. Local failures, decided at the transmit output: a
 * payload read answered SLVERR/DECERR ({@link #LOCAL_ERROR}: the request completes in error, then TERMINATE_SENT) and
 * an MPA receive error of the QP's connection ({@code llpError}: the LLP Terminate, no event) fail the QP like a
 * receive-side error — inbound dropped, the Terminate its last segment. Opening or closing a QP forgets its
 * outstanding Reads and Atomics and the completions still queued for it.
 */
public final class RdmapEngine extends HwComponent {
    /**
     * The cause of a local memory error (a payload read answered SLVERR/DECERR): E-R0, RDMAP Local Catastrophic,
     * Terminate 0/0/00 without headers (RFC 5040 §7.1, docs/requirements.md §3 E-R0/E-R21: 0/0/xx, headers absent).
     */
    public static final rnic.wire.TerminateCause LOCAL_ERROR = rnic.wire.TerminateCause.RDMAP_LOCAL_CATASTROPHIC;
    /** Beats of received payload buffered while the segment's head is decided. */
    public static final int PAYLOAD_DEPTH = 32;

    /** Opens or closes a QP: receive state, Protection Domain, IRD, ORD and the MULPDU of its MPA connection. */
    public static final class Setup extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        public final Bool open;
        public final UInt pd;
        public final UInt ird;
        public final UInt ord;
        public final UInt mulpdu;

        public Setup(DdpConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            open = field("open", bool());
            pd = field("pd", uint(config.pdWidth()));
            ird = field("ird", uint(8));
            ord = field("ord", uint(8));
            mulpdu = field("mulpdu", uint(16));
        }
    }

    /** An MPA receiver failure of a QP's connection: the QP and the MPA Error Code (RFC 5044 §8: 1 … 7). */
    public static final class LlpError extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        public final UInt code;

        public LlpError(DdpConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            code = field("code", uint(3));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final DdpConfig config;
        public final Stream<DdpBeat> rx;
        public final Stream<DdpBeat> tx;
        public final Axi4 axi;
        public final Stream<RdmapTxRequester.WorkRequest> requests;
        public final Stream<RdmapRxControl.RecvPost> recv;
        public final Stream<Setup> setup;
        public final Stream<StagProgram> stagProgram;
        public final Stream<UInt> stagInvalidate;
        public final Flow<Bool> stagInvalidateDone;
        public final Stream<RdmapRxControl.Event> events;
        /**
         * The MPA receiver of a QP's connection failed after Full Operation (CRC, Marker, a hole: E-M1…E-M3): the QP
         * fails and sends the Terminate of the error (Layer LLP, EType 0, the MPA Error Code, no headers; docs/requirements.md
         * §3.1, RDMAP-18, DDP-27) as its last segment. No event: the MPA layer reports the error to the host itself.
         * Always taken.
         */
        public final Stream<LlpError> llpError;
        /** Sticky: a memory access of a placement, fetch or atomic got an error response. */
        public final Bool memoryError;
        /**
         * The receive side holds nothing of the segments that reached it: every one handed in on {@code rx} whose head
         * was taken has been decided and placed, and no event is waiting on {@code events}. Together with a count of
         * the segments handed in against {@link #headTaken}, it tells when an MPA end of stream may fail the QP
         * without overtaking the completions of the ULPDUs before it.
         */
        public final Bool rxQuiet;
        /** A pulse per segment head the receive checks took (one per segment handed in on {@code rx}). */
        public final Bool headTaken;
        /**
         * A pulse per received segment, in the order the segments came in on {@code rx}: the receive side has decided
         * it (placed or dropped, its Terminate or response decided, its QP failed if it fails the QP). Segments taken
         * on {@code rx} and not yet decided are the ones an MPA error reported now would overtake.
         */
        public final Bool rxDecided;

        public Io(DdpConfig config) {
            this.config = config;
            DdpConfig c = config;
            rx = field("rx", Streams.slaveStream(() -> new DdpBeat(c)));
            tx = field("tx", Streams.masterStream(() -> new DdpBeat(c)));
            axi = field("axi", MemoryPort.master(c.dataWidth()));
            requests = field("requests", Streams.slaveStream(() -> new RdmapTxRequester.WorkRequest(c)));
            recv = field("recv", Streams.slaveStream(() -> new RdmapRxControl.RecvPost(c)));
            setup = field("setup", Streams.slaveStream(() -> new Setup(c)));
            stagProgram = field("stagProgram", Streams.slaveStream(() -> new StagProgram(c)));
            stagInvalidate = field("stagInvalidate", Streams.slaveStream(() -> uint(32)));
            stagInvalidateDone = field("stagInvalidateDone", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(spinal.core.Bool::new))));
            events = field("events", Streams.masterStream(() -> new RdmapRxControl.Event(c)));
            llpError = field("llpError", Streams.slaveStream(() -> new LlpError(c)));
            memoryError = field("memoryError", out(bool()));
            rxQuiet = field("rxQuiet", out(bool()));
            headTaken = field("headTaken", out(bool()));
            rxDecided = field("rxDecided", out(bool()));
        }
    }

    public final DdpConfig config;
    public final Io io;
    public final DdpRxHeader header;
    public final RdmapRxControl control;
    public final DdpTagValidator validator;
    public final DdpPlacer placer;
    public final RdmapTxRequester requester;
    public final RdmapResponder responder;
    public final RdmapAtomicEngine atomic;
    public final DdpSegmentBuilder builder;
    public final MemoryArbiter memory;
    public final RdmapCompletionOrder order;

    public RdmapEngine(DdpConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        header = child("header", () -> new DdpRxHeader(c));
        control = child("control", () -> new RdmapRxControl(c));
        validator = child("validator", () -> new DdpTagValidator(c, DdpTagValidator.DEFAULT_TAG_WIDTH));
        placer = child("placer", () -> new DdpPlacer(c, DdpPlacer.DEFAULT_TAG_WIDTH));
        requester = child("requester", () -> new RdmapTxRequester(c));
        responder = child("responder", () -> new RdmapResponder(c));
        atomic = child("atomic", () -> new RdmapAtomicEngine(c));
        builder = child("builder", () -> new DdpSegmentBuilder(c, DdpSegmentBuilder.DEFAULT_TAG_WIDTH));
        memory = child("memory", () -> new MemoryArbiter(c.dataWidth()));
        order = child("order", () -> new RdmapCompletionOrder(c));

        // ---- receive ----
        Streams.connect(io.rx, header.io.input);
        Streams.connect(header.io.header, control.io.header);
        // Synchronous read (latency 2): a buffer of this size must map to block RAM, not LUTs.
        Stream<DdpBeat> payload = Streams.fifo(header.io.output, PAYLOAD_DEPTH, 2);
        Streams.connect(payload, placer.io.segment);
        // Segments the placer has taken whole: what the receive side waits for before a response.
        UInt inBeat = regInit("rxBeat", uint(16), U(0, 16));
        Bool inLast = wire("rxLastBeat", DdpBeat.isLastBeat(inBeat, payload.payload().length, c.octets()));
        when(payload.fire(), () -> set(inBeat, mux(inLast, U(0, 16), add(inBeat, U(1, 16)))));
        set(control.io.consumed, and(payload.fire(), inLast));

        Streams.connect(control.io.check, validator.io.check);
        Streams.connect(validator.io.result, control.io.checkResult);
        Streams.connect(io.stagProgram, validator.io.program);
        Streams.connect(io.stagInvalidate, validator.io.invalidate);
        set(io.stagInvalidateDone.valid(), validator.io.invalidateDone.valid());
        set(io.stagInvalidateDone.payload(), validator.io.invalidateDone.payload());

        Streams.connect(control.io.place, placer.io.cmd);
        // Stage 2 issues exactly one placement command per segment, in segment order, as it decides it.
        set(io.rxDecided, control.io.place.fire());
        set(placer.io.done.ready(), True());
        set(control.io.placed, placer.io.done.fire());

        Streams.connect(io.recv, control.io.recv);
        Streams.connect(requester.io.outstanding, control.io.outstanding);
        Streams.connect(control.io.jobs, responder.io.jobs);
        // The responder's Terminates: the receive side's, and those of local errors found at the transmit output
        // (below), the receive side's first; a shown one stays until taken.
        Stream<RdmapRxControl.TerminateJob> ctlTerm = control.io.terminates;
        Stream<RdmapRxControl.TerminateJob> toResponder = responder.io.terminates;
        java.util.List<Bool> termPending = new java.util.ArrayList<>();
        java.util.List<Bool> failPending = new java.util.ArrayList<>();
        java.util.List<UInt> termCause = new java.util.ArrayList<>();
        for (int q = 0; q < c.qpCount(); q++) {
            termCause.add(reg("localTermCause_" + q, uint(RdmapRxControl.CAUSE_BITS)));
            termPending.add(regInit("localTermPending_" + q, bool(), False()));
            failPending.add(regInit("localFailPending_" + q, bool(), False()));
        }
        UInt termQp = wire("localTermQp", lowestSet(termPending, c.qpBits()));
        Bool anyTerm = wire("localTermAny", orAll(termPending));
        Bool termHeldLocal = regInit("termHeldLocal", bool(), False());
        Bool termWaiting = regInit("termWaiting", bool(), False());
        Bool pickLocalTerm = wire("pickLocalTerm", mux(termWaiting, termHeldLocal, not(ctlTerm.valid())));
        RdmapRxControl.TerminateJob localJob = wire("localTerminate", new RdmapRxControl.TerminateJob(c));
        set(localJob.qp, termQp);
        set(localJob.cause, vec(termCause).apply(termQp));
        set(localJob.segmentLength, U(0, 16));
        set(localJob.octets, B(0, 8 * RdmapRxControl.TERMINATE_COPY_OCTETS));
        set(toResponder.valid(), mux(pickLocalTerm, anyTerm, ctlTerm.valid()));
        set(toResponder.payload(), mux(pickLocalTerm, localJob, ctlTerm.payload()));
        set(ctlTerm.ready(), and(toResponder.ready(), not(pickLocalTerm)));
        Bool localTermTaken = wire("localTermTaken", and(toResponder.fire(), pickLocalTerm));
        set(termWaiting, and(toResponder.valid(), not(toResponder.ready())));
        set(termHeldLocal, pickLocalTerm);
        Streams.connect(responder.io.atomic, atomic.io.job);
        Streams.connect(atomic.io.done, responder.io.atomicDone);

        // ---- setup, fanned out (every receiver is always ready) ----
        Setup su = io.setup.payload();
        set(io.setup.ready(), True());
        set(control.io.setup.valid(), io.setup.valid());
        set(control.io.setup.payload().qp, su.qp);
        set(control.io.setup.payload().open, su.open);
        set(control.io.setup.payload().pd, su.pd);
        set(control.io.setup.payload().ird, su.ird);
        for (RdmapTxRequester.TxSetup ts : new RdmapTxRequester.TxSetup[] {requester.io.setup.payload(),
                responder.io.setup.payload()}) {
            set(ts.qp, su.qp);
            set(ts.mulpdu, su.mulpdu);
            set(ts.ord, su.ord);
        }
        set(requester.io.setup.valid(), io.setup.valid());
        set(responder.io.setup.valid(), io.setup.valid());

        // ---- transmit ----
        // One message at a time per source: once a source's segment without L has gone, that source keeps the
        // builder until its L=1 segment (DDP-21). The responder goes first and its Terminates cut in at any segment
        // boundary. A QP whose receive side has failed sends nothing but its Terminate, and nothing after it
        // (RFC 5040 §5.4); its other segments are discarded here.
        Streams.connect(io.requests, requester.io.requests);
        Stream<DdpSegmentBuilder.Command> fromResponder = responder.io.segments;
        Stream<DdpSegmentBuilder.Command> fromRequester = requester.io.segments;
        UInt lock = regInit("txLock", uint(2), U(0, 2));
        Bool responderTerminate = wire("responderTerminate", eq(range(fromResponder.payload().header, 15, 8),
                B(rnic.wire.RdmapOpcode.TERMINATE.control(), 8)));
        Bool pickResponder = wire("pickResponder", and(fromResponder.valid(),
                or(neq(lock, U(2, 2)), responderTerminate)));
        Bool pickRequester = wire("pickRequester", and(not(pickResponder), fromRequester.valid(),
                neq(lock, U(1, 2))));
        DdpSegmentBuilder.Command chosen = wire("chosen",
                new DdpSegmentBuilder.Command(DdpSegmentBuilder.DEFAULT_TAG_WIDTH, c.qpBits()));
        set(chosen, mux(pickResponder, fromResponder.payload(), fromRequester.payload()));
        Bool isTerminate = wire("isTerminate", and(pickResponder, responderTerminate));
        java.util.List<Bool> dead = new java.util.ArrayList<>();
        // Per QP: its receive side failed, or it was closed, since it was last opened. The receive side's own failed
        // flag is cleared when the QP is closed (ERR), which comes soon after a failure: a response or request still
        // queued then must not go out after the Terminate (RFC 5040 §5.4; the fuzzer's finding F12). Only opening
        // the QP again ends it, as it ends {@code dead} (the Terminate has gone).
        java.util.List<Bool> stopped = new java.util.ArrayList<>();
        for (int q = 0; q < c.qpCount(); q++) {
            dead.add(regInit("txDead_" + q, bool(), False()));
            stopped.add(regInit("txStopped_" + q, bool(), False()));
        }
        java.util.List<Bool> txFailed = new java.util.ArrayList<>();
        for (int q = 0; q < c.qpCount(); q++) {
            final int qp = q;
            txFailed.add(wire("txFailed_" + q, or(stopped.get(q), control.io.failed.apply(q))));
            when(control.io.failed.apply(q), () -> set(stopped.get(qp), True()));
            when(and(io.setup.valid(), eq(su.qp, U(qp, c.qpBits()))), () -> set(stopped.get(qp), not(su.open)));
        }
        Bool discard = wire("discard", or(vec(dead).apply(chosen.qp),
                and(vec(txFailed).apply(chosen.qp), not(isTerminate))));
        Stream<DdpSegmentBuilder.Command> toBuilder = builder.io.cmd;
        Bool any = wire("anyPicked", or(pickResponder, pickRequester));
        set(toBuilder.valid(), and(any, not(discard)));
        set(toBuilder.payload(), chosen);
        Bool taken = wire("taken", and(any, or(toBuilder.ready(), discard)));
        set(fromResponder.ready(), and(pickResponder, taken));
        set(fromRequester.ready(), and(pickRequester, taken));
        Bool lastOfMessage = wire("lastOfMessage", chosen.header.apply(6));
        when(taken, () -> set(lock, mux(or(lastOfMessage, isTerminate), U(0, 2),
                mux(pickResponder, U(1, 2), U(2, 2)))));
        for (int q = 0; q < c.qpCount(); q++) {
            final int qp = q;
            when(and(toBuilder.fire(), isTerminate, eq(chosen.qp, U(qp, c.qpBits()))),
                    () -> set(dead.get(qp), True()));
            when(and(io.setup.valid(), su.open, eq(su.qp, U(qp, c.qpBits()))), () -> set(dead.get(qp), False()));
        }
        // A segment already built when its QP failed is dropped at the output, decided at its first beat: the
        // Terminate is the next segment the QP sends, and the last (RFC 5040 §5.4, the golden model's decision 14).
        Stream<DdpBeat> built = builder.io.segment;
        UInt outBeat = regInit("txBeat", uint(16), U(0, 16));
        Bool dropping = regInit("txDropping", bool(), False());
        Bool firstBeat = wire("txFirstBeat", eq(outBeat, U(0, 16)));
        Bool builtTerminate = wire("builtTerminate", eq(range(built.payload().data, 15, 8),
                B(rnic.wire.RdmapOpcode.TERMINATE.control(), 8)));
        // Once shown on tx, a beat stays until taken (the stream contract): only a first beat not yet shown is dropped.
        Bool shown = regInit("txShown", bool(), False());
        Bool dropThis = wire("txDrop", mux(firstBeat, and(vec(txFailed).apply(built.payload().qp),
                not(builtTerminate), not(shown)), dropping));
        Bool builtLast = wire("txLastBeat", DdpBeat.isLastBeat(outBeat, built.payload().length, c.octets()));
        set(io.tx.valid(), and(built.valid(), not(dropThis)));
        set(io.tx.payload(), built.payload());
        set(built.ready(), or(io.tx.ready(), dropThis));
        // A response holds its IRD slot until the first beat of its last segment is shown on tx (an Atomic Response is
        // one segment): held while it waits in the builder, so a peer exceeding IRD is caught however far ahead the
        // builder has read, and from that beat on the segment is committed.
        Bits head = built.payload().data;
        Bool lastResponse = wire("lastResponseOut", or(and(eq(range(head, 11, 8), B(2, 4)), head.apply(6),
                head.apply(7)), eq(range(head, 11, 8), B(0xB, 4))));
        set(control.io.irdRelease.valid(), and(io.tx.valid(), firstBeat, not(shown), lastResponse));
        set(control.io.irdRelease.payload(), built.payload().qp);
        set(shown, and(io.tx.valid(), not(io.tx.ready())));
        when(built.fire(), () -> {
            set(outBeat, mux(builtLast, U(0, 16), add(outBeat, U(1, 16))));
            set(dropping, and(dropThis, not(builtLast)));
        });
        set(builder.io.done.ready(), True());

        // ---- true completions and local errors, decided as a segment's last beat leaves whole (RDMAP-23) ----
        // A Write, Send or Immediate Data completes once its last segment has been built from memory and taken by
        // the MPA side: every payload octet has been read, so the host may reuse the source buffer at once. A
        // payload read answered SLVERR/DECERR fails the QP with a local catastrophic error (E-R0, Terminate 0/0/00,
        // no headers: RFC 5040 §5.4, §7.1): at the end of a request message (so the message's completion carries
        // the error), at once for a response segment. The segment itself has gone out whole (its framing cannot be
        // cut short); the Terminate is the next and last segment of the QP.
        Bits segTag = builder.io.segmentTag;
        Bool reqSeg = wire("segFromRequester", segTag.apply(RdmapTxRequester.TAG_REQUEST));
        Bool reqLast = wire("segEndsRequest", and(reqSeg, segTag.apply(RdmapTxRequester.TAG_LAST)));
        Bool reqCompletes = wire("segCompletesRequest", segTag.apply(RdmapTxRequester.TAG_COMPLETES));
        UInt bq = built.payload().qp;
        java.util.List<Bool> msgError = new java.util.ArrayList<>();
        for (int q = 0; q < c.qpCount(); q++) {
            msgError.add(regInit("requestReadError_" + q, bool(), False()));
        }
        Bool segEnd = wire("segSentWhole", and(built.fire(), builtLast, not(dropThis)));
        Bool segError = wire("segReadError", or(builder.io.segmentError, and(reqSeg, vec(msgError).apply(bq))));
        Bool failHere = wire("localFail", and(segEnd, segError, or(not(reqSeg), reqLast),
                not(vec(txFailed).apply(bq))));
        Flow<RdmapCompletionOrder.Sent> sentOut = order.io.sent;
        set(sentOut.valid(), and(segEnd, reqLast, reqCompletes));
        set(sentOut.payload().qp, bq);
        set(sentOut.payload().cause, mux(segError, U(RdmapRxControl.causeCode(LOCAL_ERROR), RdmapRxControl.CAUSE_BITS),
                U(0, RdmapRxControl.CAUSE_BITS)));
        java.util.List<Bool> halt = new java.util.ArrayList<>();
        for (int q = 0; q < c.qpCount(); q++) {
            final int qp = q;
            Bool mine = wire("localFail_" + q, and(failHere, eq(bq, U(q, c.qpBits()))));
            // An MPA error of the connection, unless the QP has failed already (one Terminate per QP).
            Bool llp = wire("llpFail_" + q, and(io.llpError.valid(), eq(io.llpError.payload().qp, U(q, c.qpBits())),
                    not(txFailed.get(q)), not(mine)));
            halt.add(or(mine, llp));
            when(llp, () -> {
                set(termPending.get(qp), True());
                set(termCause.get(qp), add(U(RdmapRxControl.LLP_CAUSE_BASE, RdmapRxControl.CAUSE_BITS),
                        io.llpError.payload().code.resize(RdmapRxControl.CAUSE_BITS)));
            });
            when(and(segEnd, reqSeg, eq(bq, U(q, c.qpBits()))), () -> set(msgError.get(qp),
                    and(not(reqLast), segError)));
            when(mine, () -> {
                set(termPending.get(qp), True());
                set(termCause.get(qp), U(RdmapRxControl.causeCode(LOCAL_ERROR), RdmapRxControl.CAUSE_BITS));
                set(failPending.get(qp), True());
            });
            when(and(localTermTaken, eq(termQp, U(q, c.qpBits()))), () -> set(termPending.get(qp), False()));
            // Only opening the QP again forgets its Terminate: the close that follows the failure (the QP going to
            // ERR) may come before the responder has taken it (the fuzzer's finding F13: the Terminate was lost).
            when(and(io.setup.valid(), su.open, eq(su.qp, U(qp, c.qpBits()))), () -> {
                set(msgError.get(qp), False());
                set(termPending.get(qp), False());
                set(failPending.get(qp), False());
            });
        }
        set(control.io.halt, catLsbFirst(halt));
        set(io.llpError.ready(), True());

        // ---- memory ----
        memory.io.placer.$less$less(placer.io.axi);
        memory.io.builder.$less$less(builder.io.axi);
        memory.io.atomic.$less$less(atomic.io.axi);
        io.axi.$less$less(memory.io.axi);
        Bool memoryError = regInit("memoryErrorSticky", bool(), False());
        when(or(and(placer.io.done.fire(), placer.io.done.payload().error),
                and(builder.io.done.fire(), builder.io.done.payload().error),
                and(atomic.io.done.fire(), atomic.io.done.payload().error)), () -> set(memoryError, True()));
        set(io.memoryError, memoryError);
        set(io.rxQuiet, and(control.io.quiet, not(control.io.header.valid())));
        set(io.headTaken, control.io.headTaken);

        // ---- events: the receive side's own, and the requester's completions in submission order per QP ----
        Stream<RdmapRxControl.Event> rxAll = control.io.events;
        Bool isReadDone = wire("isReadDone", eq(rxAll.payload().kind, U(RxEventKind.READ_DONE.code(), 3)));
        Stream<RdmapRxControl.Event> rxEv = wire("rxEvents", Streams.stream(() -> new RdmapRxControl.Event(c)));
        set(rxEv.valid(), and(rxAll.valid(), not(isReadDone)));
        set(rxEv.payload(), rxAll.payload());
        set(order.io.readDone.valid(), and(rxAll.valid(), isReadDone));
        set(order.io.readDone.payload(), rxAll.payload());
        set(rxAll.ready(), mux(isReadDone, order.io.readDone.ready(), rxEv.ready()));
        Streams.connect(responder.io.events, order.io.atomicDone);
        Stream<RdmapTxRequester.Completion> sent = requester.io.completions;
        RdmapCompletionOrder.Submitted sub = wire("submitted", new RdmapCompletionOrder.Submitted(c));
        RdmapTxRequester.Completion done = sent.payload();
        set(sub.qp, done.qp);
        set(sub.kind, done.kind);
        set(sub.event.kind, mux(eq(done.kind, U(RdmapCompletionOrder.READ, 2)), U(RxEventKind.READ_DONE.code(), 3),
                mux(eq(done.kind, U(RdmapCompletionOrder.ATOMIC, 2)), U(RxEventKind.ATOMIC_DONE.code(), 3),
                        U(RxEventKind.SEND_DONE.code(), 3))));
        set(sub.event.qp, done.qp);
        set(sub.event.wrId, done.wrId);
        set(sub.event.length, done.length);
        set(sub.event.info, B(0, 64));
        set(sub.event.cause, U(0, RdmapRxControl.CAUSE_BITS));
        set(sub.event.opcode, done.opcode);
        set(sub.event.stag, B(0, 32));
        Streams.connect(Streams.translateWith(sent, sub), order.io.submitted);
        Streams.connect(order.io.ordRelease, requester.io.ordRelease);
        set(order.io.clear.valid(), io.setup.valid());
        set(order.io.clear.payload(), su.qp);

        // A local failure's TERMINATE_SENT: after the failed request's own completion when that one can be reported
        // (it is ready in the same cycle and goes first), so the host sees the error completion, then the QP fail.
        UInt failQp = wire("localFailQp", lowestSet(failPending, c.qpBits()));
        Stream<RdmapRxControl.Event> local = wire("localFailEvents", Streams.stream(() -> new RdmapRxControl.Event(c)));
        set(local.valid(), orAll(failPending));
        RdmapRxControl.Event le = local.payload();
        set(le.kind, U(RxEventKind.TERMINATE_SENT.code(), 3));
        set(le.qp, failQp);
        set(le.wrId, B(0, 32));
        set(le.length, U(0, 32));
        set(le.info, B(0, 64));
        set(le.cause, U(RdmapRxControl.causeCode(LOCAL_ERROR), RdmapRxControl.CAUSE_BITS));
        set(le.opcode, U(0, 4));
        set(le.stag, B(0, 32));
        for (int q = 0; q < c.qpCount(); q++) {
            final int qp = q;
            when(and(local.fire(), eq(failQp, U(q, c.qpBits()))), () -> set(failPending.get(qp), False()));
        }
        Stream<RdmapRxControl.Event> fromOrder = order.io.completions;
        Stream<RdmapRxControl.Event> ordered = wire("orderedOrLocal", Streams.stream(
                () -> new RdmapRxControl.Event(c)));
        Bool orderHeld = regInit("orderedHeld", bool(), False());
        Bool orderWaiting = regInit("orderedWaiting", bool(), False());
        Bool pickOrder = wire("pickOrder", mux(orderWaiting, orderHeld, fromOrder.valid()));
        set(ordered.valid(), mux(pickOrder, fromOrder.valid(), local.valid()));
        set(ordered.payload(), mux(pickOrder, fromOrder.payload(), local.payload()));
        set(fromOrder.ready(), and(ordered.ready(), pickOrder));
        set(local.ready(), and(ordered.ready(), not(pickOrder)));
        set(orderWaiting, and(ordered.valid(), not(ordered.ready())));
        set(orderHeld, pickOrder);

        // Fixed priority, but a shown event stays until taken (the grant is kept while it waits).
        Stream<RdmapRxControl.Event> out = io.events;
        Bool evHeld = regInit("eventsHeldOrdered", bool(), False());
        Bool evWaiting = regInit("eventsWaiting", bool(), False());
        Bool pickOrdered = wire("eventsPickOrdered", mux(evWaiting, evHeld, not(rxEv.valid())));
        set(out.valid(), mux(pickOrdered, ordered.valid(), rxEv.valid()));
        set(out.payload(), mux(pickOrdered, ordered.payload(), rxEv.payload()));
        set(rxEv.ready(), and(out.ready(), not(pickOrdered)));
        set(ordered.ready(), and(out.ready(), pickOrdered));
        set(evWaiting, and(out.valid(), not(out.ready())));
        set(evHeld, pickOrdered);
    }

    /** The index of the lowest set bit of {@code bits} (0 when none is set). */
    private static UInt lowestSet(java.util.List<Bool> bits, int width) {
        UInt r = U(0, width);
        for (int i = bits.size() - 1; i >= 0; i--) {
            r = mux(bits.get(i), U(i, width), r);
        }
        return r;
    }

    private static Bool orAll(java.util.List<Bool> bits) {
        Bool r = bits.get(0);
        for (int i = 1; i < bits.size(); i++) {
            r = or(r, bits.get(i));
        }
        return r;
    }
}
