package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.crc.CrcMatrix;
import rnic.hw.crc.CrcParallel;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Stream;

/**
 * Second MPA transmit stage (RFC 5044 §4.2–§4.4): splices Markers and the CRC word into the content words of each
 * FPDU. Input: content beats from {@link MpaTxPrefix}; output: pieces of up to a beat plus two words for
 * {@link WordPacker}.
 *
 * <p>Markers: the stage tracks the wire position modulo 128 words from the start of Full Operation; when Markers are
 * on, a Marker word goes wherever that position is a multiple of 512 octets — before the FPDU's first word (FPDUPTR 0),
 * between its words, or right after its PAD (FPDUPTR = octets back to ULPDU_Length). At most one Marker falls in a beat
 * plus two words (W ≤ 512). The CRC32c covers every word spliced so far in the FPDU — leading Marker, content,
 * embedded Markers, a Marker after the PAD — and is appended after the last of them, least significant octet first
 * (docs/requirements.md §4.1). With CRC off the CRC field is zero.
 *
 * <p>Shared by {@code n} connections ({@link MpaTxShared}): each FPDU carries its connection ({@code conn}, the same
 * on every piece of it) and is framed with that connection's {@code markers} and {@code crc}; the only state kept
 * between FPDUs is the Marker distance, one entry per connection, which {@code clear} (per connection) returns to
 * the start of a Marker grid. Everything else (words of the FPDU, CRC register) starts afresh at every FPDU, so
 * pieces of different connections may follow each other at any FPDU boundary. {@code outConn} is the connection of
 * the piece on {@code output}.
 */
