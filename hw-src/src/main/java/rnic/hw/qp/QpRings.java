package rnic.hw.qp;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.ddp.MemoryPort;
import rnic.hw.rdmap.RdmapRxControl;
import rnic.hw.rdmap.RdmapTxRequester;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.Data;
import spinal.core.UInt;
import spinal.core.Vec;
import spinal.lib.Flow;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4;

/**
 * The send, receive and completion rings of every QP in host memory, with their doorbells: between the host's
 * registers (ring bases, sizes, producer indices, QP states) and the host ports of the {@code RdmapEngine} (work
 * requests, receive buffers, events, local invalidations). Issue 5 contract, "QpRings" and "Core behaviour"; the
 * descriptor layouts are {@link rnic.wire.SqWqe}, {@link rnic.wire.RqWqe} and {@link rnic.wire.Cqe}, used at
 * elaboration; RFC 5040 §5 (RDMAP-23: a QP's requests complete in submission order; RDMAP-12: untagged messages
 * consume posted buffers in order), §5.4 (a Terminate ends the stream: the QP goes to ERR).
 *
 * <pre>
 *  state, sqBase/Size/Prod ─► QpSqFetcher ─ elements ─► QpSqIssuer ──► requests, stagInvalidate ◄ stagInvalidateDone
 *                                  │  ▲ rewind            │ own completions (local invalidate, bad element)
 *  state, rqBase/Size/Prod ─► QpRqFetcher ─► QpRqFeeder ──┼──────────► recv
 *                                  │   credits ▲          ▼
 *                                  │           └── QpEventRouter ◄──── events, mpaErrors
 *                              QpReadMerge            │ sqCons, rqCons, qpError
 *                                  │ AR/R             ▼
 *                                 axi ◄──── AW/W/B ── QpCqWriter ◄─── cqBase/Size/Cons ──► cqProd
 * </pre>
 *
 * <p><b>Ports.</b> Per-QP and per-CQ ports are {@link Vec}s: element {@code i} of {@code state} is the Verilog port
 * {@code state_i}. From the registers, per QP: {@code state} (QpState code), {@code sqBase}/{@code rqBase} (ring
 * base, aligned to the element size), {@code sqSize}/{@code rqSize} (log2 slots, at most
 * {@value QpRingsConfig#MAX_SIZE_LOG2}: larger values act as that), {@code sqProd}/{@code rqProd} (16-bit doorbells),
 * {@code sqCq}/{@code rqCq}, {@code clear} (one-cycle pulse: the QP went to RESET); out {@code sqCons}/{@code rqCons}.
 * Per CQ: {@code cqBase} (32-octet aligned), {@code cqSize}, {@code cqCons}; out {@code cqProd} (entries written, write
 * response received). Engine side: {@code requests}, {@code recv}, {@code stagInvalidate} out, {@code events},
 * {@code stagInvalidateDone} in; {@code mpaErrors} in; {@code qpError} out (the register block moves the QP to
 * {@code state}, ERR or SQE, and latches {@code kind}/{@code status} into QP_ERROR); {@code memoryError} (sticky: a
 * ring read or entry write got an error response); {@code axi}, one AXI4 master of the
 * {@code rnic.hw.ddp.MemoryPort} shape (ID 0 on every burst, responses expected in order; R and W are never stalled by
 * the rings: a read is asked for only with room for its data, a write only with its entry in a register).
 *
 * <p><b>Send queue.</b> A QP in RTS fetches its elements between {@code sqCons} (at most a ring ahead) and
 * {@code sqProd}, QPs in round robin, one burst per element (its first 80 octets), up to
 * {@value QpRingFetcher#DEPTH} in flight; they are carried out in fetch order ({@link QpSqIssuer}): an RDMAP operation
 * becomes a {@code WorkRequest} with the element's fields, its opcode the element's, its wrId the element's 16-bit
 * ring index with the signaled flag in bit 31; FENCE, LOCAL_INVALIDATE and bad elements first wait for every earlier
 * request of their QP; a LOCAL_INVALIDATE holds every later element until the STag table answers. In SQD nothing more
 * is fetched, what was fetched still starts. An unknown opcode (or a failed read) completes with an error status and
 * moves the QP to SQE; its send queue resumes after the element when the host moves it back to RTS.
 *
 * <p><b>Receive queue.</b> From INIT on, posted buffers go to the engine's per-QP queue while it has room
 * ({@code DdpConfig.recvDepth}, counted as buffers handed on minus receive completions).
 *
 * <p><b>Completions.</b> ({@link QpEventRouter}, {@link QpCqWriter}) SEND_DONE, READ_DONE, ATOMIC_DONE,
 * LOCAL_INVALIDATE_DONE move {@code sqCons} past the request (in submission order, RDMAP-23) and write an entry on the
 * send CQ when signaled (a Local Invalidate always) or failed; RECEIVE, RECEIVE_IMMEDIATE move {@code rqCons} and
 * write on the receive CQ; an entry's wrId is the element's slot (ring index mod 2^size). TERMINATE_SENT,
 * TERMINATE_RECEIVED and MPA errors write an entry with wrId 0xFFFFFFFF on the send CQ and move the QP to ERR. In ERR (and RESET) nothing is fetched or
 * reported for the QP: the driver flushes what did not complete. An entry is never written over one the host has not
 * released ({@code cqCons}): an entry that meets its CQ full is dropped and the CQ marked {@code cqOverflow} (a CQ
 * error, as a verbs CQ overrun; every later entry for it is dropped too until it is given a new ring), so one CQ the
 * host does not read never holds the completion path, the engine's events or another CQ's entries. A CQ given a new
 * ring (its base or size changes) starts again at index 0, phase 1, without the mark.
 *
 * <p><b>Reset.</b> {@code clear} returns the QP's indices, credits and error state to 0 and discards its elements in
 * flight; a request or receive post already shown on its port is still delivered (stream contract): the core closes
 * the engine's QP in the same cycle or later, which flushes such a post (RdmapRxControl flushes a closed QP's
 * receive queue).
 *
 * <p><b>Per-QP hardware.</b> Each QP costs what must be looked at every cycle: its fetch indices and in-flight
 * counts and "may fetch" terms in the fetchers, its receive credits, its consumer indices (ports), its halted and
 * deferred bits. What is looked at for one QP at a time is selected once (the picked QP's base, index and size, the
 * slot mask decoded after the selection; the round robin is linear in the QP count), and a deferred element's index
 * is kept in LUT RAM and compared only when its QP's {@code sqCons} moves (the router's {@code sqAdvance}).
 *
 * <p><b>Figures</b> (QpRingsTest, one-cycle memory, engine always ready): doorbell to WorkRequest 12 cycles at W = 64,
 * 4 at W = 512; one WorkRequest every 10 cycles at W = 64 (the element's 10 beats), every 2 at W = 512; engine event to
 * the entry in host memory 7 / 4 cycles; one entry every 5 / 2 cycles.
 */
