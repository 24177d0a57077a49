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
import spinal.core.Vec;
import spinal.lib.Stream;

/**
 * One MPA transmitter for {@code n} connections (RFC 5044 §4, Appendix A): the chain of {@link MpaTxFramer} —
 * {@link MpaTxPrefix} → {@link MpaTxSplice} → {@link WordPacker} — built once, its FPDUs tagged with their
 * connection and sent to that connection's TCP port. A core's DDP engine sends one segment at a time anyway, so one
 * framer carries every connection's FPDUs at one beat per cycle; the transmitter's area no longer grows with the
 * connection count, only a Marker distance (7 + W/32 + 1 flip-flops) and a MULPDU (three register stages) per
 * connection do.
 *
 * <p>Input: ULPDU beats as {@link MpaTxFramer} takes them, each with its connection on {@code conn} (valid with the
 * beat, the same on every beat of a ULPDU). Every ULPDU goes in whole: a connection's ULPDUs are never cut or
 * interleaved with another's inside the framer. Per connection, {@code markers}, {@code crc} and {@code emss} (held
 * stable in Full Operation) and {@code mulpdu}, as {@link MpaTxFramer} has them, and {@code clear}: held while the
 * connection restarts (its QP is in RESET), it puts the connection's Marker grid back to its start (MPA-12), and the
 * connection's FPDUs still inside the framer are taken from its port and dropped, so a restarted connection sends
 * none of its old FPDUs.
 *
 * <p>Between the stages, two small FIFOs of connection numbers follow the FPDUs in order ({@value #TAGS} entries
 * each, written at an FPDU's first beat): one from the input to the splice, which takes the number into a register
 * with the connection's Marker distance in the cycle the FPDU's first piece enters the pipe register in front of it
 * (an empty FIFO passes it straight through, so this costs no cycle), one from the splice to the port demultiplexer,
 * read with a register. A connection's port that is not ready holds the framer (the engine's one
 * segment at a time holds every connection behind it already).
 *
 * <p>Three skid buffers cut the ready chain (timing: iCE40 HX8K fmax, seed 1): one between the prefix and the
 * splice's input pipe register and one between the splice and the packer's input pipe register, so the readies
 * stop at each, and one after the packer, so the ports' readies stay out of the framer. None costs a cycle when it
 * is empty. The second tag FIFO's room is a register of its own ({@code tagRoom}, from an occupancy count kept beside
 * the FIFO), so the splice's ready waits for no pointer compare.
 */
public final class MpaTxShared extends HwComponent {
    /** FPDUs the connection-number FIFOs hold: more than fit in the stages they span. */
    public static final int TAGS = 4;

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final int n;
        public final Stream<UlpduBeat> ulpdu;
        /** The connection of the beat on {@code ulpdu}. */
        public final UInt conn;
        public final List<Stream<AxisBeat>> tcp = new ArrayList<>();
        public final Vec<Bool> markers;
        public final Vec<Bool> crc;
        public final Vec<UInt> emss;
        public final Vec<UInt> mulpdu;
        public final Vec<Bool> clear;

