package rnic.hw.top;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.MemoryArbiter;
import rnic.hw.ddp.MemoryPort;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4;

/**
 * Puts the core's two memory masters on its one host-memory port ({@link MemoryPort}): the DDP/RDMAP engine
 * ({@code engine}: placement, fetch, atomics) and the ring engine ({@code rings}: WQE reads, CQE writes). The output
 * ID is the source in bit 3 above the input's own ID bits 2:0, so each input must keep to IDs 0 … 7 (the engine uses 0
 * and 1) and gets its responses back by ID, in its own order, as AXI guarantees per ID.
 *
 * <p>AW and AR are granted round-robin between the two inputs; a presented address stays until it is taken (the
 * grant is kept while AxVALID waits for AxREADY). Each granted AW queues its source, and W beats follow the queue head
 * until WLAST, so the data of each burst follows its address in AW order (AXI4: no write interleaving). B and R go back
 * by ID bit 3. Nothing but the W-route queue is buffered: no latency is added to a granted burst.
 */
public final class RnicMemoryMerge extends HwComponent {
    /** Bursts whose W beats may be outstanding behind their AW. */
    public static final int W_ROUTE_DEPTH = 8;
    /** IDs an input may use: 0 … 2^{@value #INPUT_ID_BITS} − 1. */
    public static final int INPUT_ID_BITS = MemoryPort.ID_WIDTH - 1;

    /** Ports: two AXI4 slaves of the memory-port profile, one master. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final Axi4 engine;
        public final Axi4 rings;
        public final Axi4 axi;

        public Io(int dataWidth) {
            this.dataWidth = dataWidth;
            engine = field("engine", spinal.lib.slave$.MODULE$.apply(new Axi4(MemoryPort.axi4Config(dataWidth))));
            rings = field("rings", spinal.lib.slave$.MODULE$.apply(new Axi4(MemoryPort.axi4Config(dataWidth))));
            axi = field("axi", MemoryPort.master(dataWidth));
        }
    }

    public final Io io;

    public RnicMemoryMerge(int dataWidth) {
        noIoPrefix();
        io = io(new Io(dataWidth));
        int idw = MemoryPort.ID_WIDTH;
        int low = INPUT_ID_BITS;
        Axi4 e = io.engine;
        Axi4 r = io.rings;

        // ---- writes ----
        var aw = io.axi.aw();
        Bool awWaiting = regInit("awWaiting", bool(), False());
        Bool awHeld = regInit("awHeldRings", bool(), False());
        Bool awLastRings = regInit("awLastRings", bool(), False());
        // Round-robin: the input that did not win last time goes first when both ask.
        Bool pickRings = wire("awPickRings", mux(awWaiting, awHeld, and(r.aw().valid(),
                or(not(e.aw().valid()), not(awLastRings)))));
        Stream<Bool> route = wire("wRoute", Streams.stream(Bool::new));
        set(aw.valid(), and(mux(pickRings, r.aw().valid(), e.aw().valid()), route.ready()));
        MemoryArbiter.copyBut("id", aw.payload(), mux(pickRings, r.aw().payload(), e.aw().payload()));
        UInt awId = wire("awInputId", mux(pickRings, r.aw().payload().id(), e.aw().payload().id()));
        set(aw.payload().id(), cat(pickRings, range(awId, low - 1, 0)).asUInt());
        set(r.aw().ready(), and(aw.ready(), route.ready(), pickRings));
        set(e.aw().ready(), and(aw.ready(), route.ready(), not(pickRings)));
        set(awWaiting, and(aw.valid(), not(aw.ready())));
        set(awHeld, pickRings);
        when(aw.fire(), () -> set(awLastRings, pickRings));
        set(route.valid(), aw.fire());
        set(route.payload(), pickRings);
        Stream<Bool> wOwner = Streams.fifo(route, W_ROUTE_DEPTH, "RnicMemoryMerge_StreamFifo_wRoute");
        Bool wRings = wire("wRings", wOwner.payload());
        var w = io.axi.w();
        set(w.valid(), and(wOwner.valid(), mux(wRings, r.w().valid(), e.w().valid())));
        set(w.payload(), mux(wRings, r.w().payload(), e.w().payload()));
        set(r.w().ready(), and(wOwner.valid(), wRings, w.ready()));
        set(e.w().ready(), and(wOwner.valid(), not(wRings), w.ready()));
        set(wOwner.ready(), and(w.fire(), w.payload().last()));
        var b = io.axi.b();
        Bool bRings = wire("bRings", b.payload().id().apply(idw - 1));
        set(r.b().valid(), and(b.valid(), bRings));
        set(e.b().valid(), and(b.valid(), not(bRings)));
        for (Axi4 in : new Axi4[] {e, r}) {
            MemoryArbiter.copyBut("id", in.b().payload(), b.payload());
            set(in.b().payload().id(), range(b.payload().id(), low - 1, 0).resize(idw));
        }
        set(b.ready(), mux(bRings, r.b().ready(), e.b().ready()));

        // ---- reads ----
        var ar = io.axi.ar();
        Bool arWaiting = regInit("arWaiting", bool(), False());
        Bool arHeld = regInit("arHeldRings", bool(), False());
        Bool arLastRings = regInit("arLastRings", bool(), False());
        Bool pickRingsR = wire("arPickRings", mux(arWaiting, arHeld, and(r.ar().valid(),
                or(not(e.ar().valid()), not(arLastRings)))));
        set(ar.valid(), mux(pickRingsR, r.ar().valid(), e.ar().valid()));
        MemoryArbiter.copyBut("id", ar.payload(), mux(pickRingsR, r.ar().payload(), e.ar().payload()));
        UInt arId = wire("arInputId", mux(pickRingsR, r.ar().payload().id(), e.ar().payload().id()));
        set(ar.payload().id(), cat(pickRingsR, range(arId, low - 1, 0)).asUInt());
        set(r.ar().ready(), and(ar.ready(), pickRingsR));
        set(e.ar().ready(), and(ar.ready(), not(pickRingsR)));
        set(arWaiting, and(ar.valid(), not(ar.ready())));
        set(arHeld, pickRingsR);
        when(ar.fire(), () -> set(arLastRings, pickRingsR));
        var rr = io.axi.r();
        Bool rRings = wire("rRings", rr.payload().id().apply(idw - 1));
        set(r.r().valid(), and(rr.valid(), rRings));
        set(e.r().valid(), and(rr.valid(), not(rRings)));
        for (Axi4 in : new Axi4[] {e, r}) {
            MemoryArbiter.copyBut("id", in.r().payload(), rr.payload());
            set(in.r().payload().id(), range(rr.payload().id(), low - 1, 0).resize(idw));
        }
        set(rr.ready(), mux(rRings, r.r().ready(), e.r().ready()));
    }
}
