package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.axis.AxisBeat;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.core.Vec;
import spinal.lib.Stream;

/**
 * One MPA receiver for {@code n} connections (1 … 16; docs/shared-mpa.md §2–§4, step 3): each connection's TCP payload
 * in on its own port, in order but cut anywhere (MPA-23); the validated ULPDUs of every connection out on one stream,
 * whole and one at a time, each beat tagged with its connection ({@code ulpduConn}) and ULPDU_Length; per connection the
 * first MPA error with exactly {@link MpaRxDeframer}'s meaning (E-M1 hole or end of stream, E-M2 CRC or a ULPDU_Length
 * above {@link MpaRxConfig#maxUlpdu()}, E-M3 Marker; reported after every earlier ULPDU of that connection, nothing of
 * it after, MPA-42/43/44).
 *
 * <pre>
 *  tcp_0 … tcp_{n-1} ──► ingress (sticky round robin) ──► reg ──► MpaRxAlign(n) ──► skid ──► MpaRxParser(n) ──► MpaRxHold(n) ──► ulpdu
 *                          drop: failed      room[c]                 context table             context table        per-connection
 *                          hold: clear       (credits)               (flush before switch)                          regions, one reader
 * </pre>
 *
 * <p><b>Ingress.</b> A port whose connection has failed (its parser's verdict, or the store's report) is drained: ready
 * high, beats discarded, so TCP never stalls on a dead stream. A port under {@code clear} is held. Any other port with a
 * beat and credit is eligible; a sticky round-robin arbiter grants one per cycle, staying on a connection while it is
 * eligible, for up to {@value #QUANTUM} beats, then moving on to the next eligible port. The granted beat goes through
 * a register (dropped there if its connection is cleared) into the aligner with its connection and that connection's
 * {@code seqStart}: one beat per cycle across all connections.
 *
 * <p><b>Contexts.</b> The aligner and the parser are the one-connection stages with their per-connection state in
 * context tables (live registers plus one entry per connection, written back on a switch; see {@link MpaRxAlign},
 * {@link MpaRxParser}); the aligner steps a connection with complete-but-unsent words or an unreported hole without
 * input before it switches to another (flush before switch).
 *
 * <p><b>Flow control</b> (docs/shared-mpa.md §3.3). A connection's region in the store must never make the store's writer
 * wait, or every connection would stall behind it. So a beat of c is admitted only while the store's free space for c
 * ({@code space[c]}, a register) covers, at {@code 2·W/32} half-words each (the most one beat, row or piece carries),
 * the items of c in flight — beats admitted and not yet taken by the aligner, plus rows the aligner handed on and the
 * parser has not finished ({@code inflight[c]}, counted from the stages' events) — plus this beat, the words the aligner
 * keeps back for c, and the three pieces that can sit between the parser's last register and the store's writer
 * ({@value #MARGIN_ROWS} in all). The check is a register ({@code room_c}, timing), made a cycle ahead on last cycle's
 * values, and {@code inflight[c]} takes the aligner's and the parser's events a cycle late (registered, timing), so it
 * keeps {@value #LAG_ROWS} rows more: in one cycle {@code space[c]} falls by at most one row (one piece written) and the
 * items in flight rise by at most two (a beat admitted, a row handed on), and {@code inflight[c]} is short of them by
 * at most one row (a row handed on last cycle; a late take only over-counts, and never before its own late or
 * immediate add, so the count never goes below 0). A connection whose region is
 * full so back-pressures only its own port. With no item in flight that is {@code 2·W/32 · (}{@value #MARGIN_ROWS}
 * {@code + }{@value #LAG_ROWS}{@code )} half-words, at most what the region keeps beyond one largest ULPDU and its PAD
 * ({@link MpaRxConfig#INFLIGHT_BEATS} rows), so a connection inside its largest FPDU always gets on.
 *
 * <p><b>Clear.</b> While {@code clear[c]} is high, c is forgotten: its port is held, its items inside the aligner and
 * the parser are dropped and their context entries reset, its in-flight count goes to 0, and the store forgets it
 * ({@link MpaRxHold}: region, descriptors, error). Then c may start again from a new {@code seqStart}. Contract (as the
 * store's): {@code clear[c]} is not raised while {@code mid[c]} is high (a ULPDU of c is being read out); the caller
 * stops delivering c ({@code deliver[c]} low) and waits for {@code mid[c]} to fall first. {@code deliver[c]} low drops
 * c's ULPDUs instead of showing them.
 */
