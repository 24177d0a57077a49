package rnic.hw.qp;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.MemoryPort;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.core.Vec;
import spinal.lib.Flow;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4ReadOnly;

/**
 * Reads the work queue elements of one kind of ring (send or receive) of every QP from host memory: per QP a fetch
 * index that runs from the consumer side towards the producer index (the doorbell), QPs served round robin, one AXI
 * burst per slot, the slot's octets handed on in fetch order with their QP and free-running index. Subclasses fix the
 * entry size ({@link QpSqFetcher}, {@link QpRqFetcher}). A burst reads the octets of the slot the consumer uses,
 * rounded up to whole beats (a send queue element's first 80 of 128 octets: 10 beats instead of 16 at W = 64); a slot
 * narrower than a beat is one beat, the slot's lanes taken from it.
 *
 * <p><b>Never stalls the read data channel.</b> In the core this port shares one memory port with the engines, whose
 * read data may queue behind ours; a ring block that held R would hold them. So a burst is asked for only when the
 * output buffer has room for its entry: at most {@value #DEPTH} entries are in flight or buffered, and R is always
 * ready.
 *
 * <p><b>Stale entries.</b> A QP that is cleared ({@code clear}: it went to RESET) or rewound ({@code rewind}: its
 * send queue stopped at a bad element and restarts after it) may have entries in flight. Their number is counted per
 * QP, and the next that many entries of that QP leaving the buffer are flagged {@code stale} (computed as the head
 * waits, so a head that becomes stale while waiting is flagged too): the consumer takes and discards them.
 *
 * <p><b>Per QP</b> there is only what must be seen every cycle: the fetch index, the in-flight and stale counts, and
 * the QP's "may fetch" term (enable, the index short of {@code prod}, the ring not full). The picked QP's base, index and size are selected once, the slot
 * mask decoded after the selection; the round robin is linear in the QP count ({@link rnic.hdl.Hdl#roundRobin}).
 */
public abstract class QpRingFetcher extends HwComponent {
    /** Entries in flight or buffered (per block, all QPs together): enough to keep R busy across the latency. */
    public static final int DEPTH = 4;

    /** One fetched ring slot. */
    public static final class Entry extends HwBundle {
        public final QpRingsConfig config;
        public final int keepOctets;
        public final UInt qp;
        /** The free-running ring index the slot was read at. */
        public final UInt index;
        /** The slot's first {@code keepOctets} octets, octet 0 in bits 7:0 (the rest are reserved). */
        public final Bits data;
        /** The read got an error response: the data is not the element. */
        public final Bool error;

        public Entry(QpRingsConfig config, int keepOctets) {
            this.config = config;
            this.keepOctets = keepOctets;
            qp = field("qp", uint(config.qpBits()));
            index = field("index", uint(QpRingsConfig.INDEX_BITS));
            data = field("data", bits(8 * keepOctets));
            error = field("error", bool());
        }
    }

    /** Restarts fetching of a QP at {@code index}; its entries in flight become stale. */
    public static final class Rewind extends HwBundle {
        public final QpRingsConfig config;
        public final UInt qp;
        public final UInt index;

        public Rewind(QpRingsConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            index = field("index", uint(QpRingsConfig.INDEX_BITS));
        }
    }

    /** What the fetch of one burst remembers until its data is in. */
    public static final class Tag extends HwBundle {
        public final QpRingsConfig config;
        public final int laneBits;
        public final UInt qp;
        public final UInt index;
        /** Which entry-sized lane group of the beat holds the entry (an entry narrower than a beat). */
        public final UInt lane;

