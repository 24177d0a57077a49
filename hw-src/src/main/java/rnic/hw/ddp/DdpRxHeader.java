package rnic.hw.ddp;

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
 * First stage of the DDP receive side: passes every received segment beat through unchanged ({@code output}, to the
 * payload buffer in front of the placer) and, once per segment, hands the segment's head to the header decoder
 * ({@code header}): its first {@value DdpConfig#HEADER_OCTETS} octets, length and QP (RFC 5041 §4, RFC 5040 §4,
 * RFC 7306 §5.2, §6.2). The head leaves as soon as the beat holding the last octet it needs is taken — octet 13 of a
 * tagged segment, 17 of a Send, 69 of any other untagged segment (its RDMAP header follows), or the segment's last —
 * so a segment's header is decoded while its payload still streams in and placement starts early (at W = 64 a
 * Write's head leaves with its second beat, not its ninth). Octets past what a segment needs are not meaningful.
 *
 * <p>One beat per cycle: the head is registered; the beat that completes a head waits only while the previous head
 * has not been taken (back-pressure from the decoder), which at full rate never happens because a segment has at
 * least one beat.
 */
public final class DdpRxHeader extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final Stream<DdpBeat> input;
        public final Stream<DdpBeat> output;
        public final Stream<DdpRxHeaderInfo> header;

        public Io(DdpConfig c) {
            input = field("input", Streams.slaveStream(() -> new DdpBeat(c)));
            output = field("output", Streams.masterStream(() -> new DdpBeat(c)));
            header = field("header", Streams.masterStream(() -> new DdpRxHeaderInfo(c.qpBits())));
        }
    }

    public final DdpConfig config;
    public final Io io;
    /** Index of the next beat within its segment (saturates past the head). */
    public final UInt beat;
    /** Head octets captured so far of the current segment. */
    public final Bits captured;
    /** The head on {@code header}. */
    public final DdpRxHeaderInfo head;
    public final Bool headValid;

    /** The beat holding octet {@code octets − 1}. */
    private static int beatOf(int octets, int n) {
        return (octets - 1) / n;
    }

    /** The Send family's opcodes (RFC 5040 §4.2): 0x3 … 0x6. */
    private static final class RdmapOpcodes {
        static final int SEND_FIRST = rnic.wire.RdmapOpcode.SEND.code();
        static final int SEND_LAST = rnic.wire.RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE.code();
    }

    public DdpRxHeader(DdpConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        int n = c.octets();
        int h = DdpConfig.HEADER_OCTETS;
        int headBeats = (h + n - 1) / n;
        int shift = Integer.numberOfTrailingZeros(n);

        beat = regInit("beat", uint(16), U(0, 16));
        captured = regInit("captured", bits(8 * h), B(0, 8 * h));
        head = reg("head", new DdpRxHeaderInfo(c.qpBits()));
        headValid = regInit("headValid", bool(), False());

        DdpBeat in = io.input.payload();
        // The last beat holds octet length − 1: (beat + 1) · n ≥ length.
        Bool isLast = wire("isLast", DdpBeat.isLastBeat(beat, in.length, n));
        // How much head the segment needs, from its first two octets (in the first beat at every W): a tagged
        // segment its 14-octet header, a Send its 18, anything else (an RDMAP header follows) all 70.
        Bool firstTagged = in.data.apply(7);
        UInt firstOpcode = range(in.data, 11, 8).asUInt();
        Bool isSendOp = and(ge(firstOpcode, U(RdmapOpcodes.SEND_FIRST, 4)),
                le(firstOpcode, U(RdmapOpcodes.SEND_LAST, 4)));
        UInt needNow = wire("needNow", mux(firstTagged, U(beatOf(14, n), 16),
                mux(isSendOp, U(beatOf(18, n), 16), U(headBeats - 1, 16))));
        UInt needReg = regInit("needBeatKept", uint(16), U(0, 16));
        UInt need = wire("needBeat", mux(eq(beat, U(0, 16)), needNow, needReg));
        when(and(io.input.fire(), eq(beat, U(0, 16))), () -> set(needReg, needNow));
        Bool completesHead = wire("completesHead", or(and(isLast, le(beat, need)), eq(beat, need)));

        // The head with this beat's octets merged in, octets at or past the length cleared.
        List<Bits> merged = new ArrayList<>();
        for (int i = 0; i < h; i++) {
            Bits old = range(captured, 8 * i + 7, 8 * i);
            Bits now = range(in.data, 8 * (i % n) + 7, 8 * (i % n));
            Bits octet = mux(eq(beat, U(i / n, 16)), now, old);
            merged.add(mux(lt(U(i, 16), in.length), octet, B(0, 8)));
        }
        Bits mergedHead = wire("mergedHead", catLsbFirst(merged));

        Bool blocked = wire("blocked", and(completesHead, headValid, not(io.header.ready())));
        set(io.output.valid(), and(io.input.valid(), not(blocked)));
        set(io.output.payload(), in);
        set(io.input.ready(), and(io.output.ready(), not(blocked)));
        set(io.header.valid(), headValid);
        set(io.header.payload(), head);

        when(io.header.fire(), () -> set(headValid, False()));
        when(io.input.fire(), () -> {
            set(beat, mux(isLast, U(0, 16), add(beat, U(1, 16))));
            set(captured, mergedHead);
            when(completesHead, () -> {
                set(headValid, True());
                set(head.octets, mergedHead);
                set(head.length, in.length);
                set(head.qp, in.qp);
            });
        });
    }
}
