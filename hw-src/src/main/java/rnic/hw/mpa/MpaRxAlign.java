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
import spinal.core.Vec;
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
 *
 * <p><b>Shared by {@code n ≥ 1} connections</b> ({@link MpaRxShared}; {@code n = 0} is the one-connection aligner of
 * {@link MpaRxDeframer}, unchanged): every input beat carries its connection ({@code inConn}, with the beat), every
 * output row its {@code conn}. The in-order test keeps {@code first}/{@code nextSeq} per connection. The aligner's state
 * is the live registers above plus, for {@code n ≥ 2}, a table of one compact entry per connection (docs/shared-mpa.md
 * §2.3: {@code expOff}, the partial word at {@code sent}, {@code lost}), written back when a beat of another connection
 * is taken and read for it a cycle ahead, as its beat enters the front register (the entry registered with the beat,
 * the live state forwarded if that cycle writes it back). The compact form is exact only when the live connection has
 * nothing pending (complete words not yet handed on, or a hole not yet reported), so a beat of another connection waits
 * while the live one is stepped without input until nothing is pending (flush before switch: ≤ 2 cycles, only then).
 * {@code clear[c]} forgets connection c: its table entry and, when live, the live registers go back to their reset
 * values, and its beats and rows inside the aligner's registers are dropped. (A beat of c under clear is worked on like
 * any other before it is dropped, so the context may switch to c, whose live state is then reset: the aligner's enables
 * and its context multiplexers wait on no clear, timing.) {@code consumed}/{@code emitted} report,
 * per cycle, a beat taken by the aligning stage and a row handed on by it, with their connections (the shared
 * receiver's flow control counts them).
 *
 * <p>Timing (shared): the input's skid buffer sits in front of its register, so the beat worked on (its connection
 * above all) is a register; the sums the aligner's state takes ({@code expOff + count}, {@code rowOff + W/8},
 * {@code fill + count}) are worked out for the live registers and for the beat's table entry side by side, and the
 * context switch only picks one.
 */
