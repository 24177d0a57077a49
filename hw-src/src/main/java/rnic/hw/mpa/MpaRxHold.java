package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.Data;
import spinal.core.Mem;
import spinal.core.UInt;
import spinal.core.Vec;
import spinal.core.dontCare$;
import spinal.lib.Flow;
import spinal.lib.Stream;

/**
 * The shared back half of an MPA receiver for {@code n} connections (docs/shared-mpa.md §3): it stores the ULPDU
 * octets the parser found, per connection, in block RAM, and hands out whole validated ULPDUs one at a time, so a
 * ULPDU leaves only after its FPDU's verdict (MPA-25) and nothing of a connection leaves after its first error
 * (MPA-44).
 *
 * <pre>
 *  piece ──► accept ──► s1: rotate + write ──► 2w lane RAMs (16 bit × n·R, read synchronously)
 *   (MpaRxPiece)  │ wptr, space       │ verdict                      │
 *                 │                   ▼                              ▼
 *                 │          descriptor FIFO ──► head ──► cur: read a beat ──► v1 ──► v2: rotate ──► skid ──► ulpdu
 *                 │          (all connections,    │ skip, drop, error          (RAM out)
 *                 └──room[c]  verdict order)      └──► error (Flow), failed[c]
 * </pre>
 *
 * <p><b>Storage.</b> W = 32·w bits; the store is {@code 2w} memories ("lanes") of 16 bits × {@code n·R} rows. Connection
 * c owns rows {@code [c·R, (c+1)·R)} of every lane: a region of {@code RH = 2w·R} half-words, half-word {@code h} of
 * the region in lane {@code h mod 2w}, row {@code c·R + ⌊h / 2w⌋}. A beat written or read touches each lane once (row
 * {@code r} or {@code r + 1}), so no lane needs a second port or byte enables, and each maps to block RAM.
 *
 * <p><b>Writer</b> (one piece per cycle). A piece of connection c is accepted when its {@code cnt = |A| + |B|}
 * half-words fit: {@code cnt ≤ space[c]} ({@code space[c]}: RH less the half-words written and not yet freed).
 * Accepting advances {@code wptr[c]} by {@code cnt} (wrapping inside the region) and takes {@code cnt} from
 * {@code space[c]}. The next cycle
 * rotates span A to lane {@code wptr mod 2w} and B right behind it (two half-word rotators and a select per lane),
 * writes the lanes, and pushes a {@link MpaRxDesc} if the piece has a verdict. A full descriptor FIFO holds that stage
 * and so the input. After a bad verdict the connection's further pieces are taken and dropped.
 *
 * <p><b>Descriptors.</b> One FIFO for all connections, {@code max(16, 4·n)} deep (a memory read synchronously, so
 * block RAM or LUT RAM), in verdict order. The reader takes them in order:
 * <ul>
 *   <li>good, {@code deliver[c]} high: it reads the ULPDU's {@code max(1, ⌈L / (W/8)⌉)} beats, one per cycle, from
 *       {@code rptr[c]} (lane i of beat j reads half-word {@code h + ((i − h) mod 2w)}, {@code h = rptr + 2w·j}; the
 *       beat is rotated back by {@code h mod 2w}). The next descriptor is taken in the cycle the last beat is read, so
 *       ULPDUs leave back to back, one beat per cycle. Its stored half-words ({@link MpaRxConfig#storedHalfWords})
 *       are freed when its last beat is read.</li>
 *   <li>good, {@code deliver[c]} low (or c failed): dropped in one cycle, its half-words freed (after any ULPDU of c
 *       still being read).</li>
 *   <li>bad: once the reader is empty (every earlier ULPDU, of any connection, has left on {@code ulpdu}), {@code error}
 *       reports {@code {c, code}} in the cycle it is taken and {@code failed[c]} rises: it is reported after
 *       every earlier ULPDU of c and nothing of c follows it (MPA-44).</li>
 * </ul>
 *
 * <p><b>Flow control</b> (docs/shared-mpa.md §3.3). {@code room[c]} (registered) is high when the writer can take one more piece
 * of {@code 2w} half-words for c ({@code space[c] ≥ 2w}), or c's pieces are being dropped. The writer also stalls
 * by itself on a piece that does not fit, so nothing unread is overwritten whatever the parser does. No deadlock as
 * long as a region holds one largest ULPDU's stored half-words plus {@code 2w} (span B of the piece carrying its
 * verdict): the reader never waits on the writer.
 *
 * <p><b>Clear.</b> While {@code clear[c]} is high, c is forgotten: {@code wptr}, {@code rptr}, {@code failed} and
 * its writer-side error flag go back to 0 and {@code space} to RH, its piece in the writer stage is dropped, its pieces
 * on {@code piece} are taken and dropped, its pieces already inside the two entry registers are dropped when they
 * reach the writer (each carries c's epoch from when it came in, and a rising {@code clear[c]} moves that epoch on),
 * and its descriptors still queued are skipped exactly ({@code skip[c] :=
 * descCount[c]}: the reader drops that many of c's descriptors, which are the oldest of c in the FIFO). Contract:
 * {@code clear[c]} is not raised while {@code mid[c]} is high. {@code mid[c]}: a ULPDU of c is inside the reader,
 * from when its descriptor is taken until its last beat is taken from {@code ulpdu} (as {@code rxMid} in
 * {@code RnicCore}, which holds off a QP reset meanwhile).
 *
 * <p><b>Timing.</b> One piece per cycle into the writer, one beat per cycle out of the reader, ULPDUs back to back
 * (the next descriptor is taken in the cycle the last beat of the one before is read). A ULPDU's first beat is shown
 * seven cycles after the piece carrying its verdict was taken, at the earliest (counting register, write and
 * descriptor push, two in the FIFO, head register, RAM read). {@code piece} enters
 * through a skid buffer ({@code s2mPipe}), so {@code piece.ready} is a register and the writer's fit check reaches
 * nothing upstream; {@code ulpdu} leaves through another, so its ready reaches no RAM address. The head's pop decision is
 * the reader's longest logic, so the enables of connection c's registers ({@code rptr}, {@code failed},
 * {@code descCount}, {@code skip}) repeat it with c's own flags in place of the head connection's multiplexers (the same
 * values whenever the head is c).
 */
