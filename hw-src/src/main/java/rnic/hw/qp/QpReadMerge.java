package rnic.hw.qp;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.MemoryPort;
import spinal.core.Bool;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4ReadOnly;

/**
 * Puts the two ring readers (send and receive queue elements) on one AXI read channel. Bursts go out in grant order
 * (alternating when both ask; a shown AR stays until taken) with ID 0, and the read data is routed back by that order
 * (a queue of grants): the memory answers one ID in order, and an interconnect in front of it may replace IDs, so the
 * rings do not rely on them.
 */
public final class QpReadMerge extends HwComponent {
    /** Bursts that may be outstanding: both readers' whole budgets. */
    public static final int OUTSTANDING = 2 * QpRingFetcher.DEPTH;

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final Axi4ReadOnly sq;
        public final Axi4ReadOnly rq;
        public final Axi4ReadOnly axi;

        public Io(int dataWidth) {
            this.dataWidth = dataWidth;
            sq = field("sq", spinal.lib.slave$.MODULE$.apply(new Axi4ReadOnly(MemoryPort.axi4Config(dataWidth))));
            rq = field("rq", spinal.lib.slave$.MODULE$.apply(new Axi4ReadOnly(MemoryPort.axi4Config(dataWidth))));
            axi = field("axi", MemoryPort.readMaster(dataWidth));
        }
    }

    public final Io io;

    public QpReadMerge(int dataWidth) {
        noIoPrefix();
        io = io(new Io(dataWidth));

        var ar = io.axi.ar();
        Bool waiting = regInit("waiting", bool(), False());
        Bool held = regInit("heldRq", bool(), False());
        Bool lastRq = regInit("lastRq", bool(), False());
        // Alternate when both ask; keep a shown grant until it is taken.
        Bool preferRq = wire("preferRq", mux(io.sq.ar().valid(), mux(io.rq.ar().valid(), not(lastRq), False()),
                True()));
        Bool pickRq = wire("pickRq", mux(waiting, held, preferRq));
        Stream<Bool> routeIn = wire("routeIn", Streams.stream(spinal.core.Bool::new));
        set(ar.valid(), and(mux(pickRq, io.rq.ar().valid(), io.sq.ar().valid()), routeIn.ready()));
        set(ar.payload(), mux(pickRq, io.rq.ar().payload(), io.sq.ar().payload()));
        set(io.rq.ar().ready(), and(ar.ready(), routeIn.ready(), pickRq));
        set(io.sq.ar().ready(), and(ar.ready(), routeIn.ready(), not(pickRq)));
        set(waiting, and(ar.valid(), not(ar.ready())));
        set(held, pickRq);
        when(ar.fire(), () -> set(lastRq, pickRq));
        set(routeIn.valid(), ar.fire());
        set(routeIn.payload(), pickRq);
        Stream<Bool> route = Streams.fifo(routeIn, OUTSTANDING);

        var r = io.axi.r();
        Bool toRq = wire("toRq", route.payload());
        set(io.rq.r().valid(), and(r.valid(), route.valid(), toRq));
        set(io.sq.r().valid(), and(r.valid(), route.valid(), not(toRq)));
        set(io.rq.r().payload(), r.payload());
        set(io.sq.r().payload(), r.payload());
        set(r.ready(), and(route.valid(), mux(toRq, io.rq.r().ready(), io.sq.r().ready())));
        set(route.ready(), and(r.fire(), r.payload().last()));
    }
}
