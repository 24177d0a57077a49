package rnic.hw.board;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.axis.AxisBeat;
import rnic.hw.mpa.TcpRxBeat;
import spinal.core.BaseType;
import spinal.core.Bits;
import spinal.core.UInt;
import spinal.lib.Stream;
import spinal.lib.bus.amba3.apb.Apb3;
import spinal.lib.bus.amba3.apb.Apb3Config;
import spinal.lib.bus.misc.SizeMapping;
import spinal.lib.bus.regif.AccessType;
import spinal.lib.bus.regif.Apb3BusInterface;
import spinal.lib.bus.regif.ClassName;
import spinal.lib.bus.regif.RegInst;
import spinal.lib.bus.regif.SymbolName;

/**
 * The firmware's access to the RNIC core's TCP byte streams (W = 32): on a board the host's kernel TCP carries each
 * connection, and the firmware moves its payload between the host link and the core. Per connection {@code q}, at
 * {@code 0x20 * q} (regif on APB3):
 *
 * <ul>
 *   <li>toward the core's {@code tcpRx_q}: {@code RX_SEQ} is the TCP sequence number of the next octet pushed;
 *       {@code RX_KEEP} the octets of the next beat (bits 3:0, after reset all four) and whether it ends the stream
 *       (bit 4, FIN: the peer's FIN or RST, {@link TcpRxBeat#fin}; cleared by the push); writing {@code RX_DATA}
 *       pushes one beat {data, keep, seq, fin} and advances {@code RX_SEQ} by the octets kept; {@code RX_FREE} says
 *       how many beats the FIFO takes now;</li>
 *   <li>from the core's {@code tcpTx_q}: {@code TX_COUNT} says how many beats wait; {@code TX_META} is the oldest
 *       one's keep (bits 3:0) and last (bit 4); reading {@code TX_DATA} returns its data and removes it.</li>
 * </ul>
 * Both directions have a {@value #FIFO_BEATS}-beat FIFO with a synchronous read (block RAM), so the firmware moves
 * data in bursts.
 */
public final class TcpBridge extends HwComponent {
    /** Beats per FIFO and direction. */
    public static final int FIFO_BEATS = 512;
    /** Register block stride per connection. */
    public static final int STRIDE = 0x20;
    static final int W = 32;

    /** APB3: 12 address bits, 32-bit data. */
    public static Apb3Config apbConfig() {
        return new Apb3Config(12, 32, 1, true);
    }

    /** Ports: the APB3 slave and, per connection, the core's two streams. */
    public static final class Io extends HwBundle {
        public final Apb3 apb;
        public final List<Stream<TcpRxBeat>> toCore = new ArrayList<>();
        public final List<Stream<AxisBeat>> fromCore = new ArrayList<>();

        Io(int connections) {
            apb = field("apb", spinal.lib.slave$.MODULE$.apply(new Apb3(apbConfig())));
            for (int q = 0; q < connections; q++) {
                toCore.add(field("toCore_" + q, Streams.masterStream(() -> new TcpRxBeat(W))));
                fromCore.add(field("fromCore_" + q, Streams.slaveStream(() -> new AxisBeat(W))));
            }
        }
    }

    public final Io io;
    public final Apb3BusInterface busif;

    public TcpBridge(int connections) {
        if (connections * STRIDE > 4096) {
            throw new IllegalArgumentException(connections + " connections do not fit the 4 KiB register window");
        }
        io = io(new Io(connections));
        busif = field("busif", new Apb3BusInterface(io.apb, new SizeMapping(scala.math.BigInt.apply(0),
                scala.math.BigInt.apply(4096)), "", false, new ClassName("TcpBridge")));
        for (int q = 0; q < connections; q++) {
            connection(q);
        }
    }

