package rnic.hw.top;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.axis.AxisBeat;
import rnic.hw.ddp.DdpBeat;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.ddp.MemoryPort;
import rnic.hw.mpa.MpaRxShared;
import rnic.hw.mpa.MpaTxShared;
import rnic.hw.mpa.TcpRxBeat;
import rnic.hw.qp.QpRings;
import rnic.hw.qp.QpRingsConfig;
import rnic.hw.rdmap.RdmapEngine;
import rnic.wire.QpState;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Stream;
import spinal.lib.bus.amba3.apb.Apb3;
import spinal.lib.bus.amba4.axi.Axi4;

/**
 * One RNIC: the host's registers, the QPs' rings in host memory, the DDP/RDMAP engines and the MPA receiver and
 * transmitter shared by the QPs' connections, between an APB3 register port, one AXI4 master to host memory and one TCP payload stream pair per connection
 * (RFC 5044 MPA, RFC 5041 DDP, RFC 5040 RDMAP, RFC 7306 atomics; the issue-5 contract).
 *
 * <pre>
 *            apb ─► RnicRegisterFile ── QP/CQ registers ─► QpRings ◄─► axi (WQEs, CQEs)
 *                    │ setup, stagProgram     ▲ qpError      │ requests, recv ▲ events, mpaErrors
 *                    ▼                        │              ▼                │
 *   tcpRx_q ─► gate (RnicConnection_q) ─► MpaRxShared ─► RdmapEngine ─► tx gate (RnicConnection_q) ─►
 *                                                     MpaTxShared ─► tcpTx_q
 *                                            RdmapEngine ─► RnicMemoryMerge ◄─ QpRings ─► axi
 * </pre>
 *
 * <p><b>Connections.</b> Connection q carries QP q: its port pair, its state in the one {@link MpaRxShared} and the
 * one {@link MpaTxShared}, and an {@link RnicConnection} (the QP-state gates around both directions). The connection's
 * state in both is cleared while the QP is in RESET, so a reset QP restarts its Marker grid and sequence state
 * (RFC 5044 §4.3, MPA-12) without touching the others. The
 * receiver takes TCP payload in RTR, RTS, SQD and SQE (Full Operation from QP_RX_SEQ_START with RX_MARKERS and CRC,
 * MPA-26); in RESET and INIT {@code tcpRx_q} is held (the host has not handed the stream over yet), in ERR its payload
 * is taken and dropped (RFC 5040 §5.4: nothing is placed on a dead stream). The transmitter sends from RTS on with
 * TX_MARKERS, CRC and EMSS; with HOLD_TX_UNTIL_RX nothing goes out before the receiver has released its first
 * validated ULPDU (MPA-36), and the ring engine is shown RTR until then so it starts no send work request. A segment
 * the engine sends on a QP whose transmitter is not running is held while the QP is in RTR or RTS (it can only be a
 * response, and the transmitter is about to start) and dropped in RESET, INIT and an ERR reached before RTS. A reset
 * QP's {@code tcpTx_q} may drop a beat it was showing: the connection is gone.
 *
 * <p><b>Engine side.</b> Received ULPDUs go to the engine whole, in the order the receiver validated them (across
 * connections first come, first served; within one, in stream order), tagged with the connection's QP; the
 * ULPDU_Length rides along as the segment length ({@link DdpBeat#length}). A connection whose ULPDU the receiver is
 * showing or reading out is not reset until its last beat has gone (the engine must see every beat of a segment it
 * started). Segments the engine sends go to the transmitter, tagged with their QP. MULPDU comes from the transmitter
 * ({@code QP_MULPDU}, per connection) and is handed to the engine when the QP is opened at INIT→RTR. An MPA receiver failure (E-M1…3,
 * MPA-44) moves the QP to ERR at once and is reported once to the ring engine as an {@code mpaErrors} entry (an
 * MPA_ERROR completion); E-M1 — the end of the stream ({@code TcpRxBeat.fin}: the peer's FIN or RST, MPA-41, DDP-28)
 * or a hole — waits until the engine has finished every ULPDU handed to it before (their segments decided and placed,
 * their completion events taken by the ring engine), so the QP reaches ERR after their completions, not before; for a CRC, Marker or framing error the engine fails the QP at the same time and sends the
 * Terminate of docs/requirements.md §3.1 (Layer LLP, EType 0, the MPA Error Code, no headers) as its last segment on the
 * connection, whose transmitter keeps running in ERR once started (MPA-45: the error does not close TCP).
 *
 * <p><b>Interrupt.</b> {@code interrupt} is the register file's level output: high while an enabled IRQ_STATUS bit is
 * set (a CQ's notify request fired once its entry was in host memory, or the core moved a QP to ERR).
 *
 * <p><b>Memory.</b> The engine's and the ring engine's AXI4 masters are merged by {@link RnicMemoryMerge} onto
 * {@code axi}, the {@link MemoryPort} profile.
 */
