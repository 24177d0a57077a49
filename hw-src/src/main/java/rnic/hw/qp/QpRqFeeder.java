package rnic.hw.qp;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.rdmap.RdmapRxControl;
import rnic.wire.QpState;
import rnic.wire.RqWqe;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.core.Vec;
import spinal.lib.Flow;
import spinal.lib.Stream;

/**
 * Hands the receive buffers the host posted on each QP's receive ring ({@link RqWqe}) to the engine's per-QP hardware
 * receive queue ({@code RdmapRxControl.RecvPost}, wrId = the element's 16-bit ring index), from INIT on (issue 5
 * contract, "Core behaviour"; RDMAP-12: untagged messages consume the posted buffers in order).
 *
 * <p><b>Credits.</b> The engine's queue holds {@code DdpConfig.recvDepth} buffers per QP and never refuses one it
 * has room for; buffers handed on minus buffers completed (RECEIVE, RECEIVE_IMMEDIATE: {@code release}) is kept at
 * most that depth, counted from the moment a slot is fetched, so the engine's queue can never be full when a buffer
 * arrives. A QP in RESET or ERR (or moved to ERR, {@code dead}) fetches nothing; its stale or discarded elements
 * never reach the engine. A slot whose read failed is posted with address and capacity 0 (any Send with payload into it
 * fails, E-D12), so the ring's order is kept; {@code readError} reports it.
 */
public final class QpRqFeeder extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final QpRingsConfig config;
        public final Stream<QpRingFetcher.Entry> wqes;
        public final Bool stale;
        public final Vec<UInt> state;
        public final Bits dead;
        public final Bits clear;
        public final Flow<UInt> fetched;
        public final Flow<UInt> release;
        public final Stream<RdmapRxControl.RecvPost> recv;
        public final Bits fetchEnable;
        /** One pulse per slot whose read failed. */
        public final Bool readError;

        public Io(QpRingsConfig config) {
            this.config = config;
            QpRingsConfig c = config;
            int n = c.qpCount();
            wqes = field("wqes", Streams.slaveStream(() -> new QpRingFetcher.Entry(c, QpRqFetcher.KEEP_OCTETS)));
            stale = field("stale", in(bool()));
            state = field("state", in(QpRings.perIndex(n, () -> uint(3))));
            dead = field("dead", in(bits(n)));
            clear = field("clear", in(bits(n)));
            fetched = field("fetched", spinal.lib.slave$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> uint(c.qpBits())))));
            release = field("release", spinal.lib.slave$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> uint(c.qpBits())))));
            recv = field("recv", Streams.masterStream(() -> new RdmapRxControl.RecvPost(c.ddp())));
            fetchEnable = field("fetchEnable", out(bits(n)));
            readError = field("readError", out(bool()));
        }
    }

    public final QpRingsConfig config;
    public final Io io;

    public QpRqFeeder(QpRingsConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        int n = c.qpCount();
        int qb = c.qpBits();
        int depth = c.ddp().recvDepth();
        int kb = Integer.SIZE - Integer.numberOfLeadingZeros(depth);

        QpRingFetcher.Entry h = io.wqes.payload();
        UInt q = h.qp;
        UInt st = io.state.apply(q);
        Bool discard = wire("discard", or(io.stale, io.clear.apply(q), io.dead.apply(q),
                eq(st, U(QpState.RESET.code(), 3)), eq(st, U(QpState.ERR.code(), 3))));
        Stream<RdmapRxControl.RecvPost> post = wire("post", Streams.stream(() -> new RdmapRxControl.RecvPost(c.ddp())));
        set(post.valid(), and(io.wqes.valid(), not(discard)));
        set(post.payload().qp, q);
        set(post.payload().address, mux(h.error, U(0, 64), QpRingMath.le(h.data, RqWqe.ADDRESS, 8).asUInt()));
        set(post.payload().capacity, mux(h.error, U(0, 32), QpRingMath.le(h.data, RqWqe.CAPACITY, 4).asUInt()));
        set(post.payload().wrId, h.index.resize(32).asBits());
        set(io.wqes.ready(), or(post.ready(), discard));
        Streams.connect(Streams.m2sPipe(post), io.recv);
        set(io.readError, and(post.fire(), h.error));

        List<Bool> enable = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            final int pp = p;
            UInt credits = regInit("inUse_" + p, uint(kb), U(0, kb));
            Bool take = and(io.fetched.valid(), eq(io.fetched.payload(), U(p, qb)));
            Bool give = and(io.release.valid(), eq(io.release.payload(), U(p, qb)), neq(credits, U(0, kb)));
            when(and(take, not(give)), () -> set(credits, add(credits, U(1, kb))));
            when(and(give, not(take)), () -> set(credits, sub(credits, U(1, kb))));
            when(io.clear.apply(p), () -> set(credits, U(0, kb)));
            UInt sp = io.state.apply(p);
            Bool open = and(neq(sp, U(QpState.RESET.code(), 3)), neq(sp, U(QpState.ERR.code(), 3)));
            enable.add(and(open, not(io.dead.apply(pp)), lt(credits, U(depth, kb))));
        }
        set(io.fetchEnable, catLsbFirst(enable));
    }
}
