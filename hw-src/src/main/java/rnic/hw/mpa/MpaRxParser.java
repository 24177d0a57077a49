package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.crc.CrcMatrix;
import rnic.hw.crc.CrcParallel;
import rnic.wire.MpaErrorCode;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.Data;
import spinal.core.UInt;
import spinal.core.Vec;
import spinal.lib.Stream;

/**
 * Second MPA receive stage (RFC 5044 §4–§6, §8): finds the FPDUs in the word stream of {@link MpaRxAlign} from their
 * ULPDU_Length (MPA-24), checks the CRC over the span docs/requirements.md §4.1 defines and every Marker's FPDUPTR, and
 * hands on, per beat, one {@link MpaRxPiece} for {@link MpaRxHold}: the raw row and up to two spans of it in half-words
 * that hold ULPDU and PAD octets (ULPDU_Length, Markers and CRC left out), with the verdict of the FPDU that ends in
 * the beat.
 *
 * <p>Per beat the stage takes the rest of the current FPDU (span A) and, when that ends in the beat, the start of the
 * next one (span B), so FPDUs of a row or more cost no cycle at their boundaries. The next FPDU's start is taken only
 * if it does not end in the same beat as well; otherwise the beat is held and worked on again from that FPDU
 * ({@code wp}), one FPDU end (one verdict) per cycle.
 *
 * <p>A Marker is word 0 of every row at a multiple of 512 octets when Markers are on. Before an FPDU's first word it
 * leads that FPDU and must carry FPDUPTR 0; inside the FPDU or right after its PAD it must point back at the FPDU's
 * ULPDU_Length (MPA-13, MPA-14). FPDUPTR is read with its low two bits as zero and the RESERVED half ignored (MPA-10).
 * Either kind is covered by the FPDU's CRC. The verdict: E-M2 (CRC_ERROR) when the CRC is on and differs, else E-M3
 * (MARKER_ERROR) when a Marker of the FPDU disagreed (MPA-42 checks Markers of CRC-valid FPDUs only), else good; a
 * {@code lost} row becomes E-M1 (TCP_CLOSED). An FPDU whose ULPDU_Length exceeds {@code maxUlpdu} (the receive buffer's
 * bound, {@link MpaRxConfig#maxUlpdu()}) gets its verdict, E-M2 (CRC_ERROR: it cannot be validated), the cycle its
 * header is seen, and none of it is handed on. After the first error the stage takes and discards everything (MPA-44).
 *
 * <p>Timing: a register stage in front ({@link Pre}) works out what depends on the row alone (content words per word,
 * over-long flags, the Marker row, FPDUPTR as a header offset), and {@code remSmall} says whether the FPDU in progress
 * can end in this beat, so finding an FPDU's end is a {@code log2(words + 1) + 1}-bit add instead of 17-bit ones.
 * Verdicts leave through a register stage ({@link Verdict}) that makes the CRC compare: the received CRC word XOR the
 * computed one is registered, and a non-zero value turns the verdict into E-M2 there, a cycle after the FPDU's end.
 * The stage stops taking work when that verdict is seen, so one more beat may have been handed on by then; it belongs
 * after the failing FPDU, and the receiver discards everything after its first bad verdict. {@code crcState} holds the
 * CRC's initial value whenever no FPDU is under way (an FPDU that ends without a next one taken in its beat sets it so),
 * so an FPDU's CRC starts from the state as it is, with no multiplexer on whether it starts here.
 *
 * <p><b>Shared by {@code n ≥ 1} connections</b> ({@link MpaRxShared}; {@code n = 0} is {@link MpaRxDeframer}'s parser,
 * unchanged): rows and pieces carry their connection; {@code markers}/{@code crc} become per-connection inputs
 * ({@code markersOf}, {@code crcOf}) read for the row's connection; {@code failed} and the first bad verdict's offset
 * ({@code badSeqOf}) are per connection. The FPDU state ({@code inFpdu}, {@code leadDone}, {@code rem},
 * {@code remSmall}, {@code hdrOff}, {@code fpduOff}, {@code crcState}, {@code markerBad}, {@code ulpduLength}) is
 * the live registers plus, for {@code n ≥ 2}, a table with an entry per connection (docs/shared-mpa.md §2.3): a row of
 * another connection loads its entry and writes the live state back, in the same cycle. The entry and whether the row
 * switches are read a cycle ahead, as the row enters the register stage in front (with what that cycle writes to the
 * entry: a switch's write-back or a clear), so the row's context is one multiplexer from registers. {@code wp} stays
 * a plain register (a held row is the same item next cycle). {@code clear[c]} resets c's entry (and the live state
 * when c is live), its {@code failed} and error offset, and drops its rows and pieces inside the parser.
 * {@code rowDone} reports a row finished (taken from the register stage in front), with its connection.
 */