public final class MpaRxAlign extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final Stream<TcpRxBeat> input;
        public final Stream<MpaRxRow> output;
        public final UInt seqStart;
        public final int n;
        /** Shared ({@code n ≥ 1}) only, else null: the input beat's connection, the clears, the stage's events. */
        public final UInt inConn;
        public final Vec<Bool> clear;
        public final Bool consumed;
        public final UInt consumedConn;
        public final Bool emitted;
        public final UInt emittedConn;

        public Io(int dataWidth, int n) {
            this.dataWidth = dataWidth;
            this.n = n;
            input = field("input", Streams.slaveStream(() -> new TcpRxBeat(dataWidth)));
            output = field("output", Streams.masterStream(() -> new MpaRxRow(dataWidth / 32, n)));
            seqStart = field("seqStart", in(uint(32)));
            int cb = MpaRxPiece.connBits(Math.max(1, n));
            inConn = n > 0 ? field("inConn", in(uint(cb))) : null;
            clear = n > 0 ? field("clear", in(vec(n, () -> bool()))) : null;
            consumed = n > 0 ? field("consumed", out(bool())) : null;
            consumedConn = n > 0 ? field("consumedConn", out(uint(cb))) : null;
            emitted = n > 0 ? field("emitted", out(bool())) : null;
            emittedConn = n > 0 ? field("emittedConn", out(uint(cb))) : null;
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
        public final int n;
        /** The beat's connection (shared aligner only, else null). */
        public final UInt conn;

        public InBeat(int dataWidth, int n) {
            this.dataWidth = dataWidth;
            this.n = n;
            tdata = field("tdata", bits(dataWidth));
            tkeep = field("tkeep", bits(dataWidth / 8));
            fin = field("fin", bool());
            inOrder = field("inOrder", bool());
            count = field("count", uint(log2Up(dataWidth / 4)));
            conn = n > 0 ? field("conn", uint(MpaRxPiece.connBits(n))) : null;
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

    /** Connections sharing it ({@code 0}: the untagged one-connection aligner). */
    public final int n;

    public MpaRxAlign(int dataWidth) {
        this(dataWidth, 0);
    }

    /** An aligner for {@code n} connections ({@code 0}: one, untagged, as {@link MpaRxDeframer} has it). */
    public MpaRxAlign(int dataWidth, int connections) {
        if (dataWidth < 32 || 512 % dataWidth != 0) {
            throw new IllegalArgumentException("MpaRxAlign needs a width of 32 … 512 dividing 512, not " + dataWidth);
        }
        if (connections < 0 || connections > 16) {
            throw new IllegalArgumentException("0 … 16 connections, got " + connections);
        }
        this.n = connections;
        final int conns = connections;
        if (conns > 0) {
            setDefinitionName("MpaRxAlign_n" + conns, true); // one module per connection count
        }
        io = io(new Io(dataWidth, conns));
        final int cb = MpaRxPiece.connBits(Math.max(1, conns));
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

        Stream<MpaRxRow> out = Streams.stream(() -> new MpaRxRow(words, conns));
        if (conns == 0) {
            Streams.connect(Streams.m2sPipe(out), io.output);
        } else {
            Stream<MpaRxRow> outReg = Streams.m2sPipe(out.throwWhen(pick(io.clear, out.payload().conn)));
            Streams.connect(outReg.throwWhen(pick(io.clear, outReg.payload().conn)), io.output);
        }

        // A register stage in front, which also makes the in-order test: a beat is in order when it starts where the
        // beat before it ended (the first at seqStart). That is the test against the expected stream offset as long as
        // every earlier beat was in order, and after the first that was not nothing more is taken, so it is the same.
        // The compare is then a register here, off the path from the aligner's state to its enables.
        TcpRxBeat raw = io.input.payload();
        Bool first = conns == 0 ? regInit("first", bool(), True()) : null;
        nextSeq = conns == 0 ? regInit("nextSeq", uint(32), U(0, 32)) : null;
        Bool inOrderIn = conns == 0 ? mux(first, eq(raw.seq, io.seqStart), eq(raw.seq, nextSeq)) : null;
        UInt rawCount = CountOne$.MODULE$.apply(raw.tkeep).resize(sw);
        if (conns == 0) {
            when(io.input.fire(), () -> {
                set(first, False());
                set(nextSeq, add(raw.seq, rawCount.resize(32)));
            });
        } else {
            // Per connection: the first beat after reset or clear must start at seqStart (the caller's mux of the
            // beat's connection), each later one where that connection's last beat ended.
            List<Bool> firsts = new ArrayList<>();
            List<UInt> nexts = new ArrayList<>();
            for (int c = 0; c < conns; c++) {
                Bool f = regInit("first_" + c, bool(), True());
                UInt ns = regInit("nextSeq_" + c, uint(32), U(0, 32));
                firsts.add(f);
                nexts.add(ns);
                when(and(io.input.fire(), isConn(io.inConn, c)), () -> {
                    set(f, False());
                    set(ns, add(raw.seq, rawCount.resize(32)));
                });
                when(io.clear.apply(c), () -> set(f, True()));
            }
            UInt nextSeqOf = wire("nextSeqOf", pick(nexts, io.inConn));
            inOrderIn = mux(pick(firsts, io.inConn), eq(raw.seq, io.seqStart), eq(raw.seq, nextSeqOf));
        }
        InBeat inBeat = wire("inBeat", new InBeat(dataWidth, conns));
        set(inBeat.tdata, raw.tdata);
        set(inBeat.tkeep, raw.tkeep);
        set(inBeat.fin, raw.fin);
        set(inBeat.inOrder, inOrderIn);
        set(inBeat.count, rawCount);
        // The aligner's ready is a gate or two from registers (lost, the beat's in-order flag, the output's ready), so
        // the one-connection front feeds it directly; the shared one keeps a skid buffer in front of its register (so
        // the beat worked on, its connection above all, is a register, timing; the register and the aligner drop
        // beats of a cleared connection).
        Stream<InBeat> input;
        Stream<InBeat> toFront = null; // shared: what the front register takes (its beat's entry is read meanwhile)
        // A beat is offered when the registers hold one, whether or not a clear drops it this cycle (shared only).
        final Bool offered;
        if (conns == 0) {
            input = Streams.m2sPipe(Streams.translateWith(io.input, inBeat));
            offered = input.valid();
        } else {
            set(inBeat.conn, io.inConn);
            Stream<InBeat> skid = Streams.s2mPipe(Streams.translateWith(io.input, inBeat));
            toFront = skid.throwWhen(pick(io.clear, skid.payload().conn));
            Stream<InBeat> front = Streams.m2sPipe(toFront);
            input = front.throwWhen(pick(io.clear, front.payload().conn));
            offered = wire("offered", front.valid());
        }
        InBeat in = input.payload();
        Bool inOrder = in.inOrder;
        UInt count = in.count; // counted in the front stage: off the path to the enables

        // ---- context (shared, n ≥ 2): the beat's connection X against the live one
        final Bits rowV;
        final UInt fillV;
        final UInt sentV;
        final UInt rowOffV;
        final Bool lostV;
        final Bool lostSentV;
        final UInt expOffV;
        final Bool present; // a beat is worked on this cycle (else the live connection is stepped without input)
        final Bool blocked; // a beat of another connection waits while the live one flushes
        final Bool switching;
        UInt expOffR = null; // the beat's connection's entry: expOff, and the row offset it gives (n ≥ 2)
        UInt rowOffR = null;
        UInt fillR = null;
        UInt liveConn = null;
        List<UInt> tExp = new ArrayList<>();
        List<Bits> tPart = new ArrayList<>();
        List<Bool> tLost = new ArrayList<>();
        if (conns < 2) {
            rowV = row;
            fillV = fill;
            sentV = sent;
            rowOffV = rowOff;
            lostV = lost;
            lostSentV = lostSent;
            expOffV = expOff;
            present = offered;
            blocked = conns == 0 ? null : False();
            switching = null;
        } else {
            liveConn = regInit("liveConn", uint(cb), U(0, cb));
            for (int c = 0; c < conns; c++) {
                tExp.add(regInit("ctxExpOff_" + c, uint(32), U(0, 32)));
                tPart.add(regInit("ctxPartial_" + c, bits(32), B(0, 32)));
                tLost.add(regInit("ctxLost_" + c, bool(), False()));
            }
            UInt x = in.conn;
            Bool same = eq(x, liveConn);
            // Pending on the live connection without input: complete words not handed on, or an unreported hole.
            // (At one word per beat no complete word is ever left over: only the hole.)
            Bool unsent = words == 1 ? False() : gt(shr(fill, 2).resize(cw), sent);
            Bool pending = wire("pending", or(unsent, and(lost, not(lostSent))));
            blocked = wire("blocked", and(offered, not(same), pending));
            present = wire("present", and(offered, not(blocked)));
            switching = wire("switching", and(present, not(same)));
            // The beat's entry is read a cycle ahead, as its beat goes into the front register (timing: the sums
            // and the take decision start from registers, not from the table's multiplexers). While that register
            // holds the beat no other beat is worked, so the entry can change only in the cycle it is read: the live
            // connection written back on a switch (forwarded here) or a clear (which drops the beat with it).
            UInt ax = toFront.payload().conn;
            Bool fwd = wire("aheadFwd", and(switching, eq(liveConn, ax)));
            UInt aheadExp = reg("aheadExpOff", uint(32));
            Bits aheadPart = reg("aheadPartial", bits(32));
            Bool aheadLost = reg("aheadLost", bool());
            when(toFront.ready(), () -> {
                set(aheadExp, mux(fwd, expOff, pick(tExp, ax)));
                set(aheadPart, mux(fwd, MpaRxParser.wordAt(row, sent), pick(tPart, ax)));
                set(aheadLost, mux(fwd, lost, pick(tLost, ax)));
            });
            UInt expR = aheadExp;
            fillR = range(expR, fw - 1, 0);
            UInt sentR = shr(fillR, 2).resize(cw);
            Bits part = aheadPart;
            List<Bits> rowWords = new ArrayList<>();
            for (int i = 0; i < words; i++) {
                rowWords.add(words == 1 ? part : mux(eq(sentR, U(i, cw)), part, B(0, 32)));
            }
            Bits rowR = catLsbFirst(rowWords);
            rowOffR = and(expR.asBits(), B(0xFFFF_FFFFL & ~(long) (n - 1), 32)).asUInt();
            expOffR = expR;
            Bool lostR = aheadLost;
            rowV = wire("rowCtx", mux(switching, rowR, row));
            fillV = wire("fillCtx", mux(switching, fillR, fill));
            sentV = wire("sentCtx", mux(switching, sentR, sent));
            rowOffV = wire("rowOffCtx", mux(switching, rowOffR, rowOff));
            lostV = wire("lostCtx", mux(switching, lostR, lost));
            lostSentV = wire("lostSentCtx", mux(switching, lostR, lostSent));
            expOffV = wire("expOffCtx", mux(switching, expR, expOff));
            // On a switch the live registers take X's entry (the logic below overrides what it changes), and the
            // live connection's compact state goes back to its entry.
            final UInt lc = liveConn;
            when(switching, () -> {
                set(row, rowV);
                set(fill, fillV);
                set(sent, sentV);
                set(rowOff, rowOffV);
                set(lost, lostV);
                set(lostSent, lostSentV);
                set(expOff, expOffV);
                set(lc, x);
                for (int c = 0; c < conns; c++) {
                    final int cc = c;
                    when(isConn(lc, c), () -> {
                        set(tExp.get(cc), expOff);
                        set(tPart.get(cc), MpaRxParser.wordAt(row, sent));
                        set(tLost.get(cc), lost);
                    });
                }
            });
        }
        UInt expected = expOffV;
        Bool take = and(present, not(lostV), inOrder);
        Bool hole = and(present, not(lostV), not(inOrder));

        List<Bool> keepBits = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (int b = 0; b < 8; b++) {
                keepBits.add(in.tkeep.apply(i));
            }
        }
        Bits octets = and(in.tdata, catLsbFirst(keepBits)).resize(2 * dataWidth);
        Bits shifted = octets.$bar$less$less(concat(fillV.asBits(), B(0, 3)).asUInt());
        merged = wire("merged", mux(take, or(rowV.resize(2 * dataWidth), shifted), rowV.resize(2 * dataWidth)));
        final Bool rowDone;
        if (switching == null) {
            filled = wire("filled", add(fillV.resize(sw), mux(take, count, U(0, sw))));
            rowDone = not(lt(filled, U(n, sw)));
        } else {
            // fill + count of the live registers and of the entry side by side (timing, as expOff below); the row is
            // done only by a beat taken (without one, fill < n), and then filled is the overflow: fw bits suffice.
            UInt sum = mux(switching, add(fillR.resize(sw), count), add(fill.resize(sw), count));
            filled = wire("filled", mux(take, range(sum, fw - 1, 0), fillV));
            rowDone = wire("rowDone", and(take, not(lt(sum, U(n, sw)))));
        }
        // At one word per row a word is complete only with its row, and none is ever handed on before (sent stays 0):
        // stated, so the emit test is the row's end alone (timing).
        complete = wire("complete", words == 1 ? mux(rowDone, U(1, cw), U(0, cw))
                : mux(rowDone, U(words, cw), shr(filled, 2).resize(cw)));
        Bool emit = words == 1 ? rowDone : gt(complete, sentV);

        MpaRxRow o = out.payload();
        set(o.data, range(merged, dataWidth - 1, 0));
        set(o.lo, sentV);
        set(o.hi, complete);
        set(o.rowOff, mux(emit, rowOffV, expected));
        set(o.lost, not(emit));
        set(out.valid(), or(emit, and(lostV, not(lostSentV))));
        // A cycle moves when the output can take a row, whether or not it hands one on: the enables then wait on no
        // arithmetic of this cycle (the output's ready is one gate from registers; a stall that a row would not have
        // needed costs nothing at one beat per cycle, where the output is always ready).
        Bool step = out.ready();
        if (conns == 0) {
            set(input.ready(), or(lost, and(step, not(hole))));
        } else {
            set(input.ready(), and(not(blocked), or(lostV, and(step, not(hole)))));
            UInt stepConn = conns < 2 ? U(0, cb) : mux(present, in.conn, liveConn);
            set(o.conn, stepConn);
            set(io.consumed, input.fire());
            set(io.consumedConn, in.conn);
            set(io.emitted, out.fire());
            set(io.emittedConn, stepConn);
        }

        when(and(step, present, hole), () -> set(lost, True()));
        // expOff + count and rowOff + n: for n ≥ 2 the sums of the live registers and of the entry side by side, the
        // switch only picks one (timing: the carry chains do not wait on the context decision).
        UInt expNext = switching == null ? add(expOffV, count.resize(32))
                : mux(switching, add(expOffR, count.resize(32)), add(expOff, count.resize(32)));
        UInt rowOffNext = switching == null ? add(rowOffV, U(n, 32))
                : mux(switching, add(rowOffR, U(n, 32)), add(rowOff, U(n, 32)));
        when(and(step, take), () -> set(expOff, expNext));
        when(and(step, take, in.fin), () -> set(lost, True()));
        when(and(out.fire(), not(emit)), () -> set(lostSent, True()));
        when(step, () -> {
            when(rowDone, () -> {
                set(row, range(merged, 2 * dataWidth - 1, dataWidth));
                set(fill, range(filled, fw - 1, 0)); // filled − n: filled < 2n and n is a power of two
                set(sent, U(0, cw));
                set(rowOff, rowOffNext);
            }).otherwise(() -> {
                set(row, range(merged, dataWidth - 1, 0));
                set(fill, range(filled, fw - 1, 0));
                set(sent, words == 1 ? U(0, cw) : complete);
            });
        });

        // ---- clear: the connection's entry, and the live registers when it is live after this cycle (switched to, or
        // live and not left). This overrides whatever the cycle did for it: a beat of a connection under clear is
        // worked on like any other (the enables wait on no clear, timing), but is dropped at the input and its row at
        // the output, and the state it leaves is reset here.
        for (int c = 0; c < conns; c++) {
            final int cc = c;
            Bool clr = io.clear.apply(c);
            if (conns >= 2) {
                when(clr, () -> {
                    set(tExp.get(cc), U(0, 32));
                    set(tPart.get(cc), B(0, 32));
                    set(tLost.get(cc), False());
                });
            }
            // Live after this cycle: the connection switched to, else the live one.
            Bool isLive = conns < 2 ? True()
                    : mux(switching, isConn(in.conn, c), isConn(liveConn, c));
            when(and(clr, isLive), () -> {
                set(row, B(0, dataWidth));
                set(fill, U(0, fw));
                set(sent, U(0, cw));
                set(rowOff, U(0, 32));
                set(lost, False());
                set(lostSent, False());
                set(expOff, U(0, 32));
            });
        }
    }

    private Bool isConn(UInt conn, int c) {
        return n <= 1 ? True() : eq(conn, U(c, conn.getBitsWidth()));
    }

    private static <T extends spinal.core.Data> T pick(List<T> xs, UInt index) {
        return xs.size() == 1 ? xs.get(0) : vec(xs).apply(index);
    }

    private static Bool pick(Vec<Bool> xs, UInt index) {
        return xs.size() == 1 ? xs.apply(0) : xs.apply(index);
    }
}
