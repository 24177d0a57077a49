package rnic.hw.qp;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.rdmap.RdmapRxControl;
import rnic.wire.Cqe;
import rnic.wire.CqeKind;
import rnic.wire.QpState;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.core.Vec;
import spinal.lib.Flow;
import spinal.lib.Stream;

/**
 * Turns what happened to the work of each QP into ring state and completion entries (issue 5 contract, "Core
 * behaviour"): the engine's events, the send queue's own completions ({@link QpSqIssuer}: local invalidations, bad
 * elements) and the MPA receivers' errors.
 *
 * <ul>
 *   <li>SEND_DONE, READ_DONE, ATOMIC_DONE, LOCAL_INVALIDATE_DONE: the engine reports a QP's requests in submission
 *       order (RDMAP-23), the issuer its own only when every earlier one has completed, so {@code sqCons} simply
 *       moves past the request's index (the low 16 bits of its wrId); a {@link Cqe} goes to the QP's send CQ when the
 *       request was signaled (wrId bit {@value #SIGNALED_BIT}; {@link QpSqIssuer} sets it on every Local Invalidate) or
 *       failed.</li>
 *   <li>RECEIVE, RECEIVE_IMMEDIATE: {@code rqCons} moves past the buffer's index, its credit returns to the feeder
 *       ({@code rqRelease}), a Cqe goes to the receive CQ.</li>
 *   <li>TERMINATE_SENT, TERMINATE_RECEIVED, MPA_ERROR: a Cqe with wrId {@link Cqe#NO_WR_ID} on the send CQ, the QP to
 *       ERR ({@code qpError}, and {@code dead} here at once: the register block's state follows a few cycles later).
 *       A bad send queue element moves the QP to SQE the same way.</li>
 * </ul>
 * Nothing is reported for a QP in RESET or ERR (or dead): its work belongs to an earlier connection, or the driver
 * flushes it. Inputs are taken in priority order (the issuer's completions first: one of them must reach
 * {@code sqCons} before a later request's engine completion), one per cycle; an input waits while its entry cannot
 * be handed to the CQ writer.
 */
public final class QpEventRouter extends HwComponent {
    /** The wrId bit that marks a signaled send queue request (the low 16 bits are its ring index). */
    public static final int SIGNALED_BIT = 31;
    /** Bits of a completion's kind ({@link CqeKind} code). */
    public static final int KIND_BITS = 4;

    /** One thing that completed, in the terms of a {@link Cqe}. */
    public static final class Completion extends HwBundle {
        public final QpRingsConfig config;
        public final UInt qp;
        /** {@link CqeKind} code. */
        public final UInt kind;
        public final Bits wrId;
        public final UInt length;
        public final Bits info;
        public final Bits stag;
        public final UInt status;
        public final UInt opcode;
        /** The {@link QpState} the QP moves to (ERR, SQE), or 0 (RESET) for none. */
        public final UInt moveTo;

