package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.CountOne$;
import spinal.lib.Stream;

/**
 * First MPA receive stage: puts received TCP payload, cut anywhere (RFC 5044 §5.1, MPA-23), back on the grid of the
 * stream — rows of {@code W/8} octets counted from the start of Full Operation ({@code seqStart}) — and hands on every
 * 32-bit word as soon as it is complete (so an FPDU that ends mid-row is not held back waiting for the next segment).
 *
 * <p>A beat's octets land at the fill position of the current row (an octet shift of up to one row); a row that fills
 * goes out whole with the overflow kept as the start of the next one, otherwise its newly completed words go out. One
 * input beat per cycle; input and output are registered (the input stage tests whether a beat starts where the one
 * before it ended, so the in-order test is a register). A beat whose {@code seq} is not the next expected sequence number
 * means the in-order byte stream has a hole (the LLP failed, E-M1): the stage passes a {@code lost} row after the last
 * complete word and drops everything after it. The end of the stream ({@code fin}: the peer's FIN or RST, MPA-41) is
 * treated the same way once the octets of its beat are in: a {@code lost} row after the last complete word, so every
 * FPDU completed before the FIN is still validated and delivered and then the receiver reports E-M1.
 */
public final class MpaRxAlign extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final Stream<TcpRxBeat> input;
        public final Stream<MpaRxRow> output;
        public final UInt seqStart;

        public Io(int dataWidth) {
            this.dataWidth = dataWidth;
            input = field("input", Streams.slaveStream(() -> new TcpRxBeat(dataWidth)));
            output = field("output", Streams.masterStream(() -> new MpaRxRow(dataWidth / 32)));
            seqStart = field("seqStart", in(uint(32)));
        }
    }

    /** The input beat behind the front register: {@link TcpRxBeat} with the in-order test in place of {@code seq}. */
    public static final class InBeat extends HwBundle {
        public final int dataWidth;
        public final Bits tdata;
        public final Bits tkeep;
        public final Bool fin;
        /** The beat starts where the one before it ended (the first: at {@code seqStart}). */
        public final Bool inOrder;
        /** Octets in the beat (ones of {@code tkeep}). */
        public final UInt count;

        public InBeat(int dataWidth) {
            this.dataWidth = dataWidth;
            tdata = field("tdata", bits(dataWidth));
            tkeep = field("tkeep", bits(dataWidth / 8));
            fin = field("fin", bool());
            inOrder = field("inOrder", bool());
            count = field("count", uint(log2Up(dataWidth / 4)));
        }
    }

    public final Io io;
    /** Octets {@code 0 … fill-1} of the current row. */
    public final Bits row;
    public final UInt fill;
    /** Words of the current row already handed on. */
    public final UInt sent;
    /** Stream offset of the current row. */
    public final UInt rowOff;
    /** A hole was seen; {@code lostSent} once it has been reported. */
    public final Bool lost;
    public final Bool lostSent;
    /** Stream offset the next input octet must have: {@code rowOff + fill}. */
    public final UInt expOff;
    /** Sequence number just after the last beat in ({@code seq + octets}), the next one's if it is in order. */
    public final UInt nextSeq;
    /** The input beat, octet-shifted to the fill position (two rows wide). */
    public final Bits merged;
    public final UInt filled;
    /** Complete words of the current row after this cycle's input. */
    public final UInt complete;

    public MpaRxAlign(int dataWidth) {
        if (dataWidth < 32 || 512 % dataWidth != 0) {
            throw new IllegalArgumentException("MpaRxAlign needs a width of 32 … 512 dividing 512, not " + dataWidth);
        }
        io = io(new Io(dataWidth));
        int n = dataWidth / 8;
        int words = n / 4;
        int fw = log2Up(n);          // fill: 0 … n-1
        int sw = log2Up(2 * n);      // fill + count: 0 … 2n-1
        int cw = log2Up(words + 1);
        row = regInit("row", bits(dataWidth), B(0, dataWidth));
        fill = regInit("fill", uint(fw), U(0, fw));
        sent = regInit("sent", uint(cw), U(0, cw));
        rowOff = regInit("rowOff", uint(32), U(0, 32));
        lost = regInit("lost", bool(), False());
        lostSent = regInit("lostSent", bool(), False());
        expOff = regInit("expOff", uint(32), U(0, 32));

        Stream<MpaRxRow> out = Streams.stream(() -> new MpaRxRow(words));
        Streams.connect(Streams.m2sPipe(out), io.output);

        // A register stage in front, which also makes the in-order test: a beat is in order when it starts where the
        // beat before it ended (the first at seqStart). That is the test against the expected stream offset as long as
        // every earlier beat was in order, and after the first that was not nothing more is taken, so it is the same.
        // The compare is then a register here, off the path from the aligner's state to its enables.
        TcpRxBeat raw = io.input.payload();
        Bool first = regInit("first", bool(), True());
        nextSeq = regInit("nextSeq", uint(32), U(0, 32));
        Bool inOrderIn = mux(first, eq(raw.seq, io.seqStart), eq(raw.seq, nextSeq));
        UInt rawCount = CountOne$.MODULE$.apply(raw.tkeep).resize(sw);
        when(io.input.fire(), () -> {
            set(first, False());
            set(nextSeq, add(raw.seq, rawCount.resize(32)));
        });
        InBeat inBeat = wire("inBeat", new InBeat(dataWidth));
        set(inBeat.tdata, raw.tdata);
        set(inBeat.tkeep, raw.tkeep);
        set(inBeat.fin, raw.fin);
        set(inBeat.inOrder, inOrderIn);
        set(inBeat.count, rawCount);
        // Behind the register a skid buffer: the front stage's enables (nextSeq) wait on no ready from the aligner.
        Stream<InBeat> input = Streams.s2mPipe(Streams.m2sPipe(Streams.translateWith(io.input, inBeat)));
        InBeat in = input.payload();
        Bool inOrder = in.inOrder;
        UInt count = in.count; // counted in the front stage: off the path to the enables
        UInt expected = expOff;
        Bool take = and(input.valid(), not(lost), inOrder);
        Bool hole = and(input.valid(), not(lost), not(inOrder));

        List<Bool> keepBits = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (int b = 0; b < 8; b++) {
                keepBits.add(in.tkeep.apply(i));
            }
        }
        Bits octets = and(in.tdata, catLsbFirst(keepBits)).resize(2 * dataWidth);
        Bits shifted = octets.$bar$less$less(concat(fill.asBits(), B(0, 3)).asUInt());
        merged = wire("merged", mux(take, or(row.resize(2 * dataWidth), shifted), row.resize(2 * dataWidth)));
        filled = wire("filled", add(fill.resize(sw), mux(take, count, U(0, sw))));
        Bool rowDone = not(lt(filled, U(n, sw)));
        complete = wire("complete", mux(rowDone, U(words, cw), shr(filled, 2).resize(cw)));
        Bool emit = gt(complete, sent);

        MpaRxRow o = out.payload();
        set(o.data, range(merged, dataWidth - 1, 0));
        set(o.lo, sent);
        set(o.hi, complete);
        set(o.rowOff, mux(emit, rowOff, expected));
        set(o.lost, not(emit));
        set(out.valid(), or(emit, and(lost, not(lostSent))));
        // A cycle moves when it has nothing to hand on or the output takes it.
        Bool step = or(not(emit), out.ready());
        set(input.ready(), or(lost, and(step, not(hole))));

        when(and(step, input.valid(), hole), () -> set(lost, True()));
        when(and(step, take), () -> set(expOff, add(expOff, count.resize(32))));
        when(and(step, take, in.fin), () -> set(lost, True()));
        when(and(out.fire(), not(emit)), () -> set(lostSent, True()));
        when(step, () -> {
            when(rowDone, () -> {
                set(row, range(merged, 2 * dataWidth - 1, dataWidth));
                set(fill, range(filled, fw - 1, 0)); // filled − n: filled < 2n and n is a power of two
                set(sent, U(0, cw));
                set(rowOff, add(rowOff, U(n, 32)));
            }).otherwise(() -> {
                set(row, range(merged, dataWidth - 1, 0));
                set(fill, range(filled, fw - 1, 0));
                set(sent, complete);
            });
        });
    }
}
