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
import spinal.lib.Stream;

/**
 * The MPA receiver of one half connection (RFC 5044 §4–§6, §8): TCP payload in, in order but cut anywhere (MPA-23);
 * each validated ULPDU out as an AXI-Stream packet (octet 0 = first octet of the DDP header; Markers, ULPDU_Length,
 * PAD and CRC removed, MPA-16); the first MPA error out with its exact Error Code and sequence number, after which
 * nothing more is delivered (MPA-44) while input keeps being taken, so TCP never stalls on a dead stream.
 *
 * <p>Chain: {@link MpaRxAlign} (back onto the 512-octet grid from {@code seqStart}) → {@link MpaRxParser} (FPDU
 * boundaries from ULPDU_Length, Marker and CRC checks; consecutive FPDUs take turns over three lanes) → per lane a
 * {@link WordPacker} and a {@link MpaRxUlpdu} (ULPDU to octet 0) → merged back in FPDU order → a buffer that releases
 * a ULPDU only once its FPDU's verdict is in (MPA-25: located by the ULPDU_Length chain, CRC checked, whole FPDU
 * arrived). The buffer holds one whole ULPDU of the largest ULPDU_Length the core accepts ({@link MpaRxConfig#maxUlpdu()},
 * from the MSS it advertises) plus slack, so verdicts never wait on space; it is read synchronously (StreamFifo latency
 * 2), so synthesis maps it to block RAM; the small lane and verdict FIFOs are registers ({@code useVec}: an iCE40 has no
 * LUT RAM for an asynchronously read memory) with a registered pop side (latency 1: no path through an empty FIFO), and
 * a skid buffer ({@code s2mPipe}) keeps the parser's handshake out of the aligner's (timing on an iCE40: README, per-block
 * section). An FPDU announcing a longer ULPDU_Length is refused at its header by the
 * parser (E-M2, below) before any of it is buffered, so no input can wedge the receiver.
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

    /** Pieces buffered ahead of, and beats behind, each lane. */
    static final int LANE_SLACK = 4;
    /** Verdicts buffered ahead of their ULPDUs. */
    static final int STATUS_DEPTH = 16;

    public final Io io;
    public final MpaRxAlign align;
    public final MpaRxParser parser;
    public final List<WordPacker> packers = new ArrayList<>();
    public final List<MpaRxUlpdu> ulpdus = new ArrayList<>();
    /** Lane whose packet is merged next. */
    public final UInt laneSel;
    /** Inside a released ULPDU. */
    public final Bool open;
    /** ULPDU_Length of the released ULPDU, kept after its verdict was taken at the first beat. */
    public final UInt length;
    public final Bool failed;
    public final UInt errorCode;
    public final UInt errorSeq;
    /** The configuration it was built from. */
    public final MpaRxConfig config;
    /** Entries of the receive buffer ({@link MpaRxConfig#bufferBeats()}). */
    public final int bufferDepth;

    /** A receiver of W bits for the default advertised MSS ({@link MpaRxConfig#defaults}). */
    public MpaRxDeframer(int dataWidth) {
        this(MpaRxConfig.defaults(dataWidth));
    }

    public MpaRxDeframer(MpaRxConfig cfg) {
        this.config = cfg;
        int dataWidth = cfg.dataWidth();
        int words = dataWidth / 32;
        noIoPrefix(); // before io(...): the bundle is then named "" and its ports carry no io_ prefix
        io = io(new Io(dataWidth));
        Streams.axisNames(io.tcp, "tcp");
        Streams.axisNames(io.ulpdu, "ulpdu");
        align = child("align", () -> new MpaRxAlign(dataWidth));
        parser = child("parser", () -> new MpaRxParser(words, cfg.maxUlpdu()));
        for (int i = 0; i < MpaRxParser.LANES; i++) {
            packers.add(child("packer" + i, () -> new WordPacker(words, words)));
            ulpdus.add(child("ulpdu" + i, () -> new MpaRxUlpdu(dataWidth)));
        }

        Streams.connect(io.tcp, align.io.input);
        set(align.io.seqStart, io.seqStart);
        // A skid buffer: the aligner's ready does not wait on the parser's FPDU arithmetic.
        Streams.connect(Streams.s2mPipe(align.io.output), parser.io.input);
        set(parser.io.markers, io.markers);
        set(parser.io.crc, io.crc);
        // Per lane: a few pieces of slack (the parser can start a lane's next FPDU while its packer still drains the
        // last one), the packer, the ULPDU aligner, a few beats of slack (a lane can finish while the merge drains
        // another). Then the lanes are merged back in FPDU order: lane i carries FPDUs i, i + LANES, …
        laneSel = regInit("laneSel", uint(2), U(0, 2));
        Stream<AxisBeat> merged = Streams.stream(() -> new AxisBeat(dataWidth));
        Bool mergedValid = False();
        List<Stream<AxisBeat>> outs = new ArrayList<>();
        for (int i = 0; i < MpaRxParser.LANES; i++) {
            Streams.connect(Streams.regFifo(parser.io.lanes.get(i), LANE_SLACK, 1), packers.get(i).io.input);
            Streams.connect(packers.get(i).io.output, ulpdus.get(i).io.input);
            outs.add(Streams.regFifo(ulpdus.get(i).io.output, LANE_SLACK, 1));
        }
        AxisBeat mergedBeat = outs.get(0).payload();
        for (int i = 0; i < MpaRxParser.LANES; i++) {
            Bool mine = eq(laneSel, U(i, 2));
            mergedValid = mux(mine, outs.get(i).valid(), mergedValid);
            if (i > 0) {
                mergedBeat = mux(mine, outs.get(i).payload(), mergedBeat);
            }
            set(outs.get(i).ready(), and(mine, merged.ready()));
        }
        set(merged.valid(), mergedValid);
        set(merged.payload(), mergedBeat);
        when(and(merged.fire(), merged.payload().tlast), () -> set(laneSel, MpaRxParser.nextLane(laneSel)));

        // Synchronous read (latency 2): a buffer of this size must be block RAM, not LUTs.
        bufferDepth = cfg.bufferBeats();
        Stream<AxisBeat> held = Streams.fifo(merged, bufferDepth, 2);
        Stream<MpaRxStatus> verdicts = Streams.regFifo(parser.io.status, STATUS_DEPTH, 1);

        // Release: a ULPDU goes out once its verdict is in and good; the first bad verdict ends delivery.
        open = regInit("open", bool(), False());
        length = regInit("length", uint(16), U(0, 16));
        failed = regInit("failed", bool(), False());
        errorCode = regInit("errorCode", uint(8), U(0, 8));
        errorSeq = regInit("errorSeq", uint(32), U(0, 32));
        MpaRxStatus verdict = verdicts.payload();
        Bool good = and(verdicts.valid(), not(verdict.bad));
        Bool mayGo = or(open, good);
        set(io.ulpdu.valid(), and(not(failed), held.valid(), mayGo));
        set(io.ulpdu.payload(), held.payload());
        set(held.ready(), or(failed, and(io.ulpdu.ready(), mayGo)));
        Bool startsPacket = and(not(open), io.ulpdu.fire());
        Bool badHead = and(not(open), verdicts.valid(), verdict.bad);
        set(verdicts.ready(), or(failed, startsPacket, badHead));
        when(io.ulpdu.fire(), () -> set(open, not(held.payload().tlast)));
        when(startsPacket, () -> set(length, verdict.length));
        set(io.ulpduLength, mux(open, length, verdict.length));
        when(and(badHead, not(failed)), () -> {
            set(failed, True());
            set(errorCode, verdict.code);
            set(errorSeq, add(io.seqStart, verdict.seq)); // the parser's seq is a stream offset
        });
        set(io.failed, failed);
        set(io.errorCode, errorCode);
        set(io.errorSeq, errorSeq);
    }
}
