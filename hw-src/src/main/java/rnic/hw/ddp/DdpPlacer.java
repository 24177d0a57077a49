package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4Aw;
import spinal.lib.bus.amba4.axi.Axi4W;
import spinal.lib.bus.amba4.axi.Axi4WriteOnly;

/**
 * Receive-side placement (RFC 5041 §5.2, DDP-18): writes the payload of a received DDP segment into memory through the
 * write half of the {@link MemoryPort}. The engine in front has parsed the header and validated the STag/TO or the
 * receive buffer (DDP-29, DDP-30); it hands this block a command per segment saying where its payload goes, and the
 * segment itself. A segment that failed validation still comes through, as a {@code drop} command, so it is consumed
 * and nothing of it is placed (DDP-31).
 *
 * <p><b>Command.</b> {@code address}, {@code length} (octets to place, 0 … 65535), {@code skip} (octets of the segment
 * before the payload: its DDP/RDMAP header, 0 … 127), {@code drop}, {@code tag}. Each command consumes exactly one
 * segment from {@code segment} (a whole ULPDU as received, header included, ⌈length/(W/8)⌉ beats, see
 * {@link DdpBeat}); octets {@code [skip, skip+length)} of it go to {@code [address, address+length)}, the octets
 * after them are discarded. The caller guarantees {@code skip + length} ≤ the segment's length; if not, the octets
 * missing from the segment are written with unspecified values — still only inside {@code [address, address+length)},
 * and the block never stalls on it. Addresses are taken modulo 2^64: a range that runs past 2^64 − 1 continues at 0
 * (a 4 KiB boundary, so no burst straddles it; the STag checks upstream, DDP-30 (5), keep it from happening).
 * Commands must not wait for their segment: a segment's beats are only taken once its command is in.
 *
 * <p><b>Memory.</b> Bursts start at the exact address (unaligned allowed) and split on blocks of min(4 KiB, 256 beats)
 * ({@link MemoryPort#burstBlock}), so none crosses 4 KiB or exceeds 256 beats; strobes cover exactly the commanded
 * octets, so no octet outside the range is written. All bursts use ID 0, so B responses come back in order.
 * {@code done} answers each command in command order: after the B of its last burst, with {@code error} set when any of
 * its bursts was answered other than OKAY (the octets of an erroneous burst may or may not be in memory). A
 * zero-length or drop command touches no bus and is done in its turn. {@code done} says the placement is finished,
 * not that the segment is consumed: octets after the payload (or a dropped segment) may still be being taken.
 *
 * <p><b>Pipeline.</b> Three decoupled parts:
 * <ol>
 *   <li>The <b>address issuer</b> takes a command, derives its placement parameters for the data side (pushed into a
 *       queue of {@value #JOBS} jobs) and issues its bursts, one AW per cycle, each recorded in a queue of
 *       {@value #BURSTS_AHEAD} burst lengths (AW runs at most that far ahead of W, and W never before its AW) and in
 *       the queue of {@value #OUTSTANDING} bursts awaiting a B response (the write bursts in flight).</li>
 *   <li>The <b>data side</b> realigns the segment to the address grid: with {@code o} = address mod n and
 *       {@code r = (o − skip) mod n}, destination beat j is the segment beat j+E rotated up by r lanes, its lowest r
 *       lanes from beat j+E−1 (E = ⌈(skip − o)/n⌉ ≥ 0 beats of header come first). Only one rotator is needed: the
 *       previous beat is kept already rotated. One segment beat is taken per cycle; the first E beats produce no W beat,
 *       and a payload whose last octets land in a destination beat after the segment's last beat costs one extra
 *       cycle (a flush beat, no segment beat taken). W beats are registered.</li>
 *   <li>The <b>response side</b> matches B responses to the oldest outstanding bursts and emits {@code done}
 *       (registered).</li>
 * </ol>
 * Throughput: one W beat per cycle while segment beats keep coming, AW and B overlapping across commands; a
 * segment costs its beat count plus one cycle for a flush beat when one is needed. <b>Latency</b>: the last W beat of a
 * command is presented {@value #LATENCY} cycle after the segment beat holding its last payload octet is taken (one
 * more with a flush beat), provided its burst's AW was issued and W was not back-pressured; when the segment ends with
 * octets after the payload, the last W beat comes before the segment's last beat is taken.
 */