public final class MpaRxShared extends HwComponent {
    /** Beats the arbiter grants one connection in a row while others wait. */
    public static final int QUANTUM = 16;
    /**
     * Rows of {@code 2·W/32} half-words reserved beyond the items counted in flight: the beat being admitted, the
     * aligner's kept-back words, the parser's output register and the store's two entry registers.
     */
    public static final int MARGIN_ROWS = 5;
    /**
     * Rows more the credit check keeps because it is a register and the in-flight count takes the aligner's and the
     * parser's events a cycle late (timing): it compares last cycle's {@code space[c]} (less by at most one row this
     * cycle) against last cycle's in-flight count (up by at most two: a beat admitted and a row handed on), and that
     * count is short by at most one row more (a row handed on last cycle and not yet counted; the late events that
     * take from it only over-count). {@value #MARGIN_ROWS} + {@value #LAG_ROWS} rows is
     * {@link MpaRxConfig#INFLIGHT_BEATS}.
     */
    public static final int LAG_ROWS = 4;

    /** A granted beat with its connection, in the register between the arbiter and the aligner. */
    public static final class Granted extends HwBundle {
        public final int dataWidth;
        public final int n;
        public final TcpRxBeat beat;
        public final UInt conn;

        public Granted(int dataWidth, int n) {
            this.dataWidth = dataWidth;
            this.n = n;
            beat = field("beat", new TcpRxBeat(dataWidth));
            conn = field("conn", uint(MpaRxPiece.connBits(n)));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final int n;
        public final List<Stream<TcpRxBeat>> tcp = new ArrayList<>();
        public final Stream<AxisBeat> ulpdu;
        /** The connection and ULPDU_Length of the ULPDU the beat on {@code ulpdu} belongs to (on every beat). */
        public final UInt ulpduConn;
        public final UInt ulpduLength;
        public final Vec<Bool> markers;
        public final Vec<Bool> crc;
        public final Vec<UInt> seqStart;
        public final Vec<Bool> clear;
        public final Vec<Bool> deliver;
        public final Vec<Bool> failed;
        public final Vec<UInt> errorCode;
        public final Vec<UInt> errorSeq;
        public final Vec<Bool> mid;

        public Io(int dataWidth, int n) {
            this.dataWidth = dataWidth;
            this.n = n;
            for (int k = 0; k < n; k++) {
                tcp.add(field("tcp_" + k, Streams.slaveStream(() -> new TcpRxBeat(dataWidth))));
            }
            ulpdu = field("ulpdu", Streams.masterStream(() -> new AxisBeat(dataWidth)));
            ulpduConn = field("ulpduConn", out(uint(MpaRxPiece.connBits(n))));
            ulpduLength = field("ulpduLength", out(uint(16)));
            markers = field("markers", in(vec(n, () -> bool())));
            crc = field("crc", in(vec(n, () -> bool())));
            seqStart = field("seqStart", in(vec(n, () -> uint(32))));
            clear = field("clear", in(vec(n, () -> bool())));
            deliver = field("deliver", in(vec(n, () -> bool())));
            failed = field("failed", out(vec(n, () -> bool())));
            errorCode = field("errorCode", out(vec(n, () -> uint(8))));
            errorSeq = field("errorSeq", out(vec(n, () -> uint(32))));
            mid = field("mid", out(vec(n, () -> bool())));
        }
    }

    public final Io io;
    public final int n;
    public final MpaRxConfig config;
    public final MpaRxAlign align;
    public final MpaRxParser parser;
    public final MpaRxHold hold;

    public MpaRxShared(MpaRxConfig cfg, int n) {
        if (n < 1 || n > 16) {
            throw new IllegalArgumentException("1 … 16 connections, got " + n);
        }
        this.n = n;
        this.config = cfg;
        int dataWidth = cfg.dataWidth();
        int words = dataWidth / 32;
        int k2 = 2 * words;
        int octets = dataWidth / 8;
        int cb = MpaRxPiece.connBits(n);
        noIoPrefix();
        io = io(new Io(dataWidth, n));
        for (int k = 0; k < n; k++) {
            Streams.axisNames(io.tcp.get(k), "tcp_" + k);
        }
        Streams.axisNames(io.ulpdu, "ulpdu");
        align = child("align", () -> new MpaRxAlign(dataWidth, n));
        parser = child("parser", () -> new MpaRxParser(words, cfg.maxUlpdu(), n));
        hold = child("hold", () -> new MpaRxHold(dataWidth, n, cfg.regionRows(), true));

        List<Bool> clear = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            clear.add(io.clear.apply(c));
            set(align.io.clear.apply(c), io.clear.apply(c));
            set(parser.io.clear.apply(c), io.clear.apply(c));
            set(parser.io.markersOf.apply(c), io.markers.apply(c));
            set(parser.io.crcOf.apply(c), io.crc.apply(c));
            set(hold.io.clear.apply(c), io.clear.apply(c));
            set(hold.io.deliver.apply(c), io.deliver.apply(c));
            set(io.mid.apply(c), hold.io.mid.apply(c));
        }