    private void connection(int q) {
        String p = "TCP" + q + "_";
        busif.regPtrReAnchorAt(scala.math.BigInt.apply((long) STRIDE * q));

        // ---- toward the core
        Stream<TcpRxBeat> push = Streams.stream(() -> new TcpRxBeat(W));
        push.setName("rxPush_" + q);
        Stream<TcpRxBeat> queued = Streams.fifo(push, FIFO_BEATS, 2, "TcpBridge_StreamFifo_rx");
        Streams.connect(queued, io.toCore.get(q));
        UInt seq = regInit("rxSeq_" + q, uint(32), U(0, 32));
        Bits keep = regInit("rxKeep_" + q, bits(4), B(0xF, 4));
        RegInst seqReg = reg(p + "RX_SEQ", "TCP sequence number of the next octet pushed to connection " + q);
        set(field(seqReg, "SEQ", () -> uint(32), new AccessType.CSTM("RW"), "sequence number", "rxSeqField_" + q),
                seq);
        spinal.core.Bool fin = regInit("rxFin_" + q, bool(), False());
        RegInst keepReg = reg(p + "RX_KEEP", "Octets of the next beat pushed (bit i: octet i), normally 0xF; "
                + "bit 4: the beat ends the stream");
        set(field(keepReg, "KEEP", () -> bits(4), new AccessType.CSTM("RW"), "tkeep of the next beat",
                "rxKeepField_" + q), keep);
        set(field(keepReg, "FIN", () -> bits(1), new AccessType.CSTM("RW"),
                "the next beat pushed ends the stream (the peer's FIN or RST); cleared by the push",
                "rxFinField_" + q), fin.asBits());
        RegInst dataReg = reg(p + "RX_DATA", "Write: push one beat {data, RX_KEEP, RX_SEQ} toward the core");
        set(field(dataReg, "DATA", () -> bits(32), new AccessType.CSTM("WO"), "beat data, octet 0 in 7:0",
                "rxDataField_" + q), B(0, 32));
        UInt free = field(reg(p + "RX_FREE", "Beats the FIFO toward the core takes now"), "FREE",
                () -> uint(16), AccessType.RO$.MODULE$, "free FIFO entries", "rxFree_" + q);
        when(keepReg.hitDoWrite(), () -> {
            set(keep, range(busif.writeData(), 3, 0));
            set(fin, busif.writeData().apply(4));
        });
        set(push.valid(), dataReg.hitDoWrite());
        set(push.payload().tdata, busif.writeData());
        set(push.payload().tkeep, keep);
        set(push.payload().seq, seq);
        set(push.payload().fin, fin);
        when(push.fire(), () -> {
            set(seq, add(seq, popCount4(keep)));
            set(fin, False());
        });
        // One APB access at a time: a write of RX_SEQ and a push never happen in the same cycle.
        when(seqReg.hitDoWrite(), () -> set(seq, busif.writeData().asUInt()));
        set(free, sub(U(FIFO_BEATS, 16), occupancy(queued)));

        // ---- from the core
        Stream<AxisBeat> pulled = Streams.fifo(io.fromCore.get(q), FIFO_BEATS, 2, "TcpBridge_StreamFifo_tx");
        UInt count = field(reg(p + "TX_COUNT", "Beats from connection " + q + " waiting"), "COUNT",
                () -> uint(16), AccessType.RO$.MODULE$, "waiting beats", "txCount_" + q);
        set(count, occupancy(pulled));
        RegInst meta = reg(p + "TX_META", "The oldest waiting beat: keep 3:0, last 4");
        set(field(meta, "KEEP", () -> bits(4), AccessType.RO$.MODULE$, "tkeep", "txKeep_" + q),
                pulled.payload().tkeep);
        set(field(meta, "LAST", () -> bits(1), AccessType.RO$.MODULE$, "tlast", "txLast_" + q),
                pulled.payload().tlast.asBits());
        RegInst txData = reg(p + "TX_DATA", "Read: the oldest waiting beat's data, which is then removed");
        set(field(txData, "DATA", () -> bits(32), AccessType.RO$.MODULE$, "beat data", "txData_" + q),
                pulled.payload().tdata);
        set(pulled.ready(), txData.hitDoRead());
    }

    /** The entries held by the FIFO whose output is {@code out}. */
    private static UInt occupancy(Stream<?> out) {
        spinal.lib.StreamFifo<?> f = (spinal.lib.StreamFifo<?>) out.component();
        return ((UInt) f.io().find("occupancy")).resize(16);
    }

    private RegInst reg(String name, String doc) {
        return busif.newReg(doc, null, null, new SymbolName(name));
    }

    private static UInt popCount4(Bits b) {
        return add(add(b.apply(0).asUInt().resize(3), b.apply(1).asUInt().resize(3)),
                add(b.apply(2).asUInt().resize(3), b.apply(3).asUInt().resize(3))).resize(32);
    }

    private <T extends BaseType> T field(RegInst r, String name, Supplier<T> type, AccessType access, String doc,
            String hwName) {
        T v = r.field(hardType(type), access, scala.math.BigInt.apply(0), doc, new SymbolName(name));
        v.setName(hwName);
        return v;
    }
}
