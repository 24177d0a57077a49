package rnic.hw.qp;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.MemoryPort;
import rnic.wire.Cqe;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.core.Vec;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4WriteOnly;

/**
 * Writes completion queue entries ({@link Cqe}, {@value Cqe#SIZE} octets) into the completion rings in host memory
 * (issue 5 contract, register block CQ).
 *
 * <p>Per CQ a free-running 16-bit producer index picks the slot ({@code index mod 2^size} at {@code cqBase}; the base
 * is {@value Cqe#SIZE}-octet aligned, so an entry never crosses a 4 KiB boundary). An entry is written only while the
 * ring has room, {@code prod − cqCons < 2^size}: the host's unconsumed entries are never overwritten. A request for a
 * full CQ is dropped at once and the CQ marked {@code overflow} (verbs: a CQ overrun is a CQ error), and so is every
 * later one for that CQ until it is given a new ring, so one CQ the host does not read never holds another CQ's
 * entries. (The driver never lets a CQ fill: it reserves room for every entry it can be sent.) The owner octet
 * ({@link Cqe#OWNER}) carries the phase, 1 on the first pass and flipped at each wrap, so the host never clears a
 * slot; each entry goes out in one burst ({@code 32·8/W} beats, one beat at W ≥ 256) whose last beat holds the owner
 * octet, and AW goes out only with the entry in a register, so W never stalls the shared write channel.
 * {@code cqProd} counts the entries whose write response has come back.
 *
 * <p>A CQ whose base or size changes (the driver gives the CQ number a new ring) starts afresh: its producer index and
 * {@code cqProd} return to 0 and the first pass has phase 1 again; the driver sets {@code cqCons} to 0 with it (until
 * then the ring counts as full and nothing is written). Only while no entry for that CQ is on its way.
 */
public final class QpCqWriter extends HwComponent {
    /** Write bursts whose response may be outstanding. */
    public static final int OUTSTANDING = 4;

    /** An entry to write: every field of a {@link Cqe} but the owner octet, and the CQ it goes to. */
    public static final class Request extends HwBundle {
        public final QpRingsConfig config;
        public final UInt cq;
        public final Bits wrId;
        public final UInt length;
        public final Bits info;
        public final Bits stag;
        public final UInt qp;
        public final UInt kind;
        public final UInt status;
        public final UInt opcode;

        public Request(QpRingsConfig config) {
            this.config = config;
            cq = field("cq", uint(config.cqBits()));
            wrId = field("wrId", bits(32));
            length = field("length", uint(32));
            info = field("info", bits(64));
            stag = field("stag", bits(32));
            qp = field("qp", uint(8));
            kind = field("kind", uint(8));
            status = field("status", uint(8));
            opcode = field("opcode", uint(8));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final QpRingsConfig config;
        public final Stream<Request> requests;
        public final Vec<UInt> base;
        public final Vec<UInt> size;
        public final Vec<UInt> cons;
        public final Vec<UInt> prod;
        public final Axi4WriteOnly axi;
        /** One pulse per write response with an error. */
        public final Bool writeError;
        /** Per CQ, sticky until the CQ is given a new ring: an entry met the ring full and was dropped. */
        public final Vec<Bool> overflow;
        /** The request shown now is being dropped (its CQ is full or marked): no write, no write response follows. */
        public final Bool dropping;

        public Io(QpRingsConfig config) {
            this.config = config;
            QpRingsConfig c = config;
            int m = c.cqCount();
            int ib = QpRingsConfig.INDEX_BITS;
            requests = field("requests", Streams.slaveStream(() -> new Request(c)));
            base = field("base", in(QpRings.perIndex(m, () -> uint(64))));
            size = field("size", in(QpRings.perIndex(m, () -> uint(QpRingsConfig.SIZE_BITS))));
            cons = field("cons", in(QpRings.perIndex(m, () -> uint(ib))));
            prod = field("prod", out(QpRings.perIndex(m, () -> uint(ib))));
            axi = field("axi", MemoryPort.writeMaster(c.dataWidth()));
            writeError = field("writeError", out(bool()));
            overflow = field("overflow", out(QpRings.perIndex(m, () -> bool())));
            dropping = field("dropping", out(bool()));
        }
    }

    public final QpRingsConfig config;
    public final Io io;

