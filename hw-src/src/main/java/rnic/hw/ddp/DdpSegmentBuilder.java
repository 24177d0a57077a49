package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4Ar;
import spinal.lib.bus.amba4.axi.Axi4R;
import spinal.lib.bus.amba4.axi.Axi4ReadOnly;

/**
 * Transmit-side segment assembly: one DDP segment (one ULPDU for MPA) = a header given in the command, followed by
 * payload fetched from memory through the read half of the {@link MemoryPort}. The transmit engine in front has
 * segmented the message (DDP-17: each segment ≤ MULPDU) and built the DDP/RDMAP header of each segment (DDP-10 …
 * DDP-16: STag/TO or QN/MSN/MO); this block joins header and payload into the {@link DdpBeat} stream the MPA
 * transmitter frames.
 *
 * <p><b>Command.</b> {@code qp}, {@code header} (70 octets, octet 0 in bits 7:0: an untagged header (18) plus the
 * longest RDMAP header, an Atomic Request (52), docs/requirements.md §2.5, §2.7.3), {@code headerLength} (0 … 70 octets of it
 * used), {@code address} and {@code payloadLength} (the payload's place in memory, any alignment, 0 … 65535 octets;
 * the range wraps modulo 2^64), {@code tag}. {@code headerLength + payloadLength} must be 1 … 65535. The segment comes
 * out as ⌈(headerLength + payloadLength)/n⌉ beats with that length and the command's QP: header octets, then payload
 * octets, packed; octets after the length in the last beat are unspecified. {@code done} answers each command in
 * order once the segment's last beat has been taken, with {@code error} set when any R beat of its payload came with
 * a response other than OKAY (the segment still comes out whole, those octets zero or whatever the memory returned).
 *
 * <p><b>Memory.</b> Reads are INCR bursts from the exact start address (unaligned allowed), split at every
 * {@value #READ_BURST_BEATS}-beat block (so never across 4 KiB), all with ID 0 (data in order). Read data lands in a
 * buffer of {@value #READ_BUFFER} beats, and an AR is only issued when the buffer has room for all of its beats
 * counting those already requested, so {@code RREADY} never drops for want of room. The issuer runs ahead of the assembly by up
 * to {@value #JOBS} commands: for back-to-back small segments the reads of the next ones are already in flight while
 * the current one is being assembled, and only the first pays the full read latency. With a read latency of L cycles,
 * full rate needs about L beats in flight; the buffer covers L up to ~{@value #READ_BUFFER} beats (and up to
 * {@value #JOBS} segments).
 *
 * <p><b>Assembly.</b> With {@code o} = address mod n and {@code h} = headerLength, segment beat i holds header octets
 * in its lanes below {@code h − i·n} and, above them, the read beats rotated up by {@code (h − o) mod n} lanes: the
 * newest read beat in the upper lanes, the previous one (kept rotated) in the lower ones. Beats that are all header
 * take no read beat; when {@code o > h} the first read beat is taken one cycle ahead (it only fills the low lanes of
 * the first payload beat). One segment beat per cycle when the read data keeps up; the output is registered.
 */
public final class DdpSegmentBuilder extends HwComponent {
    /** Octets of header a command carries (untagged DDP header + Atomic Request header). */
    public static final int HEADER_OCTETS = DdpConfig.HEADER_OCTETS;
    /** Beats per read burst (and the block reads split at: min(4096, 32·n) octets). */
    public static final int READ_BURST_BEATS = 32;
    /** Read data buffer, in beats: the reads in flight plus those waiting for the assembly. */
    public static final int READ_BUFFER = 64;
    /** Commands the read issuer may run ahead of the assembly. */
    public static final int JOBS = 16;
    /** The tag width {@code ./rnic generate} builds. */
    public static final int DEFAULT_TAG_WIDTH = 8;

    /** One segment to build. */
    public static final class Command extends HwBundle {
        public final int tagWidth;
        public final int qpBits;
        public final UInt qp;
        /** Header octets, octet 0 in bits 7:0; octets from {@code headerLength} on are ignored. */
        public final Bits header;
        /** Octets of {@code header} to send, 0 … 70. */
        public final UInt headerLength;
        /** First payload octet in memory. */
        public final UInt address;
        /** Payload octets, 0 … 65535 (header + payload ≤ 65535). */
        public final UInt payloadLength;
        public final Bits tag;

        public Command(int tagWidth, int qpBits) {
            this.tagWidth = tagWidth;
            this.qpBits = qpBits;
            qp = field("qp", uint(qpBits));
            header = field("header", bits(8 * HEADER_OCTETS));
            headerLength = field("headerLength", uint(7));
            address = field("address", uint(64));
            payloadLength = field("payloadLength", uint(16));
            tag = field("tag", bits(tagWidth));
        }
    }