public final class RnicCore extends HwComponent {

    /**
     * Ports: {@code apb_PADDR} …, {@code axi_awvalid} …, and per connection the streams {@code tcpTx_<q>} and
     * {@code tcpRx_<q>} with SpinalHDL's stream names ({@code tcpTx_0_valid}, {@code tcpTx_0_ready},
     * {@code tcpTx_0_payload_tdata}, {@code tcpRx_0_payload_seq}, …), as the simulation harness finds them.
     */
    public static final class Io extends HwBundle {
        public final RnicConfig config;
        public final Apb3 apb;
        public final Axi4 axi;
        /** TCP payload out, one TCP segment (one FPDU) per {@code tlast}. */
        public final List<Stream<AxisBeat>> tcpTx = new ArrayList<>();
        /** TCP payload in, in sequence order, with the sequence number of each beat's first octet. */
        public final List<Stream<TcpRxBeat>> tcpRx = new ArrayList<>();
        /** Level interrupt: an enabled IRQ_STATUS bit is set (CQ notify requests, QP errors). */
        public final Bool interrupt;

        public Io(RnicConfig config) {
            this.config = config;
            int w = config.dataWidth();
            apb = field("apb", spinal.lib.slave$.MODULE$.apply(new Apb3(RnicRegisterFile.apbConfig())));
            axi = field("axi", MemoryPort.master(w));
            for (int q = 0; q < config.qpCount(); q++) {
                tcpTx.add(field("tcpTx_" + q, Streams.masterStream(() -> new AxisBeat(w))));
                tcpRx.add(field("tcpRx_" + q, Streams.slaveStream(() -> new TcpRxBeat(w))));
            }
            interrupt = field("interrupt", out(bool()));
        }
    }

    public final RnicConfig config;
    public final Io io;
    public final RnicRegisterFile regs;
    public final RdmapEngine engine;
    public final QpRings rings;
    public final RnicMemoryMerge memory;
    /** The QP-state gates of each QP's MPA connection. */
    public final List<RnicConnection> conns = new ArrayList<>();
    /** One MPA receiver for every connection. */
    public final MpaRxShared mpaRx;
    /** One MPA transmitter for every connection. */
    public final MpaTxShared mpaTx;

