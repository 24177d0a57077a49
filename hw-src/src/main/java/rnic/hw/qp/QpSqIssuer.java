package rnic.hw.qp;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.rdmap.RdmapTxRequester;
import rnic.wire.Cqe;
import rnic.wire.CqeKind;
import rnic.wire.QpState;
import rnic.wire.SqWqe;
import rnic.wire.WqeOpcode;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.Mem;
import spinal.core.UInt;
import spinal.core.Vec;
import spinal.core.dontCare$;
import spinal.lib.Flow;
import spinal.lib.Stream;

/**
 * Carries out the send queue elements {@link QpSqFetcher} read, in fetch order, one at a time (issue 5 contract,
 * "Core behaviour"; RFC 5040 §5, RDMAP-23):
 *
 * <ul>
 *   <li>an RDMAP operation becomes the engine's {@link RdmapTxRequester.WorkRequest}: the element's opcode is the
 *       RDMAP opcode ({@link WqeOpcode}), its fields are copied, and the engine's wrId is the element's 16-bit ring
 *       index with the signaled flag in bit {@value QpEventRouter#SIGNALED_BIT};</li>
 *   <li>{@link SqWqe#FLAG_FENCE} (and every LOCAL_INVALIDATE and every bad element) first waits until every earlier
 *       request of the QP has completed ({@code sqCons} has reached the element's index). It does not wait at the
 *       head of the stream, where it would hold every other QP's work (an RDMA Read the peer is slow to answer would
 *       stall them all): it is <em>deferred</em> — taken and dropped, the QP's fetcher rewound to it, the QP's
 *       fetching halted until {@code sqCons} reaches it — and fetched again then, when it may start;</li>
 *   <li>LOCAL_INVALIDATE goes to the STag table ({@code stagInvalidate}); when it answers ({@code stagInvalidateDone})
 *       the completion goes to {@link QpEventRouter} as LOCAL_INVALIDATE_DONE, marked signaled whether the element
 *       was or not (status {@link Cqe#STATUS_INVALIDATE_FAILED} when the STag was not valid): the driver shows an
 *       unsignaled one only when it failed, and counts its CQ room like a signaled one's. Nothing else is started
 *       meanwhile, so every later request sees the STag invalid and its completion follows the invalidation's;</li>
 *   <li>an opcode that is no {@link WqeOpcode} (or an element whose read failed) completes with
 *       {@link Cqe#STATUS_BAD_OPCODE} ({@link Cqe#STATUS_WQE_READ_ERROR}) and moves the QP to SQE; the fetcher is
 *       rewound to the next element and stays halted until the QP's state has left RTS (the host moves it back).</li>
 * </ul>
 * Elements of a QP in RESET or ERR, moved to ERR here ({@code dead}) or stale (fetched before a clear or rewind) are
 * discarded. The fetch policy is here too ({@code fetchEnable}): a QP fetches in RTS only (in SQD the elements
 * already fetched are still carried out, none is fetched).
 */
