package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import spinal.core.Bool;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4;
import spinal.lib.bus.amba4.axi.Axi4ReadOnly;
import spinal.lib.bus.amba4.axi.Axi4WriteOnly;

/**
 * Puts the engines' three memory users on the one memory port ({@link MemoryPort}): the placer's writes, the segment
 * builder's reads and the atomic engine's reads and writes. Each user is one AXI ID on the output (placer and builder
 * 0, atomic engine 1), so responses are routed by ID and each user still sees its own responses in order.
 *
 * <p>Writes: an AW is granted (atomic engine first: its jobs are short and hold up a response) and the winner's
 * number is queued; W beats follow the queue head until WLAST, so the data of each burst follows its address in AW
 * order, as AXI requires. Reads: AR granted the same way, R routed by RID. Nothing is buffered but the W-route queue,
 * so the arbiter adds no latency to a granted burst.
 */
public final class MemoryArbiter extends HwComponent {
    /** Bursts whose W beats may be outstanding behind their AW. */
    public static final int W_ROUTE_DEPTH = 8;

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final Axi4WriteOnly placer;
        public final Axi4ReadOnly builder;
        public final Axi4 atomic;
        public final Axi4 axi;

        public Io(int dataWidth) {
            this.dataWidth = dataWidth;
            placer = field("placer", spinal.lib.slave$.MODULE$.apply(
                    new Axi4WriteOnly(MemoryPort.axi4Config(dataWidth))));
            builder = field("builder", spinal.lib.slave$.MODULE$.apply(
                    new Axi4ReadOnly(MemoryPort.axi4Config(dataWidth))));
            atomic = field("atomic", spinal.lib.slave$.MODULE$.apply(new Axi4(MemoryPort.axi4Config(dataWidth))));
            axi = field("axi", MemoryPort.master(dataWidth));
        }
    }

    public final Io io;

    public MemoryArbiter(int dataWidth) {
        noIoPrefix();
        io = io(new Io(dataWidth));
        int idw = MemoryPort.ID_WIDTH;

        // ---- writes ----
        var aw = io.axi.aw();
        // A presented address stays until taken (stream contract): the grant is kept while AxVALID waits
        // for AxREADY (AW and AR alike).
        Bool awWaiting = regInit("awWaiting", bool(), False());
        Bool awHeld = regInit("awHeldAtomic", bool(), False());
        Bool atomicAw = wire("atomicAw", mux(awWaiting, awHeld, io.atomic.aw().valid()));
        Stream<Bool> route = wire("wRoute", Streams.stream(spinal.core.Bool::new));
        set(aw.valid(), and(mux(atomicAw, io.atomic.aw().valid(), io.placer.aw().valid()), route.ready()));
        copyBut("id", aw.payload(), mux(atomicAw, io.atomic.aw().payload(), io.placer.aw().payload()));
        set(aw.payload().id(), mux(atomicAw, U(1, idw), U(0, idw)));
        set(io.atomic.aw().ready(), and(aw.ready(), route.ready(), atomicAw));
        set(io.placer.aw().ready(), and(aw.ready(), route.ready(), not(atomicAw)));
        set(awWaiting, and(aw.valid(), not(aw.ready())));
        set(awHeld, atomicAw);
        set(route.valid(), aw.fire());
        set(route.payload(), atomicAw);
        Stream<Bool> wOwner = Streams.fifo(route, W_ROUTE_DEPTH);
        Bool wAtomic = wire("wAtomic", wOwner.payload());
        var w = io.axi.w();
        set(w.valid(), and(wOwner.valid(), mux(wAtomic, io.atomic.w().valid(), io.placer.w().valid())));
        set(w.payload(), mux(wAtomic, io.atomic.w().payload(), io.placer.w().payload()));
        set(io.atomic.w().ready(), and(wOwner.valid(), wAtomic, w.ready()));
        set(io.placer.w().ready(), and(wOwner.valid(), not(wAtomic), w.ready()));
        set(wOwner.ready(), and(w.fire(), w.payload().last()));
        var b = io.axi.b();
        Bool bAtomic = wire("bAtomic", eq(b.payload().id(), U(1, idw)));
        set(io.atomic.b().valid(), and(b.valid(), bAtomic));
        set(io.placer.b().valid(), and(b.valid(), not(bAtomic)));
        copyBut("id", io.atomic.b().payload(), b.payload());
        copyBut("id", io.placer.b().payload(), b.payload());
        set(io.atomic.b().payload().id(), U(0, idw));
        set(io.placer.b().payload().id(), U(0, idw));
        set(b.ready(), mux(bAtomic, io.atomic.b().ready(), io.placer.b().ready()));

        // ---- reads ----
        var ar = io.axi.ar();
        Bool arWaiting = regInit("arWaiting", bool(), False());
        Bool arHeld = regInit("arHeldAtomic", bool(), False());
        Bool atomicAr = wire("atomicAr", mux(arWaiting, arHeld, io.atomic.ar().valid()));
        set(ar.valid(), mux(atomicAr, io.atomic.ar().valid(), io.builder.ar().valid()));
        set(arWaiting, and(ar.valid(), not(ar.ready())));
        set(arHeld, atomicAr);
        copyBut("id", ar.payload(), mux(atomicAr, io.atomic.ar().payload(), io.builder.ar().payload()));
        set(ar.payload().id(), mux(atomicAr, U(1, idw), U(0, idw)));
        set(io.atomic.ar().ready(), and(ar.ready(), atomicAr));
        set(io.builder.ar().ready(), and(ar.ready(), not(atomicAr)));
        var r = io.axi.r();
        Bool rAtomic = wire("rAtomic", eq(r.payload().id(), U(1, idw)));
        set(io.atomic.r().valid(), and(r.valid(), rAtomic));
        set(io.builder.r().valid(), and(r.valid(), not(rAtomic)));
        copyBut("id", io.atomic.r().payload(), r.payload());
        copyBut("id", io.builder.r().payload(), r.payload());
        set(io.atomic.r().payload().id(), U(0, idw));
        set(io.builder.r().payload().id(), U(0, idw));
        set(r.ready(), mux(rAtomic, io.atomic.r().ready(), io.builder.r().ready()));
    }

    /** {@code target := source} for every element but {@code skip} (assigned separately); AXI channels alike. */
    public static void copyBut(String skip, spinal.core.Bundle target, spinal.core.Bundle source) {
        var t = target.elements().iterator();
        var src = source.elements().iterator();
        while (t.hasNext()) {
            scala.Tuple2<String, spinal.core.Data> te = t.next();
            scala.Tuple2<String, spinal.core.Data> se = src.next();
            if (!te._1().equals(skip)) {
                set(te._2(), se._2());
            }
        }
    }
}
