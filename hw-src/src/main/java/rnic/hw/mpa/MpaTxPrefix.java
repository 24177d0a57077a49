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
import spinal.lib.Stream;

/**
 * First MPA transmit stage (RFC 5044 §4.1): a ULPDU becomes the FPDU's content words — ULPDU_Length (big-endian),
 * the ULPDU, and 0–3 zero PAD octets so that 2 + L + PAD is a multiple of 4 — realigned by two octets, starting at
 * word 0 of a beat. Markers and the CRC are added by {@link MpaTxSplice}.
 *
 * <p>One beat per cycle; a ULPDU whose last beat holds more than {@code octets − 2} octets needs one extra output
 * beat for its tail, during which the input waits.
 */
public final class MpaTxPrefix extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final Stream<UlpduBeat> input;
        public final Stream<WordPiece> output;
        /** Inside a ULPDU: the beat on {@code input} is not its first. */
        public final Bool inside;

        public Io(int dataWidth) {
            this.dataWidth = dataWidth;
            input = field("input", Streams.slaveStream(() -> new UlpduBeat(dataWidth)));
            output = field("output", Streams.masterStream(() -> new WordPiece(dataWidth / 32)));
            inside = field("inside", out(bool()));
        }
    }

    public final Io io;
    /** Inside a ULPDU (its first beat was taken). */
    public final Bool busy;
    /** ULPDU octets not yet taken from the input. */
    public final UInt octetsLeft;
    /** Content words not yet sent. */
    public final UInt wordsLeft;
    /** The last two octets of the previous input beat (they open the next output beat). */
    public final Bits carry;
    /** The ULPDU's octets are all in: this beat carries only the tail (carry and PAD). */
    public final Bool tailOnly;
    /** ULPDU octets still to take, counting the current beat. */
    public final UInt octLeft;
    /** Content words still to send, counting the current beat. */
    public final UInt wordLeft;

    public MpaTxPrefix(int dataWidth) {
        if (dataWidth < 32 || dataWidth % 32 != 0) {
            throw new IllegalArgumentException("MPA data width must be a multiple of 32, got " + dataWidth);
        }
        int octets = dataWidth / 8;
        int words = dataWidth / 32;
        io = io(new Io(dataWidth));
        busy = regInit("busy", bool(), False());
        octetsLeft = regInit("octetsLeft", uint(17), U(0, 17));
        wordsLeft = regInit("wordsLeft", uint(15), U(0, 15));
        carry = regInit("carry", bits(16), B(0, 16));
        set(io.inside, busy);

        UlpduBeat in = io.input.payload();
        UInt length = in.length.resize(17);
        octLeft = wire("octLeft", mux(busy, octetsLeft, length));
        // Content words ⌈(2 + L) / 4⌉ = L[16:2] + 1 + (L[1:0] == 3), written so that every bit of L is used.
        UInt firstWords = add(add(range(length, 16, 2), U(1, 15)),
                mux(eq(range(length, 1, 0), U(3, 2)), U(1, 15), U(0, 15)));
        wordLeft = wire("wordLeft", mux(busy, wordsLeft, firstWords));
        // octetsLeft == 0, registered with it (the 17-bit compare would sit before the input's ready).
        Bool drained = regInit("drained", bool(), True());
        tailOnly = wire("tailOnly", and(busy, drained));

        // ULPDU octets past the end (and a tail-only beat's input) are zero: they become PAD.
        List<Bits> masked = new ArrayList<>();
        for (int i = 0; i < octets; i++) {
            Bool valid = and(not(tailOnly), not(atMost(octLeft, i)));
            masked.add(mux(valid, range(in.data, 8 * i + 7, 8 * i), B(0, 8)));
        }
        Bits maskedData = catLsbFirst(masked);
        // ULPDU_Length is big-endian: its high octet is octet 0 (bits 7:0).
        Bits head = mux(busy, carry, concat(range(in.length, 7, 0).asBits(), range(in.length, 15, 8).asBits()));

        WordPiece out = io.output.payload();
        int cw = out.count.getBitsWidth();
        // The first beat's test needs no add: ⌈(2 + L) / 4⌉ <= words  <=>  L <= 4·words − 2.
        Bool lastBeat = mux(busy, atMost(wordsLeft, words), atMost(length, 4L * words - 2));
        // Words left after this beat: for the first beat ⌈(2 + L) / 4⌉ − words in one add.
        UInt firstAfter = sub(add(range(length, 16, 2), mux(eq(range(length, 1, 0), U(3, 2)), U(1, 15), U(0, 15))),
                U(words - 1, 15));
        set(out.data, concat(range(maskedData, dataWidth - 17, 0), head));
        set(out.count, mux(lastBeat, wordLeft.resize(cw), U(words, cw)));
        set(out.last, lastBeat);
        set(io.output.valid(), or(tailOnly, io.input.valid()));
        set(io.input.ready(), and(not(tailOnly), io.output.ready()));

        when(io.output.fire(), () -> {
            set(busy, not(lastBeat));
            set(wordsLeft, mux(busy, sub(wordsLeft, U(words, 15)), firstAfter));
            Bool more = not(atMost(octLeft, octets));
            set(octetsLeft, mux(more, sub(octLeft, U(octets, 17)), U(0, 17)));
            set(drained, not(more));
            set(carry, range(maskedData, dataWidth - 1, dataWidth - 16));
        });
    }

    /**
     * {@code x <= c} for a constant {@code c}, as bit logic (timing: yosys maps a compare to a carry chain along the
     * whole width; this leaves the depth to ABC).
     */
    static Bool atMost(UInt x, long c) {
        if (c < 0) {
            throw new IllegalArgumentException("a bound of 0 or more, got " + c);
        }
        if (x.getBitsWidth() < 63 && (c >> x.getBitsWidth()) != 0) {
            return True(); // c is above every value x can hold
        }
        Bool le = True(); // x[i:0] <= c[i:0], from bit 0 up
        for (int i = 0; i < x.getBitsWidth(); i++) {
            Bool xi = x.apply(i);
            le = i < 63 && ((c >> i) & 1) == 1 ? or(not(xi), le) : and(not(xi), le);
        }
        return le;
    }
}