    public QpCqWriter(QpRingsConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        int m = c.cqCount();
        int cb = c.cqBits();
        int ib = QpRingsConfig.INDEX_BITS;
        int w = c.dataWidth();
        int e = 8 * Cqe.SIZE;
        int beats = Math.max(1, e / w);
        int lanes = Math.max(1, w / e);
        int log2Entry = Integer.numberOfTrailingZeros(Cqe.SIZE);
        int log2Beat = Integer.numberOfTrailingZeros(w / 8);

        List<UInt> alloc = new ArrayList<>();
        List<UInt> written = new ArrayList<>();
        List<Bool> room = new ArrayList<>();
        List<UInt> masks = new ArrayList<>();
        List<Bool> restart = new ArrayList<>();
        List<Bool> overflowed = new ArrayList<>();
        for (int k = 0; k < m; k++) {
            overflowed.add(regInit("overflowed_" + k, bool(), False()));
            set(io.overflow.apply(k), overflowed.get(k));
            alloc.add(regInit("alloc_" + k, uint(ib), U(0, ib)));
            written.add(regInit("written_" + k, uint(ib), U(0, ib)));
            // A CQ given a new ring (base or size written with another value) starts afresh at index 0.
            UInt lastBase = regInit("lastBase_" + k, uint(64), U(0, 64));
            UInt lastSize = regInit("lastSize_" + k, uint(QpRingsConfig.SIZE_BITS), U(0, QpRingsConfig.SIZE_BITS));
            set(lastBase, io.base.apply(k));
            set(lastSize, io.size.apply(k));
            restart.add(wire("restart_" + k, or(neq(lastBase, io.base.apply(k)), neq(lastSize, io.size.apply(k)))));
            set(io.prod.apply(k), written.get(k));
            UInt mask = wire("mask_" + k, QpRingMath.slotMask(io.size.apply(k)));
            masks.add(mask);
            room.add(wire("room_" + k, not(QpRingMath.full(alloc.get(k), io.cons.apply(k), mask))));
        }

        // ---- take an entry when its CQ has room: the whole entry into a register ----
        Request rq = io.requests.payload();
        Stream<UInt> routeIn = wire("routeIn", Streams.stream(() -> uint(cb)));
        Bool busy = regInit("busy", bool(), False());
        Bool awValid = regInit("awValid", bool(), False());
        UInt awAddr = reg("awAddr", uint(64));
        UInt awCq = reg("awCq", uint(cb));
        Bits entry = reg("entry", bits(e));
        UInt beat = regInit("beat", uint(Math.max(1, log2Up(beats))), U(0, Math.max(1, log2Up(beats))));
        // Which entry-sized lane group of the beat the entry goes to (an entry narrower than a beat: W = 512).
        UInt lane = lanes > 1 ? reg("lane", uint(log2Up(lanes))) : null;
        UInt cq = rq.cq;
        UInt index = wire("index", vec(alloc).apply(cq));
        // The entry register is free, or frees now (its last beat goes): one entry per AW + its beats.
        Bool freeing = wire("freeing", and(io.axi.w().fire(), io.axi.w().payload().last()));
        // An entry for a full CQ (or one that overflowed before) is dropped at once, and the CQ is marked: one
        // host's unread CQ never holds another CQ's entries (verbs: a CQ overrun is a CQ error).
        Bool inError = wire("inError", vec(overflowed).apply(cq));
        Bool drop = wire("drop", and(io.requests.valid(), or(not(vec(room).apply(cq)), inError)));
        Bool take = wire("take", and(io.requests.valid(), or(not(busy), freeing), vec(room).apply(cq), not(inError)));
        set(io.requests.ready(), or(take, drop));
        set(io.dropping, drop);
        UInt address = wire("address", QpRingMath.slotAddress(io.base.apply(cq), index, vec(masks).apply(cq),
                log2Entry));
        Bool phase = wire("phase", QpRingMath.phase(index, io.size.apply(cq)));
        Bits octets = wire("octets", new QpRingMath.Octets(Cqe.SIZE).put(Cqe.WR_ID, rq.wrId).put(Cqe.LENGTH, rq.length)
                .put(Cqe.INFO, rq.info).put(Cqe.STAG, rq.stag).put(Cqe.QP, rq.qp).put(Cqe.KIND, rq.kind)
                .put(Cqe.STATUS, rq.status).put(Cqe.OPCODE, rq.opcode)
                .put(Cqe.OWNER, cat(B(0, 7), phase)).bits());
        when(take, () -> {
            set(busy, True());
            set(awValid, True());
            set(awAddr, address);
            set(awCq, cq);
            set(entry, octets);
            if (lanes > 1) {
                set(lane, range(address, log2Beat - 1, log2Entry));
            }
        });
        for (int k = 0; k < m; k++) {
            final int kk = k;
            when(and(take, eq(cq, U(k, cb))), () -> set(alloc.get(kk), add(alloc.get(kk), U(1, ib))));
            when(restart.get(k), () -> set(alloc.get(kk), U(0, ib)));
            when(and(drop, eq(cq, U(k, cb))), () -> set(overflowed.get(kk), True()));
            when(restart.get(k), () -> set(overflowed.get(kk), False()));
        }

        // ---- AW, then the beats (W never before its AW was taken) ----
        var aw = io.axi.aw();
        set(aw.valid(), and(awValid, routeIn.ready()));
        set(aw.payload().addr(), awAddr);
        set(aw.payload().id(), U(0, MemoryPort.ID_WIDTH));
        set(aw.payload().len(), U(beats - 1, 8));
        set(aw.payload().size(), U(MemoryPort.size(w), 3));
        set(aw.payload().burst(), B(MemoryPort.BURST_INCR, 2));
        set(routeIn.valid(), aw.fire());
        set(routeIn.payload(), awCq);
        when(aw.fire(), () -> set(awValid, False()));

        var wch = io.axi.w();
        Bool lastBeat = wire("lastBeat", eq(beat, U(beats - 1, beat.getBitsWidth())));
        set(wch.valid(), and(busy, not(awValid)));
        if (beats > 1) {
            List<Bits> parts = new ArrayList<>();
            for (int i = 0; i < beats; i++) {
                parts.add(range(entry, w * (i + 1) - 1, w * i));
            }
            set(wch.payload().data(), vec(parts).apply(beat));
            set(wch.payload().strb(), B((1L << (w / 8)) - 1, w / 8)); // beats > 1: W ≤ 128
        } else if (lanes == 1) {
            set(wch.payload().data(), entry);
            set(wch.payload().strb(), B(java.math.BigInteger.ONE.shiftLeft(w / 8).subtract(java.math.BigInteger.ONE),
                    w / 8));
        } else {
            List<Bits> data = new ArrayList<>();
            List<Bits> strb = new ArrayList<>();
            for (int l = 0; l < lanes; l++) {
                data.add(shiftedLane(entry, l, lanes));
                strb.add(B(java.math.BigInteger.ONE.shiftLeft(Cqe.SIZE).subtract(java.math.BigInteger.ONE)
                        .shiftLeft(Cqe.SIZE * l), w / 8));
            }
            set(wch.payload().data(), vec(data).apply(lane));
            set(wch.payload().strb(), vec(strb).apply(lane));
        }
        set(wch.payload().last(), lastBeat);
        when(wch.fire(), () -> {
            set(beat, mux(lastBeat, U(0, beat.getBitsWidth()), add(beat, U(1, beat.getBitsWidth()))));
            when(and(lastBeat, not(take)), () -> set(busy, False()));
        });

        // ---- responses: in order, one per burst ----
        Stream<UInt> route = Streams.fifo(routeIn, OUTSTANDING);
        var b = io.axi.b();
        set(b.ready(), True());
        set(route.ready(), b.fire());
        for (int k = 0; k < m; k++) {
            final int kk = k;
            when(and(b.fire(), route.valid(), eq(route.payload(), U(k, cb))),
                    () -> set(written.get(kk), add(written.get(kk), U(1, ib))));
            when(restart.get(k), () -> set(written.get(kk), U(0, ib)));
        }
        set(io.writeError, and(b.fire(), neq(b.payload().resp(), B(MemoryPort.RESP_OKAY, 2))));
    }

    /** The entry in lane group {@code lane} of a beat of {@code lanes} entry-sized groups, zeros elsewhere. */
    private static Bits shiftedLane(Bits entry, int lane, int lanes) {
        int e = entry.getBitsWidth();
        List<Bits> groups = new ArrayList<>();
        for (int l = 0; l < lanes; l++) {
            groups.add(l == lane ? entry : B(0, e));
        }
        return catLsbFirst(groups);
    }
}
