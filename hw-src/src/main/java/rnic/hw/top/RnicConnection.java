package rnic.hw.top;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.axis.AxisBeat;
import rnic.hw.mpa.MpaRxConfig;
import rnic.hw.mpa.MpaRxDeframer;
import rnic.hw.mpa.MpaTxFramer;
import rnic.hw.mpa.TcpRxBeat;
import rnic.hw.mpa.UlpduBeat;
import rnic.wire.QpState;
import spinal.core.Bool;
import java.util.function.Supplier;
import rnic.hdl.Scala;
import spinal.core.ClockDomain;
import spinal.core.ClockDomain$;
import spinal.core.Component;
import spinal.core.UInt;
import spinal.lib.Stream;

/**
 * The MPA connection of one QP inside {@link RnicCore}: its {@link MpaTxFramer} and {@link MpaRxDeframer} and the
 * gates the QP state puts around them (RFC 5044 §7.1 Full Operation, RFC 5040 §5.4 dead streams).
 *
 * <p>{@code clear} (the QP is in RESET) is the synchronous soft reset of the framer and deframer (their clock domain's
 * {@code softReset}): a reset QP restarts its Marker grid, CRC and sequence state (MPA-12) and forgets that it started
 * or received anything, without touching the other connections; the core's own reset stays the asynchronous one. The
 * modules in that domain have an extra reset port, so they are generated under their own names ({@value #SUFFIX}
 * appended) next to the blocks generated alone.
 *
 * <ul>
 *   <li>Receive: {@code tcpRx} is taken in RTR, RTS, SQD and SQE (Full Operation from {@code rxSeqStart} with
 *       {@code rxMarkers}, {@code crc}; MPA-26), held in RESET and INIT (the host has not handed the stream over), taken
 *       and dropped in ERR. Validated ULPDUs go out on {@code ulpdu} with their length ({@code ulpduLength}); in ERR
 *       they are dropped, except the rest of one the core has begun to take ({@code rxMid}), which it must see whole.</li>
 *   <li>Transmit: from RTS on, segments from {@code segments} are framed with {@code txMarkers}, {@code crc}, {@code emss}
 *       onto {@code tcpTx}; with {@code holdTx} only once a ULPDU was received (MPA-36: the responder sends no FPDU
 *       before it validated one). Before that they are held while the QP is in RTR or RTS ({@code holding} tells the
 *       core to keep new work away), and dropped in RESET, INIT and an ERR reached before RTS.</li>
 * </ul>
 */
public final class RnicConnection extends HwComponent {

    /** Appended to the module names of the framer, the deframer and everything inside them. */
    public static final String SUFFIX = "_Conn";

    /**
     * The MPA settings of a connection, negotiated in the MPA Request/Reply (RFC 5044 §7.1, RFC 6581) and held
     * stable during Full Operation.
     */
    public static final class Settings extends HwBundle {
        /** Markers in the FPDUs this side sends (the peer's M bit). */
        public final Bool txMarkers;
        /** Markers in the FPDUs this side receives. */
        public final Bool rxMarkers;
        /** CRC32c in both directions. */
        public final Bool crc;
        /** MPA-36: the responder sends nothing before it has received a valid FPDU. */
        public final Bool holdTx;
        /** The TCP EMSS of the connection; MULPDU follows from it. */
        public final UInt emss;
        /** Sequence number of the first Full-Operation octet received (MPA-26). */
        public final UInt rxSeqStart;

        public Settings() {
            txMarkers = field("txMarkers", bool());
            rxMarkers = field("rxMarkers", bool());
            crc = field("crc", bool());
            holdTx = field("holdTx", bool());
            emss = field("emss", uint(16));
            rxSeqStart = field("rxSeqStart", uint(32));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        /** The QP's {@link QpState} code. */
        public final UInt state;
        /** Restart the connection: the QP is in RESET (synchronous, held as long as wanted). */
        public final Bool clear;
        public final Settings settings;
        public final Stream<AxisBeat> tcpTx;
        public final Stream<TcpRxBeat> tcpRx;
        /** Validated ULPDUs out, one packet each. */
        public final Stream<AxisBeat> ulpdu;
        /** ULPDU_Length of the ULPDU on {@code ulpdu}, on every beat of it. */
        public final UInt ulpduLength;
        /** The core has taken part of the ULPDU on {@code ulpdu}: deliver the rest whatever the state. */
        public final Bool rxMid;
        /** Segments to send (DDP segments: MPA ULPDUs). */
        public final Stream<UlpduBeat> segments;
        /** MULPDU for {@code emss} and {@code txMarkers} (RFC 5044 §4.5). */
        public final UInt mulpdu;
        /** The QP is in RTS but its transmitter waits for the first received ULPDU (MPA-36). */
        public final Bool holding;
        public final Bool failed;
        public final UInt errorCode;
        public final UInt errorSeq;

        public Io(int dataWidth) {
            this.dataWidth = dataWidth;
            state = field("state", in(uint(3)));
            clear = field("clear", in(bool()));
            settings = field("settings", in(new Settings()));
            tcpTx = field("tcpTx", Streams.masterStream(() -> new AxisBeat(dataWidth)));
            tcpRx = field("tcpRx", Streams.slaveStream(() -> new TcpRxBeat(dataWidth)));
            ulpdu = field("ulpdu", Streams.masterStream(() -> new AxisBeat(dataWidth)));
            ulpduLength = field("ulpduLength", out(uint(16)));
            rxMid = field("rxMid", in(bool()));
            segments = field("segments", Streams.slaveStream(() -> new UlpduBeat(dataWidth)));
            mulpdu = field("mulpdu", out(uint(16)));
            holding = field("holding", out(bool()));
            failed = field("failed", out(bool()));
            errorCode = field("errorCode", out(uint(8)));
            errorSeq = field("errorSeq", out(uint(32)));
        }
    }

