package rnic.hw.qp;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.DdpBeat;
import rnic.hw.ddp.MemoryPort;
import rnic.hw.ddp.StagProgram;
import rnic.hw.rdmap.RdmapEngine;
import rnic.hw.rdmap.RdmapRxControl;
import rnic.hw.rdmap.RdmapTxRequester;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.core.Vec;
import spinal.lib.Flow;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4;

/**
 * Test fixture (not a product block): {@link QpRings} in front of a real {@link RdmapEngine}, their host ports
 * connected as RnicCore connects them, each keeping its own AXI port (the test serves both from one host memory, so no
 * interconnect is needed), with the rings' register inputs, the engine's segment ports, QP setup and STag programming
 * as ports.
 */
public final class RingsEngineTop extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final QpRingsConfig config;
        public final Axi4 ringsAxi;
        public final Axi4 engineAxi;
        public final Vec<UInt> state;
        public final Vec<UInt> sqBase;
        public final Vec<UInt> sqSize;
        public final Vec<UInt> sqProd;
        public final Vec<UInt> sqCq;
        public final Vec<UInt> rqBase;
        public final Vec<UInt> rqSize;
        public final Vec<UInt> rqProd;
        public final Vec<UInt> rqCq;
        public final Vec<Bool> clear;
        public final Vec<UInt> sqCons;
        public final Vec<UInt> rqCons;
        public final Vec<UInt> cqBase;
        public final Vec<UInt> cqSize;
        public final Vec<UInt> cqCons;
        public final Vec<UInt> cqProd;
        public final Stream<DdpBeat> rx;
        public final Stream<DdpBeat> tx;
        public final Stream<RdmapEngine.Setup> setup;
        public final Stream<StagProgram> stagProgram;
        public final Flow<QpRings.QpError> qpError;
        /** Monitors of the internal streams: what went from the rings to the engine and back, as it was taken. */
        public final Flow<RdmapTxRequester.WorkRequest> requestsSeen;
        public final Flow<RdmapRxControl.RecvPost> recvSeen;
        public final Flow<RdmapRxControl.Event> eventsSeen;

        public Io(QpRingsConfig config) {
            this.config = config;
            QpRingsConfig c = config;
            int n = c.qpCount();
            int ib = QpRingsConfig.INDEX_BITS;
            int sb = QpRingsConfig.SIZE_BITS;
            ringsAxi = field("ringsAxi", MemoryPort.master(c.dataWidth()));
            engineAxi = field("engineAxi", MemoryPort.master(c.dataWidth()));
            state = field("state", in(QpRings.perIndex(n, () -> uint(3))));
            sqBase = field("sqBase", in(QpRings.perIndex(n, () -> uint(64))));
            sqSize = field("sqSize", in(QpRings.perIndex(n, () -> uint(sb))));
            sqProd = field("sqProd", in(QpRings.perIndex(n, () -> uint(ib))));
            sqCq = field("sqCq", in(QpRings.perIndex(n, () -> uint(c.cqBits()))));
            rqBase = field("rqBase", in(QpRings.perIndex(n, () -> uint(64))));
            rqSize = field("rqSize", in(QpRings.perIndex(n, () -> uint(sb))));
            rqProd = field("rqProd", in(QpRings.perIndex(n, () -> uint(ib))));
            rqCq = field("rqCq", in(QpRings.perIndex(n, () -> uint(c.cqBits()))));
            clear = field("clear", in(QpRings.perIndex(n, () -> bool())));
            sqCons = field("sqCons", out(QpRings.perIndex(n, () -> uint(ib))));
            rqCons = field("rqCons", out(QpRings.perIndex(n, () -> uint(ib))));
            cqBase = field("cqBase", in(QpRings.perIndex(c.cqCount(), () -> uint(64))));
            cqSize = field("cqSize", in(QpRings.perIndex(c.cqCount(), () -> uint(sb))));
            cqCons = field("cqCons", in(QpRings.perIndex(c.cqCount(), () -> uint(ib))));
            cqProd = field("cqProd", out(QpRings.perIndex(c.cqCount(), () -> uint(ib))));
            rx = field("rx", Streams.slaveStream(() -> new DdpBeat(c.ddp())));
            tx = field("tx", Streams.masterStream(() -> new DdpBeat(c.ddp())));
            setup = field("setup", Streams.slaveStream(() -> new RdmapEngine.Setup(c.ddp())));
            stagProgram = field("stagProgram", Streams.slaveStream(() -> new StagProgram(c.ddp())));
            qpError = field("qpError", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new QpRings.QpError(c)))));
            requestsSeen = field("requestsSeen", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new RdmapTxRequester.WorkRequest(c.ddp())))));
            recvSeen = field("recvSeen", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new RdmapRxControl.RecvPost(c.ddp())))));
            eventsSeen = field("eventsSeen", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new RdmapRxControl.Event(c.ddp())))));
        }
    }

    public final QpRingsConfig config;
    public final Io io;
    public final QpRings rings;
    public final RdmapEngine engine;

    public RingsEngineTop(QpRingsConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        rings = child("rings", () -> new QpRings(c));
        engine = child("engine", () -> new RdmapEngine(c.ddp()));
        // No MPA layer here: no LLP errors.
        set(engine.io.llpError.valid(), False());
        set(engine.io.llpError.payload().qp, U(0, c.ddp().qpBits()));
        set(engine.io.llpError.payload().code, U(0, 3));
        QpRings.Io r = rings.io;
        for (int q = 0; q < c.qpCount(); q++) {
            set(r.state.apply(q), io.state.apply(q));
            set(r.sqBase.apply(q), io.sqBase.apply(q));
            set(r.sqSize.apply(q), io.sqSize.apply(q));
            set(r.sqProd.apply(q), io.sqProd.apply(q));
            set(r.sqCq.apply(q), io.sqCq.apply(q));
            set(r.rqBase.apply(q), io.rqBase.apply(q));
            set(r.rqSize.apply(q), io.rqSize.apply(q));
            set(r.rqProd.apply(q), io.rqProd.apply(q));
            set(r.rqCq.apply(q), io.rqCq.apply(q));
            set(r.clear.apply(q), io.clear.apply(q));
            set(io.sqCons.apply(q), r.sqCons.apply(q));
            set(io.rqCons.apply(q), r.rqCons.apply(q));
        }
        for (int k = 0; k < c.cqCount(); k++) {
            set(r.cqBase.apply(k), io.cqBase.apply(k));
            set(r.cqSize.apply(k), io.cqSize.apply(k));
            set(r.cqCons.apply(k), io.cqCons.apply(k));
            set(io.cqProd.apply(k), r.cqProd.apply(k));
        }
        io.ringsAxi.$less$less(r.axi);
        io.engineAxi.$less$less(engine.io.axi);
        Streams.connect(r.requests, engine.io.requests);
        Streams.connect(r.recv, engine.io.recv);
        Streams.connect(engine.io.events, r.events);
        Streams.connect(r.stagInvalidate, engine.io.stagInvalidate);
        set(r.stagInvalidateDone.valid(), engine.io.stagInvalidateDone.valid());
        set(r.stagInvalidateDone.payload(), engine.io.stagInvalidateDone.payload());
        r.mpaErrors.setIdle();
        set(io.qpError.valid(), r.qpError.valid());
        set(io.qpError.payload(), r.qpError.payload());
        set(io.requestsSeen.valid(), r.requests.fire());
        set(io.requestsSeen.payload(), r.requests.payload());
        set(io.recvSeen.valid(), r.recv.fire());
        set(io.recvSeen.payload(), r.recv.payload());
        set(io.eventsSeen.valid(), engine.io.events.fire());
        set(io.eventsSeen.payload(), engine.io.events.payload());
        Streams.connect(io.rx, engine.io.rx);
        Streams.connect(engine.io.tx, io.tx);
        Streams.connect(io.setup, engine.io.setup);
        Streams.connect(io.stagProgram, engine.io.stagProgram);
    }
}
