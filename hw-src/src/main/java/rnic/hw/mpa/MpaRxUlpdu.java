package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.axis.AxisBeat;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Stream;

/**
 * Turns the dense content beats of one FPDU (ULPDU_Length, ULPDU, PAD; from {@link WordPacker}) into the ULPDU as an
 * AXI-Stream packet starting at octet 0 (MPA-16): every output beat joins the top of one content beat with the bottom
 * two octets of the next, {@code tkeep} stops at the ULPDU's last octet, so the PAD is dropped. A ULPDU_Length of 0
 * gives one beat with no octet.
 *
 * <p>One beat per cycle, except that a content beat whose ULPDU octets spill into a second output beat costs one more
 * cycle at the end of the FPDU.
 */
public final class MpaRxUlpdu extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final Stream<WordPiece> input;
        public final Stream<AxisBeat> output;

        public Io(int dataWidth) {
            this.dataWidth = dataWidth;
            input = field("input", Streams.slaveStream(() -> new WordPiece(dataWidth / 32)));
            output = field("output", Streams.masterStream(() -> new AxisBeat(dataWidth)));
        }
    }

    public final Io io;
    /** The previous content beat of the FPDU, but for its first two octets (never needed again). */
    public final Bits prev;
    /** Inside an FPDU (its first content beat seen). */
    public final Bool started;
    /** ULPDU octets not yet sent, once started. */
    public final UInt remaining;
    /** The last content beat left ULPDU octets for one more output beat. */
    public final Bool flush;

    public MpaRxUlpdu(int dataWidth) {
        io = io(new Io(dataWidth));
        int w = dataWidth;
        int n = w / 8;
        int rw = MpaRxParser.RW;
        prev = regInit("prev", bits(w - 16), B(0, w - 16));
        started = regInit("started", bool(), False());
        remaining = regInit("remaining", uint(rw), U(0, rw));
        flush = regInit("flush", bool(), False());

        WordPiece c = io.input.payload();
        UInt length = cat(range(c.data, 7, 0), range(c.data, 15, 8)).asUInt().resize(rw);
        UInt rem = wire("rem", mux(or(started, flush), remaining, length));
        Bits tail = concat(B(0, 16), prev);
        Bits single = concat(B(0, 16), range(c.data, w - 1, 16));
        Bits joined = concat(range(c.data, 15, 0), prev);
        // rem > k for k ≤ n as an OR of the high bits and a compare of the low ones (no 17-bit carry chain), and
        // tkeep octet i is rem > i (a full beat when rem > n): the thermometer needs no clamp to n first.
        int b = log2Up(n) + 1;
        Bool high = range(rem, rw - 1, b).orR();
        UInt low = range(rem, b - 1, 0);
        Bool full = wire("full", or(high, gt(low, U(n, b))));
        List<Bool> keep = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keep.add(or(high, gt(low, U(i, b))));
        }

        AxisBeat out = io.output.payload();
        Bool emits = or(started, c.last);
        set(io.output.valid(), or(flush, and(io.input.valid(), emits)));
        set(out.tdata, mux(flush, tail, mux(started, joined, single)));
        set(out.tkeep, catLsbFirst(keep));
        set(out.tlast, or(flush, not(full)));
        set(io.input.ready(), and(not(flush), or(io.output.ready(), not(emits))));

        UInt after = sub(rem, U(n, rw));
        when(and(io.output.fire(), flush), () -> set(flush, False()));
        when(io.input.fire(), () -> {
            set(prev, range(c.data, w - 1, 16));
            when(not(started), () -> {
                set(started, not(c.last));
                set(remaining, length);
            }).otherwise(() -> {
                set(remaining, after);
                when(c.last, () -> {
                    set(started, False());
                    set(flush, full);
                });
            });
        });
    }
}