public final class QpRings extends HwComponent {

    /** An MPA receiver error of a connection (= QP): written as an MPA_ERROR completion, the QP goes to ERR. */
    public static final class MpaError extends HwBundle {
        public final QpRingsConfig config;
        public final UInt qp;
        /** The {@link rnic.wire.MpaErrorCode}. */
        public final UInt code;
        /** TCP sequence number where the error was found. */
        public final UInt seq;

        public MpaError(QpRingsConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            code = field("code", uint(8));
            seq = field("seq", uint(32));
        }
    }

    /** The rings moved a QP to an error state: the register block applies it and latches QP_ERROR. */
    public static final class QpError extends HwBundle {
        public final QpRingsConfig config;
        public final UInt qp;
        /** {@link rnic.wire.QpState} code: ERR or SQE. */
        public final UInt state;
        /** {@link rnic.wire.CqeKind} code of the cause. */
        public final UInt kind;
        /** The completion status ({@link rnic.wire.Cqe#STATUS}) of the cause. */
        public final UInt status;

        public QpError(QpRingsConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            state = field("state", uint(3));
            kind = field("kind", uint(8));
            status = field("status", uint(8));
        }
    }

    /**
     * A completion entry is in host memory (its write response came back; ring order): the CQ it went to and whether
     * it counts for a solicited-only notify request — a receive completion of a Send with Solicited Event, Send with
     * SE and Invalidate or Immediate Data with SE (RFC 5040 §4.3, RFC 7306), or any completion with an error (a
     * non-zero status, a Terminate, an MPA error), as the verbs convention goes.
     */
    public static final class CqEvent extends HwBundle {
        public final int cqBits;
        public final UInt cq;
        public final Bool solicited;