    public RnicCore(RnicConfig c) {
        this.config = c;
        DdpConfig d = c.ddp();
        int n = c.qpCount();
        int qb = d.qpBits();
        noIoPrefix();
        io = io(new Io(c));
        regs = child("regs", () -> new RnicRegisterFile(c));
        engine = child("engine", () -> new RdmapEngine(d));
        rings = child("rings", () -> new QpRings(new QpRingsConfig(d, c.cqCount())));
        memory = child("memory", () -> new RnicMemoryMerge(c.dataWidth()));
        io.apb.$greater$greater(regs.io.apb);
        mpaTx = child("mpaTx", () -> new MpaTxShared(c.dataWidth(), n));

        mpaRx = child("mpaRx", () -> new MpaRxShared(c.mpaRx(), n));

        // ---- per connection: the QP-state gates, and the connection's state in the shared receiver and transmitter,
        // cleared while the QP is in RESET ----
        List<Bool> rxMid = new ArrayList<>();
        List<Bool> clears = new ArrayList<>();
        List<Bool> mpaFailed = new ArrayList<>();
        Stream<DdpBeat> toEngine = engine.io.rx;
        UInt rxConn = mpaRx.io.ulpduConn;
        for (int q = 0; q < n; q++) {
            RnicRegisterFile.QpControl qc = regs.io.qp.get(q);
            final int qp = q;
            rxMid.add(wire("conn" + q + "_rxMid", bool()));
            set(rxMid.get(q), mpaRx.io.mid.apply(q));
            conns.add(child("conn_" + qp, RnicConnection::new));
            RnicConnection.Io k = conns.get(q).io;
            // The QP in RESET restarts the connection, held off while the receiver is showing or reading out one of
            // its ULPDUs (the engine must see the whole segment once it has started).
            // A RESET held off is owed until done: the host may have moved the QP on (INIT, RTR) before the engine
            // took the rest of the ULPDU, and until then the connection stays in RESET (its input held, its output
            // dropped), so the restarted connection never sees the old one's state (the fuzzer's finding F14: a reset
            // that met a dropped ULPDU left the receiver's old sequence state, E-M1 on the new stream).
            Bool inReset = wire("conn" + q + "_inReset", eq(qc.state, U(QpState.RESET.code(), 3)));
            Bool owed = regInit("conn" + q + "_resetOwed", bool(), False());
            Bool clear = regInit("conn" + q + "_clear", bool(), True());
            clears.add(clear);
            set(clear, and(or(inReset, owed), not(rxMid.get(q))));
            set(owed, and(or(inReset, owed), rxMid.get(q)));
            set(k.clear, clear);
            set(k.state, mux(or(owed, clear), U(QpState.RESET.code(), 3), qc.state));
            set(k.holdTx, qc.mpa.holdTx);
            set(k.rxMid, rxMid.get(q));
            set(k.rxTaken, and(toEngine.fire(), eq(rxConn, U(q, rxConn.getBitsWidth()))));
            // receive: TCP payload into the shared receiver while the QP is open, drained in ERR, held otherwise
            Stream<TcpRxBeat> tcpIn = io.tcpRx.get(q);
            Stream<TcpRxBeat> rxPort = mpaRx.io.tcp.get(q);
            set(rxPort.valid(), and(tcpIn.valid(), k.rxOpen));
            set(rxPort.payload(), tcpIn.payload());
            set(tcpIn.ready(), or(and(k.rxOpen, rxPort.ready()), k.rxDrain));
            set(mpaRx.io.markers.apply(q), qc.mpa.rxMarkers);
            set(mpaRx.io.crc.apply(q), qc.mpa.crc);
            set(mpaRx.io.seqStart.apply(q), qc.mpa.rxSeqStart);
            set(mpaRx.io.clear.apply(q), clear);
            set(mpaRx.io.deliver.apply(q), k.rxDeliver);
            // transmit
            Streams.connect(mpaTx.io.tcp.get(q), io.tcpTx.get(q));
            set(mpaTx.io.markers.apply(q), qc.mpa.txMarkers);
            set(mpaTx.io.crc.apply(q), qc.mpa.crc);
            set(mpaTx.io.emss.apply(q), qc.mpa.emss);
            set(mpaTx.io.clear.apply(q), clear);
            RnicRegisterFile.QpStatus st = regs.io.qpStatus.get(q);
            set(st.mulpdu, mpaTx.io.mulpdu.apply(q));
            mpaFailed.add(wire("conn" + q + "_mpaFailed", bool()));
            set(st.mpaFailed, mpaFailed.get(q));
            set(st.mpaCode, mpaRx.io.errorCode.apply(q));
            set(st.sqCons, rings.io.sqCons.apply(q));
            set(st.rqCons, rings.io.rqCons.apply(q));
        }

        // ---- receive: the shared receiver's validated ULPDUs, whole, straight to the engine ----
        // They come in the order the receiver validated them (first come, first served across the connections, in
        // order within one), tagged with the connection's QP; the ULPDU_Length rides along as the segment length
        // (DdpBeat); tkeep is not needed: the length says where the segment ends.
        Bool last = wire("rxLast", mpaRx.io.ulpdu.payload().tlast);
        set(toEngine.valid(), mpaRx.io.ulpdu.valid());
        set(toEngine.payload().data, mpaRx.io.ulpdu.payload().tdata);
        set(toEngine.payload().length, mpaRx.io.ulpduLength);
        set(toEngine.payload().qp, rxConn.resize(qb));
        set(mpaRx.io.ulpdu.ready(), toEngine.ready());

        // ---- MPA errors, reported once the engine is done with the ULPDUs that came before them ----
        // The receiver fails only after every earlier ULPDU of the connection has gone to the engine, but the engine
        // may not have decided them yet. Reported at once, the error (the QP's close, the LLP Terminate) overtook the
        // DDP/RDMAP decision of the segment before it, whose own error must win (the fuzzer's finding F15: a short
        // ULPDU's E-D0 lost to the MPA error that followed it). So every MPA error waits until the segments taken and
        // not yet decided when it shows have been decided (counted down: the engine decides them in order). An end of
        // stream (E-M1: the peer's FIN or RST, or a hole) waits longer, until the engine has finished every ULPDU
        // handed to it (placed, its completion event taken), so their completions are written before the QP is in ERR
        // (MPA-41: everything before the FIN is delivered).
        Bool midUlpdu = regInit("rxMidUlpdu", bool(), False());
        when(toEngine.fire(), () -> set(midUlpdu, not(last)));
        Bool started = wire("rxSegmentStarted", and(toEngine.fire(), not(midUlpdu)));
        // Segments handed to the engine whose heads its receive checks have not taken yet (one head per segment).
        UInt headsOwed = regInit("rxHeadsOwed", uint(8), U(0, 8));
        when(and(started, not(engine.io.headTaken)), () -> set(headsOwed, add(headsOwed, U(1, 8))));
        when(and(engine.io.headTaken, not(started)), () -> set(headsOwed, sub(headsOwed, U(1, 8))));
        // The engine has finished every ULPDU handed to it so far: placed, and its completion event taken.
        Bool engineDrained = wire("rxEngineDrained", and(eq(headsOwed, U(0, 8)), not(started), engine.io.rxQuiet));
        // Segments handed to the engine and not yet decided.
        UInt undecided = regInit("rxUndecided", uint(8), U(0, 8));
        Bool decided = engine.io.rxDecided;
        UInt undecidedNext = wire("rxUndecidedNext", sub(add(undecided, mux(started, U(1, 8), U(0, 8))),
                mux(decided, U(1, 8), U(0, 8))));
        set(undecided, undecidedNext);
        for (int q = 0; q < n; q++) {
            Bool failed = mpaRx.io.failed.apply(q);
            Bool clear = clears.get(q);
            Bool seen = regInit("conn" + q + "_mpaSeen", bool(), False());
            UInt ahead = regInit("conn" + q + "_mpaAhead", uint(8), U(0, 8));
            when(and(failed, not(seen)), () -> {
                set(seen, True());
                set(ahead, undecidedNext);
            }).elseWhen(and(decided, neq(ahead, U(0, 8))), () -> set(ahead, sub(ahead, U(1, 8))));
            when(clear, () -> {
                set(seen, False());
                set(ahead, U(0, 8));
            });
            Bool endOfStream = eq(mpaRx.io.errorCode.apply(q), U(rnic.wire.MpaErrorCode.TCP_CLOSED.code(), 8));
            set(mpaFailed.get(q), and(failed, seen, eq(ahead, U(0, 8)),
                    or(not(endOfStream), and(engineDrained, not(rxMid.get(q))))));
        }

        // ---- transmit: each segment to the one transmitter, tagged with its QP, or dropped ----
        // Decided at a segment's first beat and kept to its last, so the transmitter only ever sees whole ULPDUs: a
        // QP that is framing (txOn) passes it, one whose segments are dropped (txDrop) loses it whole, and one that
        // waits (RTR, or RTS before MPA-36 lets it send) holds it, and every segment behind it.
        Stream<DdpBeat> fromEngine = engine.io.tx;
        UInt txQp = fromEngine.payload().qp;
        UInt txBeat = regInit("txSegBeat", uint(16), U(0, 16));
        Bool txPassing = regInit("txSegPassing", bool(), False());
        Bool txDropping = regInit("txSegDropping", bool(), False());
        Bool txFirst = wire("txSegFirst", eq(txBeat, U(0, 16)));
        List<Bool> ons = new ArrayList<>();
        List<Bool> drops = new ArrayList<>();
        for (int q = 0; q < n; q++) {
            ons.add(conns.get(q).io.txOn);
            drops.add(conns.get(q).io.txDrop);
        }
        Bool pass = wire("txPass", mux(txFirst, select(ons, txQp), txPassing));
        Bool drop = wire("txDropSeg", mux(txFirst, and(not(select(ons, txQp)), select(drops, txQp)), txDropping));
        set(mpaTx.io.ulpdu.valid(), and(fromEngine.valid(), pass));
        set(mpaTx.io.ulpdu.payload().data, fromEngine.payload().data);
        set(mpaTx.io.ulpdu.payload().length, fromEngine.payload().length);
        set(mpaTx.io.conn, txQp.resize(mpaTx.io.conn.getBitsWidth()));
        set(fromEngine.ready(), or(and(pass, mpaTx.io.ulpdu.ready()), drop));
        Bool txLast = wire("txSegLast", DdpBeat.isLastBeat(txBeat, fromEngine.payload().length, c.dataWidth() / 8));
        when(fromEngine.fire(), () -> {
            set(txBeat, mux(txLast, U(0, 16), add(txBeat, U(1, 16))));
            set(txPassing, pass);
            set(txDropping, drop);
        });

        // ---- host side of the engine ----
        Streams.connect(regs.io.setup, engine.io.setup);
        Streams.connect(regs.io.stagProgram, engine.io.stagProgram);
        Streams.connect(rings.io.requests, engine.io.requests);
        Streams.connect(rings.io.recv, engine.io.recv);
        Streams.connect(engine.io.events, rings.io.events);
        Streams.connect(rings.io.stagInvalidate, engine.io.stagInvalidate);
        set(rings.io.stagInvalidateDone.valid(), engine.io.stagInvalidateDone.valid());
        set(rings.io.stagInvalidateDone.payload(), engine.io.stagInvalidateDone.payload());

        // ---- ring engine ----
        for (int q = 0; q < n; q++) {
            RnicRegisterFile.QpControl qc = regs.io.qp.get(q);
            // Shown RTR while MPA-36 keeps the transmitter silent, so no send work request starts.
            set(rings.io.state.apply(q), mux(conns.get(q).io.holding, U(QpState.RTR.code(), 3), qc.state));
            set(rings.io.sqBase.apply(q), qc.sqBase);
            set(rings.io.sqSize.apply(q), qc.sqSize);
            set(rings.io.sqProd.apply(q), qc.sqProd);
            set(rings.io.sqCq.apply(q), qc.sqCq);
            set(rings.io.rqBase.apply(q), qc.rqBase);
            set(rings.io.rqSize.apply(q), qc.rqSize);
            set(rings.io.rqProd.apply(q), qc.rqProd);
            set(rings.io.rqCq.apply(q), qc.rqCq);
            set(rings.io.clear.apply(q), qc.clear);
        }
        for (int i = 0; i < c.cqCount(); i++) {
            RnicRegisterFile.CqControl cq = regs.io.cq.get(i);
            set(rings.io.cqBase.apply(i), cq.base);
            set(rings.io.cqSize.apply(i), cq.size);
            set(rings.io.cqCons.apply(i), cq.cons);
            set(regs.io.cqProd.get(i), rings.io.cqProd.apply(i));
            set(regs.io.cqOverflow.get(i), rings.io.cqOverflow.apply(i));
        }
        set(regs.io.qpError.valid(), rings.io.qpError.valid());
        set(regs.io.qpError.payload().qp, rings.io.qpError.payload().qp);
        set(regs.io.qpError.payload().state, rings.io.qpError.payload().state);
        set(regs.io.qpError.payload().kind, rings.io.qpError.payload().kind);
        set(regs.io.qpError.payload().status, rings.io.qpError.payload().status);
        mpaErrors(rings.io.mpaErrors, rings.config, mpaFailed, clears);
        set(regs.io.cqEvent.valid(), rings.io.cqEvent.valid());
        set(regs.io.cqEvent.payload(), rings.io.cqEvent.payload());
        set(io.interrupt, regs.io.interrupt);

        // ---- memory ----
        memory.io.engine.$less$less(engine.io.axi);
        memory.io.rings.$less$less(rings.io.axi);
        io.axi.$less$less(memory.io.axi);
        set(regs.io.memoryError, or(engine.io.memoryError, rings.io.memoryError));
        set(regs.io.rxIdle, wire("rxIdle", and(engineDrained, not(midUlpdu), not(mpaRx.io.ulpdu.valid()))));
    }