    public final Io io;
    public final MpaTxFramer tx;
    public final MpaRxDeframer rx;
    /** The QP reached RTS since its last RESET. */
    public final Bool txStarted;
    /** A validated ULPDU was received since the last RESET. */
    public final Bool rxSeen;

    /** A connection of W bits whose receiver is sized for the default advertised MSS. */
    public RnicConnection(int dataWidth) {
        this(MpaRxConfig.defaults(dataWidth));
    }

    public RnicConnection(MpaRxConfig rxConfig) {
        int dataWidth = rxConfig.dataWidth();
        noIoPrefix();
        io = io(new Io(dataWidth));
        Streams.axisNames(io.tcpTx, "tcpTx");
        Streams.axisNames(io.tcpRx, "tcpRx");
        Streams.axisNames(io.ulpdu, "ulpdu");
        Streams.axisNames(io.segments, "segments");
        tx = inClearDomain(io.clear, () -> child("tx", () -> new MpaTxFramer(dataWidth)));
        rx = inClearDomain(io.clear, () -> child("rx", () -> new MpaRxDeframer(rxConfig)));
        for (Component c : new Component[] {tx, rx}) {
            c.walkComponents(Scala.function1(k -> k.setDefinitionName((k.definitionName() != null
                    ? k.definitionName() : k.getClass().getSimpleName()) + SUFFIX, false)));
        }

        Bool inReset = wire("inReset", is(QpState.RESET));
        Bool inErr = wire("inErr", is(QpState.ERR));
        Bool rxOpen = wire("rxOpen", or(is(QpState.RTR), is(QpState.RTS), is(QpState.SQD), is(QpState.SQE)));
        txStarted = regInit("txStarted", bool(), False());
        rxSeen = regInit("rxSeen", bool(), False());
        when(is(QpState.RTS), () -> set(txStarted, True()));
        when(io.clear, () -> {
            set(txStarted, False());
            set(rxSeen, False());
        });
        Bool txOn = wire("txOn", and(txStarted, or(not(io.settings.holdTx), rxSeen)));
        Bool txDrop = wire("txDrop", and(not(txOn), or(inReset, is(QpState.INIT), inErr)));
        set(io.holding, and(is(QpState.RTS), not(txOn)));

        // ---- receive ----
        set(rx.io.markers, io.settings.rxMarkers);
        set(rx.io.crc, io.settings.crc);
        set(rx.io.seqStart, io.settings.rxSeqStart);
        set(rx.io.tcp.valid(), and(io.tcpRx.valid(), rxOpen));
        set(rx.io.tcp.payload(), io.tcpRx.payload());
        set(io.tcpRx.ready(), or(and(rxOpen, rx.io.tcp.ready()), inErr));
        Bool deliver = wire("rxDeliver", or(rxOpen, io.rxMid));
        set(io.ulpdu.valid(), and(rx.io.ulpdu.valid(), deliver));
        set(io.ulpdu.payload(), rx.io.ulpdu.payload());
        set(io.ulpduLength, rx.io.ulpduLength);
        set(rx.io.ulpdu.ready(), mux(deliver, io.ulpdu.ready(), True()));
        when(and(rx.io.ulpdu.fire(), not(io.clear)), () -> set(rxSeen, True()));
        set(io.failed, rx.io.failed);
        set(io.errorCode, rx.io.errorCode);
        set(io.errorSeq, rx.io.errorSeq);

        // ---- transmit ----
        set(tx.io.markers, io.settings.txMarkers);
        set(tx.io.crc, io.settings.crc);
        set(tx.io.emss, io.settings.emss);
        set(io.mulpdu, tx.io.mulpdu);
        set(tx.io.ulpdu.valid(), and(io.segments.valid(), txOn));
        set(tx.io.ulpdu.payload(), io.segments.payload());
        set(io.segments.ready(), or(and(txOn, tx.io.ulpdu.ready()), txDrop));
        Streams.connect(tx.io.tcp, io.tcpTx);
    }

    /** Builds {@code body} in a copy of the current clock domain with {@code clear} as its synchronous soft reset. */
    private static <C extends Component> C inClearDomain(Bool clear, Supplier<C> body) {
        ClockDomain cd = ClockDomain$.MODULE$.current();
        ClockDomain domain = cd.copy(cd.clock(), cd.reset(), null, clear, cd.clockEnable(), cd.config(),
                cd.frequency(), cd.clockEnableDivisionRate());
        return domain.apply(Scala.byName(body));
    }

    private Bool is(QpState s) {
        return eq(io.state, U(s.code(), 3));
    }
}
