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
 */
public final class MpaTxSplice extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int words;
        public final Stream<WordPiece> input;
        public final Stream<WordPiece> output;
        public final spinal.core.Bool markers;
        public final spinal.core.Bool crc;

        public Io(int words) {
            this.words = words;
            input = field("input", Streams.slaveStream(() -> new WordPiece(words)));
            output = field("output", Streams.masterStream(() -> new WordPiece(words + 2)));
            markers = field("markers", in(bool()));
            crc = field("crc", in(bool()));
        }
    }

    public final Io io;
    /** Wire position of the next word, modulo 128 words (512 octets), from the start of Full Operation. */
    public final UInt gridPos;
    /** Wire words of the current FPDU sent since its ULPDU_Length, Markers included (for FPDUPTR). */
    public final UInt fpduWords;
    /** CRC register of the current FPDU. */
    public final Bits crcState;
    /** Words until the next Marker position. */
    public final UInt toMarker;
    public final Bool hasMarker;
    /** Words of this piece the CRC covers (content plus Marker). */
    public final UInt covered;
    public final Bits crcNext;

    public MpaTxSplice(int words) {
        io = io(new Io(words));
        CrcMatrix matrix = new CrcMatrix(CrcMatrix.CRC32C);
        gridPos = regInit("gridPos", uint(7), U(0, 7));
        fpduWords = regInit("fpduWords", uint(14), U(0, 14));
        crcState = regInit("crcState", bits(32), B(matrix.init(), 32));

        WordPiece in = io.input.payload();
        UInt count = in.count.resize(7);
        toMarker = wire("toMarker", sub(U(0, 7), gridPos));
        hasMarker = wire("hasMarker", and(io.markers, le(toMarker, count)));
        // FPDUPTR: wire octets back to ULPDU_Length, earlier Markers of the FPDU included (MPA-13); a Marker before
        // the FPDU's first word leads it (FPDUPTR 0) and is not part of that distance.
        Bool leading = and(eq(fpduWords, U(0, 14)), eq(toMarker, U(0, 7)));
        UInt ptrWords = add(fpduWords, toMarker.resize(14));
        Bits ptr = concat(ptrWords.asBits(), B(0, 2));
        // Marker on the wire: 00 00 FPDUPTR(hi) FPDUPTR(lo); octet 0 is bits 7:0 of the word.
        Bits markerWord = concat(concat(range(ptr, 7, 0), range(ptr, 15, 8)), B(0, 16));

        List<Bits> spliced = new ArrayList<>();
        for (int i = 0; i <= words; i++) {
            Bits here = i < words ? range(in.data, 32 * i + 31, 32 * i) : B(0, 32);
            Bits before = i > 0 ? range(in.data, 32 * i - 1, 32 * (i - 1)) : B(0, 32);
            UInt slot = U(i, 7);
            Bits shifted = mux(eq(slot, toMarker), markerWord, mux(lt(slot, toMarker), here, before));
            spliced.add(mux(hasMarker, shifted, here));
        }
        Bits splicedBits = catLsbFirst(spliced);
        int cw = log2Up(words + 3);
        covered = wire("covered", add(in.count.resize(cw), mux(hasMarker, U(1, cw), U(0, cw))));
        UInt emptyOctets = shl(sub(U(words + 1, cw), covered), 2);
        crcNext = wire("crcNext", CrcParallel.next(matrix, crcState, splicedBits, emptyOctets));
        Bits crcWord = mux(io.crc, xor(crcNext, B(matrix.finish(0), 32)), B(0, 32));

        List<Bits> piece = new ArrayList<>();
        for (int j = 0; j < words + 2; j++) {
            Bits base = j <= words ? spliced.get(j) : B(0, 32);
            piece.add(mux(and(in.last, eq(U(j, cw), covered)), crcWord, base));
        }
        WordPiece out = io.output.payload();
        set(out.data, catLsbFirst(piece));
        set(out.count, add(covered, mux(in.last, U(1, cw), U(0, cw))).resize(out.count.getBitsWidth()));
        set(out.last, in.last);
        set(io.output.valid(), io.input.valid());
        set(io.input.ready(), io.output.ready());

        when(io.input.fire(), () -> {
            set(gridPos, add(gridPos, out.count.resize(7)));
            UInt innerMarker = mux(and(hasMarker, not(leading)), U(1, 14), U(0, 14));
            set(fpduWords, mux(in.last, U(0, 14), add(add(fpduWords, in.count.resize(14)), innerMarker)));
            set(crcState, mux(in.last, B(matrix.init(), 32), crcNext));
        });
    }
}