public final class MpaRxHold extends HwComponent {
    /** Smallest descriptor FIFO (the 16 verdicts {@link MpaRxDeframer} queues per connection). */
    public static final int MIN_DESCRIPTORS = 16;

    /** An MPA error of one connection, reported once, in order with its ULPDUs. */
    public static final class Error extends HwBundle {
        public final int n;
        public final UInt conn;
        public final UInt code;

        public Error(int n) {
            this.n = n;
            conn = field("conn", uint(MpaRxPiece.connBits(n)));
            code = field("code", uint(8));
        }
    }

    /** A piece in the entry skid buffer, with its connection's epoch from when it came in. */
    public static final class Entering extends HwBundle {
        public final int dataWidth;
        public final int n;
        public final MpaRxPiece piece;
        public final Bool epoch;

        public Entering(int dataWidth, int n) {
            this.dataWidth = dataWidth;
            this.n = n;
            piece = field("piece", new MpaRxPiece(dataWidth, n));
            epoch = field("epoch", bool());
        }
    }

    /**
     * A piece in the counting register: what the writer needs of it, its half-words counted ({@code na = |A|},
     * {@code cnt = |A| + |B|}), the starts of its spans modulo 2w (the rotations need no more), and the descriptor
     * word ({@code word}: ULPDU_Length, or the Error Code of a bad verdict).
     */
    public static final class Counted extends HwBundle {
        public final int dataWidth;
        public final int n;
        public final UInt conn;
        public final Bits data;
        public final Bool epoch;
        public final UInt aLow;
        public final UInt bLow;
        public final UInt na;
        public final UInt cnt;
        public final Bool verdict;
        public final Bool bad;
        public final UInt word;

        public Counted(int dataWidth, int n) {
            this.dataWidth = dataWidth;
            this.n = n;
            int sb = MpaRxPiece.spanBits(dataWidth);
            int lk = log2Up(2 * (dataWidth / 32));
            conn = field("conn", uint(MpaRxPiece.connBits(n)));
            data = field("data", bits(dataWidth));
            epoch = field("epoch", bool());
            aLow = field("aLow", uint(lk));
            bLow = field("bLow", uint(lk));
            na = field("na", uint(sb));
            cnt = field("cnt", uint(sb + 1));
            verdict = field("verdict", bool());
            bad = field("bad", bool());
            word = field("word", uint(16));
        }
    }

    /** The descriptor at the reader's head, with its ULPDU's stored half-words and beats. */
    public static final class Head extends HwBundle {
        public final int n;
        public final int beatBits;
        public final MpaRxDesc desc;
        public final UInt stored;
        public final UInt beats;
        public final int wrapBits;
        /** {@code stored − RH} in {@code wrapBits} bits, two's complement: the read pointer's wrapped sum is one add. */
        public final UInt storedLessRegion;

