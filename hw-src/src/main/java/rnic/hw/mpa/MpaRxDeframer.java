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
 * The MPA receiver of one half connection (RFC 5044 §4–§6, §8): TCP payload in, in order but cut anywhere (MPA-23);
 * each validated ULPDU out as an AXI-Stream packet (octet 0 = first octet of the DDP header; Markers, ULPDU_Length,
 * PAD and CRC removed, MPA-16); the first MPA error out with its exact Error Code and sequence number, after which
 * nothing more is delivered (MPA-44) while input keeps being taken, so TCP never stalls on a dead stream.
 *
 * <p>Chain: {@link MpaRxAlign} (back onto the 512-octet grid from {@code seqStart}) → {@link MpaRxParser} (FPDU
 * boundaries from ULPDU_Length, Marker and CRC checks; per beat the spans of the row that hold ULPDU and PAD octets,
 * and the verdict of an FPDU ending in it) → {@link MpaRxHold} (one connection), which writes those spans into
 * half-word lanes of block RAM and releases a ULPDU, from octet 0, only once its FPDU's verdict is in and good (MPA-25:
 * located by the ULPDU_Length chain, CRC checked, whole FPDU arrived). Its region holds one whole ULPDU of the largest
 * ULPDU_Length the core accepts ({@link MpaRxConfig#maxUlpdu()}, from the MSS it advertises) plus
 * {@link MpaRxConfig#INFLIGHT_BEATS} rows ({@link MpaRxConfig#regionRows()}); its lanes are read synchronously, so
 * synthesis maps them to block RAM. A skid buffer ({@code s2mPipe}) keeps the parser's handshake out of the aligner's
 * (timing on an iCE40: README, per-block section). An FPDU announcing a longer ULPDU_Length is refused at its header
 * by the parser (E-M2, below) before any of it is stored, so no input can wedge the receiver.
 *
 * <p>Errors (docs/requirements.md §3.1, Terminate Layer 2 / EType 0): E-M2 CRC (code 2) when {@code crc} is on, E-M3 Marker
 * (code 3), E-M1 (code 1) for a hole in the TCP sequence; and E-M2 (code 2) for a ULPDU_Length above
 * {@link MpaRxConfig#maxUlpdu()}: such an FPDU cannot be validated (MPA-25) — a conforming peer keeps FPDUs within the
 * EMSS, which our MSS bounds, so the length field itself is corrupt — and it is reported the moment its header is seen,
 * with the code the golden {@code rnic.model.mpa.MpaDeframer} gives it. MPA-43 allows silently dropping the segment instead; this
 * receiver reports (Appendix B item 1): {@code failed} rises with {@code errorCode} and {@code errorSeq} (first octet of
 * the offending FPDU, or the hole) after every earlier ULPDU has been delivered. TCP is not closed here (MPA-45).
 * {@code markers} (Markers in this direction), {@code crc} and {@code seqStart} (first Full-Operation sequence number)
 * are held stable during Full Operation.
 *
 * <p>{@code ulpduLength} rides along {@code ulpdu} (stable with it): the ULPDU_Length of the ULPDU the shown beat
 * belongs to, known from its first beat because a ULPDU is released only after its whole FPDU was checked. The DDP
 * layer takes it as the segment length ({@link rnic.hw.ddp.DdpBeat#length}) and checks bounds before placing.
 */
public final class MpaRxDeframer extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final Stream<TcpRxBeat> tcp;
        public final Stream<AxisBeat> ulpdu;
        public final UInt ulpduLength;
        public final Bool markers;
        public final Bool crc;
        public final UInt seqStart;
        public final Bool failed;
        public final UInt errorCode;
        public final UInt errorSeq;

        public Io(int dataWidth) {
            this.dataWidth = dataWidth;
            tcp = field("tcp", Streams.slaveStream(() -> new TcpRxBeat(dataWidth)));
            ulpdu = field("ulpdu", Streams.masterStream(() -> new AxisBeat(dataWidth)));
            ulpduLength = field("ulpduLength", out(uint(16)));
            markers = field("markers", in(bool()));
            crc = field("crc", in(bool()));
            seqStart = field("seqStart", in(uint(32)));
            failed = field("failed", out(bool()));
            errorCode = field("errorCode", out(uint(8)));
            errorSeq = field("errorSeq", out(uint(32)));
        }
    }

    public final Io io;
    public final MpaRxAlign align;
    public final MpaRxParser parser;
    /** The store: the ULPDUs of validated FPDUs, released whole and in order ({@link MpaRxHold}, one connection). */
    public final MpaRxHold hold;
    /** Inside a released ULPDU (its first beat shown); {@code remaining}: its octets not yet shown. */
    public final Bool open;
    public final UInt remaining;
    public final Bool failed;
    public final UInt errorCode;
    public final UInt errorSeq;
    /** The configuration it was built from. */
    public final MpaRxConfig config;

    /** A receiver of W bits for the default advertised MSS ({@link MpaRxConfig#defaults}). */
    public MpaRxDeframer(int dataWidth) {
        this(MpaRxConfig.defaults(dataWidth));
    }

    public MpaRxDeframer(MpaRxConfig cfg) {
        this.config = cfg;
        int dataWidth = cfg.dataWidth();
        int words = dataWidth / 32;
        int n = dataWidth / 8;
        noIoPrefix(); // before io(...): the bundle is then named "" and its ports carry no io_ prefix
        io = io(new Io(dataWidth));
        Streams.axisNames(io.tcp, "tcp");
        Streams.axisNames(io.ulpdu, "ulpdu");
        align = child("align", () -> new MpaRxAlign(dataWidth));
        parser = child("parser", () -> new MpaRxParser(words, cfg.maxUlpdu()));
        hold = child("hold", () -> new MpaRxHold(cfg, 1));

        Streams.connect(io.tcp, align.io.input);
        set(align.io.seqStart, io.seqStart);
        // A skid buffer: the aligner's ready does not wait on the parser's FPDU arithmetic.
        Streams.connect(Streams.s2mPipe(align.io.output), parser.io.input);
        set(parser.io.markers, io.markers);
        set(parser.io.crc, io.crc);
        Streams.connect(parser.io.pieces, hold.io.piece);
        set(hold.io.deliver.apply(0), True());
        set(hold.io.clear.apply(0), False());

        // Out: the store's beats as AXI-Stream, tkeep up to the ULPDU's last octet (none for a ULPDU_Length of 0).
        MpaRxHoldBeat beat = hold.io.ulpdu.payload();
        int rw = MpaRxParser.RW;
        open = regInit("open", bool(), False());
        remaining = regInit("remaining", uint(rw), U(0, rw));
        UInt rem = wire("rem", mux(open, remaining, beat.length.resize(rw)));
        AxisBeat out = io.ulpdu.payload();
        set(out.tdata, beat.data);
        set(out.tkeep, keepBelow(rem, n));
        set(out.tlast, beat.last);
        set(io.ulpdu.valid(), hold.io.ulpdu.valid());
        set(hold.io.ulpdu.ready(), io.ulpdu.ready());
        set(io.ulpduLength, beat.length);
        when(io.ulpdu.fire(), () -> {
            set(open, not(beat.last));
            set(remaining, sub(rem, U(n, rw)));
        });

        // The first error, once every ULPDU before it has left (MPA-44): its code and where its FPDU starts.
        failed = regInit("failed", bool(), False());
        errorCode = regInit("errorCode", uint(8), U(0, 8));
        errorSeq = regInit("errorSeq", uint(32), U(0, 32));
        // The store's report is registered first (timing: it is decided by the store's reader handshake).
        Bool errValid = regInit("errValid", bool(), False());
        UInt errCode = reg("errCode", uint(8));
        set(errValid, hold.io.error.valid());
        set(errCode, hold.io.error.payload().code);
        when(and(errValid, not(failed)), () -> {
            set(failed, True());
            set(errorCode, errCode);
            set(errorSeq, add(io.seqStart, parser.io.badSeq)); // the parser's offset is from the stream's start
        });
        set(io.failed, failed);
        set(io.errorCode, errorCode);
        set(io.errorSeq, errorSeq);
    }

    /**
     * {@code tkeep} of a beat with {@code rem} octets of its ULPDU left: octet i is kept when {@code rem > i}, from the
     * OR of {@code rem}'s high bits and a compare of its low ones (no carry chain over all of {@code rem}).
     */
    static Bits keepBelow(UInt rem, int octets) {
        int rw = rem.getBitsWidth();
        int b = log2Up(octets) + 1;
        Bool high = range(rem, rw - 1, b).orR();
        UInt low = range(rem, b - 1, 0);
        List<Bool> keep = new ArrayList<>();
        for (int i = 0; i < octets; i++) {
            keep.add(or(high, gt(low, U(i, b))));
        }
        return catLsbFirst(keep);
    }
}