        public Completion(QpRingsConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            kind = field("kind", uint(KIND_BITS));
            wrId = field("wrId", bits(32));
            length = field("length", uint(32));
            info = field("info", bits(64));
            stag = field("stag", bits(32));
            status = field("status", uint(8));
            opcode = field("opcode", uint(4));
            moveTo = field("moveTo", uint(3));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final QpRingsConfig config;
        public final Stream<Completion> local;
        public final Stream<QpRings.MpaError> mpaErrors;
        public final Stream<RdmapRxControl.Event> events;
        public final Vec<UInt> state;
        public final Bits clear;
        public final Vec<UInt> sqSize;
        public final Vec<UInt> rqSize;
        public final Vec<UInt> sqCq;
        public final Vec<UInt> rqCq;
        public final Vec<UInt> sqCons;
        public final Vec<UInt> rqCons;
        /** Per QP: moved to ERR here (until cleared). */
        public final Bits dead;
        public final Flow<UInt> rqRelease;
        /** {@code sqCons} of {@code qp} moves to {@code index} (a send queue completion acted on; not a clear). */
        public final Flow<QpRingFetcher.Rewind> sqAdvance;
        public final Stream<QpCqWriter.Request> cqes;
        public final Flow<QpRings.QpError> qpError;

        public Io(QpRingsConfig config) {
            this.config = config;
            QpRingsConfig c = config;
            int n = c.qpCount();
            int ib = QpRingsConfig.INDEX_BITS;
            local = field("local", Streams.slaveStream(() -> new Completion(c)));
            mpaErrors = field("mpaErrors", Streams.slaveStream(() -> new QpRings.MpaError(c)));
            events = field("events", Streams.slaveStream(() -> new RdmapRxControl.Event(c.ddp())));
            state = field("state", in(QpRings.perIndex(n, () -> uint(3))));
            clear = field("clear", in(bits(n)));
            sqSize = field("sqSize", in(QpRings.perIndex(n, () -> uint(QpRingsConfig.SIZE_BITS))));
            rqSize = field("rqSize", in(QpRings.perIndex(n, () -> uint(QpRingsConfig.SIZE_BITS))));
            sqCq = field("sqCq", in(QpRings.perIndex(n, () -> uint(c.cqBits()))));
            rqCq = field("rqCq", in(QpRings.perIndex(n, () -> uint(c.cqBits()))));
            sqCons = field("sqCons", out(QpRings.perIndex(n, () -> uint(ib))));
            rqCons = field("rqCons", out(QpRings.perIndex(n, () -> uint(ib))));
            dead = field("dead", out(bits(n)));
            rqRelease = field("rqRelease", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> uint(c.qpBits())))));
            sqAdvance = field("sqAdvance", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new QpRingFetcher.Rewind(c)))));
            cqes = field("cqes", Streams.masterStream(() -> new QpCqWriter.Request(c)));
            qpError = field("qpError", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new QpRings.QpError(c)))));
        }
    }

    public final QpRingsConfig config;
    public final Io io;

    public QpEventRouter(QpRingsConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        int n = c.qpCount();
        int qb = c.qpBits();
        int ib = QpRingsConfig.INDEX_BITS;

        List<UInt> sqCons = new ArrayList<>();
        List<UInt> rqCons = new ArrayList<>();
        List<Bool> dead = new ArrayList<>();
        for (int q = 0; q < n; q++) {
            sqCons.add(regInit("sqCons_" + q, uint(ib), U(0, ib)));
            rqCons.add(regInit("rqCons_" + q, uint(ib), U(0, ib)));
            dead.add(regInit("dead_" + q, bool(), False()));
            set(io.sqCons.apply(q), sqCons.get(q));
            set(io.rqCons.apply(q), rqCons.get(q));
        }
        set(io.dead, catLsbFirst(dead));

        // ---- the three sources as completions ----
        RdmapRxControl.Event ev = io.events.payload();
        Completion fromEngine = wire("fromEngine", new Completion(c));
        set(fromEngine.qp, ev.qp);
        set(fromEngine.kind, ev.kind.resize(KIND_BITS));
        set(fromEngine.wrId, ev.wrId);
        set(fromEngine.length, ev.length);
        set(fromEngine.info, ev.info);
        set(fromEngine.stag, ev.stag);
        set(fromEngine.status, ev.cause.resize(8));
        set(fromEngine.opcode, ev.opcode);
        Bool terminate = wire("terminate", or(eq(ev.kind, U(CqeKind.TERMINATE_SENT.code(), 3)),
                eq(ev.kind, U(CqeKind.TERMINATE_RECEIVED.code(), 3))));
        set(fromEngine.moveTo, mux(terminate, U(QpState.ERR.code(), 3), U(QpState.RESET.code(), 3)));

        QpRings.MpaError me = io.mpaErrors.payload();
        Completion fromMpa = wire("fromMpa", new Completion(c));
        set(fromMpa.qp, me.qp);
        set(fromMpa.kind, U(CqeKind.MPA_ERROR.code(), KIND_BITS));
        set(fromMpa.wrId, B(Cqe.NO_WR_ID & 0xFFFFFFFFL, 32));
        set(fromMpa.length, U(0, 32));
        set(fromMpa.info, me.seq.resize(64).asBits());
        set(fromMpa.stag, B(0, 32));
        set(fromMpa.status, me.code);
        set(fromMpa.opcode, U(0, 4));
        set(fromMpa.moveTo, U(QpState.ERR.code(), 3));

        Bool pickLocal = wire("pickLocal", io.local.valid());
        Bool pickMpa = wire("pickMpa", and(not(pickLocal), io.mpaErrors.valid()));
        Bool pickEngine = wire("pickEngine", and(not(pickLocal), not(pickMpa), io.events.valid()));
        Bool any = wire("any", or(pickLocal, pickMpa, pickEngine));
        Completion x = wire("chosen", new Completion(c));
        set(x, mux(pickLocal, io.local.payload(), mux(pickMpa, fromMpa, fromEngine)));

        // ---- what it means ----
        UInt q = x.qp;
        java.util.function.Function<CqeKind, Bool> is = k -> eq(x.kind, U(k.code(), KIND_BITS));
        Bool sq = wire("sendQueue", or(is.apply(CqeKind.SEND_DONE), is.apply(CqeKind.READ_DONE),
                is.apply(CqeKind.ATOMIC_DONE), is.apply(CqeKind.LOCAL_INVALIDATE_DONE)));
        Bool rq = wire("receiveQueue", or(is.apply(CqeKind.RECEIVE), is.apply(CqeKind.RECEIVE_IMMEDIATE)));
        Bool fatal = wire("fatal", or(is.apply(CqeKind.TERMINATE_SENT), is.apply(CqeKind.TERMINATE_RECEIVED),
                is.apply(CqeKind.MPA_ERROR)));
        UInt st = io.state.apply(q);
        Bool ignored = wire("ignored", or(vec(dead).apply(q), io.clear.apply(q), eq(st, U(QpState.RESET.code(), 3)),
                eq(st, U(QpState.ERR.code(), 3)), not(or(sq, rq, fatal))));
        Bool signaled = wire("signaled", x.wrId.apply(SIGNALED_BIT));
        Bool failed = wire("failed", neq(x.status, U(0, 8)));
        Bool writes = wire("writes", and(not(ignored), or(rq, fatal, and(sq, or(signaled, failed)))));
        UInt index = wire("index", range(x.wrId, ib - 1, 0).asUInt());
        UInt slot = wire("slot", and(index.asBits(), mux(rq, QpRingMath.slotMask(io.rqSize.apply(q)),
                QpRingMath.slotMask(io.sqSize.apply(q))).asBits()).asUInt());

        Stream<QpCqWriter.Request> out = wire("out", Streams.stream(() -> new QpCqWriter.Request(c)));
        QpCqWriter.Request o = out.payload();
        set(o.cq, mux(rq, io.rqCq.apply(q), io.sqCq.apply(q)));
        set(o.wrId, mux(fatal, B(Cqe.NO_WR_ID & 0xFFFFFFFFL, 32), slot.resize(32).asBits()));
        set(o.length, x.length);
        set(o.info, x.info);
        set(o.stag, x.stag);
        set(o.qp, q.resize(8));
        set(o.kind, x.kind.resize(8));
        set(o.status, x.status);
        set(o.opcode, x.opcode.resize(8));
        set(out.valid(), and(any, writes));
        Bool fire = wire("fire", and(any, or(not(writes), out.ready())));
        set(io.local.ready(), and(pickLocal, fire));
        set(io.mpaErrors.ready(), and(pickMpa, fire));
        set(io.events.ready(), and(pickEngine, fire));
        Streams.connect(Streams.m2sPipe(out), io.cqes);

        Bool acts = wire("acts", and(fire, not(ignored)));
        Bool moves = wire("moves", and(acts, neq(x.moveTo, U(QpState.RESET.code(), 3))));
        set(io.qpError.valid(), moves);
        set(io.qpError.payload().qp, q);
        set(io.qpError.payload().state, x.moveTo);
        set(io.qpError.payload().kind, x.kind.resize(8));
        set(io.qpError.payload().status, x.status);
        set(io.rqRelease.valid(), and(acts, rq));
        set(io.rqRelease.payload(), q);

        UInt next = wire("nextIndex", add(index, U(1, ib)));
        set(io.sqAdvance.valid(), and(acts, sq));
        set(io.sqAdvance.payload().qp, q);
        set(io.sqAdvance.payload().index, next);
        for (int p = 0; p < n; p++) {
            final int pp = p;
            Bool mine = wire("mine_" + p, and(acts, eq(q, U(p, qb))));
            when(and(mine, sq), () -> set(sqCons.get(pp), next));
            when(and(mine, rq), () -> set(rqCons.get(pp), next));
            when(and(mine, eq(x.moveTo, U(QpState.ERR.code(), 3))), () -> set(dead.get(pp), True()));
            when(io.clear.apply(p), () -> {
                set(sqCons.get(pp), U(0, ib));
                set(rqCons.get(pp), U(0, ib));
                set(dead.get(pp), False());
            });
        }
    }
}