        public Head(int n, int beatBits, int wrapBits) {
            this.n = n;
            this.beatBits = beatBits;
            this.wrapBits = wrapBits;
            desc = field("desc", new MpaRxDesc(n));
            stored = field("stored", uint(16));
            beats = field("beats", uint(beatBits));
            storedLessRegion = field("storedLessRegion", uint(wrapBits));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final int n;
        public final Stream<MpaRxPiece> piece;
        public final Stream<MpaRxHoldBeat> ulpdu;
        public final Flow<Error> error;
        public final Vec<Bool> deliver;
        public final Vec<Bool> clear;
        public final Vec<Bool> room;
        public final Vec<Bool> failed;
        public final Vec<Bool> mid;
        /** Half-words free per connection, the register behind {@code room} (n ≥ 2 or shared; else null). */
        public final Vec<UInt> space;
        public final boolean shared;

        public Io(int dataWidth, int n, boolean shared, int spaceBits) {
            this.dataWidth = dataWidth;
            this.n = n;
            this.shared = shared;
            this.spaceBits = spaceBits;
            piece = field("piece", Streams.slaveStream(() -> new MpaRxPiece(dataWidth, n)));
            ulpdu = field("ulpdu", Streams.masterStream(() -> new MpaRxHoldBeat(dataWidth, n)));
            error = field("error", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new Error(n)))));
            deliver = field("deliver", in(vec(n, () -> bool())));
            clear = field("clear", in(vec(n, () -> bool())));
            room = field("room", out(vec(n, () -> bool())));
            failed = field("failed", out(vec(n, () -> bool())));
            mid = field("mid", out(vec(n, () -> bool())));
            space = n > 1 || shared ? field("space", out(vec(n, () -> uint(spaceBits)))) : null;
        }

        public final int spaceBits;
    }

    public final Io io;
    public final int dataWidth;
    public final int n;
    public final int regionRows;
    /** Half-words of one connection's region, {@code 2w · regionRows}. */
    public final int regionHalfWords;
    /** Entries of the descriptor FIFO. */
    public final int descriptors;
    /** The half-word lane memories, lane i holding half-words ≡ i (mod 2w). */
    public final List<Mem<Bits>> lanes = new ArrayList<>();

    /** A holder for the default MSS region of {@code cfg} ({@link MpaRxConfig#regionRows()}). */
    public MpaRxHold(MpaRxConfig cfg, int n) {
        this(cfg.dataWidth(), n, cfg.regionRows());
    }

    public MpaRxHold(int dataWidth, int n, int regionRows) {
        this(dataWidth, n, regionRows, false);
    }

    /**
     * A holder whose free space per connection is an output ({@code space}) also for one connection when
     * {@code shared} (then named {@code MpaRxHold_n1}): {@link MpaRxShared} counts its admitted beats against it.
     */
    public MpaRxHold(int dataWidth, int n, int regionRows, boolean shared) {
        if (!MpaRxConfig.WIDTHS.contains(dataWidth)) {
            throw new IllegalArgumentException("data width must be one of " + MpaRxConfig.WIDTHS + ", got " + dataWidth);
        }
        if (n < 1 || n > 16) {
            throw new IllegalArgumentException("1 … 16 connections, got " + n);
        }
        if (regionRows < 2) {
            throw new IllegalArgumentException("a region needs at least 2 rows, got " + regionRows);
        }
        this.dataWidth = dataWidth;
        this.n = n;
        this.regionRows = regionRows;
        if (n > 1 || shared) {
            setDefinitionName("MpaRxHold_n" + n, true); // one module per connection count
        }
        noIoPrefix();
        io = io(new Io(dataWidth, n, shared, log2Up(2L * (dataWidth / 32) * regionRows + 1)));
        Streams.axisNames(io.piece, "piece");
        Streams.axisNames(io.ulpdu, "ulpdu");

        final int k2 = 2 * (dataWidth / 32); // half-word lanes
        final int lk = log2Up(k2);
        final int rh = k2 * regionRows;
        regionHalfWords = rh;
        final int hb = log2Up(rh); // a half-word offset in a region
        final int ub = log2Up(rh + 1L); // a count of half-words, 0 … RH
        final int ab = log2Up((long) n * regionRows); // a lane row
        final int sb = MpaRxPiece.spanBits(dataWidth);
        final int cb = MpaRxPiece.connBits(n);
        final int octetShift = log2Up(dataWidth / 8);
        final int bw = 16 - octetShift + 1; // beats of one ULPDU
        descriptors = Math.max(MIN_DESCRIPTORS, 4 * n);
        final int db = log2Up(descriptors + 1L);
        for (int i = 0; i < k2; i++) {
            lanes.add(field("lane" + i, new Mem<>(hardType(() -> bits(16)), n * regionRows)));
        }
        List<UInt> bases = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            bases.add(U((long) c * regionRows, ab));
        }

        // ---- per-connection state (flip-flops)
        List<UInt> wptr = new ArrayList<>();
        List<UInt> rptr = new ArrayList<>();
        List<UInt> space = new ArrayList<>();
        List<Bool> dead = new ArrayList<>();
        List<Bool> failed = new ArrayList<>();
        List<UInt> skip = new ArrayList<>();
        List<Bool> skipAny = new ArrayList<>(); // skip[c] ≠ 0, kept as a register (timing: the head's pop decision)
        List<UInt> descCount = new ArrayList<>();
        List<Bool> room = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            wptr.add(regInit("wptr_" + c, uint(hb), U(0, hb)));
            rptr.add(regInit("rptr_" + c, uint(hb), U(0, hb)));
            space.add(regInit("space_" + c, uint(ub), U(rh, ub)));
            dead.add(regInit("dead_" + c, bool(), False()));
            failed.add(regInit("failed_" + c, bool(), False()));
            skip.add(regInit("skip_" + c, uint(db), U(0, db)));
            skipAny.add(regInit("skipAny_" + c, bool(), False()));
            descCount.add(regInit("descCount_" + c, uint(db), U(0, db)));
            room.add(regInit("room_" + c, bool(), True()));
        }
        List<Bool> epoch = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            Bool e = regInit("epoch_" + c, bool(), False());
            Bool clearWas = regInit("clearWas_" + c, bool(), False());
            set(clearWas, io.clear.apply(c));
            when(and(io.clear.apply(c), not(clearWas)), () -> set(e, not(e)));
            epoch.add(e);
        }
        List<Bool> clear = new ArrayList<>();
        List<Bool> deliver = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            clear.add(io.clear.apply(c));
            deliver.add(io.deliver.apply(c));
        }

        // ================================================================ writer, stage 0: accept
        // In through a skid buffer (piece.ready is a register: the fit check below drives no ready outside this
        // block), then a register stage that counts the piece's half-words, so the check starts from registers.
        // A piece of a connection under clear is dropped at the port; one already inside carries its connection's
        // epoch from when it came in, and clear moves the epoch on, so the writer drops it too.
        Bool clearPort = pick(clear, io.piece.payload().conn);
        Stream<Entering> entry = Streams.stream(() -> new Entering(dataWidth, n));
        Entering e0 = entry.payload();
        set(e0.piece, io.piece.payload());
        set(e0.epoch, pick(epoch, io.piece.payload().conn));
        set(entry.valid(), and(io.piece.valid(), not(clearPort)));
        set(io.piece.ready(), or(entry.ready(), clearPort));
        Stream<Entering> skid = Streams.s2mPipe(entry);
        Counted counting = wire("counting", new Counted(dataWidth, n));
        MpaRxPiece sp = skid.payload().piece;
        UInt spA = sub(sp.aTo, sp.aFrom);
        set(counting.conn, sp.conn);
        set(counting.data, sp.data);
        set(counting.epoch, skid.payload().epoch);
        set(counting.aLow, range(sp.aFrom, lk - 1, 0));
        set(counting.bLow, range(sp.bFrom, lk - 1, 0));
        set(counting.na, spA);
        set(counting.cnt, add(spA.resize(sb + 1), sub(sp.bTo, sp.bFrom).resize(sb + 1)));
        set(counting.verdict, sp.verdict);
        set(counting.bad, sp.bad);
        set(counting.word, mux(sp.bad, sp.code.resize(16), sp.length));
        // One connection (MpaRxDeframer's holder): then a skid buffer, so the fit check's ready loads no wide register
        // (timing). Several (one module MpaRxHold_n<n> for MpaRxShared and alone): not, MpaRxShared's credits count
        // two entry registers here (MpaRxShared.MARGIN_ROWS).
        Stream<Counted> counted = Streams.m2sPipe(Streams.translateWith(skid, counting));
        Stream<Counted> in = n == 1 && !shared ? Streams.s2mPipe(counted) : counted;
        Counted p = in.payload();
        UInt inConn = p.conn;
        UInt na = in.payload().na;
        UInt cnt = in.payload().cnt;
        // cnt ≤ space with the carry chain only as wide as cnt (timing: the check drives this stage's ready).
        Bool fits = wire("fits", leNarrow(cnt, pick(space, inConn)));
        Bool stale = neq(in.payload().epoch, pick(epoch, inConn));
        Bool dropIn = wire("dropIn", or(pick(clear, inConn), pick(dead, inConn), stale));

        Bool s1Valid = regInit("s1Valid", bool(), False());
        UInt s1Conn = reg("s1Conn", uint(cb));
        Bits s1Data = reg("s1Data", bits(dataWidth));
        UInt s1AFrom = reg("s1AFrom", uint(lk)); // mod 2w: only the rotation amounts need it
        UInt s1Na = reg("s1Na", uint(sb));
        UInt s1BFrom = reg("s1BFrom", uint(lk));
        UInt s1Cnt = reg("s1Cnt", uint(sb + 1));
        UInt s1H = reg("s1H", uint(hb));
        UInt s1Base = reg("s1Base", uint(ab));
        Bool s1Verdict = reg("s1Verdict", bool());
        Bool s1Bad = reg("s1Bad", bool());
        UInt s1Length = reg("s1Length", uint(16));

        Stream<MpaRxDesc> descIn = wire("descIn", Streams.stream(() -> new MpaRxDesc(n)));
        Bool killed = wire("killed", and(s1Valid, pick(clear, s1Conn)));
        Bool s1Free = wire("s1Free", or(not(s1Valid), killed, not(s1Verdict), descIn.ready()));
        Bool accept = wire("accept", and(in.valid(), not(dropIn), s1Free, fits));
        set(in.ready(), or(dropIn, and(s1Free, fits)));
        UInt wptrIn = pick(wptr, inConn);
        UInt wptrNext = wire("wptrNext", wrapAddRow(wptrIn, cnt, k2, rh, hb));
        when(s1Free, () -> {
            set(s1Valid, accept);
            set(s1Conn, inConn);
            set(s1Data, p.data);
            set(s1AFrom, p.aLow);
            set(s1Na, na);
            set(s1BFrom, p.bLow);
            set(s1Cnt, cnt);
            set(s1H, wptrIn);
            set(s1Base, pick(bases, inConn));
            set(s1Verdict, p.verdict);
            set(s1Bad, p.bad);
            set(s1Length, p.word);
        });

        // ================================================================ writer, stage 1: rotate, write, verdict
        Bool writeNow = wire("writeNow", and(s1Valid, not(killed), s1Free));
        UInt wLane = range(s1H, lk - 1, 0);
        List<UInt> wAddr = laneRows("w", s1H, s1Base, k2, ab);
        // Span A's first half-word to lane wLane, span B's right after A's last.
        UInt rotA = sub(wLane, s1AFrom);
        UInt rotB = sub(add(wLane, range(s1Na, lk - 1, 0)), s1BFrom);
        Bits fromA = wire("fromA", rotateHalfWords(s1Data, rotA, true));
        Bits fromB = wire("fromB", rotateHalfWords(s1Data, rotB, true));
        for (int i = 0; i < k2; i++) {
            UInt li = U(i, lk);
            UInt at = sub(li, wLane); // this lane's place in the piece
            Bool inA = lt(at.resize(sb + 1), s1Na.resize(sb + 1));
            Bool en = lt(at.resize(sb + 1), s1Cnt);
            Bits half = mux(inA, range(fromA, 16 * i + 15, 16 * i), range(fromB, 16 * i + 15, 16 * i));
            lanes.get(i).write(wAddr.get(i), half, and(writeNow, en), null);
        }
        set(descIn.valid(), and(s1Valid, not(killed), s1Verdict));
        set(descIn.payload().conn, s1Conn);
        set(descIn.payload().bad, s1Bad);
        set(descIn.payload().length, s1Length);

        // The head is a register, with the ULPDU's stored half-words and beats worked out in front of it: the
        // reader's pointer update and beat count start from registers, not from the FIFO's read mux.
        // The FIFO's block RAM is slow to its output (iCE40: about 2 ns), so its word is registered once more before
        // that arithmetic; a skid buffer on its pop side keeps the reader's decision off the FIFO's read enable.
        // On its push side a skid buffer too: the writer's stage-1 enable waits on no full flag (timing).
        Stream<MpaRxDesc> popped = Streams.m2sPipe(Streams.s2mPipe(Streams.fifo(Streams.s2mPipe(descIn), descriptors,
                2)));
        Head h0 = wire("headIn", new Head(n, bw, hb + 1));
        UInt pl = popped.payload().length;
        set(h0.desc, popped.payload());
        set(h0.stored, stored(pl));
        set(h0.storedLessRegion, sub(stored(pl).resize(hb + 1), U(rh, hb + 1)));
        // ⌈L / (W/8)⌉ as whole beats plus one for a partial one, at least 1.
        Bool partBeat = or(neq(range(pl, octetShift - 1, 0), U(0, octetShift)), eq(pl, U(0, 16)));
        set(h0.beats, add(shr(pl, octetShift).resize(bw), mux(partBeat, U(1, bw), U(0, bw))));
        Stream<Head> head = Streams.m2sPipe(Streams.translateWith(popped, h0));

        // ================================================================ reader
        Bool curValid = regInit("curValid", bool(), False());
        UInt curConn = reg("curConn", uint(cb));
        UInt curLen = reg("curLen", uint(16));
        UInt curH = reg("curH", uint(hb));
        UInt curBase = reg("curBase", uint(ab));
        UInt curLeft = reg("curLeft", uint(bw));
        UInt curFree = reg("curFree", uint(ub));
        Bool v1 = regInit("v1", bool(), False());
        UInt v1Conn = reg("v1Conn", uint(cb));
        UInt v1Len = reg("v1Len", uint(16));
        Bool v1Last = reg("v1Last", bool());
        UInt v1Rot = reg("v1Rot", uint(lk));
        // v2: the row read registered before it is rotated (timing: block RAM out, bank select, then a register).
        Bool v2 = regInit("v2", bool(), False());
        UInt v2Conn = reg("v2Conn", uint(cb));
        UInt v2Len = reg("v2Len", uint(16));
        Bool v2Last = reg("v2Last", bool());
        UInt v2Rot = reg("v2Rot", uint(lk));
        Bits v2Row = reg("v2Row", bits(dataWidth));

        Stream<MpaRxHoldBeat> beats = wire("beats", Streams.stream(() -> new MpaRxHoldBeat(dataWidth, n)));
        Streams.connect(Streams.s2mPipe(beats), io.ulpdu);
        Bool adv2 = wire("adv2", or(not(v2), beats.ready()));
        Bool adv = wire("adv", or(not(v1), adv2));
        Bool issue = wire("issue", and(curValid, adv));
        Bool curLast = regInit("curLast", bool(), False()); // curLeft = 1, kept as a register (timing)
        Bool lastIssue = wire("lastIssue", and(issue, curLast));

        UInt rLane = range(curH, lk - 1, 0);
        List<UInt> rAddr = laneRows("r", curH, curBase, k2, ab);
        List<Bits> read = new ArrayList<>();
        for (int i = 0; i < k2; i++) {
            read.add(lanes.get(i).readSync(rAddr.get(i), adv, dontCare$.MODULE$, false));
        }
        Bits row = wire("row", catLsbFirst(read));
        MpaRxHoldBeat beat = beats.payload();
        set(beats.valid(), v2);
        set(beat.data, rotateHalfWords(v2Row, v2Rot, false));
        set(beat.length, v2Len);
        set(beat.conn, v2Conn);
        set(beat.last, v2Last);
        when(adv2, () -> {
            set(v2, v1);
            set(v2Conn, v1Conn);
            set(v2Len, v1Len);
            set(v2Last, v1Last);
            set(v2Rot, v1Rot);
            set(v2Row, row);
        });
        when(adv, () -> {
            set(v1, issue);
            set(v1Conn, curConn);
            set(v1Len, curLen);
            set(v1Last, curLast);
            set(v1Rot, rLane);
        });
        when(issue, () -> {
            set(curH, wrapAddRow(curH, U(k2, lk + 1), k2, rh, hb));
            set(curLeft, sub(curLeft, U(1, bw)));
            set(curLast, eq(curLeft, U(2, bw)));
            when(curLast, () -> set(curValid, False()));
        });

        // mid[c]: a ULPDU of c between its descriptor and its last beat taken.
        List<Bool> mid = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            Bool m = or(and(curValid, isConn(curConn, c, n)), and(v1, isConn(v1Conn, c, n)),
                    and(v2, isConn(v2Conn, c, n)),
                    and(io.ulpdu.valid(), isConn(io.ulpdu.payload().conn, c, n)));
            mid.add(wire("mid_" + c, m));
            set(io.mid.apply(c), mid.get(c));
        }

        // ---- the descriptor at the head
        MpaRxDesc hd = head.payload().desc;
        UInt hc = hd.conn;
        Bool hSkip = wire("hSkip", or(pick(skipAny, hc), pick(clear, hc)));
        Bool hTake = wire("hTake", and(pick(deliver, hc), not(pick(failed, hc))));
        Bool curIsHead = and(curValid, eq(curConn, hc));
        Bool popSkip = hSkip;
        // An error waits until the reader is empty: it then follows every earlier ULPDU (of any connection) out.
        Bool readerEmpty = wire("readerEmpty", not(or(curValid, v1, v2, io.ulpdu.valid())));
        Bool popBad = wire("popBad", and(not(hSkip), hd.bad, readerEmpty));
        Bool popDrop = wire("popDrop", and(not(hSkip), not(hd.bad), not(hTake), not(curIsHead), not(lastIssue)));
        Bool popLoad = wire("popLoad", and(not(hSkip), not(hd.bad), hTake, or(not(curValid), lastIssue)));
        set(head.ready(), or(popSkip, popBad, popDrop, popLoad));
        UInt hStored = wire("hStored", head.payload().stored);
        UInt hBeats = wire("hBeats", head.payload().beats);
        UInt rptrHead = pick(rptr, hc);
        // rptr + stored, wrapped inside the region: rptr + (stored − RH) when that is not negative, else the plain sum;
        // two adds side by side from registers (timing; both operands are below RH ≤ 2^hb, so hb + 1 bits hold them).
        UInt rptrAlt = add(rptrHead.resize(hb + 1), head.payload().storedLessRegion);
        UInt rptrNext = wire("rptrNext", mux(rptrAlt.msb(), add(rptrHead, hStored.resize(hb)), rptrAlt.resize(hb)));
        when(and(head.fire(), popLoad), () -> {
            set(curValid, True());
            set(curConn, hc);
            set(curLen, hd.length);
            set(curH, rptrHead);
            set(curBase, pick(bases, hc));
            set(curLeft, hBeats);
            set(curLast, eq(hBeats, U(1, bw)));
            set(curFree, hStored.resize(ub));
        });

        // ---- error report: in the cycle its descriptor is taken
        Bool reports = wire("reports", and(head.fire(), popBad, not(pick(failed, hc))));
        set(io.error.valid(), reports);
        set(io.error.payload().conn, hc);
        set(io.error.payload().code, range(hd.length, 7, 0));

        // ---- space freed: the last beat of a ULPDU read, or a dropped one (never both in one cycle)
        // Given back a cycle later (registered, timing): space is only ever under-counted, never over. A free of a
        // connection under clear is forgotten with the rest of it.
        Bool freeNow = or(lastIssue, and(head.fire(), popDrop));
        UInt freeConnNow = mux(lastIssue, curConn, hc);
        Bool freeValid = regInit("freeValid", bool(), False());
        UInt freeConn = reg("freeConn", uint(cb));
        UInt freeAmt = reg("freeAmt", uint(ub));
        set(freeValid, and(freeNow, not(pick(clear, freeConnNow))));
        set(freeConn, freeConnNow);
        set(freeAmt, mux(lastIssue, curFree, hStored.resize(ub)));

        // ---- per-connection updates
        for (int c = 0; c < n; c++) {
            final int cc = c;
            Bool inC = isConn(inConn, c, n);
            // = accept ∧ inConn = c. Shared: from c's own flags and space, not the piece's connection's multiplexers
            // (timing: it enables c's pointer, space, dead flag); one connection: accept itself (it placed faster).
            Bool acceptC = n < 2 ? and(accept, inC) : wire("acceptC_" + c, and(in.valid(), inC, not(clear.get(c)),
                    not(dead.get(c)), eq(in.payload().epoch, epoch.get(c)), s1Free, leNarrow(cnt, space.get(c))));
            Bool freeC = and(freeValid, isConn(freeConn, c, n));
            Bool headC = isConn(hc, c, n);
            // Both outcomes are worked out from registers; the accept decision only picks one (timing).
            UInt freed = wire("freed_" + c, add(space.get(c), mux(freeC, freeAmt, U(0, ub))));
            UInt taken1 = wire("spaceTaken_" + c, sub(freed, cnt.resize(ub)));
            Bool roomIf = mux(acceptC, ge(taken1, U(k2, ub)), ge(freed, U(k2, ub)));
            set(space.get(c), mux(clear.get(c), U(rh, ub), mux(acceptC, taken1, freed)));
            set(room.get(c), or(clear.get(c), dead.get(c), roomIf));
            set(io.room.apply(c), room.get(c));
            if (io.space != null) {
                set(io.space.apply(c), space.get(c));
            }
            when(acceptC, () -> set(wptr.get(cc), wptrNext));
            when(and(acceptC, p.verdict, p.bad), () -> set(dead.get(cc), True()));
            // The head's decisions for c with c's own flags in place of the head connection's multiplexers: the same
            // values whenever the head is c, but the enables of c's registers start a few gates from registers
            // (timing: the pop decision itself is the longest path of the reader).
            Bool skipC = or(skipAny.get(c), clear.get(c));
            Bool takeC = and(deliver.get(c), not(failed.get(c)));
            Bool curIsC = and(curValid, isConn(curConn, c, n));
            Bool movesC = or(and(not(takeC), not(curIsC), not(lastIssue)), and(takeC, or(not(curValid), lastIssue)));
            Bool atHeadC = and(head.valid(), headC);
            Bool takenC = wire("taken_" + c, and(atHeadC, not(skipC), not(hd.bad), movesC)); // = taken ∧ headC
            when(takenC, () -> set(rptr.get(cc), rptrNext));
            when(and(atHeadC, not(skipC), hd.bad, readerEmpty, not(failed.get(c))),
                    () -> set(failed.get(cc), True())); // = reports ∧ headC
            // = descIn.fire ∧ s1Conn = c, from c's own clear rather than the killed flag's multiplexer (timing).
            Bool pushC = wire("pushC_" + c, and(s1Valid, s1Verdict, isConn(s1Conn, c, n), not(clear.get(c)),
                    descIn.ready()));
            // = head.fire ∧ headC
            Bool popC = wire("popC_" + c, and(atHeadC, or(skipC, and(hd.bad, readerEmpty), and(not(hd.bad), movesC))));
            // The three counts a cycle can leave are worked out from the register; push and pop only pick one
            // (timing: the pop is the head's late decision, the push the writer's).
            UInt dc = descCount.get(c);
            UInt dcUp = add(dc, U(1, db));
            UInt dcDown = sub(dc, U(1, db));
            UInt dcNext = wire("descCountNext_" + c, mux(pushC, mux(popC, dc, dcUp), mux(popC, dcDown, dc)));
            set(descCount.get(c), dcNext);
            // Under clear nothing of c is pushed (pushC waits on it): the skip count is the count less a pop.
            UInt dcCleared = wire("descCountCleared_" + c, mux(popC, dcDown, dc));
            Bool dcClearedAny = mux(popC, neq(dc, U(1, db)), neq(dc, U(0, db)));
            when(clear.get(c), () -> {
                set(skip.get(cc), dcCleared);
                set(skipAny.get(cc), dcClearedAny);
                set(wptr.get(cc), U(0, hb));
                set(rptr.get(cc), U(0, hb));
                set(dead.get(cc), False());
                set(failed.get(cc), False());
            }).elseWhen(and(atHeadC, skipAny.get(c)), () -> { // = popC ∧ popSkip, clear aside
                set(skip.get(cc), sub(skip.get(cc), U(1, db)));
                set(skipAny.get(cc), neq(skip.get(cc), U(1, db)));
            });
            set(io.failed.apply(c), failed.get(c));
        }
    }

    /**
     * The lane rows of the {@code 2w} half-words from region offset {@code h} of the region at row {@code base}: lane
     * i holds half-word {@code h + ((i − h) mod 2w)}, in row {@code r = ⌊h / 2w⌋} for {@code i ≥ h mod 2w}, else in
     * the row after (wrapping inside the region; the last lane is never past {@code h mod 2w}).
     */
    private List<UInt> laneRows(String prefix, UInt h, UInt base, int k2, int ab) {
        int lk = log2Up(k2);
        UInt lane = range(h, lk - 1, 0);
        UInt row = shr(h, lk);
        int rw = row.getBitsWidth();
        UInt next = mux(eq(row, U(regionRows - 1, rw)), U(0, rw), add(row, U(1, rw)));
        UInt addr0 = wire(prefix + "Addr0", add(base, row.resize(ab)));
        UInt addr1 = wire(prefix + "Addr1", add(base, next.resize(ab)));
        List<UInt> rows = new ArrayList<>();
        for (int i = 0; i < k2; i++) {
            rows.add(i == k2 - 1 ? addr0 : mux(lt(U(i, lk), lane), addr1, addr0));
        }
        return rows;
    }

    /** {@code x} rotated by {@code r} half-words, towards the high lanes ({@code up}: lane l gets lane l − r) or down. */
    static Bits rotateHalfWords(Bits x, UInt r, boolean up) {
        Bits y = x;
        for (int k = 0; k < r.getBitsWidth(); k++) {
            y = mux(r.apply(k), up ? (Bits) y.rotateLeft(16 << k) : (Bits) y.rotateRight(16 << k), y);
        }
        return y;
    }

    /**
     * {@code (h + x) mod rh} for {@code h < rh}, {@code x ≤ rh}, as {@code hb} bits: the wrap is decided on the full
     * sum, the result computed modulo {@code 2^hb} (it is below {@code rh}).
     */
    private static UInt wrapAdd(UInt h, UInt x, int rh, int hb) {
        int w = Math.max(hb, x.getBitsWidth()) + 1;
        Bool over = ge(x.resize(w), sub(U(rh, w), h.resize(w)));
        UInt sum = add(h, x.resize(hb));
        return mux(over, sub(sum, U(rh & ((1L << hb) - 1), hb)), sum);
    }

    /**
     * {@link #wrapAdd} for an {@code x} of at most one row ({@code k2} half-words; {@code rh} is a whole number of rows):
     * it wraps only from the region's last row, and then to {@code (h mod k2) + x − k2}, so the wrap test and the
     * wrapped value are a few bits wide and only {@code h + x} is a carry chain (timing: the writer's pointer).
     */
    private static UInt wrapAddRow(UInt h, UInt x, int k2, int rh, int hb) {
        int lk = log2Up(k2);
        if (rh % k2 != 0 || rh <= k2) {
            return wrapAdd(h, x, rh, hb);
        }
        int sw = lk + 2;
        Bool lastRow = eq(shr(h, lk), U(rh / k2 - 1, hb - lk));
        UInt s = add(range(h, lk - 1, 0).resize(sw), x.resize(sw));
        Bool over = and(lastRow, ge(s, U(k2, sw)));
        UInt wrapped = sub(s, U(k2, sw)).resize(hb);
        return mux(over, wrapped, add(h, x.resize(hb)));
    }

    /**
     * Half-words stored for a ULPDU of {@code length} octets: {@code 2·⌈(2 + L) / 4⌉ − 1}, written as
     * {@code 2·(⌊L / 4⌋ + [L mod 4 = 3]) + 1}.
     */
    private static UInt stored(UInt length) {
        UInt q = add(shr(length, 2).resize(15), mux(eq(range(length, 1, 0), U(3, 2)), U(1, 15), U(0, 15)));
        return cat(q, True()).asUInt();
    }

    private static Bool isConn(UInt conn, int c, int n) {
        return n == 1 ? True() : eq(conn, U(c, conn.getBitsWidth()));
    }

    private static <T extends Data> T pick(List<T> xs, UInt index) {
        return xs.size() == 1 ? xs.get(0) : vec(xs).apply(index);
    }
}