        // ---- in-flight items per connection and the credit check
        int ib = 6;
        int sbits = hold.io.spaceBits;
        int wb = Math.max(sbits, ib + log2Up(k2) + 1) + 1;
        List<UInt> inflight = new ArrayList<>();
        List<Bool> room = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            UInt f = regInit("inflight_" + c, uint(ib), U(0, ib));
            inflight.add(f);
            UInt need = shl(add(f.resize(wb - log2Up(k2)), U(MARGIN_ROWS + LAG_ROWS, wb - log2Up(k2))), log2Up(k2));
            Bool r = regInit("room_" + c, bool(), False());
            set(r, ge(hold.io.space.apply(c).resize(wb), need));
            room.add(r);
        }

        // ---- ingress: drop, eligibility, sticky round robin
        List<Bool> drop = new ArrayList<>();
        List<Bool> eligible = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            Bool d = wire("drop_" + c, and(not(clear.get(c)), or(parser.io.failedOf.apply(c), hold.io.failed.apply(c))));
            drop.add(d);
            eligible.add(wire("eligible_" + c, and(io.tcp.get(c).valid(), not(clear.get(c)), not(d), room.get(c))));
        }
        UInt cur = regInit("arbConn", uint(cb), U(0, cb));
        UInt run = regInit("arbRun", uint(log2Up(QUANTUM + 1)), U(0, log2Up(QUANTUM + 1)));
        Bool stay = and(pick(eligible, cur), lt(run, U(QUANTUM, run.getBitsWidth())));
        UInt grant = wire("grant", n == 1 ? U(0, cb) : mux(stay, cur, roundRobin(eligible, cur)));
        Bool any = wire("anyEligible", orAll(eligible));
        // The granted beat goes through a register (timing: the arbiter's decision does not reach the aligner's
        // in-order test in the same cycle); a beat of a connection under clear is dropped there.
        Stream<Granted> gin = Streams.stream(() -> new Granted(dataWidth, n));
        set(gin.valid(), any);
        TcpRxBeat granted = pickBeat(io.tcp, grant);
        set(gin.payload().beat.tdata, granted.tdata);
        set(gin.payload().beat.tkeep, granted.tkeep);
        set(gin.payload().beat.seq, granted.seq);
        set(gin.payload().beat.fin, granted.fin);
        set(gin.payload().conn, grant);
        Stream<Granted> gReg = Streams.m2sPipe(gin);
        Stream<Granted> gOut = gReg.throwWhen(pick(clear, gReg.payload().conn));
        Stream<TcpRxBeat> ain = align.io.input;
        set(ain.valid(), gOut.valid());
        set(gOut.ready(), ain.ready());
        set(ain.payload().tdata, gOut.payload().beat.tdata);
        set(ain.payload().tkeep, gOut.payload().beat.tkeep);
        set(ain.payload().seq, gOut.payload().beat.seq);
        set(ain.payload().fin, gOut.payload().beat.fin);
        set(align.io.inConn, gOut.payload().conn);
        set(align.io.seqStart, pick(vecList(io.seqStart), gOut.payload().conn));
        when(gin.fire(), () -> {
            set(cur, grant);
            set(run, mux(eq(grant, cur), add(run, U(1, run.getBitsWidth())), U(1, run.getBitsWidth())));
        });
        for (int c = 0; c < n; c++) {
            Bool mine = isConn(grant, c);
            set(io.tcp.get(c).ready(), or(drop.get(c), and(mine, eligible.get(c), gin.ready())));
        }

        // ---- in-flight accounting: + admitted beat, + row out of the aligner; − beat taken by it, − row finished.
        // The aligner's and the parser's events come through a register (timing: they end long paths through the
        // aligner's context switch), so they count a cycle late; an event of a connection under clear is forgotten.
        for (int c = 0; c < n; c++) {
            UInt f = inflight.get(c);
            Bool live = not(clear.get(c));
            Bool plusA = and(gin.fire(), isConn(grant, c));
            Bool plusR = regInit("emitted_" + c, bool(), False());
            Bool minusA = regInit("consumed_" + c, bool(), False());
            Bool minusR = regInit("rowDone_" + c, bool(), False());
            set(plusR, and(align.io.emitted, isConn(align.io.emittedConn, c), live));
            set(minusA, and(align.io.consumed, isConn(align.io.consumedConn, c), live));
            set(minusR, and(parser.io.rowDone, isConn(parser.io.rowDoneConn, c), live));
            // The registered events summed first, the admitted beat (the arbiter's late decision) only picks one of
            // two sums (timing: no carry chain behind the grant).
            UInt base = sub(sub(add(f, mux(plusR, U(1, ib), U(0, ib))), mux(minusA, U(1, ib), U(0, ib))),
                    mux(minusR, U(1, ib), U(0, ib)));
            UInt next = mux(plusA, add(base, U(1, ib)), base);
            set(f, mux(clear.get(c), U(0, ib), next));
        }

        // ---- aligner → skid → parser → store
        Stream<MpaRxRow> rows = Streams.s2mPipe(align.io.output);
        Streams.connect(rows.throwWhen(pick(clear, rows.payload().conn)), parser.io.input);
        Streams.connect(parser.io.pieces, hold.io.piece);

        // ---- out: the store's beats as AXI-Stream (tkeep up to the ULPDU's last octet), as MpaRxDeframer does
        MpaRxHoldBeat beat = hold.io.ulpdu.payload();
        int rw = MpaRxParser.RW;
        Bool open = regInit("open", bool(), False());
        UInt remaining = regInit("remaining", uint(rw), U(0, rw));
        UInt rem = wire("rem", mux(open, remaining, beat.length.resize(rw)));
        AxisBeat out = io.ulpdu.payload();
        set(out.tdata, beat.data);
        set(out.tkeep, MpaRxDeframer.keepBelow(rem, octets));
        set(out.tlast, beat.last);
        set(io.ulpdu.valid(), hold.io.ulpdu.valid());
        set(hold.io.ulpdu.ready(), io.ulpdu.ready());
        set(io.ulpduLength, beat.length);
        set(io.ulpduConn, beat.conn);
        when(io.ulpdu.fire(), () -> {
            set(open, not(beat.last));
            set(remaining, sub(rem, U(octets, rw)));
        });

        // ---- the first error per connection, once every ULPDU of it before the error has left (MPA-44)
        Bool errValid = regInit("errValid", bool(), False());
        UInt errConn = reg("errConn", uint(cb));
        UInt errCode = reg("errCode", uint(8));
        MpaRxHold.Error e = hold.io.error.payload();
        set(errValid, and(hold.io.error.valid(), not(pick(clear, e.conn))));
        set(errConn, e.conn);
        set(errCode, e.code);
        for (int c = 0; c < n; c++) {
            Bool failed = regInit("failed_" + c, bool(), False());
            UInt code = regInit("errorCode_" + c, uint(8), U(0, 8));
            UInt seq = regInit("errorSeq_" + c, uint(32), U(0, 32));
            UInt seqStart = io.seqStart.apply(c);
            UInt badSeq = parser.io.badSeqOf.apply(c);
            when(and(errValid, isConn(errConn, c), not(failed), not(clear.get(c))), () -> {
                set(failed, True());
                set(code, errCode);
                set(seq, add(seqStart, badSeq)); // the parser's offset is from the stream's start
            });
            when(clear.get(c), () -> {
                set(failed, False());
                set(code, U(0, 8));
                set(seq, U(0, 32));
            });
            set(io.failed.apply(c), failed);
            set(io.errorCode.apply(c), code);
            set(io.errorSeq.apply(c), seq);
        }
    }

    private TcpRxBeat pickBeat(List<Stream<TcpRxBeat>> ports, UInt index) {
        if (ports.size() == 1) {
            return ports.get(0).payload();
        }
        List<TcpRxBeat> beats = new ArrayList<>();
        for (Stream<TcpRxBeat> p : ports) {
            beats.add(p.payload());
        }
        return vec(beats).apply(index);
    }

    private static <T extends spinal.core.Data> List<T> vecList(Vec<T> v) {
        List<T> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            out.add(v.apply(i));
        }
        return out;
    }

    private Bool isConn(UInt conn, int c) {
        return n == 1 ? True() : eq(conn, U(c, conn.getBitsWidth()));
    }

    private static Bool orAll(List<Bool> bits) {
        Bool r = False();
        for (Bool x : bits) {
            r = or(r, x);
        }
        return r;
    }

    private static <T extends spinal.core.Data> T pick(List<T> xs, UInt index) {
        return xs.size() == 1 ? xs.get(0) : vec(xs).apply(index);
    }
}