public final class DdpPlacer extends HwComponent {
    /** Cycles from taking the segment beat with a command's last payload octet to presenting its last W beat. */
    public static final int LATENCY = 1;
    /** Commands queued between the address issuer and the data side. */
    public static final int JOBS = 4;
    /** Bursts whose AW went out before their W beats. */
    public static final int BURSTS_AHEAD = 8;
    /** Write bursts issued and not yet answered by a B (the AW issuer waits beyond this). */
    public static final int OUTSTANDING = 16;
    /** The tag width {@code ./rnic generate} builds. */
    public static final int DEFAULT_TAG_WIDTH = 8;

    /** Where one segment's payload goes. */
    public static final class Command extends HwBundle {
        public final int tagWidth;
        /** First octet of the destination (64-bit, any alignment). */
        public final UInt address;
        /** Octets to place, 0 … 65535. */
        public final UInt length;
        /** Octets of the segment before the payload (its DDP/RDMAP header), 0 … 127. */
        public final UInt skip;
        /** Consume the segment and place nothing (a segment that failed validation, DDP-31). */
        public final Bool drop;
        public final Bits tag;

        public Command(int tagWidth) {
            this.tagWidth = tagWidth;
            address = field("address", uint(64));
            length = field("length", uint(16));
            skip = field("skip", uint(7));
            drop = field("drop", bool());
            tag = field("tag", bits(tagWidth));
        }
    }

    /** Ports: {@code cmd_*}, {@code segment_*} in; {@code axi_*} (AXI4 write master), {@code done_*} out. */
    public static final class Io extends HwBundle {
        public final DdpConfig config;
        public final int tagWidth;
        public final Stream<Command> cmd;
        public final Stream<DdpBeat> segment;
        public final Axi4WriteOnly axi;
        public final Stream<MemoryDone> done;

        public Io(DdpConfig config, int tagWidth) {
            this.config = config;
            this.tagWidth = tagWidth;
            cmd = field("cmd", Streams.slaveStream(() -> new Command(tagWidth)));
            segment = field("segment", Streams.slaveStream(() -> new DdpBeat(config)));
            axi = field("axi", MemoryPort.writeMaster(config.dataWidth()));
            done = field("done", Streams.masterStream(() -> new MemoryDone(tagWidth)));
        }
    }

    /** What the data side needs of one command, derived once by the address issuer. */
    public static final class Job extends HwBundle {
        public final int octets;
        /** Place anything: not a drop, not zero-length. */
        public final Bool write;
        /** Lanes to rotate the segment up by: (o − skip) mod n. */
        public final UInt rotate;
        /** Segment beats before the first destination beat can be formed: ⌈(skip − o)/n⌉. */
        public final UInt lead;
        /** Index of the last destination beat: ⌊(o + length − 1)/n⌋. */
        public final UInt lastBeat;
        /** Lanes written in the first destination beat: o … n−1. */
        public final Bits firstLanes;
        /** Lanes written in the last destination beat: 0 … (o + length − 1) mod n. */
        public final Bits lastLanes;

        public Job(int octets) {
            this.octets = octets;
            write = field("write", bool());
            rotate = field("rotate", uint(log2Up(octets)));
            lead = field("lead", uint(8));
            lastBeat = field("lastBeat", uint(16));
            firstLanes = field("firstLanes", bits(octets));
            lastLanes = field("lastLanes", bits(octets));
        }
    }

    /** One issued burst (or a command without bursts) as the response side tracks it. */
    public static final class Pending extends HwBundle {
        public final int tagWidth;
        public final Bits tag;
        /** The command's last burst: its B completes the command. */
        public final Bool last;
        /** A zero-length or drop command: done without a B. */
        public final Bool noBurst;

        public Pending(int tagWidth) {
            this.tagWidth = tagWidth;
            tag = field("tag", bits(tagWidth));
            last = field("last", bool());
            noBurst = field("noBurst", bool());
        }
    }

    public final DdpConfig config;
    public final int tagWidth;
    public final Io io;

    // address issuer
    public final Bool busy;
    public final UInt addr;
    public final UInt remaining;
    /** Beat index (within the burst block) of the command's last octet. */
    public final UInt endBeat;
    public final Bits tag;
    public final Bool noBurst;
    /** Low {@code log2(n)+16} address bits of the command's last octet. */
    public final UInt endLow;
    public final UInt room;
    public final Bool lastBurst;

    // data side
    public final UInt inBeat;
    public final UInt outBeat;
    public final Bool flushing;
    public final Bits prevRotated;
    public final UInt burstBeat;
    public final Bool wValid;
    public final Bits wData;
    public final Bits wStrb;
    public final Bool wLast;
    public final Bits rotated;

    // response side
    public final Bool errAcc;

