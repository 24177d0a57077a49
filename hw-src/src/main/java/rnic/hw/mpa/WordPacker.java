package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Stream;

/**
 * Compacts pieces of 0 … {@code inWords} words into dense beats of {@code outWords} words; the last beat of a packet
 * may be partial. One output beat per cycle; an input piece is taken whenever what stays buffered after this cycle's
 * output leaves room for a whole piece, so pieces of up to {@code outWords} words flow at one per cycle and longer
 * ones (a beat plus inserted words) cost a cycle only when the buffer fills.
 *
 * <p>The buffer holds {@code outWords − 1 + inWords} words: what is left after an output beat plus one full piece.
 * A packet's last piece is flushed before the next packet's first piece is appended, so every output packet starts at
 * word 0 of a beat. Pieces may be empty, except the last piece of a packet, which carries at least one word.
 */
public final class WordPacker extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int inWords;
        public final int outWords;
        public final Stream<WordPiece> input;
        public final Stream<WordPiece> output;

        public Io(int inWords, int outWords) {
            this.inWords = inWords;
            this.outWords = outWords;
            input = field("input", Streams.slaveStream(() -> new WordPiece(inWords)));
            output = field("output", Streams.masterStream(() -> new WordPiece(outWords)));
        }
    }

    public final Io io;
    /** Buffered words, word 0 in the low bits. */
    public final Bits buffer;
    /** Number of buffered words. */
    public final UInt fill;
    /** The buffered words end a packet: drain them before taking the next packet. */
    public final Bool draining;
    public final UInt emitted;
    public final UInt remaining;

    public WordPacker(int inWords, int outWords) {
        if (inWords < 1 || outWords < 1) {
            throw new IllegalArgumentException("word counts must be positive");
        }
        io = io(new Io(inWords, outWords));
        setDefinitionName("WordPacker_" + inWords + "to" + outWords, true); // one module per configuration
        int depth = outWords - 1 + inWords;
        int cw = log2Up(depth + 1);
        buffer = regInit("buffer", bits(32 * depth), B(0, 32 * depth));
        fill = regInit("fill", uint(cw), U(0, cw));
        draining = regInit("draining", bool(), False());

        UInt outW = U(outWords, cw);
        Bool full = not(lt(fill, outW));
        Bool nonEmpty = neq(fill, U(0, cw));
        // Draining and fill <= outWords (always so when the buffer holds at most one beat).
        Bool lastBeat = depth <= outWords ? draining : and(draining, not(lt(outW, fill)));
        WordPiece out = io.output.payload();
        set(io.output.valid(), or(full, and(draining, nonEmpty)));
        set(out.data, range(buffer, 32 * outWords - 1, 0));
        int ow = out.count.getBitsWidth();
        set(out.count, mux(full, U(outWords, ow), fill.resize(ow)));
        set(out.last, lastBeat);

        emitted = wire("emitted", mux(io.output.fire(), mux(full, outW, fill), U(0, cw)));
        remaining = wire("remaining", sub(fill, emitted));
        // Room for a whole piece after this cycle's output, and no older packet left to drain.
        Bool room = lt(remaining, outW);
        Bool drainDone = or(not(draining), and(io.output.fire(), lastBeat));
        set(io.input.ready(), and(room, drainDone));

        WordPiece in = io.input.payload();
        // Words past `count` are masked off so they cannot leak into the packed stream.
        Bits keep = wordMask(in.count, inWords);
        Bits inData = and(in.data, keep);
        Bits shifted = buffer.$bar$greater$greater(concat(emitted.asBits(), B(0, 5)).asUInt());
        Bits appended = inData.resize(32 * depth).$bar$less$less(concat(remaining.asBits(), B(0, 5)).asUInt());

        when(io.input.fire(), () -> {
            set(buffer, or(shifted, appended));
            set(fill, add(remaining, in.count.resize(cw)));
        }).otherwise(() -> {
            set(buffer, shifted);
            set(fill, remaining);
        });
        when(and(io.output.fire(), lastBeat), () -> set(draining, False()));
        when(and(io.input.fire(), in.last), () -> set(draining, True()));
    }

    /** Bits set for the first {@code count} 32-bit words of a {@code words}-word vector. */
    static Bits wordMask(UInt count, int words) {
        java.util.List<Bool> bits = new java.util.ArrayList<>();
        for (int w = 0; w < words; w++) {
            Bool on = lt(U(w, count.getBitsWidth()), count);
            for (int b = 0; b < 32; b++) {
                bits.add(on);
            }
        }
        return catLsbFirst(bits);
    }
}