    /**
     * Ports: {@code cmd_*} in; {@code axi_*} (AXI4 read master), {@code segment_*}, {@code done_*} out, and beside
     * {@code segment} the tag of the segment it shows and whether a read of its payload failed so far (complete on its
     * last beat): a user that must act in the cycle the last beat is taken (before {@code done} arrives) reads them.
     */
    public static final class Io extends HwBundle {
        public final DdpConfig config;
        public final int tagWidth;
        public final Stream<Command> cmd;
        public final Axi4ReadOnly axi;
        public final Stream<DdpBeat> segment;
        public final Stream<MemoryDone> done;
        /** The command tag of the segment shown on {@code segment}. */
        public final Bits segmentTag;
        /** An R beat of the shown segment's payload so far answered other than OKAY (on its last beat: any). */
        public final Bool segmentError;

        public Io(DdpConfig config, int tagWidth) {
            this.config = config;
            this.tagWidth = tagWidth;
            cmd = field("cmd", Streams.slaveStream(() -> new Command(tagWidth, config.qpBits())));
            axi = field("axi", MemoryPort.readMaster(config.dataWidth()));
            segment = field("segment", Streams.masterStream(() -> new DdpBeat(config)));
            done = field("done", Streams.masterStream(() -> new MemoryDone(tagWidth)));
            segmentTag = field("segmentTag", out(bits(tagWidth)));
            segmentError = field("segmentError", out(bool()));
        }
    }

    /** What the assembly needs of one command, derived once by the read issuer. */
    public static final class Job extends HwBundle {
        public final int octets;
        public final int tagWidth;
        public final int qpBits;
        public final Bits header;
        public final UInt headerLength;
        /** Segment length: header + payload. */
        public final UInt length;
        public final UInt qp;
        public final Bits tag;
        /** The payload is not empty: read beats are taken. */
        public final Bool read;
        /** The first read beat is taken before the first segment beat ({@code o > h}). */
        public final Bool early;
        /** Segment beats that are all header before the first one that takes a read beat: ⌊(h − o)/n⌋ or 0. */
        public final UInt headerBeats;
        /** Index of the last read beat: ⌊(o + payloadLength − 1)/n⌋. */
        public final UInt lastRead;
        /** Lanes the read beats are rotated up by: (h − o) mod n. */
        public final UInt rotate;

        public Job(int octets, int tagWidth, int qpBits) {
            this.octets = octets;
            this.tagWidth = tagWidth;
            this.qpBits = qpBits;
            header = field("header", bits(8 * HEADER_OCTETS));
            headerLength = field("headerLength", uint(7));
            length = field("length", uint(16));
            qp = field("qp", uint(qpBits));
            tag = field("tag", bits(tagWidth));
            read = field("read", bool());
            early = field("early", bool());
            headerBeats = field("headerBeats", uint(8));
            lastRead = field("lastRead", uint(16));
            rotate = field("rotate", uint(log2Up(octets)));
        }
    }

    /** One beat of read data in the buffer. */
    public static final class ReadBeat extends HwBundle {
        public final int dataWidth;
        public final Bits data;
        /** Its RRESP was not OKAY. */
        public final Bool error;

        public ReadBeat(int dataWidth) {
            this.dataWidth = dataWidth;
            data = field("data", bits(dataWidth));
            error = field("error", bool());
        }
    }

    public final DdpConfig config;
    public final int tagWidth;
    public final Io io;

    // read issuer
    public final Bool busy;
    public final UInt addr;
    public final UInt remaining;
    public final UInt endBeat;
    /** Read-buffer beats neither requested nor holding data. */
    public final UInt credits;
    public final UInt room;
    public final Bool lastBurst;
    public final UInt lenMinus1;
    public final UInt lastRead;

    // assembly
    public final UInt outBeat;
    public final UInt inBeat;
    public final Bool earlyDone;
    public final Bool errAcc;
    public final Bits prevRotated;
    public final Bits rotated;
    public final Bool outValid;
    public final Bits outData;
    public final UInt outLength;
    public final UInt outQp;
    public final Bool outLast;
    public final Bits outTag;
    public final Bool outError;