    public DdpPlacer(DdpConfig config, int tagWidth) {
        if (tagWidth < 1) {
            throw new IllegalArgumentException("tag width must be at least 1, got " + tagWidth);
        }
        this.config = config;
        this.tagWidth = tagWidth;
        noIoPrefix();
        io = io(new Io(config, tagWidth));
        int n = config.octets();
        int ln = log2Up(n);
        int w = config.dataWidth();
        int block = MemoryPort.burstBlock(w, MemoryPort.MAX_BURST_BEATS);
        int bb = Integer.numberOfTrailingZeros(block);
        int kb = bb - ln; // bits of a beat index within a burst block (≤ 8)

        Stream<Job> jobsIn = wire("jobsIn", Streams.stream(() -> new Job(n)));
        Stream<UInt> burstsIn = wire("burstsIn", Streams.stream(() -> uint(8)));
        Stream<Pending> pendingIn = wire("pendingIn", Streams.stream(() -> new Pending(tagWidth)));
        Stream<Job> jobs = Streams.fifo(jobsIn, JOBS, "DdpPlacer_StreamFifo_jobs");
        Stream<UInt> bursts = Streams.fifo(burstsIn, BURSTS_AHEAD, "DdpPlacer_StreamFifo_bursts");
        Stream<Pending> pending = Streams.fifo(pendingIn, OUTSTANDING, "DdpPlacer_StreamFifo_pending");

        // ------------------------------------------------------------------------------------- address issuer
        busy = regInit("busy", bool(), False());
        addr = reg("addr", uint(64));
        remaining = reg("remaining", uint(16));
        endBeat = reg("endBeat", uint(kb));
        tag = reg("tag", bits(tagWidth));
        noBurst = reg("noBurst", bool());

        Command c = io.cmd.payload();
        UInt o = wire("o", range(c.address, ln - 1, 0));
        // The command's last octet, low ln+16 address bits: its lane, its beat within the burst block, and (less the
        // first octet's beat) the index of the last destination beat, ⌊(o + length − 1)/n⌋.
        endLow = wire("endLow", sub(add(range(c.address, ln + 15, 0), c.length.resize(ln + 16)), U(1, ln + 16)));
        Bool write = wire("write", and(not(c.drop), neq(c.length, U(0, 16))));
        Job job = jobsIn.payload();
        set(job.write, write);
        set(job.rotate, sub(o, range(c.skip, ln - 1, 0)));
        // ⌈(skip − o)/n⌉ = skip[6:ln] + (skip[ln-1:0] > o).
        set(job.lead, add(range(c.skip, 6, ln).resize(8), mux(gt(range(c.skip, ln - 1, 0), o), U(1, 8), U(0, 8))));
        set(job.lastBeat, sub(range(endLow, ln + 15, ln), range(c.address, ln + 15, ln)));
        set(job.firstLanes, DdpLanes.lanesFrom(o, n));
        set(job.lastLanes, DdpLanes.lanesUpTo(range(endLow, ln - 1, 0), n));

        MemoryPort.Burst burst = MemoryPort.nextBurst(addr, remaining, endBeat, w, block);
        room = wire("room", burst.room());
        lastBurst = wire("lastBurst", burst.last());
        Axi4WriteOnly axi = io.axi;
        Stream<Axi4Aw> aw = axi.aw();
        Axi4Aw a = aw.payload();
        set(aw.valid(), and(busy, not(noBurst), burstsIn.ready(), pendingIn.ready()));
        set(a.addr(), addr);
        set(a.id(), U(0, MemoryPort.ID_WIDTH));
        set(a.len(), burst.len());
        set(a.size(), U(MemoryPort.size(w), 3));
        set(a.burst(), B(MemoryPort.BURST_INCR, 2));

        Bool skipItem = wire("skipItem", and(busy, noBurst, pendingIn.ready()));
        Bool lastItem = wire("lastItem", or(and(aw.fire(), lastBurst), skipItem));
        set(burstsIn.valid(), aw.fire());
        set(burstsIn.payload(), a.len());
        set(pendingIn.valid(), or(aw.fire(), skipItem));
        set(pendingIn.payload().tag, tag);
        set(pendingIn.payload().last, or(noBurst, lastBurst));
        set(pendingIn.payload().noBurst, noBurst);

        set(io.cmd.ready(), and(or(not(busy), lastItem), jobsIn.ready()));
        set(jobsIn.valid(), and(io.cmd.valid(), or(not(busy), lastItem)));
        when(and(aw.fire(), not(lastBurst)), () -> MemoryPort.advance(addr, remaining, room));
        when(lastItem, () -> set(busy, False()));
        when(io.cmd.fire(), () -> {
            set(busy, True());
            set(addr, c.address);
            set(remaining, c.length);
            set(endBeat, range(endLow, bb - 1, ln));
            set(tag, c.tag);
            set(noBurst, not(write));
        });

        // ---------------------------------------------------------------------------------------- data side
        inBeat = regInit("inBeat", uint(16), U(0, 16));
        outBeat = regInit("outBeat", uint(16), U(0, 16));
        flushing = regInit("flushing", bool(), False());
        prevRotated = reg("prevRotated", bits(w));
        burstBeat = regInit("burstBeat", uint(8), U(0, 8));
        wValid = regInit("wValid", bool(), False());
        wData = reg("wData", bits(w));
        wStrb = reg("wStrb", bits(n));
        wLast = reg("wLast", bool());

        Job j = jobs.payload();
        DdpBeat s = io.segment.payload();
        Stream<Axi4W> wOut = axi.w();
        rotated = wire("rotated", DdpLanes.rotateOctetsUp(s.data, j.rotate));
        Bits low = DdpLanes.octetMask(DdpLanes.lanesBelow(j.rotate, n));
        Bits beat = wire("beat", or(and(prevRotated, low), and(rotated, not(low))));
        Bool first = eq(outBeat, U(0, 16));
        Bool lastOut = wire("lastOut", eq(outBeat, j.lastBeat));
        Bits ones = B(n == 64 ? -1L : (1L << n) - 1, n);
        Bits strb = and(mux(first, j.firstLanes, ones), mux(lastOut, j.lastLanes, ones));

        Bool segLast = wire("segLast", ge(add(shl(inBeat, ln), U(n, 16 + ln)), s.length.resize(16 + ln)));
        Bool pastLead = ge(inBeat, j.lead.resize(16));
        Bool inPayload = wire("inPayload", and(j.write, pastLead, le(outBeat, j.lastBeat)));
        Bool slot = wire("slot", and(or(not(wValid), wOut.ready()), bursts.valid()));
        set(io.segment.ready(), and(jobs.valid(), not(flushing), or(not(inPayload), slot)));
        Bool take = io.segment.fire();
        Bool flushEmit = wire("flushEmit", and(jobs.valid(), flushing, slot));
        Bool emit = wire("emit", or(and(take, inPayload), flushEmit));
        // After the segment's last beat, destination beats still due: a flush (only when skip + length fits, one).
        Bool moreDue = wire("moreDue", and(j.write, mux(inPayload, lt(outBeat, j.lastBeat), le(outBeat, j.lastBeat))));
        Bool jobDone = wire("jobDone", or(and(take, segLast, not(moreDue)), and(flushEmit, lastOut)));
        set(jobs.ready(), jobDone);

        Bool wlastNow = eq(burstBeat, bursts.payload());
        set(bursts.ready(), and(emit, wlastNow));
        when(emit, () -> {
            set(wValid, True());
            set(wData, beat);
            set(wStrb, strb);
            set(wLast, wlastNow);
            set(burstBeat, mux(wlastNow, U(0, 8), add(burstBeat, U(1, 8))));
            set(outBeat, add(outBeat, U(1, 16)));
        }).elseWhen(wOut.ready(), () -> set(wValid, False()));
        when(take, () -> {
            set(prevRotated, rotated);
            set(inBeat, mux(segLast, U(0, 16), add(inBeat, U(1, 16))));
            when(and(segLast, moreDue), () -> set(flushing, True()));
        });
        when(jobDone, () -> {
            set(outBeat, U(0, 16));
            set(flushing, False());
        });
        set(wOut.valid(), wValid);
        set(wOut.payload().data(), wData);
        set(wOut.payload().strb(), wStrb);
        set(wOut.payload().last(), wLast);

        // ------------------------------------------------------------------------------------ response side
        errAcc = regInit("errAcc", bool(), False());
        Stream<MemoryDone> doneIn = wire("doneIn", Streams.stream(() -> new MemoryDone(tagWidth)));
        Pending p = pending.payload();
        var b = axi.b();
        Bool respErr = wire("respErr", neq(b.payload().resp(), B(MemoryPort.RESP_OKAY, 2)));
        set(doneIn.valid(), and(pending.valid(), p.last, or(p.noBurst, b.valid())));
        set(doneIn.payload().tag, p.tag);
        set(doneIn.payload().error, or(errAcc, and(not(p.noBurst), respErr)));
        set(b.ready(), and(pending.valid(), not(p.noBurst), or(not(p.last), doneIn.ready())));
        set(pending.ready(), or(b.fire(), and(pending.valid(), p.noBurst, doneIn.ready())));
        when(b.fire(), () -> set(errAcc, and(not(p.last), or(errAcc, respErr))));
        Streams.connect(Streams.m2sPipe(doneIn), io.done);
    }
}