        public Tag(QpRingsConfig config, int laneBits) {
            this.config = config;
            this.laneBits = laneBits;
            qp = field("qp", uint(config.qpBits()));
            index = field("index", uint(QpRingsConfig.INDEX_BITS));
            lane = field("lane", uint(laneBits));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final QpRingsConfig config;
        public final int keepOctets;
        /** Per QP: it may fetch (the owner's policy: QP state, credits, errors). */
        public final Bits enable;
        public final Vec<UInt> base;
        public final Vec<UInt> size;
        public final Vec<UInt> prod;
        /** Per QP: the consumer index (fetching stops a ring's size ahead of it). */
        public final Vec<UInt> cons;
        /** Per QP: fetch index back to 0, entries in flight stale. */
        public final Bits clear;
        public final Flow<Rewind> rewind;
        public final Axi4ReadOnly axi;
        public final Stream<Entry> entries;
        /** The head of {@code entries} is stale: take and discard it. */
        public final Bool stale;
        /** A slot of this QP was fetched (its burst asked for). */
        public final Flow<UInt> fetched;

        public Io(QpRingsConfig config, int keepOctets) {
            this.config = config;
            this.keepOctets = keepOctets;
            QpRingsConfig c = config;
            int n = c.qpCount();
            enable = field("enable", in(bits(n)));
            base = field("base", in(QpRings.perIndex(n, () -> uint(64))));
            size = field("size", in(QpRings.perIndex(n, () -> uint(QpRingsConfig.SIZE_BITS))));
            prod = field("prod", in(QpRings.perIndex(n, () -> uint(QpRingsConfig.INDEX_BITS))));
            cons = field("cons", in(QpRings.perIndex(n, () -> uint(QpRingsConfig.INDEX_BITS))));
            clear = field("clear", in(bits(n)));
            rewind = field("rewind", spinal.lib.slave$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new Rewind(c)))));
            axi = field("axi", MemoryPort.readMaster(c.dataWidth()));
            entries = field("entries", Streams.masterStream(() -> new Entry(c, keepOctets)));
            stale = field("stale", out(bool()));
            fetched = field("fetched", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> uint(c.qpBits())))));
        }
    }

    public final QpRingsConfig config;
    public final int entryOctets;
    public final Io io;

    /**
     * @param entryOctets octets of a ring slot (a power of two ≥ 8)
     * @param keepOctets  octets of a slot the consumer reads (the rest is reserved)
     */
    protected QpRingFetcher(QpRingsConfig c, int entryOctets, int keepOctets) {
        this.config = c;
        this.entryOctets = entryOctets;
        noIoPrefix();
        io = io(new Io(c, keepOctets));
        int n = c.qpCount();
        int qb = c.qpBits();
        int ib = QpRingsConfig.INDEX_BITS;
        int w = c.dataWidth();
        int e = 8 * entryOctets;
        int log2Entry = Integer.numberOfTrailingZeros(entryOctets);
        int log2Beat = Integer.numberOfTrailingZeros(w / 8);
        // A slot narrower than a beat: one beat, the slot in one of its lane groups. Else the beats holding the
        // octets the consumer reads (a slot is aligned to its size, so no burst crosses 4 KiB).
        int lanes = Math.max(1, w / e);
        int beats = lanes > 1 ? 1 : (8 * keepOctets + w - 1) / w;
        int got = beats * w;
        int laneBits = Math.max(1, Integer.numberOfTrailingZeros(lanes));
        int cb = Integer.SIZE - Integer.numberOfLeadingZeros(DEPTH);

        List<UInt> fetch = new ArrayList<>();
        List<UInt> inflight = new ArrayList<>();
        List<UInt> drop = new ArrayList<>();
        for (int q = 0; q < n; q++) {
            fetch.add(regInit("fetch_" + q, uint(ib), U(0, ib)));
            inflight.add(regInit("inflight_" + q, uint(cb), U(0, cb)));
            drop.add(regInit("drop_" + q, uint(cb), U(0, cb)));
        }
        UInt reserved = regInit("reserved", uint(cb), U(0, cb));
        UInt last = regInit("last", uint(qb), U(0, qb));

        // ---- choose a QP and ask for its slot ----
        List<Bool> eligible = new ArrayList<>();
        for (int q = 0; q < n; q++) {
            Bool rewound = and(io.rewind.valid(), eq(io.rewind.payload().qp, U(q, qb)));
            UInt mask = wire("mask_" + q, QpRingMath.slotMask(io.size.apply(q)));
            eligible.add(wire("eligible_" + q, and(io.enable.apply(q), not(io.clear.apply(q)), not(rewound),
                    neq(fetch.get(q), io.prod.apply(q)), not(QpRingMath.full(fetch.get(q), io.cons.apply(q), mask)))));
        }
        UInt pick = wire("pick", roundRobin(eligible, last));
        Bool any = wire("any", catLsbFirst(eligible).orR());

        var ar = io.axi.ar();
        Bool arValid = regInit("arValid", bool(), False());
        UInt arAddr = reg("arAddr", uint(64));
        Stream<Tag> tagIn = wire("tagIn", Streams.stream(() -> new Tag(c, laneBits)));
        // A new address may follow in the cycle the shown one is taken (AR at full rate).
        Bool choose = wire("choose", and(or(not(arValid), ar.ready()), lt(reserved, U(DEPTH, cb)), any,
                tagIn.ready()));
        UInt pickIndex = wire("pickIndex", vec(fetch).apply(pick));
        // The picked QP's mask decoded from its size after the mux (5 bits wide, not 16).
        UInt address = wire("address", QpRingMath.slotAddress(io.base.apply(pick), pickIndex,
                QpRingMath.slotMask(io.size.apply(pick)), log2Entry));
        set(tagIn.valid(), choose);
        set(tagIn.payload().qp, pick);
        set(tagIn.payload().index, pickIndex);
        set(tagIn.payload().lane, lanes > 1 ? range(address, log2Beat - 1, log2Entry) : U(0, 1));
        Stream<Tag> tags = Streams.fifo(tagIn, DEPTH, 1);
        when(ar.fire(), () -> set(arValid, False()));
        when(choose, () -> {
            set(arValid, True());
            set(arAddr, address);
            set(last, pick);
        });
        set(ar.valid(), arValid);
        set(ar.payload().addr(), arAddr);
        set(ar.payload().id(), U(0, MemoryPort.ID_WIDTH));
        set(ar.payload().len(), U(beats - 1, 8));
        set(ar.payload().size(), U(MemoryPort.size(w), 3));
        set(ar.payload().burst(), B(MemoryPort.BURST_INCR, 2));
        set(io.fetched.valid(), choose);
        set(io.fetched.payload(), pick);

        // ---- assemble the slot from its beats (R is always taken: the buffer has room by construction) ----
        var r = io.axi.r();
        Stream<Entry> done = wire("done", Streams.stream(() -> new Entry(c, keepOctets)));
        Bool beatError = wire("beatError", neq(r.payload().resp(), B(MemoryPort.RESP_OKAY, 2)));
        Bool errorSoFar = regInit("errorSoFar", bool(), False());
        Bits slot;
        if (beats > 1) {
            // The slot's earlier beats, shifted down as each new one arrives on top.
            Bits acc = reg("acc", bits(got - w));
            Bits joined = wire("joined", concat(r.payload().data(), acc));
            when(r.fire(), () -> set(acc, range(joined, got - 1, w)));
            slot = joined;
        } else if (lanes > 1) {
            List<Bits> groups = new ArrayList<>();
            for (int l = 0; l < lanes; l++) {
                groups.add(range(r.payload().data(), e * (l + 1) - 1, e * l));
            }
            slot = wire("laneGroup", vec(groups).apply(tags.payload().lane));
        } else {
            slot = r.payload().data();
        }
        set(done.valid(), and(r.valid(), r.payload().last(), tags.valid()));
        set(done.payload().qp, tags.payload().qp);
        set(done.payload().index, tags.payload().index);
        set(done.payload().data, range(slot, 8 * keepOctets - 1, 0));
        set(done.payload().error, or(errorSoFar, beatError));
        set(r.ready(), or(not(r.payload().last()), and(done.ready(), tags.valid())));
        set(tags.ready(), done.fire());
        when(r.fire(), () -> set(errorSoFar, and(not(r.payload().last()), or(errorSoFar, beatError))));
        Stream<Entry> buffered = Streams.fifo(done, DEPTH, 1);
        Streams.connect(buffered, io.entries);

        // ---- bookkeeping ----
        Entry head = io.entries.payload();
        set(io.stale, neq(vec(drop).apply(head.qp), U(0, cb)));
        Bool taken = wire("taken", io.entries.fire());
        when(and(choose, not(taken)), () -> set(reserved, add(reserved, U(1, cb))));
        when(and(taken, not(choose)), () -> set(reserved, sub(reserved, U(1, cb))));
        for (int q = 0; q < n; q++) {
            final int qq = q;
            Bool in = wire("fetchedMine_" + q, and(choose, eq(pick, U(q, qb))));
            Bool out = wire("takenMine_" + q, and(taken, eq(head.qp, U(q, qb))));
            // Each QP's own incrementer: loading the picked QP's (one shared adder) puts the pick multiplexer in
            // front of every fetch index, which yosys maps to more LUTs than the adders save (measured at 16 QPs).
            when(in, () -> set(fetch.get(qq), add(fetch.get(qq), U(1, ib))));
            when(and(in, not(out)), () -> set(inflight.get(qq), add(inflight.get(qq), U(1, cb))));
            when(and(out, not(in)), () -> set(inflight.get(qq), sub(inflight.get(qq), U(1, cb))));
            when(and(out, neq(drop.get(qq), U(0, cb))), () -> set(drop.get(qq), sub(drop.get(qq), U(1, cb))));
            // Every entry of the QP still in flight (not the one leaving now) is stale; no new one is chosen now.
            UInt remaining = wire("remaining_" + q, sub(inflight.get(qq), mux(out, U(1, cb), U(0, cb))));
            Bool rewound = and(io.rewind.valid(), eq(io.rewind.payload().qp, U(q, qb)));
            when(rewound, () -> {
                set(fetch.get(qq), io.rewind.payload().index);
                set(drop.get(qq), remaining);
            });
            when(io.clear.apply(q), () -> {
                set(fetch.get(qq), U(0, ib));
                set(drop.get(qq), remaining);
            });
        }
    }
}
