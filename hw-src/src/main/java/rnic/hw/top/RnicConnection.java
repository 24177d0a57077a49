package rnic.hw.top;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.axis.AxisBeat;
import rnic.hw.mpa.MpaRxConfig;
import rnic.hw.mpa.MpaRxDeframer;
import rnic.hw.mpa.TcpRxBeat;
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
 * The MPA connection of one QP inside {@link RnicCore}: its {@link MpaRxDeframer} and the gates the QP state puts
 * around both directions (RFC 5044 §7.1 Full Operation, RFC 5040 §5.4 dead streams). The transmitter is the core's
 * one {@code MpaTxShared}; this connection says whether its segments go there ({@code txOn}) or are dropped
 * ({@code txDrop}), and the core decides that per segment.
 *
 * <p>{@code clear} (the QP is in RESET) is the synchronous soft reset of the deframer (its clock domain's
 * {@code softReset}): a reset QP restarts its receive sequence state and forgets that it started or received anything,
 * without touching the other connections; the core's own reset stays the asynchronous one. The modules in that
 * domain have an extra reset port, so they are generated under their own names ({@value #SUFFIX} appended) next to the
 * blocks generated alone.
 *
 * <ul>
 *   <li>Receive: {@code tcpRx} is taken in RTR, RTS, SQD and SQE (Full Operation from {@code rxSeqStart} with
 *       {@code rxMarkers}, {@code crc}; MPA-26), held in RESET and INIT (the host has not handed the stream over), taken
 *       and dropped in ERR. Validated ULPDUs go out on {@code ulpdu} with their length ({@code ulpduLength}); in ERR
 *       they are dropped, except the rest of one the core has begun to take ({@code rxMid}), which it must see whole.</li>
 *   <li>Transmit: from RTS on, segments are framed ({@code txOn}); with {@code holdTx} only once a ULPDU was received
 *       (MPA-36: the responder sends no FPDU before it validated one). Before that they are held while the QP is in
 *       RTR or RTS ({@code holding} tells the core to keep new work away), and dropped ({@code txDrop}) in RESET,
 *       INIT and an ERR reached before RTS.</li>
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
        public final Stream<TcpRxBeat> tcpRx;
        /** Validated ULPDUs out, one packet each. */
        public final Stream<AxisBeat> ulpdu;
        /** ULPDU_Length of the ULPDU on {@code ulpdu}, on every beat of it. */
        public final UInt ulpduLength;
        /** The core has taken part of the ULPDU on {@code ulpdu}: deliver the rest whatever the state. */
        public final Bool rxMid;
        /** Segments of this QP go to the transmitter. */
        public final Bool txOn;
        /** Segments of this QP are dropped (not sent, not held). */
        public final Bool txDrop;
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
            tcpRx = field("tcpRx", Streams.slaveStream(() -> new TcpRxBeat(dataWidth)));
            ulpdu = field("ulpdu", Streams.masterStream(() -> new AxisBeat(dataWidth)));
            ulpduLength = field("ulpduLength", out(uint(16)));
            rxMid = field("rxMid", in(bool()));
            txOn = field("txOn", out(bool()));
            txDrop = field("txDrop", out(bool()));
            holding = field("holding", out(bool()));
            failed = field("failed", out(bool()));
            errorCode = field("errorCode", out(uint(8)));
            errorSeq = field("errorSeq", out(uint(32)));
        }
    }

    public final Io io;
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
        Streams.axisNames(io.tcpRx, "tcpRx");
        Streams.axisNames(io.ulpdu, "ulpdu");
        rx = inClearDomain(io.clear, () -> child("rx", () -> new MpaRxDeframer(rxConfig)));
        rx.walkComponents(Scala.function1(k -> k.setDefinitionName((k.definitionName() != null
                ? k.definitionName() : k.getClass().getSimpleName()) + SUFFIX, false)));

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
        set(io.txOn, txOn);
        set(io.txDrop, txDrop);

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