public final class QpSqIssuer extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final QpRingsConfig config;
        public final Stream<QpRingFetcher.Entry> wqes;
        public final Bool stale;
        public final Vec<UInt> state;
        public final Bits dead;
        public final Bits clear;
        public final Vec<UInt> sqCons;
        /** {@link QpEventRouter}'s {@code sqAdvance}: a QP's {@code sqCons} moved (what a deferred element waits for). */
        public final Flow<QpRingFetcher.Rewind> sqAdvance;
        public final Stream<RdmapTxRequester.WorkRequest> requests;
        public final Stream<UInt> stagInvalidate;
        public final Flow<Bool> stagInvalidateDone;
        public final Stream<QpEventRouter.Completion> local;
        public final Flow<QpRingFetcher.Rewind> rewind;
        public final Bits fetchEnable;

        public Io(QpRingsConfig config) {
            this.config = config;
            QpRingsConfig c = config;
            int n = c.qpCount();
            wqes = field("wqes", Streams.slaveStream(() -> new QpRingFetcher.Entry(c, QpSqFetcher.KEEP_OCTETS)));
            stale = field("stale", in(bool()));
            state = field("state", in(QpRings.perIndex(n, () -> uint(3))));
            dead = field("dead", in(bits(n)));
            clear = field("clear", in(bits(n)));
            sqCons = field("sqCons", in(QpRings.perIndex(n, () -> uint(QpRingsConfig.INDEX_BITS))));
            sqAdvance = field("sqAdvance", spinal.lib.slave$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new QpRingFetcher.Rewind(c)))));
            requests = field("requests", Streams.masterStream(() -> new RdmapTxRequester.WorkRequest(c.ddp())));
            stagInvalidate = field("stagInvalidate", Streams.masterStream(() -> uint(32)));
            stagInvalidateDone = field("stagInvalidateDone", spinal.lib.slave$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(spinal.core.Bool::new))));
            local = field("local", Streams.masterStream(() -> new QpEventRouter.Completion(c)));
            rewind = field("rewind", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new QpRingFetcher.Rewind(c)))));
            fetchEnable = field("fetchEnable", out(bits(n)));
        }
    }

    public final QpRingsConfig config;
    public final Io io;

    public QpSqIssuer(QpRingsConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        int n = c.qpCount();
        int qb = c.qpBits();
        int ib = QpRingsConfig.INDEX_BITS;

        QpRingFetcher.Entry h = io.wqes.payload();
        Bits d = h.data;
        UInt q = h.qp;
        UInt st = io.state.apply(q);
        Bits opcode = wire("opcode", QpRingMath.le(d, SqWqe.OPCODE, 1));
        Bool known = wire("known", False());
        for (WqeOpcode op : WqeOpcode.values()) {
            when(eq(opcode, B(op.code(), 8)), () -> set(known, True()));
        }
        Bool invalidate = wire("localInvalidate", eq(opcode, B(WqeOpcode.LOCAL_INVALIDATE_CODE, 8)));
        int flagBit = 8 * SqWqe.FLAGS;
        Bool signaled = wire("signaled", d.apply(flagBit + Integer.numberOfTrailingZeros(SqWqe.FLAG_SIGNALED)));
        Bool fence = wire("fence", d.apply(flagBit + Integer.numberOfTrailingZeros(SqWqe.FLAG_FENCE)));
        Bool bad = wire("bad", or(not(known), h.error));
        Bool discard = wire("discard", or(io.stale, io.clear.apply(q), io.dead.apply(q),
                eq(st, U(QpState.RESET.code(), 3)), eq(st, U(QpState.ERR.code(), 3))));
        Bool ordered = wire("ordered", eq(io.sqCons.apply(q), h.index));
        Bool mayStart = wire("mayStart", or(ordered, not(or(fence, invalidate, bad))));

        // ---- outputs, each registered ----
        Stream<RdmapTxRequester.WorkRequest> wr = wire("wr",
                Streams.stream(() -> new RdmapTxRequester.WorkRequest(c.ddp())));
        Stream<UInt> inv = wire("inv", Streams.stream(() -> uint(32)));
        Stream<QpEventRouter.Completion> loc = wire("loc", Streams.stream(() -> new QpEventRouter.Completion(c)));
        Streams.connect(Streams.m2sPipe(wr), io.requests);
        Streams.connect(Streams.m2sPipe(inv), io.stagInvalidate);
        Streams.connect(Streams.m2sPipe(loc), io.local);

        RdmapTxRequester.WorkRequest r = wr.payload();
        set(r.qp, q);
        set(r.opcode, range(opcode, 3, 0).asUInt());
        set(r.wrId, cat(signaled, B(0, 31 - ib), h.index));
        set(r.localAddress, QpRingMath.le(d, SqWqe.LOCAL_ADDRESS, 8).asUInt());
        set(r.length, QpRingMath.le(d, SqWqe.LENGTH, 4).asUInt());
        set(r.localStag, QpRingMath.le(d, SqWqe.LOCAL_STAG, 4));
        set(r.localTo, QpRingMath.le(d, SqWqe.LOCAL_TO, 8).asUInt());
        set(r.remoteStag, QpRingMath.le(d, SqWqe.REMOTE_STAG, 4));
        set(r.remoteTo, QpRingMath.le(d, SqWqe.REMOTE_TO, 8).asUInt());
        set(r.invalidateStag, QpRingMath.le(d, SqWqe.INVALIDATE_STAG, 4));
        set(r.data, QpRingMath.le(d, SqWqe.DATA, 8));
        set(r.mask, QpRingMath.le(d, SqWqe.MASK, 8));
        set(r.compareData, QpRingMath.le(d, SqWqe.COMPARE_DATA, 8));
        set(r.compareMask, QpRingMath.le(d, SqWqe.COMPARE_MASK, 8));
        set(r.aop, range(d, 8 * SqWqe.AOP + 3, 8 * SqWqe.AOP).asUInt());
        set(inv.payload(), QpRingMath.le(d, SqWqe.INVALIDATE_STAG, 4).asUInt());

        // A local invalidation in progress: sent (waiting for the table's answer), then answered.
        Bool sent = regInit("invalidateSent", bool(), False());
        Bool answered = regInit("invalidateAnswered", bool(), False());
        Bool found = reg("invalidateFound", bool());
        when(and(sent, io.stagInvalidateDone.valid()), () -> {
            set(sent, False());
            set(answered, True());
            set(found, io.stagInvalidateDone.payload());
        });

        QpEventRouter.Completion l = loc.payload();
        set(l.qp, q);
        set(l.kind, mux(invalidate, U(CqeKind.LOCAL_INVALIDATE_DONE.code(), QpEventRouter.KIND_BITS),
                U(CqeKind.SEND_DONE.code(), QpEventRouter.KIND_BITS)));
        // A Local Invalidate's completion is always written: signaled or not, its failure must reach the application,
        // and the driver reserves CQ room for it like a signaled request's.
        set(l.wrId, cat(or(signaled, bad, invalidate), B(0, 31 - ib), h.index));
        set(l.length, U(0, 32));
        set(l.info, B(0, 64));
        set(l.stag, mux(invalidate, QpRingMath.le(d, SqWqe.INVALIDATE_STAG, 4), B(0, 32)));
        set(l.status, mux(bad, mux(h.error, U(Cqe.STATUS_WQE_READ_ERROR, 8), U(Cqe.STATUS_BAD_OPCODE, 8)),
                mux(found, U(Cqe.STATUS_SUCCESS, 8), U(Cqe.STATUS_INVALIDATE_FAILED, 8))));
        set(l.opcode, mux(h.error, U(0, 4), range(opcode, 3, 0).asUInt()));
        set(l.moveTo, mux(bad, U(QpState.SQE.code(), 3), U(QpState.RESET.code(), 3)));

        Bool idle = wire("idle", and(not(sent), not(answered)));
        Bool go = wire("go", and(io.wqes.valid(), idle, not(discard), mayStart));
        // An element that must wait for its QP's earlier requests leaves the stream and is fetched again later.
        Bool defer = wire("defer", and(io.wqes.valid(), idle, not(discard), not(mayStart)));
        set(wr.valid(), and(go, not(bad), not(invalidate)));
        set(inv.valid(), and(go, not(bad), invalidate));
        set(loc.valid(), or(and(go, bad), and(io.wqes.valid(), answered, not(discard))));
        when(inv.fire(), () -> set(sent, True()));
        // An answered invalidation whose QP was discarded meanwhile completes silently.
        when(and(answered, or(loc.fire(), and(io.wqes.valid(), discard))), () -> set(answered, False()));
        set(io.wqes.ready(), or(wr.fire(), loc.fire(), defer, and(io.wqes.valid(), discard, not(sent))));

        // A bad element: rewind the fetcher past it; halt this QP's fetching until its state has left RTS. A deferred
        // one: rewind the fetcher to it; halt this QP's fetching until sqCons has reached it.
        Bool halt = wire("halt", and(loc.fire(), bad));
        set(io.rewind.valid(), or(halt, defer));
        set(io.rewind.payload().qp, q);
        set(io.rewind.payload().index, mux(defer, h.index, add(h.index, U(1, ib))));
        // A deferred element's index per QP in LUT RAM, looked at only when that QP's sqCons moves (sqAdvance): no
        // per-QP index register and comparator. An element deferred in the cycle its QP's sqCons reaches it is
        // compared with the advance at once (bypass), so it is never left waiting for a move that has happened. The
        // hit is registered: the QP is released in the cycle after sqCons has reached the element, as when sqCons
        // itself was compared.
        Mem<UInt> deferredAt = field("deferredAt", new Mem<>(hardType(() -> uint(ib)), 1 << qb));
        deferredAt.write(q, h.index, defer, null);
        var adv = io.sqAdvance;
        UInt waitedFor = wire("waitedFor", mux(and(defer, eq(q, adv.payload().qp)), h.index,
                deferredAt.readAsync(adv.payload().qp, dontCare$.MODULE$)));
        Bool reached = regInit("deferredReached", bool(), False());
        UInt reachedQp = reg("deferredReachedQp", uint(qb));
        set(reached, and(adv.valid(), eq(adv.payload().index, waitedFor)));
        set(reachedQp, adv.payload().qp);
        List<Bool> halted = new ArrayList<>();
        List<Bool> enable = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            final int pp = p;
            Bool hq = regInit("halted_" + p, bool(), False());
            halted.add(hq);
            UInt sp = io.state.apply(p);
            when(or(io.clear.apply(p), eq(sp, U(QpState.SQE.code(), 3)), eq(sp, U(QpState.ERR.code(), 3))),
                    () -> set(hq, False()));
            when(and(halt, eq(q, U(pp, qb))), () -> set(hq, True()));
            Bool dq = regInit("deferred_" + p, bool(), False());
            when(or(io.clear.apply(p), io.dead.apply(p), neq(sp, U(QpState.RTS.code(), 3)),
                    and(reached, eq(reachedQp, U(pp, qb)))), () -> set(dq, False()));
            when(and(defer, eq(q, U(pp, qb))), () -> set(dq, True()));
            enable.add(and(eq(sp, U(QpState.RTS.code(), 3)), not(hq), not(dq), not(io.dead.apply(p))));
        }
        set(io.fetchEnable, catLsbFirst(enable));
    }
}
