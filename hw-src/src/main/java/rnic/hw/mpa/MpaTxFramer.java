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
 * The MPA transmitter of one half connection (RFC 5044 §4, Appendix A): ULPDUs (DDP segments of at most MULPDU
 * octets) in, TCP payload out, one FPDU per TCP segment ({@code tcp_tlast} ends each), each segment starting at the
 * FPDU's first octet (its leading Marker when there is one). One beat per cycle at W = 32 … 512.
 *
 * <p>Chain: {@link MpaTxPrefix} (ULPDU_Length, PAD) → {@link MpaTxSplice} (Markers, CRC32c) → {@link WordPacker}
 * (dense beats). The Marker grid starts at the first octet after reset, which is the first Full-Operation octet of
 * this direction (MPA-12, MPA-37). {@code mulpdu} is what MPA reports to DDP for the configured EMSS (MPA-02, MPA-21).
 *
 * <p>Per connection and direction: {@code markers}, {@code crc} and {@code emss} are inputs held stable during Full
 * Operation. Segmentation never exceeds EMSS as long as DDP keeps ULPDUs within {@code mulpdu} and EMSS ≥ 256 (below
 * that the 128-octet MULPDU floor can make an FPDU longer than EMSS; the RFC allows it, this block does not split).
 */
public final class MpaTxFramer extends HwComponent {

    /** Ports, AXI-Stream named. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final Stream<UlpduBeat> ulpdu;
        public final Stream<AxisBeat> tcp;
        public final Bool markers;
        public final Bool crc;
        public final UInt emss;
        public final UInt mulpdu;

        public Io(int dataWidth) {
            this.dataWidth = dataWidth;
            ulpdu = field("ulpdu", Streams.slaveStream(() -> new UlpduBeat(dataWidth)));
            tcp = field("tcp", Streams.masterStream(() -> new AxisBeat(dataWidth)));
            markers = field("markers", in(bool()));
            crc = field("crc", in(bool()));
            emss = field("emss", in(uint(16)));
            mulpdu = field("mulpdu", out(uint(16)));
        }
    }

    public final Io io;
    public final MpaTxPrefix prefix;
    public final MpaTxSplice splice;
    public final WordPacker packer;

    public MpaTxFramer(int dataWidth) {
        int words = dataWidth / 32;
        noIoPrefix(); // before io(...): the bundle is then named "" and its ports carry no io_ prefix
        io = io(new Io(dataWidth));
        Streams.axisNames(io.ulpdu, "ulpdu");
        Streams.axisNames(io.tcp, "tcp");
        prefix = child("prefix", () -> new MpaTxPrefix(dataWidth));
        splice = child("splice", () -> new MpaTxSplice(words));
        packer = child("packer", () -> new WordPacker(words + 2, words));

        Streams.connect(io.ulpdu, prefix.io.input);
        Streams.connect(Streams.m2sPipe(prefix.io.output), splice.io.input);
        Streams.connect(Streams.m2sPipe(splice.io.output), packer.io.input);
        set(splice.io.markers.apply(0), io.markers);
        set(splice.io.crc.apply(0), io.crc);
        set(splice.io.clear.apply(0), False());
        set(splice.io.conn, U(0, 1));

        WordPiece beat = packer.io.output.payload();
        AxisBeat tcp = io.tcp.payload();
        List<Bool> keep = new ArrayList<>();
        for (int o = 0; o < dataWidth / 8; o++) {
            keep.add(lt(U(o / 4, beat.count.getBitsWidth()), beat.count));
        }
        set(io.tcp.valid(), packer.io.output.valid());
        set(packer.io.output.ready(), io.tcp.ready());
        set(tcp.tdata, beat.data);
        set(tcp.tkeep, catLsbFirst(keep));
        set(tcp.tlast, beat.last);

        // Three registers (MULPDU follows EMSS and Markers three cycles later; they are held stable in Full Operation):
        // the Marker count, the subtract and the bounds would otherwise be one path of carry chains.
        set(io.mulpdu, mulpdu(io.emss, io.markers));
    }

    /**
     * MULPDU (RFC 5044 §4.5): EMSS − (6 + 4·⌈EMSS/512⌉ + EMSS mod 4) with Markers, EMSS − (6 + EMSS mod 4) without;
     * never below 128, never above 64768. Three register stages: the Marker count, the subtract, the bounds.
     */
    static UInt mulpdu(UInt emss, Bool markers) {
        // EMSS − 6 − (EMSS mod 4) − 4·blocks = 4·(EMSS[15:2] − blocks − 2) + 2: one subtract of an 8-bit value from
        // EMSS[15:2] (t below, 16-bit two's complement: −130 … 16383), and the bounds become compares of t with
        // constants. ⌈EMSS/512⌉ = EMSS[15:9] + (EMSS[8:0] != 0).
        UInt blocks = add(range(emss, 15, 9).resize(8), mux(neq(range(emss, 8, 0), U(0, 9)), U(1, 8), U(0, 8)));
        UInt minus = regNext(add(mux(markers, blocks, U(0, 8)), U(2, 8)));
        UInt t = regNext(sub(regNext(range(emss, 15, 2)).resize(16), minus.resize(16)));
        Bool negative = t.apply(15);
        // value < 128  <=>  4t + 2 < 128  <=>  t <= 31
        Bool floor = or(negative, eq(range(t, 14, 5), U(0, 10)));
        // value > 64768  <=>  4t + 2 > 64768  <=>  t >= 16192 (t < 16384 here)
        Bool cap = and(not(negative), ge(range(t, 13, 0), U(16192, 14)));
        UInt raw = concat(range(t, 13, 0).asBits(), B(2, 2)).asUInt();
        return regNext(mux(floor, U(128, 16), mux(cap, U(64768, 16), raw)));
    }
}