        public Io(int dataWidth, int n) {
            this.dataWidth = dataWidth;
            this.n = n;
            ulpdu = field("ulpdu", Streams.slaveStream(() -> new UlpduBeat(dataWidth)));
            conn = field("conn", in(uint(MpaTxSplice.connBits(n))));
            for (int k = 0; k < n; k++) {
                tcp.add(field("tcp_" + k, Streams.masterStream(() -> new AxisBeat(dataWidth))));
            }
            markers = field("markers", in(vec(n, () -> bool())));
            crc = field("crc", in(vec(n, () -> bool())));
            emss = field("emss", in(vec(n, () -> uint(16))));
            mulpdu = field("mulpdu", out(vec(n, () -> uint(16))));
            clear = field("clear", in(vec(n, () -> bool())));
        }
    }

    public final Io io;
    public final MpaTxPrefix prefix;
    public final MpaTxSplice splice;
    public final WordPacker packer;

    public MpaTxShared(int dataWidth, int n) {
        if (n < 1) {
            throw new IllegalArgumentException("at least one connection, got " + n);
        }
        int words = dataWidth / 32;
        int nb = MpaTxSplice.connBits(n);
        noIoPrefix();
        io = io(new Io(dataWidth, n));
        Streams.axisNames(io.ulpdu, "ulpdu");
        for (int k = 0; k < n; k++) {
            Streams.axisNames(io.tcp.get(k), "tcp_" + k);
        }
        prefix = child("prefix", () -> new MpaTxPrefix(dataWidth));
        splice = child("splice", () -> new MpaTxSplice(words, n));
        packer = child("packer", () -> new WordPacker(words + 2, words));

        // ---- input → prefix; the FPDU's connection into the first tag FIFO at its first beat
        Bool first = wire("first", not(prefix.io.inside));
        Stream<UInt> tagIn = wire("tagIn", Streams.stream(() -> uint(nb)));
        set(tagIn.payload(), io.conn);
        set(tagIn.valid(), and(io.ulpdu.valid(), first, prefix.io.input.ready()));
        Bool room = wire("room", or(not(first), tagIn.ready()));
        set(prefix.io.input.valid(), and(io.ulpdu.valid(), room));
        set(prefix.io.input.payload(), io.ulpdu.payload());
        set(io.ulpdu.ready(), and(prefix.io.input.ready(), room));
        Stream<UInt> spliceTag = Streams.regFifo(tagIn, TAGS, 0);

        // ---- prefix → splice; the splice takes the connection from the tag FIFO into a register (with its Marker
        // distance) in the cycle the first piece goes through this pipe register
        // A skid buffer in front of the pipe register keeps the splice's ready out of the prefix's (timing: the
        // ready chain from the packer back to the input would otherwise span every stage).
        Streams.connect(Streams.m2sPipe(Streams.s2mPipe(prefix.io.output)), splice.io.input);
        Streams.connect(spliceTag, splice.io.tags);
        for (int k = 0; k < n; k++) {
            set(splice.io.markers.apply(k), io.markers.apply(k));
            set(splice.io.crc.apply(k), io.crc.apply(k));
            set(splice.io.clear.apply(k), io.clear.apply(k));
        }

        // ---- splice → packer; the connection into the second tag FIFO at the FPDU's first piece
        Stream<UInt> tagOut = wire("tagOut", Streams.stream(() -> uint(nb)));
        Bool firstPiece = regInit("firstPiece", bool(), True());
        when(splice.io.output.fire(), () -> set(firstPiece, splice.io.output.payload().last));
        set(tagOut.payload(), splice.io.outConn);
        Stream<WordPiece> toPacker = wire("toPacker", Streams.stream(() -> new WordPiece(words + 2)));
        // The second FIFO's room as a register of its own (its occupancy counted beside it), so the splice's ready
        // does not wait for the FIFO's pointer compare (timing); it equals the FIFO's push ready in every cycle.
        UInt tagsOut = regInit("tagsOut", uint(log2Up(TAGS + 1)), U(0, log2Up(TAGS + 1)));
        Bool tagRoom = regInit("tagRoom", bool(), True());
        set(tagOut.valid(), and(splice.io.output.valid(), firstPiece, toPacker.ready(), tagRoom));
        Bool roomOut = wire("roomOut", or(not(firstPiece), tagRoom));
        set(toPacker.valid(), and(splice.io.output.valid(), roomOut));
        set(toPacker.payload(), splice.io.output.payload());
        set(splice.io.output.ready(), and(toPacker.ready(), roomOut));
        // A skid buffer in front of the packer's pipe register keeps the packer's ready out of the splice's readies.
        Streams.connect(Streams.m2sPipe(Streams.s2mPipe(toPacker)), packer.io.input);
        Stream<UInt> portTag = Streams.regFifo(tagOut, TAGS, 1);
        int tw = tagsOut.getBitsWidth();
        // The push and the pop select among precomputed values (the pop comes late: it follows the ports' readies).
        Bool up = and(tagOut.fire(), not(portTag.fire()));
        Bool down = and(portTag.fire(), not(tagOut.fire()));
        set(tagsOut, mux(up, add(tagsOut, U(1, tw)), mux(down, sub(tagsOut, U(1, tw)), tagsOut)));
        set(tagRoom, mux(up, lt(tagsOut, U(TAGS - 1, tw)), or(down, lt(tagsOut, U(TAGS, tw)))));

        // ---- packer → the FPDU's port; a connection held in clear has its FPDUs dropped
        UInt to = wire("to", portTag.payload());
        // A skid buffer keeps the ports' ready out of the framer's backward ready chain (timing).
        Stream<WordPiece> framed = Streams.s2mPipe(packer.io.output);
        WordPiece beat = framed.payload();
        List<Bool> keep = new ArrayList<>();
        for (int o = 0; o < dataWidth / 8; o++) {
            keep.add(lt(U(o / 4, beat.count.getBitsWidth()), beat.count));
        }
        Bool dropping = wire("dropping", n == 1 ? io.clear.apply(0) : io.clear.apply(to));
        Bool portReady = False();
        for (int k = 0; k < n; k++) {
            Stream<AxisBeat> port = io.tcp.get(k);
            Bool mine = n == 1 ? True() : eq(to, U(k, nb));
            set(port.valid(), and(framed.valid(), portTag.valid(), mine, not(io.clear.apply(k))));
            set(port.payload().tdata, beat.data);
            set(port.payload().tkeep, catLsbFirst(keep));
            set(port.payload().tlast, beat.last);
            portReady = or(portReady, and(mine, port.ready()));
            set(io.mulpdu.apply(k), MpaTxFramer.mulpdu(io.emss.apply(k), io.markers.apply(k)));
        }
        Bool take = wire("take", and(portTag.valid(), or(portReady, dropping)));
        set(framed.ready(), take);
        set(portTag.ready(), and(framed.fire(), beat.last));
    }
}