public final class MpaTxSplice extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int words;
        public final Stream<WordPiece> input;
        public final Stream<WordPiece> output;
        /** Per connection: Markers in its FPDUs. */
        public final spinal.core.Vec<Bool> markers;
        /** Per connection: the CRC field is CRC32c (else zero). */
        public final spinal.core.Vec<Bool> crc;
        /** Per connection: restart its Marker grid (the next word is a Marker position). */
        public final spinal.core.Vec<Bool> clear;
        /** One connection: its number, 0. */
        public final UInt conn;
        /**
         * Several connections: each FPDU's connection, in FPDU order, one entry per FPDU; taken at the FPDU's last
         * piece (null for one connection).
         */
        public final Stream<UInt> tags;
        /** The connection of the piece on {@code output} (valid with it). */
        public final UInt outConn;

        public Io(int words, int n) {
            this.words = words;
            input = field("input", Streams.slaveStream(() -> new WordPiece(words)));
            output = field("output", Streams.masterStream(() -> new WordPiece(words + 2)));
            markers = field("markers", in(vec(n, () -> bool())));
            crc = field("crc", in(vec(n, () -> bool())));
            clear = field("clear", in(vec(n, () -> bool())));
            conn = n == 1 ? field("conn", in(uint(1))) : null;
            tags = n == 1 ? null : field("tags", Streams.slaveStream(() -> uint(connBits(n))));
            outConn = field("outConn", out(uint(connBits(n))));
        }
    }

    /** Bits of a connection number for {@code n} connections (at least 1). */
    public static int connBits(int n) {
        return Math.max(1, log2Up(n));
    }

    /** A piece between the stages: spliced words, the words the CRC covers, and what each stage adds. */
    public static final class Stage extends HwBundle {
        public final int words;
        public final int connBits;
        /** Content and Marker words (stage 1 on); the CRC word is put in at the output. */
        public final Bits data;
        /** Words the CRC covers (content plus Marker). */
        public final UInt covered;
        /** {@code covered} one-hot (bit c: c words). */
        public final Bits coveredHot;
        public final Bool last;
        /** Stage 2 on: the data half of the CRC step ({@code B·data}). */
        public final Bits dataPart;
        /** Stage 3 on: the CRC field (zero unless this piece ends the FPDU with CRC on). */
        public final Bits crcWord;
        /** The piece's connection, and whether its FPDUs carry a CRC. */
        public final UInt conn;
        public final Bool crc;

        public Stage(int words, int connBits) {
            this.words = words;
            this.connBits = connBits;
            data = field("data", bits(32 * (words + 1)));
            covered = field("covered", uint(log2Up(words + 3)));
            coveredHot = field("coveredHot", bits(words + 2));
            last = field("last", bool());
            dataPart = field("dataPart", bits(32));
            crcWord = field("crcWord", bits(32));
            conn = field("conn", uint(connBits));
            crc = field("crc", bool());
        }
    }

    public final Io io;
    /** The input piece's connection's words until its next Marker position, modulo 128 (512 octets), from the start
     * of its Full Operation. With several connections this is a register loaded with the FPDU's table entry
     * {@code toMarkers[conn]} when its connection number is taken from {@code tags}, a cycle before its first piece
     * can enter, so no connection number reaches the Marker logic through a multiplexer. */
    public final UInt toMarker;
    /** {@code near[k]}: {@code toMarker == k}, for k = 0 … words (registered with it, so no compare on the way in). */
    public final Bits near;
    /** Per connection: its Marker distance and the one-hot copy. */
    public final List<UInt> toMarkers = new ArrayList<>();
    public final List<Bits> nears = new ArrayList<>();
    /** Wire words of the current FPDU sent since its ULPDU_Length, Markers included (for FPDUPTR). */
    public final UInt fpduWords;
    /** CRC register of the current FPDU. */
    public final Bits crcState;
    public final Bool hasMarker;
    /** Words of this piece the CRC covers (content plus Marker). */
    public final UInt covered;
    public final Bits crcNext;

    /**
     * Three register stages (one beat per cycle, three cycles of latency): 1 puts the Marker in (the Marker distance
     * is a register with a one-hot copy of its small values, so no carry chain sits before the word select); 2
     * computes the data half of the CRC step ({@code B·data}, no feedback); 3 closes the CRC loop with the register
     * half ({@code A_k·crcState}, k one-hot) and registers the CRC field; the output inserts it after the covered
     * words.
     */
    public MpaTxSplice(int words) {
        this(words, 1);
    }

    /** A splice shared by {@code n} connections (FPDUs of any of them, one after another). */
    public MpaTxSplice(int words, int n) {
        io = io(new Io(words, n));
        if (n > 1) {
            setDefinitionName("MpaTxSplice_n" + n, true); // one module per connection count
        }
        CrcMatrix matrix = new CrcMatrix(CrcMatrix.CRC32C);
        int cw = log2Up(words + 3);
        int nb = connBits(n);
        for (int k = 0; k < n; k++) {
            String sfx = n == 1 ? "" : "_" + k;
            toMarkers.add(regInit("toMarker" + sfx, uint(7), U(0, 7)));
            nears.add(regInit("near" + sfx, bits(words + 1), B(1, words + 1)));
        }
        // The connection of the FPDU at the input (several connections: registered with its Marker distance).
        Bool current = n == 1 ? True() : regInit("current", bool(), False());
        UInt conn = n == 1 ? io.conn : regInit("conn", uint(nb), U(0, nb));
        toMarker = n == 1 ? toMarkers.get(0) : regInit("toMarker", uint(7), U(0, 7));
        near = n == 1 ? nears.get(0) : regInit("near", bits(words + 1), B(1, words + 1));
        // Its settings, registered too (they change only while the connection is in clear, for many cycles).
        Bool markersOn = n == 1 ? io.markers.apply(0) : regInit("markersOn", bool(), False());
        Bool crcOn = n == 1 ? io.crc.apply(0) : regInit("crcOn", bool(), False());
        // The input, held until its FPDU's connection is current.
        Stream<WordPiece> input = n == 1 ? io.input : wire("gated", Streams.stream(() -> new WordPiece(words)));
        if (n > 1) {
            set(input.valid(), and(io.input.valid(), current));
            set(input.payload(), io.input.payload());
            set(io.input.ready(), and(input.ready(), current));
        }
        fpduWords = regInit("fpduWords", uint(14), U(0, 14));
        crcState = regInit("crcState", bits(32), B(matrix.init(), 32));

        // ---- stage 1: Markers
        WordPiece in = input.payload();
        UInt count = in.count.resize(cw);
        List<Bool> reached = new ArrayList<>(); // reached[i]: toMarker <= i
        Bool acc = False();
        for (int k = 0; k <= words; k++) {
            acc = or(acc, near.apply(k));
            reached.add(acc);
        }
        Bool markerInPiece = False();
        for (int k = 0; k <= words; k++) {
            // A Marker due at word 0 is always in the piece (0 <= count needs no compare).
            markerInPiece = or(markerInPiece, k == 0 ? near.apply(0) : and(near.apply(k), le(U(k, cw), count)));
        }
        hasMarker = wire("hasMarker", and(markersOn, markerInPiece));
        // FPDUPTR: wire octets back to ULPDU_Length, earlier Markers of the FPDU included (MPA-13); a Marker before
        // the FPDU's first word leads it (FPDUPTR 0) and is not part of that distance.
        Bool leading = and(eq(fpduWords, U(0, 14)), near.apply(0));
        UInt ptrWords = add(fpduWords, toMarker.resize(14));
        Bits ptr = concat(ptrWords.asBits(), B(0, 2));
        // Marker on the wire: 00 00 FPDUPTR(hi) FPDUPTR(lo); octet 0 is bits 7:0 of the word.
        Bits markerWord = concat(concat(range(ptr, 7, 0), range(ptr, 15, 8)), B(0, 16));

        List<Bits> spliced = new ArrayList<>();
        for (int i = 0; i <= words; i++) {
            Bits here = i < words ? range(in.data, 32 * i + 31, 32 * i) : B(0, 32);
            Bits before = i > 0 ? range(in.data, 32 * i - 1, 32 * (i - 1)) : B(0, 32);
            // slot i: the Marker when toMarker == i, the word before it once the Marker is behind, else its own word
            Bits shifted = mux(near.apply(i), markerWord, mux(reached.get(i), before, here));
            spliced.add(mux(hasMarker, shifted, here));
        }
        covered = wire("covered", add(count, mux(hasMarker, U(1, cw), U(0, cw))));
        // count, covered and the piece's wire words (covered plus the CRC word at the FPDU's end) one-hot, without
        // adders: they steer the Marker distance's next value, which the next piece needs in the next cycle.
        List<Bool> countIs = new ArrayList<>();
        for (int c = 0; c <= words; c++) {
            countIs.add(eq(count, U(c, cw)));
        }
        List<Bool> hot = new ArrayList<>();
        for (int c = 0; c < words + 2; c++) {
            Bool plain = c <= words ? and(countIs.get(c), not(hasMarker)) : False();
            Bool withMarker = c >= 1 ? and(countIs.get(c - 1), hasMarker) : False();
            hot.add(wire("coveredIs" + c, or(plain, withMarker)));
        }
        List<Bool> outIs = new ArrayList<>();
        for (int d = 0; d < words + 3; d++) {
            Bool here = d < words + 2 ? and(hot.get(d), not(in.last)) : False();
            Bool withCrc = d >= 1 ? and(hot.get(d - 1), in.last) : False();
            outIs.add(or(here, withCrc));
        }
        Stage s1 = wire("s1", new Stage(words, nb));
        set(s1.data, catLsbFirst(spliced));
        set(s1.covered, covered);
        set(s1.coveredHot, catLsbFirst(hot));
        set(s1.last, in.last);
        set(s1.dataPart, B(0, 32));
        set(s1.crcWord, B(0, 32));
        set(s1.conn, conn);
        set(s1.crc, crcOn);
        Stream<Stage> p1 = Streams.m2sPipe(Streams.translateWith(input, s1));

        // The next Marker distance, toMarker − (wire words of this piece), as a one-hot select of toMarker − d
        // (d = 0 … words + 2, each computed from the register alone) and its one-hot copy from compares of
        // toMarker with k + d: no carry chain after the piece's word count.
        Bits nextToBits = B(0, 7);
        for (int d = 0; d < words + 3; d++) {
            UInt minus = d == 0 ? toMarker : sub(toMarker, U(d, 7));
            nextToBits = or(nextToBits, and(minus.asBits(), repeat(outIs.get(d), 7)));
        }
        UInt nextTo = wire("nextTo", nextToBits.asUInt());
        List<Bool> nearNext = new ArrayList<>();
        for (int k = 0; k <= words; k++) {
            Bool is = False();
            for (int d = 0; d < words + 3; d++) {
                is = or(is, and(outIs.get(d), eq(toMarker, U(k + d, 7))));
            }
            nearNext.add(is);
        }
        Bits nearNextBits = catLsbFirst(nearNext);
        for (int k = 0; k < n; k++) {
            final int kk = k;
            Bool mine = n == 1 ? True() : eq(conn, U(k, nb));
            when(and(input.fire(), mine), () -> {
                set(toMarkers.get(kk), nextTo);
                set(nears.get(kk), nearNextBits);
            });
            when(io.clear.apply(k), () -> {
                set(toMarkers.get(kk), U(0, 7));
                set(nears.get(kk), B(1, words + 1));
            });
        }
        if (n > 1) {
            // The register copy follows every piece; at an FPDU's last piece (or while none is current) the next
            // FPDU's connection is taken with its table entry, or with this piece's result when the same connection
            // follows (the table is written in the same cycle). A connection in clear starts its grid afresh.
            Bool lastFire = and(input.fire(), in.last);
            Bool load = wire("load", or(not(current), lastFire));
            UInt head = io.tags.payload();
            Bool follows = and(lastFire, eq(head, conn));
            set(io.tags.ready(), load);
            when(input.fire(), () -> {
                set(toMarker, nextTo);
                set(near, nearNextBits);
            });
            when(load, () -> {
                set(current, io.tags.valid());
                set(conn, head);
                set(toMarker, mux(follows, nextTo, vec(toMarkers).apply(head)));
                set(near, mux(follows, nearNextBits, vec(nears).apply(head)));
            });
            // The next FPDU's settings: each selected by both candidates first, then by load (load comes late).
            set(markersOn, mux(load, io.markers.apply(head), io.markers.apply(conn)));
            set(crcOn, mux(load, io.crc.apply(head), io.crc.apply(conn)));
            Bool clearNext = wire("clearNext", mux(load, io.clear.apply(head), io.clear.apply(conn)));
            when(clearNext, () -> {
                set(toMarker, U(0, 7));
                set(near, B(1, words + 1));
            });
        }
        when(input.fire(), () -> {
            UInt innerMarker = mux(and(hasMarker, not(leading)), U(1, 14), U(0, 14));
            set(fpduWords, mux(in.last, U(0, 14), add(add(fpduWords, in.count.resize(14)), innerMarker)));
        });

        // ---- stage 2: the data half of the CRC step, the covered words moved to the top of the piece
        Stage a = p1.payload();
        UInt emptyOctets = shl(sub(U(words + 1, cw), a.covered), 2);
        Stage s2 = wire("s2", new Stage(words, nb));
        set(s2.data, a.data);
        set(s2.covered, a.covered);
        set(s2.coveredHot, a.coveredHot);
        set(s2.last, a.last);
        set(s2.dataPart, CrcParallel.dataPart(matrix, a.data, emptyOctets));
        set(s2.crcWord, B(0, 32));
        set(s2.conn, a.conn);
        set(s2.crc, a.crc);
        Stream<Stage> p2 = Streams.m2sPipe(Streams.translateWith(p1, s2));

        // ---- stage 3: the CRC loop, A_k·crcState with k one-hot
        Stage b = p2.payload();
        Bits fromState = B(0, 32);
        for (int c = 0; c < words + 2; c++) {
            Bits term = and(CrcParallel.stateAfter(matrix, crcState, 4 * c), repeat(b.coveredHot.apply(c), 32));
            fromState = or(fromState, term);
        }
        crcNext = wire("crcNext", xor(fromState, b.dataPart));
        Stage s3 = wire("s3", new Stage(words, nb));
        set(s3.data, b.data);
        set(s3.covered, b.covered);
        set(s3.coveredHot, b.coveredHot);
        set(s3.last, b.last);
        set(s3.dataPart, B(0, 32));
        set(s3.crcWord, mux(and(b.crc, b.last), xor(crcNext, B(matrix.finish(0), 32)), B(0, 32)));
        set(s3.conn, b.conn);
        set(s3.crc, b.crc);
        Stream<Stage> p3 = Streams.m2sPipe(Streams.translateWith(p2, s3));
        when(p2.fire(), () -> set(crcState, mux(b.last, B(matrix.init(), 32), crcNext)));

        // ---- output: the CRC field after the covered words of an FPDU's last piece
        Stage c3 = p3.payload();
        List<Bits> piece = new ArrayList<>();
        for (int j = 0; j < words + 2; j++) {
            Bits base = j <= words ? range(c3.data, 32 * j + 31, 32 * j) : B(0, 32);
            piece.add(mux(and(c3.last, c3.coveredHot.apply(j)), c3.crcWord, base));
        }
        WordPiece out = io.output.payload();
        set(out.data, catLsbFirst(piece));
        set(out.count, add(c3.covered, mux(c3.last, U(1, cw), U(0, cw))).resize(out.count.getBitsWidth()));
        set(out.last, c3.last);
        set(io.outConn, c3.conn);
        set(io.output.valid(), p3.valid());
        set(p3.ready(), io.output.ready());
    }

    /** {@code n} copies of {@code b}. */
    private static Bits repeat(Bool b, int n) {
        List<Bool> bits = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            bits.add(b);
        }
        return catLsbFirst(bits);
    }
}