    public DdpSegmentBuilder(DdpConfig config, int tagWidth) {
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
        int qpBits = config.qpBits();
        int block = MemoryPort.burstBlock(w, READ_BURST_BEATS);
        int bb = Integer.numberOfTrailingZeros(block);
        int kb = bb - ln;
        int cw = log2Up(READ_BUFFER + 1);

        Stream<Job> jobsIn = wire("jobsIn", Streams.stream(() -> new Job(n, tagWidth, qpBits)));
        Stream<ReadBeat> readIn = wire("readIn", Streams.stream(() -> new ReadBeat(w)));
        Stream<MemoryDone> doneIn = wire("doneIn", Streams.stream(() -> new MemoryDone(tagWidth)));
        Stream<Job> jobs = Streams.fifo(jobsIn, JOBS, 1, "DdpSegmentBuilder_StreamFifo_jobs");
        // Synchronous read (latency 2): a buffer of this size must map to block RAM, not LUTs.
        Stream<ReadBeat> reads = Streams.fifo(readIn, READ_BUFFER, 2, "DdpSegmentBuilder_StreamFifo_reads");
        Streams.connect(Streams.fifo(doneIn, 2, "DdpSegmentBuilder_StreamFifo_done"), io.done);

        // ---------------------------------------------------------------------------------------- read issuer
        busy = regInit("busy", bool(), False());
        addr = reg("addr", uint(64));
        remaining = reg("remaining", uint(16));
        endBeat = reg("endBeat", uint(kb));
        credits = regInit("credits", uint(cw), U(READ_BUFFER, cw));

        Command c = io.cmd.payload();
        UInt o = wire("o", range(c.address, ln - 1, 0));
        UInt h = c.headerLength;
        lenMinus1 = wire("lenMinus1", sub(c.payloadLength, U(1, 16)));
        // ⌊(o + length − 1)/n⌋ = (length − 1)[15:ln] + ((length − 1)[ln-1:0] + o ≥ n), the latter as > ~o = n − 1 − o.
        Bool carry = gt(range(lenMinus1, ln - 1, 0), not(o.asBits()).asUInt());
        lastRead = wire("lastRead", add(shr(lenMinus1, ln).resize(16), mux(carry, U(1, 16), U(0, 16))));
        Bool read = wire("read", neq(c.payloadLength, U(0, 16)));
        Bool early = wire("early", gt(o.resize(7), h));
        Job job = jobsIn.payload();
        set(job.header, c.header);
        set(job.headerLength, h);
        set(job.length, add(c.payloadLength, h.resize(16)));
        set(job.qp, c.qp);
        set(job.tag, c.tag);
        set(job.read, read);
        set(job.early, and(read, early));
        // ⌊(h − o)/n⌋ = h[6:ln] − (h[ln-1:0] < o) when h ≥ o.
        UInt borrow = mux(lt(range(h, ln - 1, 0), o), U(1, 8), U(0, 8));
        set(job.headerBeats, mux(early, U(0, 8), sub(range(h, 6, ln).resize(8), borrow)));
        set(job.lastRead, lastRead);
        set(job.rotate, sub(range(h, ln - 1, 0), o));

        MemoryPort.Burst burst = MemoryPort.nextBurst(addr, remaining, endBeat, w, block);
        room = wire("room", burst.room());
        lastBurst = wire("lastBurst", burst.last());
        UInt len = wire("len", burst.len());
        Stream<Axi4Ar> ar = io.axi.ar();
        Axi4Ar a = ar.payload();
        UInt beats = add(len.resize(cw), U(1, cw));
        set(ar.valid(), and(busy, ge(credits, beats)));
        set(a.addr(), addr);
        set(a.id(), U(0, MemoryPort.ID_WIDTH));
        set(a.len(), len);
        set(a.size(), U(MemoryPort.size(w), 3));
        set(a.burst(), B(MemoryPort.BURST_INCR, 2));
        Bool free = wire("free", or(not(busy), and(ar.fire(), lastBurst)));
        set(io.cmd.ready(), and(free, jobsIn.ready()));
        set(jobsIn.valid(), and(io.cmd.valid(), free));
        when(and(ar.fire(), not(lastBurst)), () -> MemoryPort.advance(addr, remaining, room));
        when(and(ar.fire(), lastBurst), () -> set(busy, False()));
        when(io.cmd.fire(), () -> {
            set(busy, read);
            set(addr, c.address);
            set(remaining, c.payloadLength);
            set(endBeat, add(range(c.address, bb - 1, ln), range(lastRead, kb - 1, 0)));
        });
        UInt taken = mux(ar.fire(), beats, U(0, cw));
        UInt returned = mux(wire("readTaken", reads.fire()), U(1, cw), U(0, cw));
        set(credits, sub(add(credits, returned), taken));

        Stream<Axi4R> r = io.axi.r();
        set(readIn.valid(), r.valid());
        set(readIn.payload().data, r.payload().data());
        set(readIn.payload().error, neq(r.payload().resp(), B(MemoryPort.RESP_OKAY, 2)));
        set(r.ready(), readIn.ready());

        // ------------------------------------------------------------------------------------------- assembly
        outBeat = regInit("outBeat", uint(16), U(0, 16));
        inBeat = regInit("inBeat", uint(16), U(0, 16));
        earlyDone = regInit("earlyDone", bool(), False());
        errAcc = regInit("errAcc", bool(), False());
        prevRotated = reg("prevRotated", bits(w));
        outValid = regInit("outValid", bool(), False());
        outData = reg("outData", bits(w));
        outLength = reg("outLength", uint(16));
        outQp = reg("outQp", uint(qpBits));
        outLast = reg("outLast", bool());
        outTag = reg("outTag", bits(tagWidth));
        outError = reg("outError", bool());

        Job j = jobs.payload();
        ReadBeat rb = reads.payload();
        rotated = wire("rotated", DdpLanes.rotateOctetsUp(rb.data, j.rotate));
        Bits low = DdpLanes.octetMask(DdpLanes.lanesBelow(j.rotate, n));
        Bits payload = or(and(prevRotated, low), and(rotated, not(low)));
        // Header: beat i holds header octets i·n … in its lanes below h − i·n.
        UInt fullHeaderBeats = range(j.headerLength, 6, ln);
        Bool allHeader = lt(outBeat, fullHeaderBeats.resize(16));
        Bool partHeader = eq(outBeat, fullHeaderBeats.resize(16));
        Bits partLanes = DdpLanes.lanesBelow(range(j.headerLength, ln - 1, 0), n);
        Bits ones = B(n == 64 ? -1L : (1L << n) - 1, n);
        Bits headerLanes = DdpLanes.octetMask(mux(allHeader, ones, mux(partHeader, partLanes, B(0, n))));
        Bits headerBeat = wire("headerBeat", headerBeat(j.header, outBeat, n));
        Bits beat = wire("beat", or(and(headerBeat, headerLanes), and(payload, not(headerLanes))));

        Bool slot = wire("slot", or(not(outValid), io.segment.fire()));
        Bool earlyStep = wire("earlyStep", and(jobs.valid(), j.early, not(earlyDone)));
        Bool takeNow = wire("takeNow", and(j.read, ge(outBeat, j.headerBeats.resize(16)), le(inBeat, j.lastRead)));
        Bool emit = wire("emit", and(jobs.valid(), not(earlyStep), slot, or(not(takeNow), reads.valid())));
        Bool consume = wire("consume", or(and(earlyStep, reads.valid()), and(emit, takeNow)));
        Bool lastOut = wire("lastOut", ge(add(shl(outBeat, ln), U(n, 16 + ln)), j.length.resize(16 + ln)));
        set(reads.ready(), consume);
        set(jobs.ready(), and(emit, lastOut));

        when(consume, () -> {
            set(prevRotated, rotated);
            set(inBeat, add(inBeat, U(1, 16)));
            set(errAcc, or(errAcc, rb.error));
        });
        when(earlyStep, () -> set(earlyDone, reads.valid()));
        when(emit, () -> {
            set(outValid, True());
            set(outData, beat);
            set(outLength, j.length);
            set(outQp, j.qp);
            set(outLast, lastOut);
            set(outTag, j.tag);
            set(outError, or(errAcc, and(consume, rb.error)));
            set(outBeat, add(outBeat, U(1, 16)));
            when(lastOut, () -> {
                set(outBeat, U(0, 16));
                set(inBeat, U(0, 16));
                set(earlyDone, False());
                set(errAcc, False());
            });
        }).elseWhen(io.segment.fire(), () -> set(outValid, False()));

        // The last beat leaves only when its done has room, so done follows the segment's last beat.
        set(io.segment.valid(), and(outValid, or(not(outLast), doneIn.ready())));
        set(io.segment.payload().data, outData);
        set(io.segment.payload().length, outLength);
        set(io.segment.payload().qp, outQp);
        set(io.segmentTag, outTag);
        set(io.segmentError, outError);
        set(doneIn.valid(), and(io.segment.fire(), outLast));
        set(doneIn.payload().tag, outTag);
        set(doneIn.payload().error, outError);
    }

    /** Header octets {@code i·n … i·n+n−1} for segment beat {@code i} (zero past the 70 header octets). */
    private static Bits headerBeat(Bits header, UInt beatIndex, int n) {
        int beats = (HEADER_OCTETS + n - 1) / n;
        int k = log2Up(beats);
        List<Bits> list = new ArrayList<>();
        for (int b = 0; b < (1 << k); b++) {
            int lo = 8 * n * b;
            int hi = Math.min(8 * HEADER_OCTETS, lo + 8 * n) - 1;
            if (lo >= 8 * HEADER_OCTETS) {
                list.add(B(0, 8 * n));
            } else if (hi - lo + 1 < 8 * n) {
                list.add(range(header, hi, lo).resize(8 * n));
            } else {
                list.add(range(header, hi, lo));
            }
        }
        return vec(list).apply(range(beatIndex, k - 1, 0));
    }
}