public final class MpaRxParser extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int words;
        public final Stream<MpaRxRow> input;
        /** Per beat the spans to store and the verdict of an FPDU ending in it (one connection: {@code conn} 0). */
        public final Stream<MpaRxPiece> pieces;
        /**
         * The stream offset of the first bad verdict handed on (the offending FPDU's first octet, or the hole for
         * E-M1; valid from the second cycle after that verdict left, taken through a register for timing): the
         * receiver adds {@code seqStart}.
         */
        public final UInt badSeq;
        public final Bool markers;
        public final Bool crc;
        public final int n;
        /**
         * Shared ({@code n ≥ 1}) only, else null. {@code badSeqOf[c]}: {@code badSeq} of connection c, valid from the
         * second cycle after that verdict left (it is taken through a register, timing).
         */
        public final Vec<UInt> badSeqOf;
        public final Vec<Bool> markersOf;
        public final Vec<Bool> crcOf;
        public final Vec<Bool> clear;
        public final Vec<Bool> failedOf;
        public final Bool rowDone;
        public final UInt rowDoneConn;

        public Io(int words, int n) {
            this.words = words;
            this.n = n;
            input = field("input", Streams.slaveStream(() -> new MpaRxRow(words, n)));
            pieces = field("pieces", Streams.masterStream(() -> new MpaRxPiece(32 * words, Math.max(1, n))));
            badSeq = n == 0 ? field("badSeq", out(uint(32))) : null;
            markers = n == 0 ? field("markers", in(bool())) : null;
            crc = n == 0 ? field("crc", in(bool())) : null;
            badSeqOf = n > 0 ? field("badSeqOf", out(vec(n, () -> uint(32)))) : null;
            markersOf = n > 0 ? field("markersOf", in(vec(n, () -> bool()))) : null;
            crcOf = n > 0 ? field("crcOf", in(vec(n, () -> bool()))) : null;
            clear = n > 0 ? field("clear", in(vec(n, () -> bool()))) : null;
            failedOf = n > 0 ? field("failedOf", out(vec(n, () -> bool()))) : null;
            rowDone = n > 0 ? field("rowDone", out(bool())) : null;
            rowDoneConn = n > 0 ? field("rowDoneConn", out(uint(MpaRxPiece.connBits(n)))) : null;
        }
    }

    /**
     * A row with what depends on its words alone worked out a cycle ahead (the register stage in front of the parser):
     * per word {@code i}, the content words {@link #contentWords} of an FPDU whose ULPDU_Length is word {@code i}
     * ({@code cw}, {@link #RW} bits each), whether that is at most {@code words} ({@code small}: such an FPDU can end in
     * this beat) and whether the length is over the bound ({@code tooLong}); and whether the row starts at a multiple of
     * 512 octets ({@code markerRow}).
     */
    public static final class Pre extends HwBundle {
        public final int words;
        public final MpaRxRow row;
        public final Bits cw;
        public final Bits small;
        public final Bits tooLong;
        public final Bool markerRow;
        /** Word 0 read as a Marker: its FPDUPTR is 0, and the offset of the ULPDU_Length it points at. */
        public final Bool ptrZero;
        public final UInt ptrHdr;
        /** The row's offset plus a row: where word {@code words} (just past the row) is. */
        public final UInt rowEnd;
        public final int n;

        public Pre(int words, int n) {
            this.words = words;
            this.n = n;
            row = field("row", new MpaRxRow(words, n));
            cw = field("cw", bits(RW * words));
            small = field("small", bits(words));
            tooLong = field("tooLong", bits(words));
            markerRow = field("markerRow", bool());
            ptrZero = field("ptrZero", bool());
            ptrHdr = field("ptrHdr", uint(32));
            rowEnd = field("rowEnd", uint(32));
        }
    }

    /**
     * A piece before its CRC compare (the stage behind the parser): the piece with the verdict as far as it is known
     * without the CRC check, where a bad FPDU starts ({@code seq}), and the received CRC word XOR the computed one
     * ({@code crcDiff}, zero when they agree; compared when {@code crcCheck}).
     */
    public static final class Parsed extends HwBundle {
        public final int dataWidth;
        public final MpaRxPiece piece;
        public final UInt seq;
        public final Bool crcCheck;
        public final Bits crcDiff;
        /** Span A holds octets: else {@code piece}'s A bounds are not a span and leave as 0 (applied behind the register). */
        public final Bool aKeep;
        public final int n;

        public Parsed(int dataWidth, int n) {
            this.dataWidth = dataWidth;
            this.n = n;
            piece = field("piece", new MpaRxPiece(dataWidth, Math.max(1, n)));
            seq = field("seq", uint(32));
            crcCheck = field("crcCheck", bool());
            crcDiff = field("crcDiff", bits(32));
            aKeep = field("aKeep", bool());
        }
    }

    /** Width of FPDU word counts: a ULPDU_Length of 65535 is 16 385 content words. */
    static final int RW = 17;

    public final Io io;
    /** Where work on a held beat resumes (0 otherwise). */
    public final UInt wp;
    /** Inside an FPDU (its ULPDU_Length seen). */
    public final Bool inFpdu;
    /** The leading Marker of the next FPDU is consumed, its header not yet. */
    public final Bool leadDone;
    /** Content words of the current FPDU still to come (0: its CRC is next). */
    public final UInt rem;
    public final UInt hdrOff;
    public final UInt fpduOff;
    public final Bits crcState;
    public final Bool markerBad;
    public final Bool failed;
    /** ULPDU_Length of the current FPDU, once its header has been seen in an earlier beat. */
    public final UInt ulpduLength;
    /** {@code rem} is at most {@code words} (the FPDU can end in the next beat). */
    public final Bool remSmall;

    public final UInt start;
    public final Bool isMarker;
    public final UInt contentStart;
    public final UInt endA;
    public final Bool endsA;
    public final UInt nextStart;
    public final Bool takeB;
    public final Bits crcA;
    public final Bits crcB;
    public final Bool crcBad;
    public final Bool markerBadA;

    /** The largest ULPDU_Length accepted. */
    public final int maxUlpdu;
    /** The FPDU starting in this beat announces a ULPDU_Length above {@link #maxUlpdu}. */
    public final Bool tooLongA;

    /** A parser accepting every 16-bit ULPDU_Length. */
    public MpaRxParser(int words) {
        this(words, 65535);
    }

    public MpaRxParser(int words, int maxUlpdu) {
        this(words, maxUlpdu, 0);
    }

    /** A parser for {@code n} connections ({@code 0}: one, untagged, as {@link MpaRxDeframer} has it). */
    public MpaRxParser(int words, int maxUlpdu, int n) {
        if (maxUlpdu < 1 || maxUlpdu > 65535) {
            throw new IllegalArgumentException("maxUlpdu must be 1 … 65535, got " + maxUlpdu);
        }
        if (n < 0 || n > 16) {
            throw new IllegalArgumentException("0 … 16 connections, got " + n);
        }
        this.maxUlpdu = maxUlpdu;
        this.n = n;
        if (n > 0) {
            setDefinitionName("MpaRxParser_n" + n, true); // one module per connection count
        }
        io = io(new Io(words, n));
        final int cb = MpaRxPiece.connBits(Math.max(1, n));
        CrcMatrix matrix = new CrcMatrix(CrcMatrix.CRC32C);
        int cw = log2Up(words + 1);
        Bits crcInit = B(matrix.init(), 32);
        wp = regInit("wp", uint(cw), U(0, cw));
        inFpdu = regInit("inFpdu", bool(), False());
        leadDone = regInit("leadDone", bool(), False());
        rem = regInit("rem", uint(RW), U(0, RW));
        hdrOff = regInit("hdrOff", uint(32), U(0, 32));
        fpduOff = regInit("fpduOff", uint(32), U(0, 32));
        crcState = regInit("crcState", bits(32), crcInit);
        markerBad = regInit("markerBad", bool(), False());
        List<Bool> failedL = new ArrayList<>();
        if (n == 0) {
            failed = regInit("failed", bool(), False());
        } else {
            for (int c = 0; c < n; c++) {
                failedL.add(regInit("failed_" + c, bool(), False()));
            }
            failed = null; // per connection: failedL (assigned below as the row's)
        }
        ulpduLength = regInit("ulpduLength", uint(16), U(0, 16));
        remSmall = regInit("remSmall", bool(), True());
        UInt max = U(maxUlpdu, 16);

        // ---- the register stage in front: per-word lengths and bounds, the Marker row
        MpaRxRow raw = io.input.payload();
        Pre p0 = wire("pre", new Pre(words, n));
        set(p0.row, raw);
        List<Bits> cwList = new ArrayList<>();
        List<Bool> smallList = new ArrayList<>();
        List<Bool> longList = new ArrayList<>();
        for (int i = 0; i < words; i++) {
            UInt len = lengthAt(raw.data, U(i, cw));
            UInt c = contentWords(len);
            cwList.add(c.asBits());
            // contentWords(len) = ⌈(2 + len) / 4⌉ ≤ words exactly when len ≤ 4·words − 2: a compare with a
            // constant, not behind the add (timing).
            smallList.add(le(len, U(4 * words - 2, 16)));
            longList.add(gt(len, max));
        }
        set(p0.cw, catLsbFirst(cwList));
        set(p0.small, catLsbFirst(smallList));
        set(p0.tooLong, catLsbFirst(longList));
        set(p0.markerRow, eq(range(raw.rowOff, 8, 0), U(0, 9)));
        // FPDUPTR is octets 2–3 of the Marker (word 0), big-endian, read with bits 1:0 as zero (MPA-10).
        UInt ptr = cat(range(raw.data, 23, 16), range(raw.data, 31, 26), B(0, 2)).asUInt();
        set(p0.ptrZero, eq(ptr, U(0, 16)));
        set(p0.ptrHdr, sub(raw.rowOff, ptr.resize(32)));
        set(p0.rowEnd, add(raw.rowOff, U(4 * words, 32)));
        Stream<Pre> pipeRaw = Streams.m2sPipe(Streams.translateWith(io.input, p0));
        Stream<Pre> pipe = n == 0 ? pipeRaw : pipeRaw.throwWhen(pick(io.clear, pipeRaw.payload().row.conn));
        Pre pre = pipe.payload();
        MpaRxRow r = pre.row;
        UInt hi = r.hi;

        // ---- context (shared): the row's connection against the live one, read a cycle ahead (timing): as a row
        // enters the register stage, whether it will switch and its connection's entry are registered with it, so the
        // context views are one multiplexer from registers. The entry read ahead takes what this cycle writes to it:
        // the live state written back by a switch, or the reset of a clear.
        Bool present = pipe.valid();
        if (n >= 2) {
            UInt lc = liveConnReg(cb);
            UInt liveNext = mux(present, r.conn, lc);
            switchAhead = regInit("switchAhead", bool(), False());
            aheadLoad = io.input.ready();
            aheadConn = raw.conn;
            aheadClear = pick(io.clear, raw.conn);
            switching = wire("switching", and(present, switchAhead));
            aheadLive = wire("aheadLive", and(switching, eq(raw.conn, lc)));
            // Set on the row's entry when its connection is not the live one then; low once it has switched.
            when(present, () -> set(switchAhead, False()));
            when(aheadLoad, () -> set(switchAhead, neq(raw.conn, liveNext)));
        }
        Bool inFpduV = ctx("inFpdu", inFpdu, () -> False());
        Bool leadDoneV = ctx("leadDone", leadDone, () -> False());
        UInt remV = ctx("rem", rem, () -> U(0, RW));
        UInt hdrOffV = ctx("hdrOff", hdrOff, () -> U(0, 32));
        UInt fpduOffV = ctx("fpduOff", fpduOff, () -> U(0, 32));
        Bits crcStateV = ctx("crcState", crcState, () -> crcInit);
        Bool markerBadV = ctx("markerBad", markerBad, () -> False());
        UInt ulpduLengthV = ctx("ulpduLength", ulpduLength, () -> U(0, 16));
        Bool remSmallV = ctx("remSmall", remSmall, () -> True());
        if (n >= 2) {
            when(switching, () -> {
                for (int i = 0; i < ctxLive.size(); i++) {
                    set(ctxLive.get(i), ctxView.get(i));
                    for (int c = 0; c < n; c++) {
                        final int ii = i;
                        final int cc = c;
                        when(isConn(liveConn, c), () -> set(ctxTable.get(ii).get(cc), ctxLive.get(ii)));
                    }
                }
                set(liveConn, r.conn);
            });
        }
        Bool failedNow = n == 0 ? failed : wire("failedNow", pick(failedL, r.conn));
        Bool markersNow = n == 0 ? io.markers : pick(io.markersOf, r.conn);
        Bool crcNow = n == 0 ? io.crc : pick(io.crcOf, r.conn);

        start = wire("start", mux(gt(wp, r.lo), wp, r.lo));
        isMarker = wire("isMarker", and(markersNow, pre.markerRow, eq(start, U(0, cw))));
        Bool starting = not(inFpduV);
        Bool fresh = and(starting, not(leadDoneV)); // nothing of this FPDU seen yet
        contentStart = wire("contentStart", add(start, mux(isMarker, U(1, cw), U(0, cw))));
        Bool hdrAvail = lt(contentStart, hi);

        // The FPDU in progress (A): its content ends at word eA, its CRC is word eA if that is in this beat.
        // Only an FPDU with at most `words` content words left can end in this beat: its end is a (cw+1)-bit add.
        UInt lengthA = wire("lengthA", lengthAt(r.data, contentStart));
        UInt remA = mux(starting, pick(pre.cw, RW, contentStart, 1).asUInt(), remV);
        Bool smallA = mux(starting, pick(pre.small, 1, contentStart, 1).lsb(), remSmallV);
        UInt eA = add(contentStart.resize(cw + 1), remA.resize(cw + 1));
        UInt hiS = hi.resize(cw + 1);
        endsA = wire("endsA", and(smallA, lt(eA, hiS)));
        Bool contentEnds = and(smallA, le(eA, hiS));
        UInt eAw = eA.resize(cw);
        endA = wire("endA", mux(endsA, eAw, hi));
        UInt contentEnd = mux(contentEnds, eAw, hi);

        // The FPDU after it (B), starting right after A's CRC.
        nextStart = wire("nextStart", add(eAw, U(1, cw)));
        // B needs nextStart = eA + 1 < hi ≤ words: never at one word per beat (stated, so synthesis keeps no such logic).
        Bool bAvail = words == 1 ? False() : and(endsA, lt(nextStart, hi));
        UInt lengthB = wire("lengthB", lengthAt(r.data, nextStart));
        UInt tB = pick(pre.cw, RW, nextStart, 1).asUInt();
        Bool smallB = pick(pre.small, 1, nextStart, 1).lsb();
        // B is taken only if it is not over-long: otherwise the beat is held and B is refused as A next cycle.
        Bool tooLongB = pick(pre.tooLong, 1, nextStart, 0).lsb();
        UInt eB = add(nextStart.resize(cw + 1), tB.resize(cw + 1));
        Bool bFits = not(and(smallB, lt(eB, hiS))); // B's CRC is not in this beat

        // CRC and Marker checks.
        // crcState is the initial value whenever nothing of an FPDU has been seen (reset, clear, and an FPDU ending
        // without a next one taken set it so), so it is A's CRC state as it is (timing: no multiplexer on `fresh`).
        Bits crcIn = crcStateV;
        // At one word per beat, an FPDU that ends in the beat ends before its word (the word is its CRC), so A's CRC
        // is either the state or the state over the word: the end only picks one (timing: it is known late).
        crcA = wire("crcA", words == 1
                ? mux(endsA, crcIn, CrcParallel.nextWords(matrix, crcIn, r.data, start, hi))
                : CrcParallel.nextWords(matrix, crcIn, r.data, start, endA));
        crcB = wire("crcB", CrcParallel.nextWords(matrix, crcInit, r.data, nextStart, hi));
        Bits crcWord = wordAt(r.data, eAw);
        // The compare itself is a cycle later, behind the verdict register (below): crcBad.
        Bits crcDiff = wire("crcDiff", xor(crcWord, xor(crcA, B(matrix.finish(0), 32))));
        // A leading Marker must carry FPDUPTR 0; any other must point back at the ULPDU_Length: rowOff − FPDUPTR = hdrOff.
        Bool thisMarkerBad = and(isMarker, mux(starting, not(pre.ptrZero), neq(pre.ptrHdr, hdrOffV)));
        markerBadA = wire("markerBadA", or(and(not(fresh), markerBadV), thisMarkerBad));
        // Bad before the CRC compare: an FPDU that fails only its CRC is found a cycle later (see crcBad).
        Bool badA = markerBadA;
        UInt fpduOffA = mux(fresh, wordOff(pre, start), fpduOffV);

        // Handshakes: the beat's piece carries A's span, B's span when B is taken, and A's verdict, all together.
        Bool needA = neq(contentEnd, contentStart);
        Bool active = and(pipe.valid(), not(failedNow));
        Bool lost = r.lost;
        tooLongA = wire("tooLongA", and(starting, hdrAvail, pick(pre.tooLong, 1, contentStart, 0).lsb()));
        // A verdict without content: the row is lost (E-M1), or A's ULPDU_Length is over the bound (E-M2).
        Bool refuse = or(lost, tooLongA);
        // Pieces go through a register stage that compares the CRC (crcBad) before io.pieces.
        Stream<Parsed> parsed = Streams.stream(() -> new Parsed(32 * words, n));
        Stream<Parsed> checkedRaw = Streams.m2sPipe(parsed);
        Stream<Parsed> checked = n == 0 ? checkedRaw
                : checkedRaw.throwWhen(pick(io.clear, checkedRaw.payload().piece.conn));
        Bool canB = and(bAvail, bFits, not(badA), not(tooLongB), not(refuse));
        Bool wantOut = or(refuse, needA, endsA, canB);
        // A beat is worked on when the stage behind can take a piece, whether or not this beat hands one on: the
        // enables then wait on no FPDU arithmetic of this cycle (at one beat per cycle the stage behind is ready).
        Bool work = and(active, parsed.ready());
        Bool go = and(work, not(refuse));
        takeB = wire("takeB", and(go, canB));
        Bool hold = and(bAvail, not(takeB));

        // Spans in half-words: A from its first content word, past the ULPDU_Length when the FPDU starts here; B
        // from the half-word after its ULPDU_Length to the end of the row.
        int sb = MpaRxPiece.spanBits(32 * words);
        UInt skipHdr = mux(and(starting, hdrAvail), U(1, sb), U(0, sb));
        UInt aFrom = add(shl(contentStart, 1).resize(sb), skipHdr);
        UInt aTo = shl(contentEnd, 1).resize(sb);
        Parsed v = parsed.payload();
        MpaRxPiece pc = v.piece;
        set(pc.conn, n == 0 ? U(0, 1) : r.conn);
        set(pc.data, r.data);
        // Span A's bounds go into the register as they are, with whether they are one; the zeroing is behind it
        // (timing: needA is known late).
        set(pc.aFrom, aFrom);
        set(pc.aTo, aTo);
        set(v.aKeep, and(needA, not(refuse)));
        set(pc.bFrom, mux(canB, add(shl(nextStart, 1).resize(sb), U(1, sb)), U(0, sb)));
        set(pc.bTo, mux(canB, shl(hi, 1).resize(sb), U(0, sb)));
        set(pc.verdict, or(refuse, endsA));
        set(pc.bad, or(refuse, badA));
        set(pc.code, mux(lost, U(MpaErrorCode.TCP_CLOSED.code(), 8),
                mux(tooLongA, U(MpaErrorCode.CRC_ERROR.code(), 8), U(MpaErrorCode.MARKER_ERROR.code(), 8))));
        set(pc.length, mux(starting, lengthA, ulpduLengthV));
        set(v.seq, mux(lost, r.rowOff, fpduOffA)); // a stream offset: the receiver adds seqStart
        set(v.crcCheck, and(crcNow, not(refuse), endsA));
        set(v.crcDiff, crcDiff);
        set(parsed.valid(), and(active, wantOut));

        // The stage behind: the CRC compare, E-M2 (CRC_ERROR) ahead of a Marker error, and the parser stops taking
        // work the cycle the failing verdict is seen here (one beat after the FPDU's end may have been worked on by
        // then; it comes after the failing verdict, so the receiver discards it with the rest).
        Parsed c = checked.payload();
        crcBad = wire("crcBad", and(c.crcCheck, neq(c.crcDiff, B(0, 32))));
        MpaRxPiece out = io.pieces.payload();
        set(io.pieces.valid(), checked.valid());
        set(checked.ready(), io.pieces.ready());
        set(out.conn, c.piece.conn);
        set(out.data, c.piece.data);
        set(out.aFrom, mux(c.aKeep, c.piece.aFrom, U(0, sb)));
        set(out.aTo, mux(c.aKeep, c.piece.aTo, U(0, sb)));
        set(out.bFrom, c.piece.bFrom);
        set(out.bTo, c.piece.bTo);
        set(out.verdict, c.piece.verdict);
        set(out.length, c.piece.length);
        Bool outBad = or(c.piece.bad, crcBad);
        set(out.bad, outBad);
        set(out.code, mux(crcBad, U(MpaErrorCode.CRC_ERROR.code(), 8), c.piece.code));
        // A bad verdict handed on is registered before it is recorded (timing: the CRC compare, then the enables of
        // the offset). Its connection is not under clear: a clear drops its pieces here.
        Bool badLeft = regInit("badLeft", bool(), False());
        UInt badLeftSeq = reg("badLeftSeq", uint(32));
        set(badLeft, and(io.pieces.fire(), c.piece.verdict, outBad));
        set(badLeftSeq, c.seq);
        if (n == 0) {
            when(and(checked.valid(), crcBad), () -> set(failed, True()));
            Bool badSeen = regInit("badSeen", bool(), False());
            UInt badSeq = regInit("badSeq", uint(32), U(0, 32));
            when(and(badLeft, not(badSeen)), () -> {
                set(badSeen, True());
                set(badSeq, badLeftSeq);
            });
            set(io.badSeq, badSeq);
        } else {
            UInt badLeftConn = reg("badLeftConn", uint(cb));
            set(badLeftConn, c.piece.conn);
            for (int k = 0; k < n; k++) {
                final int kk = k;
                Bool badSeen = regInit("badSeen_" + k, bool(), False());
                UInt badSeq = regInit("badSeq_" + k, uint(32), U(0, 32));
                Bool mine = isConn(c.piece.conn, k);
                when(and(checked.valid(), crcBad, mine), () -> set(failedL.get(kk), True()));
                when(and(badLeft, isConn(badLeftConn, k), not(badSeen)), () -> {
                    set(badSeen, True());
                    set(badSeq, badLeftSeq);
                });
                when(io.clear.apply(k), () -> set(badSeen, False()));
                set(io.badSeqOf.apply(k), badSeq);
            }
        }
        Runnable failNow = n == 0 ? () -> set(failed, True()) : () -> {
            for (int k = 0; k < n; k++) {
                final int kk = k;
                when(isConn(r.conn, k), () -> set(failedL.get(kk), True()));
            }
        };

        set(pipe.ready(), or(failedNow, and(go, not(hold)), and(active, refuse, parsed.ready())));

        when(and(active, refuse, parsed.ready()), failNow);
        // The FPDU's header fields are loaded whenever one starts in a worked beat, whether or not it also ends
        // there (then nothing reads them before the next FPDU loads its own), or is refused (the stage fails and
        // reads them no more): the enable waits on no end or bound arithmetic. B, taken below, overrides them.
        when(and(work, starting), () -> {
            set(ulpduLength, lengthA);
            set(fpduOff, fpduOffA);
            set(hdrOff, wordOff(pre, contentStart));
        });
        // The FPDU state moves on in every worked beat, a refused one too: the stage then fails (below) and reads it
        // no more (a clear resets it), so its enables wait on no bound arithmetic (timing).
        when(work, () -> {
            // A's running state, loaded in every worked beat: when A ends here nothing reads it before the next FPDU
            // starts afresh (B, taken below, overrides it), so its enables wait on no end arithmetic (timing).
            UInt used = sub(hi, contentStart);
            UInt remNext = sub(remA, used.resize(RW));
            set(rem, remNext);
            // remNext ≤ words as remA ≤ words + used (remA ≥ used while A does not end in this beat, the only case
            // in which it is read), without the subtraction's carry chain in front of the compare (timing).
            set(remSmall, leNarrow(remA, add(U(words, cw + 1), used.resize(cw + 1))));
            set(crcState, crcA);
            set(markerBad, markerBadA);
            when(endsA, () -> {
                set(leadDone, False());
                set(markerBad, False());
                set(wp, mux(hold, nextStart, U(0, cw)));
                when(badA, failNow);
                when(takeB, () -> {
                    set(inFpdu, True());
                    UInt remB = sub(tB, sub(hi, nextStart).resize(RW));
                    set(rem, remB);
                    set(remSmall, le(remB, U(words, RW)));
                    set(ulpduLength, lengthB);
                    UInt off = wordOff(pre, nextStart);
                    set(hdrOff, off);
                    set(fpduOff, off);
                    set(crcState, crcB);
                }).otherwise(() -> {
                    set(inFpdu, False());
                    set(crcState, crcInit); // the next FPDU starts afresh (see crcIn)
                });
            }).otherwise(() -> {
                set(inFpdu, or(inFpduV, hdrAvail));
                when(starting, () -> set(leadDone, not(hdrAvail)));
                set(wp, U(0, cw));
            });
        });

        if (n > 0) {
            // A row finished (worked through, drained after a failure, or dropped by a clear): the next starts at 0.
            when(pipeRaw.fire(), () -> set(wp, U(0, cw)));
            set(io.rowDone, pipeRaw.fire());
            set(io.rowDoneConn, pipeRaw.payload().row.conn);
            for (int k = 0; k < n; k++) {
                final int kk = k;
                Bool clr = io.clear.apply(k);
                set(io.failedOf.apply(k), failedL.get(k));
                when(clr, () -> set(failedL.get(kk), False()));
                if (n >= 2) {
                    when(clr, () -> {
                        for (int i = 0; i < ctxTable.size(); i++) {
                            set(ctxTable.get(i).get(kk), ctxInit.get(i));
                        }
                    });
                }
                Bool isLive = n < 2 ? True() : and(isConn(liveConn, k), not(switching));
                when(and(clr, isLive), () -> {
                    for (int i = 0; i < ctxLive.size(); i++) {
                        set(ctxLive.get(i), ctxInit.get(i));
                    }
                });
            }
        }
    }

    /** Connections sharing it ({@code 0}: the untagged one-connection parser). */
    public final int n;
    /** The connection whose FPDU state is in the live registers (n ≥ 2). */
    private UInt liveConn;
    private Bool switching;
    /** The row in the register stage switches context when it is worked (set as it enters; n ≥ 2). */
    private Bool switchAhead;
    /** The register stage in front loads; the entering row's connection, and whether it is under clear. */
    private Bool aheadLoad;
    private UInt aheadConn;
    private Bool aheadClear;
    /** This cycle's switch writes the live state back to the entering row's entry. */
    private Bool aheadLive;
    private final List<Data> ctxLive = new ArrayList<>();
    private final List<Data> ctxView = new ArrayList<>();
    private final List<Data> ctxInit = new ArrayList<>();
    private final List<List<Data>> ctxTable = new ArrayList<>();

    private UInt liveConnReg(int cb) {
        liveConn = regInit("liveConn", uint(cb), U(0, cb));
        return liveConn;
    }

    /**
     * The value of context register {@code live} for the row's connection: the live register, or for a row of
     * another connection its table entry, read a cycle ahead (n ≥ 2; the table is created here). With
     * {@code n ≤ 1}, the register itself.
     */
    @SuppressWarnings("unchecked")
    private <T extends Data> T ctx(String name, T live, java.util.function.Supplier<Data> init) {
        if (n == 0) {
            return live;
        }
        ctxLive.add(live);
        ctxInit.add(init.get());
        if (n < 2) {
            ctxView.add(live);
            return live;
        }
        List<Data> table = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            Data t = live instanceof Bool ? bool() : live instanceof UInt ? uint(live.getBitsWidth())
                    : bits(live.getBitsWidth());
            table.add(regInit(name + "Ctx_" + c, t, init.get()));
        }
        ctxTable.add(table);
        T view = (T) wire(name + "Ctx", (T) (live instanceof Bool ? bool() : live instanceof UInt
                ? uint(live.getBitsWidth()) : bits(live.getBitsWidth())));
        // The entering row's entry, read a cycle ahead (see switchAhead).
        T ahead = (T) reg(name + "Ahead", (T) (live instanceof Bool ? bool() : live instanceof UInt
                ? uint(live.getBitsWidth()) : bits(live.getBitsWidth())));
        when(aheadLoad, () -> set(ahead, mux(aheadClear, (T) init.get(),
                mux(aheadLive, live, (T) vec(table).apply(aheadConn)))));
        set(view, mux(switchAhead, ahead, live));
        ctxView.add(view);
        return view;
    }

    /**
     * The stream offset of word {@code index} (0 … words) of the row: a row starts at a multiple of its size, so for
     * a word inside it the index goes into the offset's low bits; just past it, it is the row's end, added in the
     * stage in front (timing: no 32-bit add behind the word index). A lost row carries the expected offset, not a
     * row start, but it fails the connection: what it leaves in these offsets is never read (a clear resets them).
     */
    private UInt wordOff(Pre pre, UInt index) {
        int words = pre.words;
        int iw = index.getWidth();
        UInt inside = or(pre.row.rowOff.asBits(), shl(index.resize(30), 2).resize(32).asBits()).asUInt();
        return mux(eq(index, U(words, iw)), pre.rowEnd, inside);
    }

    private Bool isConn(UInt conn, int c) {
        return n <= 1 ? True() : eq(conn, U(c, conn.getBitsWidth()));
    }

    private static Bool pick(Vec<Bool> xs, UInt index) {
        return xs.size() == 1 ? xs.apply(0) : xs.apply(index);
    }

    private static Bool pick(List<Bool> xs, UInt index) {
        return xs.size() == 1 ? xs.get(0) : vec(xs).apply(index);
    }

    /** Word {@code index} of {@code data} (zero past the end). */
    static Bits wordAt(Bits data, UInt index) {
        return select(data, index, 0, 32);
    }

    /** ULPDU_Length of the FPDU whose first word is word {@code index} (octets 0–1, big-endian). */
    static UInt lengthAt(Bits data, UInt index) {
        Bits field = select(data, index, 0, 16);
        return cat(range(field, 7, 0), range(field, 15, 8)).asUInt();
    }

    /** Bits {@code lo … lo+width-1} of word {@code index} of {@code data}, zero past the last word. */
    static Bits select(Bits data, UInt index, int lo, int width) {
        Bits r = B(0, width);
        for (int i = data.getBitsWidth() / 32 - 1; i >= 0; i--) {
            r = mux(eq(index, U(i, index.getBitsWidth())), range(data, 32 * i + lo + width - 1, 32 * i + lo), r);
        }
        return r;
    }

    /**
     * Field {@code index} of {@code fields} (fields of {@code width} bits, lowest first); past the last field, the
     * value {@code otherwise}.
     */
    static Bits pick(Bits fields, int width, UInt index, int otherwise) {
        Bits r = B(otherwise, width);
        for (int i = fields.getBitsWidth() / width - 1; i >= 0; i--) {
            r = mux(eq(index, U(i, index.getBitsWidth())), range(fields, width * i + width - 1, width * i), r);
        }
        return r;
    }

    /**
     * Content words of an FPDU with this ULPDU_Length: ⌈(2 + L) / 4⌉ (T-05), which for {@code L = 4q + r} is
     * {@code q + 1}, plus one more when {@code r = 3}.
     */
    static UInt contentWords(UInt length) {
        UInt q = range(length, 15, 2).resize(RW);
        Bool spill = eq(range(length, 1, 0), U(3, 2));
        return add(q, mux(spill, U(2, RW), U(1, RW))); // one carry chain, not two in a row (timing)
    }
}
