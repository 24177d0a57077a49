package rnic.hw.qp;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.ddp.MemoryPort;
import rnic.hw.rdmap.RdmapRxControl;
import rnic.hw.rdmap.RdmapTxRequester;
import spinal.core.Bool;
import spinal.core.Data;
import spinal.core.UInt;
import spinal.core.Vec;
import spinal.lib.Flow;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4;

/**
 * The send, receive and completion rings of every QP in host memory, with their doorbells: between the host's
 * registers (ring bases, sizes, producer indices, QP states) and the host ports of the {@code RdmapEngine}
 * (work requests, receive buffers, events, local invalidations). The descriptor layouts are {@link rnic.wire.SqWqe},
 * {@link rnic.wire.RqWqe} and {@link rnic.wire.Cqe} (issue 5 contract, "Core behaviour").
 *
 * <p>Per-QP and per-CQ ports are {@link Vec}s: element {@code i} of port {@code state} is the Verilog port
 * {@code state_i}.
 */
public final class QpRings extends HwComponent {

    /** An MPA receiver error of a connection (= QP): written as an MPA_ERROR completion, the QP goes to ERR. */
    public static final class MpaError extends HwBundle {
        public final QpRingsConfig config;
        public final UInt qp;
        /** The {@link rnic.wire.MpaErrorCode}. */
        public final UInt code;
        /** TCP sequence number where the error was found. */
        public final UInt seq;

        public MpaError(QpRingsConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            code = field("code", uint(8));
            seq = field("seq", uint(32));
        }
    }

    /** The rings moved a QP to an error state: the register block applies it and latches QP_ERROR. */
    public static final class QpError extends HwBundle {
        public final QpRingsConfig config;
        public final UInt qp;
        /** {@link rnic.wire.QpState} code: ERR or SQE. */
        public final UInt state;
        /** {@link rnic.wire.CqeKind} code of the cause. */
        public final UInt kind;
        /** The completion status ({@link rnic.wire.Cqe#STATUS}) of the cause. */
        public final UInt status;

        public QpError(QpRingsConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            state = field("state", uint(3));
            kind = field("kind", uint(8));
            status = field("status", uint(8));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final QpRingsConfig config;
        public final Axi4 axi;
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
        public final Stream<RdmapTxRequester.WorkRequest> requests;
        public final Stream<RdmapRxControl.RecvPost> recv;
        public final Stream<RdmapRxControl.Event> events;
        public final Stream<UInt> stagInvalidate;
        public final Flow<Bool> stagInvalidateDone;
        public final Stream<MpaError> mpaErrors;
        public final Flow<QpError> qpError;
        /** Sticky: a ring read or a completion write got an error response. */
        public final Bool memoryError;

        public Io(QpRingsConfig config) {
            this.config = config;
            QpRingsConfig c = config;
            DdpConfig d = c.ddp();
            int n = c.qpCount();
            int ib = QpRingsConfig.INDEX_BITS;
            int sb = QpRingsConfig.SIZE_BITS;
            axi = field("axi", MemoryPort.master(c.dataWidth()));
            state = field("state", in(perIndex(n, () -> uint(3))));
            sqBase = field("sqBase", in(perIndex(n, () -> uint(64))));
            sqSize = field("sqSize", in(perIndex(n, () -> uint(sb))));
            sqProd = field("sqProd", in(perIndex(n, () -> uint(ib))));
            sqCq = field("sqCq", in(perIndex(n, () -> uint(c.cqBits()))));
            rqBase = field("rqBase", in(perIndex(n, () -> uint(64))));
            rqSize = field("rqSize", in(perIndex(n, () -> uint(sb))));
            rqProd = field("rqProd", in(perIndex(n, () -> uint(ib))));
            rqCq = field("rqCq", in(perIndex(n, () -> uint(c.cqBits()))));
            clear = field("clear", in(perIndex(n, () -> bool())));
            sqCons = field("sqCons", out(perIndex(n, () -> uint(ib))));
            rqCons = field("rqCons", out(perIndex(n, () -> uint(ib))));
            cqBase = field("cqBase", in(perIndex(c.cqCount(), () -> uint(64))));
            cqSize = field("cqSize", in(perIndex(c.cqCount(), () -> uint(sb))));
            cqCons = field("cqCons", in(perIndex(c.cqCount(), () -> uint(ib))));
            cqProd = field("cqProd", out(perIndex(c.cqCount(), () -> uint(ib))));
            requests = field("requests", Streams.masterStream(() -> new RdmapTxRequester.WorkRequest(d)));
            recv = field("recv", Streams.masterStream(() -> new RdmapRxControl.RecvPost(d)));
            events = field("events", Streams.slaveStream(() -> new RdmapRxControl.Event(d)));
            stagInvalidate = field("stagInvalidate", Streams.masterStream(() -> uint(32)));
            stagInvalidateDone = field("stagInvalidateDone", spinal.lib.slave$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(spinal.core.Bool::new))));
            mpaErrors = field("mpaErrors", Streams.slaveStream(() -> new MpaError(c)));
            qpError = field("qpError", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new QpError(c)))));
            memoryError = field("memoryError", out(bool()));
        }
    }

    /** A Vec of {@code n} signals of one type (port element {@code i} becomes {@code <port>_i}). */
    static <T extends Data> Vec<T> perIndex(int n, Supplier<T> type) {
        List<T> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(type.get());
        }
        return vec(list);
    }

    public final QpRingsConfig config;
    public final Io io;

    public QpRings(DdpConfig ddp, int cqCount) {
        this(new QpRingsConfig(ddp, cqCount));
    }

    public QpRings(QpRingsConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        // Skeleton: ports only (filled in by the following commits).
        io.axi.setIdle();
        for (int q = 0; q < c.qpCount(); q++) {
            set(io.sqCons.apply(q), U(0, 16));
            set(io.rqCons.apply(q), U(0, 16));
        }
        for (int q = 0; q < c.cqCount(); q++) {
            set(io.cqProd.apply(q), U(0, 16));
        }
        io.requests.setIdle();
        io.recv.setIdle();
        io.stagInvalidate.setIdle();
        set(io.events.ready(), False());
        set(io.mpaErrors.ready(), False());
        io.qpError.setIdle();
        set(io.memoryError, False());
    }
}
