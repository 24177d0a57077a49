package rnic.hw.top;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.wire.QpState;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * The gates the state of one QP puts around its MPA connection inside {@link RnicCore} (RFC 5044 §7.1 Full Operation,
 * RFC 5040 §5.4 dead streams). The receiver is the core's one {@code MpaRxShared}, the transmitter its one
 * {@code MpaTxShared}; this connection says whether its TCP payload goes into the receiver, is held or is drained, whether
 * its validated ULPDUs go to the engine or are dropped, and whether the segments the engine sends on it are framed,
 * held or dropped (the core decides that per segment).
 *
 * <ul>
 *   <li>Receive: {@code tcpRx} is taken in RTR, RTS, SQD and SQE ({@code rxOpen}: Full Operation from {@code rxSeqStart}
 *       with {@code rxMarkers}, {@code crc}; MPA-26), held in RESET and INIT (the host has not handed the stream over),
 *       taken and dropped in ERR ({@code rxDrain}). Validated ULPDUs go to the engine while the receive side is open
 *       ({@code rxDeliver}); in ERR they are dropped, except the rest of one the receiver has begun to show ({@code rxMid}),
 *       which the engine must see whole.</li>
 *   <li>Transmit: from RTS on, segments are framed ({@code txOn}); with {@code holdTx} only once a ULPDU was received
 *       ({@code rxTaken}; MPA-36: the responder sends no FPDU before it validated one). Before that they are held while
 *       the QP is in RTR or RTS ({@code holding} tells the core to keep new work away), and dropped ({@code txDrop}) in
 *       RESET, INIT and an ERR reached before RTS.</li>
 * </ul>
 *
 * <p>{@code clear} (the QP is in RESET) forgets that the connection started or received anything; the core clears
 * the connection's state in the shared receiver and transmitter with it.
 */
public final class RnicConnection extends HwComponent {

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
        /** The QP's {@link QpState} code. */
        public final UInt state;
        /** Restart the connection: the QP is in RESET (synchronous, held as long as wanted). */
        public final Bool clear;
        /** The connection's {@link Settings#holdTx}: MPA-36 applies. */
        public final Bool holdTx;
        /** The receiver is showing or reading out a ULPDU of this connection: deliver the rest whatever the state. */
        public final Bool rxMid;
        /** The engine took a beat of a ULPDU of this connection. */
        public final Bool rxTaken;
        /** TCP payload of this connection goes into the receiver. */
        public final Bool rxOpen;
        /** TCP payload of this connection is taken and dropped (the QP is in ERR). */
        public final Bool rxDrain;
        /** Validated ULPDUs of this connection go to the engine (otherwise the receiver drops them). */
        public final Bool rxDeliver;
        /** Segments of this QP go to the transmitter. */
        public final Bool txOn;
        /** Segments of this QP are dropped (not sent, not held). */
        public final Bool txDrop;
        /** The QP is in RTS but its transmitter waits for the first received ULPDU (MPA-36). */
        public final Bool holding;

        public Io() {
            state = field("state", in(uint(3)));
            clear = field("clear", in(bool()));
            holdTx = field("holdTx", in(bool()));
            rxMid = field("rxMid", in(bool()));
            rxTaken = field("rxTaken", in(bool()));
            rxOpen = field("rxOpen", out(bool()));
            rxDrain = field("rxDrain", out(bool()));
            rxDeliver = field("rxDeliver", out(bool()));
            txOn = field("txOn", out(bool()));
            txDrop = field("txDrop", out(bool()));
            holding = field("holding", out(bool()));
        }
    }

    public final Io io;
    /** The QP reached RTS since its last RESET. */
    public final Bool txStarted;
    /** A validated ULPDU was received since the last RESET. */
    public final Bool rxSeen;

    public RnicConnection() {
        noIoPrefix();
        io = io(new Io());

        Bool inReset = wire("inReset", is(QpState.RESET));
        Bool inErr = wire("inErr", is(QpState.ERR));
        Bool rxOpen = wire("rxOpenState", or(is(QpState.RTR), is(QpState.RTS), is(QpState.SQD), is(QpState.SQE)));
        txStarted = regInit("txStarted", bool(), False());
        rxSeen = regInit("rxSeen", bool(), False());
        when(is(QpState.RTS), () -> set(txStarted, True()));
        when(io.rxTaken, () -> set(rxSeen, True()));
        when(io.clear, () -> {
            set(txStarted, False());
            set(rxSeen, False());
        });
        Bool txOn = wire("txOnNow", and(txStarted, or(not(io.holdTx), rxSeen)));
        Bool txDrop = wire("txDropNow", and(not(txOn), or(inReset, is(QpState.INIT), inErr)));
        set(io.holding, and(is(QpState.RTS), not(txOn)));
        set(io.txOn, txOn);
        set(io.txDrop, txDrop);
        set(io.rxOpen, rxOpen);
        set(io.rxDrain, inErr);
        set(io.rxDeliver, or(rxOpen, io.rxMid));
    }

    private Bool is(QpState s) {
        return eq(io.state, U(s.code(), 3));
    }
}