    /** One {@code mpaErrors} entry per receiver failure, lowest connection first, from an output register. */
    private void mpaErrors(Stream<QpRings.MpaError> out, QpRingsConfig rc, List<Bool> failed, List<Bool> clears) {
        int qb = config.ddp().qpBits();
        Bool valid = regInit("mpaErrorValid", bool(), False());
        QpRings.MpaError entry = reg("mpaErrorEntry", new QpRings.MpaError(rc));
        set(out.valid(), valid);
        set(out.payload(), entry);
        when(out.fire(), () -> set(valid, False()));
        // The engine fails the QP and sends the MPA error's Terminate on the connection (docs/requirements.md §3.1: the
        // transmit half still works, MPA-45), reported as the entry is made. A closed TCP connection (E-M1) sends none.
        Stream<RdmapEngine.LlpError> llp = engine.io.llpError;
        Bool llpValid = regInit("llpErrorValid", bool(), False());
        RdmapEngine.LlpError llpEntry = reg("llpErrorEntry", new RdmapEngine.LlpError(config.ddp()));
        set(llpValid, False());
        set(llp.valid(), llpValid);
        set(llp.payload(), llpEntry);
        Bool free = wire("mpaErrorFree", or(not(valid), out.ready()));
        Bool before = False();
        for (int q = 0; q < config.qpCount(); q++) {
            final int qp = q;
            UInt code = mpaRx.io.errorCode.apply(q);
            Bool reported = regInit("conn" + q + "_mpaReported", bool(), False());
            Bool due = wire("conn" + q + "_mpaDue", and(failed.get(q), not(reported)));
            Bool pick = and(free, due, not(before));
            before = or(before, due);
            when(pick, () -> {
                set(llpValid, neq(code, U(rnic.wire.MpaErrorCode.TCP_CLOSED.code(), 8)));
                set(llpEntry.qp, U(qp, qb));
                set(llpEntry.code, range(code, 2, 0));
                set(reported, True());
                set(valid, True());
                set(entry.qp, U(qp, qb));
                set(entry.code, code);
                set(entry.seq, mpaRx.io.errorSeq.apply(qp));
            });
            // Reported again only after the receiver was actually restarted: in RESET its failed flag stays up until
            // the connection's clear (one cycle later, or later still while the engine takes one of its ULPDUs), and
            // an earlier clear of this flag reported the old error again (the fuzzer's finding F11).
            when(clears.get(q), () -> set(reported, False()));
        }
    }

    /** Element {@code index} of {@code items} (the only one when there is one). */
    private static <T extends spinal.core.Data> T select(List<T> items, UInt index) {
        return items.size() == 1 ? items.get(0) : vec(items).apply(index);
    }
}