        public CqEvent(int cqBits) {
            this.cqBits = cqBits;
            cq = field("cq", uint(cqBits));
            solicited = field("solicited", bool());
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final QpRingsConfig config;
        public final Axi4 axi;
        public final Vec<UInt> state;
        public final Vec<UInt> sqBase;
        public final Vec<UInt> sqSize;
        public final Vec<UInt> sqProd;
        public final Vec<UInt> sqCq;
        public final Vec<UInt> rqBase;
        public final Vec<UInt> rqSize;
        public final Vec<UInt> rqProd;
        public final Vec<UInt> rqCq;
        public final Vec<Bool> clear;
        public final Vec<UInt> sqCons;
        public final Vec<UInt> rqCons;
        public final Vec<UInt> cqBase;
        public final Vec<UInt> cqSize;
        public final Vec<UInt> cqCons;
        public final Vec<UInt> cqProd;
        /** Per CQ, sticky until it is given a new ring: an entry met the CQ full and was dropped. */
        public final Vec<Bool> cqOverflow;
        public final Stream<RdmapTxRequester.WorkRequest> requests;
        public final Stream<RdmapRxControl.RecvPost> recv;
        public final Stream<RdmapRxControl.Event> events;
        public final Stream<UInt> stagInvalidate;
        public final Flow<Bool> stagInvalidateDone;
        public final Stream<MpaError> mpaErrors;
        public final Flow<QpError> qpError;
        /** One entry per completion entry once it is in host memory: what a CQ's notify request looks at. */
        public final Flow<CqEvent> cqEvent;
        /** Sticky: a ring read or a completion write got an error response. */
        public final Bool memoryError;

        public Io(QpRingsConfig config) {
            this.config = config;
            QpRingsConfig c = config;
            DdpConfig d = c.ddp();
            int n = c.qpCount();
            int ib = QpRingsConfig.INDEX_BITS;
            int sb = QpRingsConfig.SIZE_BITS;
            axi = field("axi", MemoryPort.master(c.dataWidth()));
            state = field("state", in(perIndex(n, () -> uint(3))));
            sqBase = field("sqBase", in(perIndex(n, () -> uint(64))));
            sqSize = field("sqSize", in(perIndex(n, () -> uint(sb))));
            sqProd = field("sqProd", in(perIndex(n, () -> uint(ib))));
            sqCq = field("sqCq", in(perIndex(n, () -> uint(c.cqBits()))));
            rqBase = field("rqBase", in(perIndex(n, () -> uint(64))));
            rqSize = field("rqSize", in(perIndex(n, () -> uint(sb))));
            rqProd = field("rqProd", in(perIndex(n, () -> uint(ib))));
            rqCq = field("rqCq", in(perIndex(n, () -> uint(c.cqBits()))));
            clear = field("clear", in(perIndex(n, () -> bool())));
            sqCons = field("sqCons", out(perIndex(n, () -> uint(ib))));
            rqCons = field("rqCons", out(perIndex(n, () -> uint(ib))));
            cqBase = field("cqBase", in(perIndex(c.cqCount(), () -> uint(64))));
            cqSize = field("cqSize", in(perIndex(c.cqCount(), () -> uint(sb))));
            cqCons = field("cqCons", in(perIndex(c.cqCount(), () -> uint(ib))));
            cqProd = field("cqProd", out(perIndex(c.cqCount(), () -> uint(ib))));
            cqOverflow = field("cqOverflow", out(perIndex(c.cqCount(), () -> bool())));
            requests = field("requests", Streams.masterStream(() -> new RdmapTxRequester.WorkRequest(d)));
            recv = field("recv", Streams.masterStream(() -> new RdmapRxControl.RecvPost(d)));
            events = field("events", Streams.slaveStream(() -> new RdmapRxControl.Event(d)));
            stagInvalidate = field("stagInvalidate", Streams.masterStream(() -> uint(32)));
            stagInvalidateDone = field("stagInvalidateDone", spinal.lib.slave$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(spinal.core.Bool::new))));
            mpaErrors = field("mpaErrors", Streams.slaveStream(() -> new MpaError(c)));
            qpError = field("qpError", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new QpError(c)))));
            cqEvent = field("cqEvent", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new CqEvent(c.cqBits())))));
            memoryError = field("memoryError", out(bool()));
        }
    }

    /**
     * Passes the router's entries to the CQ writer and reports each as a {@link CqEvent} when its write response
     * comes back: the writer's bursts are the only writes of the rings and complete in order (ID 0), so a FIFO of
     * (CQ, solicited) popped per write response pairs them; an event never precedes its entry in memory. The FIFO
     * holds more than the writer can have in flight (its entry register plus {@link QpCqWriter#OUTSTANDING} bursts);
     * should it be full, entries wait.
     */
    private void cqEvents(Stream<QpCqWriter.Request> cqes, Stream<QpCqWriter.Request> writer, QpRingsConfig c) {
        Stream<CqEvent> noted = wire("cqEventNoted", Streams.stream(() -> new CqEvent(c.cqBits())));
        set(writer.valid(), and(cqes.valid(), noted.ready()));
        set(writer.payload(), cqes.payload());
        set(cqes.ready(), and(writer.ready(), noted.ready()));
        QpCqWriter.Request e = cqes.payload();
        UInt opcode = range(e.opcode, 3, 0);
        Bool receive = or(eq(e.kind, U(rnic.wire.CqeKind.RECEIVE.code(), 8)),
                eq(e.kind, U(rnic.wire.CqeKind.RECEIVE_IMMEDIATE.code(), 8)));
        Bool se = or(eq(opcode, U(rnic.wire.RdmapOpcode.SEND_WITH_SE.code(), 4)),
                eq(opcode, U(rnic.wire.RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE.code(), 4)),
                eq(opcode, U(rnic.wire.RdmapOpcode.IMMEDIATE_DATA_WITH_SE.code(), 4)));
        Bool error = or(neq(e.status, U(0, 8)), eq(e.kind, U(rnic.wire.CqeKind.TERMINATE_RECEIVED.code(), 8)),
                eq(e.kind, U(rnic.wire.CqeKind.TERMINATE_SENT.code(), 8)),
                eq(e.kind, U(rnic.wire.CqeKind.MPA_ERROR.code(), 8)));
        // A dropped entry (its CQ full) is never written: no event, nothing to wait for.
        set(noted.valid(), and(cqes.valid(), writer.ready(), noted.ready(), not(cqWrite.io.dropping)));
        set(noted.payload().cq, e.cq);
        set(noted.payload().solicited, wire("cqEventSolicited", or(and(receive, se), error)));
        Stream<CqEvent> inFlight = Streams.fifo(noted, 2 * QpCqWriter.OUTSTANDING);
        Bool written = wire("cqEntryWritten", io.axi.b().fire());
        set(inFlight.ready(), written);
        set(io.cqEvent.valid(), and(written, inFlight.valid()));
        set(io.cqEvent.payload(), inFlight.payload());
    }

    /** A Vec of {@code n} signals of one type (port element {@code i} becomes {@code <port>_i}). */
    static <T extends Data> Vec<T> perIndex(int n, Supplier<T> type) {
        return vec(n, type);
    }

    public final QpRingsConfig config;
    public final Io io;
    public final QpSqFetcher sqFetch;
    public final QpSqIssuer sqIssue;
    public final QpRqFetcher rqFetch;
    public final QpRqFeeder rqFeed;
    public final QpEventRouter router;
    public final QpCqWriter cqWrite;
    public final QpReadMerge reads;

    public QpRings(DdpConfig ddp, int cqCount) {
        this(new QpRingsConfig(ddp, cqCount));
    }

    public QpRings(QpRingsConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        sqFetch = child("sqFetch", () -> new QpSqFetcher(c));
        sqIssue = child("sqIssue", () -> new QpSqIssuer(c));
        rqFetch = child("rqFetch", () -> new QpRqFetcher(c));
        rqFeed = child("rqFeed", () -> new QpRqFeeder(c));
        router = child("router", () -> new QpEventRouter(c));
        cqWrite = child("cqWrite", () -> new QpCqWriter(c));
        reads = child("reads", () -> new QpReadMerge(c.dataWidth()));
        int n = c.qpCount();

        Bits clear = wire("clearBits", io.clear.asBits());
        Bits dead = router.io.dead;

        // ---- send queue: fetch → issue → engine; the issuer's own completions to the router ----
        for (int q = 0; q < n; q++) {
            set(sqFetch.io.base.apply(q), io.sqBase.apply(q));
            set(sqFetch.io.size.apply(q), io.sqSize.apply(q));
            set(sqFetch.io.prod.apply(q), io.sqProd.apply(q));
            set(sqFetch.io.cons.apply(q), router.io.sqCons.apply(q));
            set(sqIssue.io.state.apply(q), io.state.apply(q));
            set(sqIssue.io.sqCons.apply(q), router.io.sqCons.apply(q));
        }
        set(sqFetch.io.enable, sqIssue.io.fetchEnable);
        set(sqFetch.io.clear, clear);
        set(sqFetch.io.rewind.valid(), sqIssue.io.rewind.valid());
        set(sqFetch.io.rewind.payload(), sqIssue.io.rewind.payload());
        Streams.connect(sqFetch.io.entries, sqIssue.io.wqes);
        set(sqIssue.io.stale, sqFetch.io.stale);
        set(sqIssue.io.sqAdvance.valid(), router.io.sqAdvance.valid());
        set(sqIssue.io.sqAdvance.payload(), router.io.sqAdvance.payload());
        set(sqIssue.io.dead, dead);
        set(sqIssue.io.clear, clear);
        Streams.connect(sqIssue.io.requests, io.requests);
        Streams.connect(sqIssue.io.stagInvalidate, io.stagInvalidate);
        set(sqIssue.io.stagInvalidateDone.valid(), io.stagInvalidateDone.valid());
        set(sqIssue.io.stagInvalidateDone.payload(), io.stagInvalidateDone.payload());

        // ---- receive queue: fetch → feeder (credits) → engine ----
        for (int q = 0; q < n; q++) {
            set(rqFetch.io.base.apply(q), io.rqBase.apply(q));
            set(rqFetch.io.size.apply(q), io.rqSize.apply(q));
            set(rqFetch.io.prod.apply(q), io.rqProd.apply(q));
            set(rqFetch.io.cons.apply(q), router.io.rqCons.apply(q));
            set(rqFeed.io.state.apply(q), io.state.apply(q));
        }
        set(rqFetch.io.enable, rqFeed.io.fetchEnable);
        set(rqFetch.io.clear, clear);
        rqFetch.io.rewind.setIdle();
        Streams.connect(rqFetch.io.entries, rqFeed.io.wqes);
        set(rqFeed.io.stale, rqFetch.io.stale);
        set(rqFeed.io.dead, dead);
        set(rqFeed.io.clear, clear);
        set(rqFeed.io.fetched.valid(), rqFetch.io.fetched.valid());
        set(rqFeed.io.fetched.payload(), rqFetch.io.fetched.payload());
        set(rqFeed.io.release.valid(), router.io.rqRelease.valid());
        set(rqFeed.io.release.payload(), router.io.rqRelease.payload());
        Streams.connect(rqFeed.io.recv, io.recv);

        // ---- completions: router → CQ writer ----
        Streams.connect(sqIssue.io.local, router.io.local);
        Streams.connect(io.mpaErrors, router.io.mpaErrors);
        Streams.connect(io.events, router.io.events);
        for (int q = 0; q < n; q++) {
            set(router.io.state.apply(q), io.state.apply(q));
            set(router.io.sqSize.apply(q), io.sqSize.apply(q));
            set(router.io.rqSize.apply(q), io.rqSize.apply(q));
            set(router.io.sqCq.apply(q), io.sqCq.apply(q));
            set(router.io.rqCq.apply(q), io.rqCq.apply(q));
            set(io.sqCons.apply(q), router.io.sqCons.apply(q));
            set(io.rqCons.apply(q), router.io.rqCons.apply(q));
        }
        set(router.io.clear, clear);
        set(io.qpError.valid(), router.io.qpError.valid());
        set(io.qpError.payload(), router.io.qpError.payload());
        cqEvents(router.io.cqes, cqWrite.io.requests, c);
        for (int k = 0; k < c.cqCount(); k++) {
            set(cqWrite.io.base.apply(k), io.cqBase.apply(k));
            set(cqWrite.io.size.apply(k), io.cqSize.apply(k));
            set(cqWrite.io.cons.apply(k), io.cqCons.apply(k));
            set(io.cqProd.apply(k), cqWrite.io.prod.apply(k));
            set(io.cqOverflow.apply(k), cqWrite.io.overflow.apply(k));
        }

        // ---- memory ----
        reads.io.sq.$less$less(sqFetch.io.axi);
        reads.io.rq.$less$less(rqFetch.io.axi);
        io.axi.ar().$less$less(reads.io.axi.ar());
        reads.io.axi.r().$less$less(io.axi.r());
        io.axi.aw().$less$less(cqWrite.io.axi.aw());
        io.axi.w().$less$less(cqWrite.io.axi.w());
        cqWrite.io.axi.b().$less$less(io.axi.b());
        Bool memoryError = regInit("memoryErrorSticky", bool(), False());
        Bool sqReadError = wire("sqReadError", and(sqIssue.io.local.fire(),
                eq(sqIssue.io.local.payload().status, U(rnic.wire.Cqe.STATUS_WQE_READ_ERROR, 8))));
        when(or(cqWrite.io.writeError, rqFeed.io.readError, sqReadError), () -> set(memoryError, True()));
        set(io.memoryError, memoryError);
    }
}
