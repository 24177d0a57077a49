package rnic.verbs;

import java.util.List;
import rnic.driver.CqeView;
import rnic.driver.MpaSettings;
import rnic.driver.QpContext;
import rnic.driver.RecvWqe;
import rnic.driver.Ring;
import rnic.driver.SendWqe;
import rnic.transport.TcpConnection;
import rnic.transport.Transport;
import rnic.wire.CqeKind;
import rnic.wire.QpState;
import rnic.wire.RdmapOpcode;
import rnic.wire.RqWqe;
import rnic.wire.SqWqe;
import rnic.wire.WqeOpcode;

/**
 * A queue pair (verbs {@code ibv_qp}): a send and a receive ring in host memory and the QP state of the core (IB
 * names, iWARP meanings: {@link QpState}). Its number is also the core's connection slot, an internal detail of the
 * connection manager.
 *
 * <p><b>Life cycle.</b> Created in INIT (rings, PD and CQs programmed in RESET, taken at RESET→INIT), so receives may
 * be posted before the connection exists. The connection manager ({@code rnic.cm}) binds it to a TCP connection when
 * the application connects or accepts: after the MPA startup it calls {@link #enterFullOperation}, which programs
 * QP_IRD/QP_ORD/QP_MPA/QP_EMSS/QP_RX_SEQ_START, moves INIT→RTR, posts the RFC 6581 RTR message if one was negotiated,
 * has the stream handed to the core at the octet after the startup frames, and moves RTR→RTS. Afterwards
 * {@link #modify} drives the host's transitions (RTS⇄SQD, SQE→RTS, any→ERR, any→RESET, RESET→INIT), checked with
 * {@link QpState#hostMayMoveTo}.
 *
 * <p><b>Errors.</b> A Terminate sent or received or an MPA error puts the QP into ERR in the core; the driver sees it
 * from the completion entry (reported as a {@link CompletionOpcode#QP_ERROR} completion with the mapped status) or
 * from QP_STATE ({@link #state()}), and then flushes: every work request not completed by the core (from QP_SQ_CONS /
 * QP_RQ_CONS up to the producer index) gets a {@link CompletionStatus#FLUSH_ERROR} completion, signaled or not; so
 * does every work request posted while the driver knows the QP is in ERR (verbs semantics; it never reaches the core).
 * The peer's FIN or RST ends the QP the same way: the transport marks the end of the TCP stream after its last octet
 * ({@code TcpRxBeat.fin}), the core places every FPDU before it and then fails the QP with E-M1 (MPA-41, DDP-28).
 *
 * <p><b>Posting.</b> Every check runs before anything is written: state (sends in RTS or SQD, receives from INIT to
 * SQE), local buffers against their memory regions (the core does not check local accesses), ORD for Reads and
 * Atomics, queue depth (refreshed from QP_SQ_CONS / QP_RQ_CONS when it looks full). A list is posted all or nothing,
 * with one doorbell. The core sees the slot index as the work request id; the driver keeps the 64-bit id per slot
 * until the slot's completion was polled.
 *
 * <p>Closing moves the QP to RESET, deregisters the memory regions bound to it and returns its rings.
 */
public final class QueuePair implements AutoCloseable {

    /**
     * How to create a queue pair.
     *
     * @param sendCq        completion queue of the send queue (also gets the QP's error entry)
     * @param recvCq        completion queue of the receive queue (may be the same)
     * @param sqDepth       send work requests outstanding at most (rounded up to a power of two; a Write with
     *                      Immediate takes two)
     * @param rqDepth       receive work requests posted at most (rounded up to a power of two)
     * @param maxInlineData largest inline payload
     * @param number        the QP number wanted, or -1 for the first free one
     */
    public record Config(CompletionQueue sendCq, CompletionQueue recvCq, int sqDepth, int rqDepth, int maxInlineData,
            int number) {

        public Config {
            if (sendCq == null || recvCq == null) {
                throw new IllegalArgumentException("both completion queues are needed");
            }
            int max = 1 << Ring.MAX_LOG2_SLOTS;
            if (sqDepth < 1 || sqDepth > max || rqDepth < 1 || rqDepth > max) {
                throw new IllegalArgumentException("queue depths are 1 … " + max + ": " + sqDepth + ", " + rqDepth);
            }
            if (maxInlineData < 0 || maxInlineData > 4096) {
                throw new IllegalArgumentException("inline data is 0 … 4096 octets, got " + maxInlineData);
            }
            if (number < -1 || number > 255) {
                throw new IllegalArgumentException("QP number is -1 (any) or 0 … 255, got " + number);
            }
        }

        /** 32 sends, 32 receives, 64 octets inline, any QP number. */
        public static Config of(CompletionQueue sendCq, CompletionQueue recvCq) {
            return new Config(sendCq, recvCq, 32, 32, 64, -1);
        }

        public Config withDepths(int sq, int rq) {
            return new Config(sendCq, recvCq, sq, rq, maxInlineData, number);
        }

        public Config withMaxInlineData(int octets) {
            return new Config(sendCq, recvCq, sqDepth, rqDepth, octets, number);
        }

        public Config withNumber(int qp) {
            return new Config(sendCq, recvCq, sqDepth, rqDepth, maxInlineData, qp);
        }
    }

    private final Device device;
    private final Transport transport;
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final int number;
    /** The TCP connection handed to this QP's slot, or null before Full Operation. */
    private TcpConnection tcp;
    private final QpContext ctx;
    private final DmaBuffer sqMemory;
    private final DmaBuffer rqMemory;
    private final DmaBuffer inlineMemory;
    private final Ring sq;
    private final Ring rq;
    private final int maxInline;
    private final int sendReserve;
    private final int recvReserve;

    private QpState state = QpState.RESET;
    private boolean closed;
    private boolean errorHandled;
    private Completion lastError;
    private int ird;
    private int ord;

    // send queue: free-running indices; tail ≤ done ≤ prod; slots in [tail, prod) are in use
    private int sqProd;
    private int sqTail;
    private int sqDone;
    private int sqFlushNext;
    private int sqFlushEnd;
    private final long[] sqWrId;
    private final WorkRequest.Operation[] sqOp;
    private final boolean[] sqHidden;
    /**
     * An unsignaled Local Invalidate: the core writes its completion all the same (a failure must reach the
     * application, and the slot's CQ room is then reserved like a signaled one's); shown only when it failed.
     */
    private final boolean[] sqQuiet;
    private final boolean[] sqAwait;
    private final long[] sqLength;
    private final int[] sqStag;

    // receive queue
    private int rqProd;
    private int rqTail;
    private int rqDone;
    private int rqFlushNext;
    private int rqFlushEnd;
    private final long[] rqWrId;
    private final boolean[] rqHidden;
    private final boolean[] rqAwait;

    private final SendWqe wqe = new SendWqe();
    private final byte[] sqSlot = new byte[SqWqe.SIZE];
    private final byte[] rqSlot = new byte[RqWqe.SIZE];
    private final byte[] inlineScratch;

    private QueuePair(ProtectionDomain pd, Config cfg, int sqLog2, int rqLog2) {
        this.device = pd.device();
        this.transport = device.transport();
        this.pd = pd;
        this.sendCq = cfg.sendCq();
        this.recvCq = cfg.recvCq();
        this.maxInline = cfg.maxInlineData();
        int sqSlots = 1 << sqLog2;
        int rqSlots = 1 << rqLog2;
        this.sendReserve = sqSlots + 1;
        this.recvReserve = rqSlots;
        this.number = device.allocateQueuePair(cfg.number(), this);
        this.ctx = new QpContext(device.registers(), number);
        DmaBuffer s = null;
        DmaBuffer r = null;
        DmaBuffer i = null;
        try {
            s = device.allocate((int) Ring.bytes(sqLog2, SqWqe.SIZE), 4096);
            r = device.allocate((int) Ring.bytes(rqLog2, RqWqe.SIZE), 4096);
            i = device.allocate(Math.max(64, sqSlots * maxInline), 64);
        } catch (RuntimeException e) {
            for (DmaBuffer b : new DmaBuffer[] {s, r, i}) {
                if (b != null) {
                    b.close();
                }
            }
            device.releaseQueuePair(number, this);
            throw e;
        }
        this.sqMemory = s;
        this.rqMemory = r;
        this.inlineMemory = i;
        this.sq = new Ring(transport, s.address(), sqLog2, SqWqe.SIZE);
        this.rq = new Ring(transport, r.address(), rqLog2, RqWqe.SIZE);
        this.inlineScratch = new byte[Math.max(1, maxInline)];
        sqWrId = new long[sqSlots];
        sqOp = new WorkRequest.Operation[sqSlots];
        sqHidden = new boolean[sqSlots];
        sqQuiet = new boolean[sqSlots];
        sqAwait = new boolean[sqSlots];
        sqLength = new long[sqSlots];
        sqStag = new int[sqSlots];
        rqWrId = new long[rqSlots];
        rqHidden = new boolean[rqSlots];
        rqAwait = new boolean[rqSlots];
    }

    static QueuePair create(ProtectionDomain pd, Config cfg) {
        Device device = pd.device();
        for (CompletionQueue cq : new CompletionQueue[] {cfg.sendCq(), cfg.recvCq()}) {
            cq.ensureOpen();
            if (cq.device() != device) {
                throw new IllegalArgumentException(cq + " belongs to another device");
            }
        }
        int sqLog2 = Ring.log2For(cfg.sqDepth());
        int rqLog2 = Ring.log2For(cfg.rqDepth());
        int sendNeed = (1 << sqLog2) + 1;
        int recvNeed = 1 << rqLog2;
        if (cfg.sendCq() == cfg.recvCq()) {
            cfg.sendCq().checkRoom(sendNeed + recvNeed);
        } else {
            cfg.sendCq().checkRoom(sendNeed);
            cfg.recvCq().checkRoom(recvNeed);
        }
        QueuePair qp = new QueuePair(pd, cfg, sqLog2, rqLog2);
        qp.sendCq.reserve(qp, qp.sendReserve);
        qp.recvCq.reserve(qp, qp.recvReserve);
        try {
            qp.ctx.moveTo(QpState.RESET);
            qp.configureAndInit();
        } catch (RuntimeException e) {
            qp.close();
            throw e;
        }
        return qp;
    }

    private void configureAndInit() {
        ctx.configure(pd.number(), sq, rq, sendCq.number(), recvCq.number());
        ctx.irdOrd(0, 0);
        moveOrFail(QpState.INIT);
    }

    // ---- Accessors -------------------------------------------------------------------------------------------------

    /** The QP number (verbs {@code qp_num}); the connection manager also uses it as the core's connection slot. */
    public int number() {
        return number;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    public CompletionQueue sendCompletionQueue() {
        return sendCq;
    }

    public CompletionQueue recvCompletionQueue() {
        return recvCq;
    }

    /** Send queue slots (a power of two ≥ the depth asked for). */
    public int sendQueueDepth() {
        return sq.slots();
    }

    public int recvQueueDepth() {
        return rq.slots();
    }

    /** Send queue slots free as far as the driver knows (without reading QP_SQ_CONS). */
    public int sendQueueFree() {
        return sq.slots() - (sqProd - sqTail);
    }

    public int recvQueueFree() {
        return rq.slots() - (rqProd - rqTail);
    }

    public int maxInlineData() {
        return maxInline;
    }

    /** The state the driver last saw (no register read). */
    public QpState cachedState() {
        return state;
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * What failed the QP: a copy of the completion that reported it, or, when the failure was seen only in QP_STATE,
     * one made from QP_ERROR (kind and status; a received Terminate's octets are then unknown). Null while the QP has
     * not failed, and when it went to ERR because the host asked.
     */
    public Completion error() {
        if (lastError != null) {
            Completion c = new Completion();
            c.copyFrom(lastError);
            return c;
        }
        if (state != QpState.ERR || closed) {
            return null;
        }
        int raw = ctx.error();
        CqeKind kind = CqeView.kind(QpContext.errorKind(raw));
        if (kind != CqeKind.TERMINATE_SENT && kind != CqeKind.TERMINATE_RECEIVED && kind != CqeKind.MPA_ERROR) {
            return null;
        }
        int status = QpContext.errorStatus(raw);
        Completion c = new Completion();
        c.reset(Completion.NO_WR_ID, CompletionStatus.of(kind, status, 0), CompletionOpcode.QP_ERROR, number);
        c.raw(kind, status, 0);
        return c;
    }

    void ensureOpen() {
        if (closed) {
            throw new ResourceClosedException("QP " + number + " is closed");
        }
        pd.ensureOpen();
    }

    // ---- State ---------------------------------------------------------------------------------------------------

    /** Reads QP_STATE; a QP the core moved to ERR is flushed from here on. */
    public QpState state() {
        ensureOpen();
        QpState s = ctx.state();
        observe(s);
        return s;
    }

    private void observe(QpState s) {
        if (s == QpState.ERR) {
            enterError();
        } else {
            state = s;
        }
    }

    /**
     * Requests a host transition: RTS⇄SQD, SQE→RTS, any→ERR (flushes), any→RESET (rings back to empty: poll the
     * completion queues first, entries of the core for the old requests then no longer match and count as stray),
     * RESET→INIT (rings programmed again). INIT→RTR→RTS belong to the connection manager
     * ({@link #enterFullOperation}), which programs the connection and hands the stream over at the exact octet.
     *
     * @throws WrongStateException when {@link QpState#hostMayMoveTo} forbids it, or for INIT→RTR / RTR→RTS
     * @throws DeviceException     when the core does not follow
     */
    public void modify(QpState target) {
        QpState now = state();
        if (now == target) {
            return;
        }
        if (!now.hostMayMoveTo(target)) {
            throw new WrongStateException(now, "QP " + number + ": " + now + " → " + target + " is not a host "
                    + "transition (RESET→INIT→RTR→RTS, RTS⇄SQD, SQE→RTS, any→ERR, any→RESET)");
        }
        if (target == QpState.RTR || target == QpState.RTS && now == QpState.RTR) {
            throw new WrongStateException(now, "QP " + number + ": INIT→RTR→RTS is done by rnic.cm (connect or "
                    + "accept), which programs the MPA settings and hands the TCP stream over at the exact octet");
        }
        switch (target) {
            case RESET -> {
                moveOrFail(QpState.RESET);
                clearSoftware();
            }
            case INIT -> configureAndInit();
            case ERR -> {
                ctx.moveTo(QpState.ERR);
                enterError();
            }
            default -> moveOrFail(target);
        }
    }

    private void moveOrFail(QpState target) {
        QpState s = ctx.moveTo(target);
        if (s == target) {
            if (s == QpState.ERR) {
                enterError();
            } else {
                state = s;
            }
            return;
        }
        observe(s);
        throw new DeviceException("QP " + number + " did not move to " + target + ": QP_STATE reads " + s);
    }

    private void clearSoftware() {
        sendCq.cancelFlush(this);
        recvCq.cancelFlush(this);
        sqProd = sqTail = sqDone = sqFlushNext = sqFlushEnd = 0;
        rqProd = rqTail = rqDone = rqFlushNext = rqFlushEnd = 0;
        java.util.Arrays.fill(sqAwait, false);
        java.util.Arrays.fill(sqHidden, false);
        java.util.Arrays.fill(rqAwait, false);
        java.util.Arrays.fill(rqHidden, false);
        errorHandled = false;
        lastError = null;
        ird = 0;
        ord = 0;
        state = QpState.RESET;
    }

    /** The QP is in ERR: nothing more completes in the core; every request not completed is flushed. */
    private void enterError() {
        state = QpState.ERR;
        if (errorHandled) {
            return;
        }
        errorHandled = true;
        // QP_SQ_CONS / QP_RQ_CONS are final once QP_STATE shows ERR
        for (int i = 0; i < QpContext.MAX_STATE_POLLS && ctx.state() != QpState.ERR; i++) {
            transport.advance();
        }
        sqDone = hardwareIndex(ctx.sqCons(), sqTail, sqDone, sqProd);
        rqDone = hardwareIndex(ctx.rqCons(), rqTail, rqDone, rqProd);
        sqFlushNext = sqDone;
        sqFlushEnd = sqProd;
        rqFlushNext = rqDone;
        rqFlushEnd = rqProd;
        if (sqFlushNext != sqFlushEnd) {
            sendCq.flush(this);
        }
        if (rqFlushNext != rqFlushEnd) {
            recvCq.flush(this);
        }
    }

    /** A 16-bit consumer register value as a free-running index in [done, prod]. */
    static int hardwareIndex(int reg, int tail, int done, int prod) {
        int index = tail + ((reg - tail) & 0xFFFF);
        if (index - prod > 0) {
            index = prod;
        }
        return index - done < 0 ? done : index;
    }

    // ---- Full Operation (driven by the connection manager, rnic.cm) ----------------------------------------------

    /**
     * Enters Full Operation with what the MPA startup agreed: programs QP_IRD/QP_ORD/QP_MPA/QP_EMSS/QP_RX_SEQ_START,
     * INIT→RTR, posts the driver's own receive for a zero-length Send RTR ({@code receiveSendRtr}, Responder) or the
     * RTR message itself ({@code rtr}, Initiator, MPA-50), hands {@code tcp} to the core's connection slot of this QP
     * at the octet after the startup frames (MPA-26; the QP keeps it, {@link #tcpConnection()}), and moves RTR→RTS. Called by {@code rnic.cm}, which owns the TCP
     * connection; applications connect through it.
     *
     * @return QP_MULPDU the core derived
     * @throws WrongStateException the QP is not in INIT (nothing written)
     * @throws DeviceException     the core did not enter RTR (the QP state is then {@link #cachedState()})
     */
    public int enterFullOperation(MpaSettings settings, WqeOpcode rtr, boolean receiveSendRtr, TcpConnection tcp) {
        QpState now = state();
        if (now != QpState.INIT) {
            throw new WrongStateException(now, "QP " + number + " must be in INIT to be connected, it is in " + now);
        }
        if (receiveSendRtr && rqProd != rqTail) {
            throw new InvalidRequestException("QP " + number + " cannot take a Send RTR: receive buffers of the "
                    + "application are posted and the RTR would consume the first");
        }
        ctx.program(settings);
        QpState s = ctx.moveTo(QpState.RTR);
        if (s != QpState.RTR) {
            observe(s);
            throw new DeviceException("QP " + number + " did not enter RTR (QP_STATE reads " + s + ")");
        }
        state = QpState.RTR;
        ird = settings.ird();
        ord = settings.ord();
        if (receiveSendRtr) {
            postHiddenReceive();
        }
        if (rtr != null) {
            postRtr(rtr);
        }
        tcp.handOver(number);
        this.tcp = tcp;
        moveOrFail(QpState.RTS);
        return ctx.mulpdu();
    }

    /**
     * The TCP connection this QP carries since it entered Full Operation (the connection manager hands it over), or
     * null before; its {@code closed()} / {@code peerFinished()} tell whether the peer ended it.
     */
    public TcpConnection tcpConnection() {
        return tcp;
    }

    /** Send work requests posted that the core has not completed yet (reads QP_SQ_CONS). */
    public int sendOutstanding() {
        ensureOpen();
        return (sqProd - hardwareIndex(ctx.sqCons(), sqTail, sqDone, sqProd));
    }

    /** Inbound Read/Atomic Requests the connection allows at once (QP_IRD; 0 before a connection). */
    public int ird() {
        return ird;
    }

    /** Outbound Read/Atomic Requests the connection allows outstanding (QP_ORD; 0 before a connection). */
    public int ord() {
        return ord;
    }

    /** The Initiator's RTR: a zero-length message of the negotiated form as the first FPDU (MPA-50). */
    private void postRtr(WqeOpcode op) {
        wqe.clear();
        wqe.opcode = op;
        writeSlot(0, null, true, 0, 0);
        ctx.sqDoorbell(sqProd);
    }

    /** The Responder's receive buffer for a zero-length Send RTR, consumed before any of the application's. */
    private void postHiddenReceive() {
        RecvWqe.encode(rqSlot, inlineMemory.address(), 0);
        int s = rq.slot(rqProd);
        rq.write(rqProd, rqSlot);
        rqWrId[s] = 0;
        rqHidden[s] = true;
        rqAwait[s] = true;
        rqProd++;
        ctx.rqDoorbell(rqProd);
    }

    // ---- Posting -------------------------------------------------------------------------------------------------

    /** Posts one send work request. */
    public void postSend(WorkRequest wr) {
        checkSend(wr);
        ensureSendRoom(wr.operation().slots());
        writeSend(wr);
        sendDoorbell();
    }

    /** Posts work requests in order, all or none, with one doorbell. */
    public void postSend(List<WorkRequest> wrs) {
        int slots = 0;
        for (WorkRequest wr : wrs) {
            checkSend(wr);
            slots += wr.operation().slots();
        }
        ensureSendRoom(slots);
        for (WorkRequest wr : wrs) {
            writeSend(wr);
        }
        sendDoorbell();
    }

    /** Posts one receive buffer. */
    public void postRecv(RecvRequest rr) {
        checkRecv(rr);
        ensureRecvRoom(1);
        writeRecv(rr);
        recvDoorbell();
    }

    /** Posts receive buffers in order, all or none, with one doorbell. */
    public void postRecv(List<RecvRequest> rrs) {
        for (RecvRequest rr : rrs) {
            checkRecv(rr);
        }
        ensureRecvRoom(rrs.size());
        for (RecvRequest rr : rrs) {
            writeRecv(rr);
        }
        recvDoorbell();
    }

    /**
     * Rings the send doorbell; in ERR (seen by the driver) the core takes no work request, so what was just posted is
     * flushed instead (verbs: a request posted to a QP in ERR completes with a flush error; DDP-27).
     */
    private void sendDoorbell() {
        if (state == QpState.ERR && errorHandled) {
            sqFlushEnd = sqProd;
            sendCq.flush(this);
        } else {
            ctx.sqDoorbell(sqProd);
        }
    }

    /** Rings the receive doorbell, or in ERR flushes what was just posted (see {@link #sendDoorbell}). */
    private void recvDoorbell() {
        if (state == QpState.ERR && errorHandled) {
            rqFlushEnd = rqProd;
            recvCq.flush(this);
        } else {
            ctx.rqDoorbell(rqProd);
        }
    }

    private void checkSend(WorkRequest wr) {
        ensureOpen();
        if (wr == null) {
            throw new IllegalArgumentException("work request is null");
        }
        if (state != QpState.RTS && state != QpState.SQD && !(state == QpState.ERR && errorHandled)) {
            throw new WrongStateException(state, "QP " + number + " is in " + state
                    + ": send work requests are posted in RTS (or SQD), and in ERR, where they are flushed");
        }
        WorkRequest.Operation op = wr.operation();
        Sge l = wr.local();
        if ((op == WorkRequest.Operation.RDMA_READ || op.atomic()) && ord == 0) {
            throw new InvalidRequestException("QP " + number + " has ORD 0: the connection allows no outstanding "
                    + "RDMA Read or Atomic (set rnic.cm.ConnectParams.withIrdOrd)");
        }
        if (op.carriesPayload()) {
            if (wr.inline()) {
                if (l.length() > maxInline) {
                    throw new InvalidRequestException("inline payload of " + l.length() + " octets, QP " + number
                            + " takes at most " + maxInline + " (QueuePair.Config.withMaxInlineData)");
                }
                if (l.region() != null) {
                    checkRegion(l, false, false, false);
                } else if (l.buffer() != null) {
                    if (l.buffer().device() != device) {
                        throw new LocalProtectionException(LocalProtectionException.Reason.WRONG_DEVICE,
                                op + ": inline source " + l + " is memory of another device");
                    }
                    l.buffer().check(l.offset(), l.length());
                }
            } else if (l.length() > 0) {
                if (l.region() == null) {
                    throw new LocalProtectionException(LocalProtectionException.Reason.NOT_REGISTERED,
                            op + ": " + l + " is not registered (register it, or post the request withInline())");
                }
                checkRegion(l, false, false, false);
            }
        } else if (op == WorkRequest.Operation.RDMA_READ) {
            if (l.length() > 0) {
                checkRegion(l, true, true, true);
            }
        } else if (op.atomic()) {
            checkRegion(l, true, false, false);
        }
    }

    private void checkRecv(RecvRequest rr) {
        ensureOpen();
        if (rr == null) {
            throw new IllegalArgumentException("receive request is null");
        }
        if (state == QpState.RESET) {
            throw new WrongStateException(state, "QP " + number + " is in " + state
                    + ": receive buffers are posted from INIT on (in ERR they are flushed)");
        }
        if (rr.buffer().length() > 0) {
            checkRegion(rr.buffer(), true, false, false);
        }
    }

    private void checkRegion(Sge l, boolean localWrite, boolean remoteWrite, boolean placedThroughStag) {
        MemoryRegion mr = l.region();
        LocalProtectionException.Reason reason = null;
        String why = null;
        if (mr.isClosed()) {
            reason = LocalProtectionException.Reason.NOT_REGISTERED;
            why = "was deregistered";
        } else if (mr.protectionDomain().device() != device) {
            reason = LocalProtectionException.Reason.WRONG_DEVICE;
            why = "belongs to another device";
        } else if (mr.protectionDomain() != pd) {
            reason = LocalProtectionException.Reason.WRONG_PD;
            why = "belongs to protection domain " + mr.protectionDomain().number() + ", QP " + number + " to "
                    + pd.number();
        } else if (placedThroughStag && mr.boundTo() != null && mr.boundTo() != this) {
            reason = LocalProtectionException.Reason.WRONG_PD;
            why = "is bound to QP " + mr.boundTo().number() + ", so the Read Response on QP " + number
                    + " could not be placed (E-D5)";
        } else if (!mr.isValid()) {
            reason = LocalProtectionException.Reason.INVALIDATED;
            why = "was invalidated (register it again)";
        } else if (l.offset() + l.length() > mr.length()) {
            reason = LocalProtectionException.Reason.OUT_OF_RANGE;
            why = "holds " + mr.length() + " octets, the request needs " + l.offset() + " … "
                    + (l.offset() + l.length());
        } else if (localWrite && !mr.access().contains(Access.LOCAL_WRITE)) {
            reason = LocalProtectionException.Reason.MISSING_ACCESS;
            why = "lacks LOCAL_WRITE (the device writes this buffer)";
        } else if (remoteWrite && !mr.access().contains(Access.REMOTE_WRITE)) {
            reason = LocalProtectionException.Reason.MISSING_ACCESS;
            why = "lacks REMOTE_WRITE (an RDMA Read sink is placed through its STag, RFC 5040 §4.5)";
        }
        if (reason != null) {
            throw new LocalProtectionException(reason, "QP " + number + ": " + mr + " " + why);
        }
    }

    private void ensureSendRoom(int slots) {
        if (sendQueueFree() < slots) {
            sqDone = hardwareIndex(ctx.sqCons(), sqTail, sqDone, sqProd);
            advanceSqTail();
        }
        if (sendQueueFree() < slots) {
            throw new QueueFullException("send queue of QP " + number + " is full: " + (sqProd - sqTail) + " of "
                    + sq.slots() + " slots in use, " + slots + " needed; poll its completions (a signaled request's "
                    + "slot is free once its completion was polled)");
        }
    }

    private void ensureRecvRoom(int n) {
        if (recvQueueFree() < n) {
            rqDone = hardwareIndex(ctx.rqCons(), rqTail, rqDone, rqProd);
            advanceRqTail();
        }
        if (recvQueueFree() < n) {
            throw new QueueFullException("receive queue of QP " + number + " is full: " + (rqProd - rqTail) + " of "
                    + rq.slots() + " slots in use, " + n + " needed; poll its completions");
        }
    }

    private void writeSend(WorkRequest wr) {
        WorkRequest.Operation op = wr.operation();
        long source = op.carriesPayload() ? source(wr) : 0;
        long length = op == WorkRequest.Operation.SEND_WITH_IMMEDIATE ? 0
                : op.atomic() ? WorkRequest.ATOMIC_SIZE : wr.local().length();
        WqeEncoder.encode(wr, 0, source, wqe);
        if (op == WorkRequest.Operation.RDMA_WRITE_WITH_IMMEDIATE) {
            // the Write's slot reports nothing; the Immediate Data's slot reports the work request
            writeSlot(wr.wrId(), op, true, length, 0);
            WqeEncoder.encode(wr, 1, source, wqe);
        }
        writeSlot(wr.wrId(), op, false, length, wr.invalidateStag());
    }

    /** The address the core reads a payload from: the inline copy, or the registered buffer. */
    private long source(WorkRequest wr) {
        Sge l = wr.local();
        if (!wr.inline() || l.length() == 0) {
            return l.address();
        }
        long dst = inlineMemory.address() + (long) sq.slot(sqProd) * maxInline;
        if (l.heapBytes() != null) {
            transport.write(dst, l.heapBytes(), 0, l.length());
        } else {
            transport.read(l.address(), inlineScratch, 0, l.length());
            transport.write(dst, inlineScratch, 0, l.length());
        }
        return dst;
    }

    /** Writes {@link #wqe} at the producer index with its bookkeeping. */
    private void writeSlot(long wrId, WorkRequest.Operation op, boolean hidden, long length, int stag) {
        int s = sq.slot(sqProd);
        wqe.encode(sqSlot);
        sq.write(sqProd, sqSlot);
        sqWrId[s] = wrId;
        sqOp[s] = op;
        sqHidden[s] = hidden || op == null;
        boolean signaled = (wqe.flags & SqWqe.FLAG_SIGNALED) != 0;
        sqQuiet[s] = op == WorkRequest.Operation.LOCAL_INVALIDATE && !signaled;
        sqAwait[s] = signaled || sqQuiet[s];
        sqLength[s] = length;
        sqStag[s] = stag;
        sqProd++;
    }

    private void writeRecv(RecvRequest rr) {
        Sge b = rr.buffer();
        RecvWqe.encode(rqSlot, b.address(), b.length());
        int s = rq.slot(rqProd);
        rq.write(rqProd, rqSlot);
        rqWrId[s] = rr.wrId();
        rqHidden[s] = false;
        rqAwait[s] = true;
        rqProd++;
    }

    private void advanceSqTail() {
        while (sqTail != sqDone && !sqAwait[sq.slot(sqTail)]) {
            sqTail++;
        }
    }

    private void advanceRqTail() {
        while (rqTail != rqDone && !rqAwait[rq.slot(rqTail)]) {
            rqTail++;
        }
    }

    // ---- Completions (called by CompletionQueue.poll) -------------------------------------------------------------

    /**
     * Turns a completion entry of this QP into {@code c}.
     *
     * @return false when there is nothing to report (a hidden slot, or an entry for a request already flushed)
     */
    boolean complete(CqeView v, Completion c, CompletionQueue cq) {
        CqeKind kind = v.kindOrNull();
        if (kind == null) {
            c.reset(Completion.NO_WR_ID, CompletionStatus.LOCAL_QP_OPERATION_ERROR, CompletionOpcode.QP_ERROR,
                    number);
            c.raw(null, v.status, v.info);
            return true;
        }
        switch (kind) {
            case TERMINATE_RECEIVED, TERMINATE_SENT, MPA_ERROR -> {
                c.reset(Completion.NO_WR_ID, CompletionStatus.of(kind, v.status, v.info), CompletionOpcode.QP_ERROR,
                        number);
                c.raw(kind, v.status, v.info);
                if (lastError == null) {
                    lastError = new Completion();
                    lastError.copyFrom(c);
                }
                enterError();
                return true;
            }
            case RECEIVE, RECEIVE_IMMEDIATE -> {
                return completeRecv(v, kind, c, cq);
            }
            default -> {
                return completeSend(v, kind, c, cq);
            }
        }
    }

    private boolean completeSend(CqeView v, CqeKind kind, Completion c, CompletionQueue cq) {
        int index = sqTail + ((v.wrId - sqTail) & (sq.slots() - 1));
        int s = sq.slot(index);
        boolean flushed = errorHandled && index - sqDone >= 0;
        if (index - sqProd >= 0 || index - sqDone < 0 && !sqAwait[s] || flushed) {
            cq.stray();
            return false;
        }
        if (index - sqDone >= 0) {
            sqDone = index + 1; // completions come in order (RDMAP-23): every earlier request is done
        }
        sqAwait[s] = false;
        CompletionStatus status = CompletionStatus.of(kind, v.status, v.info);
        boolean hidden = sqHidden[s] || sqQuiet[s] && status.ok();
        WorkRequest.Operation op = sqOp[s];
        long wrId = sqWrId[s];
        long length = sqLength[s];
        int stag = sqStag[s];
        advanceSqTail();
        if (kind == CqeKind.LOCAL_INVALIDATE_DONE && status.ok()) {
            device.invalidated(stag);
        }
        if (hidden) {
            return false;
        }
        c.reset(wrId, status, op.completionOpcode(), number);
        c.raw(kind, v.status, v.info);
        switch (kind) {
            case READ_DONE -> c.byteLength(v.length);
            case ATOMIC_DONE -> {
                c.byteLength(WorkRequest.ATOMIC_SIZE);
                c.atomicOriginal(v.info);
            }
            case LOCAL_INVALIDATE_DONE -> c.invalidatedStag(stag);
            default -> c.byteLength(length);
        }
        return true;
    }

    private boolean completeRecv(CqeView v, CqeKind kind, Completion c, CompletionQueue cq) {
        int index = rqTail + ((v.wrId - rqTail) & (rq.slots() - 1));
        int s = rq.slot(index);
        boolean flushed = errorHandled && index - rqDone >= 0;
        if (index - rqProd >= 0 || !rqAwait[s] || flushed) {
            cq.stray();
            return false;
        }
        if (index - rqDone >= 0) {
            rqDone = index + 1;
        }
        rqAwait[s] = false;
        boolean hidden = rqHidden[s];
        long wrId = rqWrId[s];
        advanceRqTail();
        if (hidden) {
            return false;
        }
        RdmapOpcode op = v.rdmapOpcode();
        c.reset(wrId, CompletionStatus.of(kind, v.status, v.info),
                kind == CqeKind.RECEIVE ? CompletionOpcode.RECV : CompletionOpcode.RECV_IMMEDIATE, number);
        c.raw(kind, v.status, v.info);
        c.solicited(op != null && op.solicitedEvent());
        if (kind == CqeKind.RECEIVE) {
            c.byteLength(v.length & 0xFFFF_FFFFL);
            if (op != null && op.invalidates()) {
                c.invalidatedStag(v.stag);
                device.invalidated(v.stag);
            }
        } else {
            c.immediate(v.info);
        }
        return true;
    }

    /**
     * The next flush completion of this QP for {@code cq}.
     *
     * @return false when this QP has none left for it
     */
    boolean nextFlush(CompletionQueue cq, Completion c) {
        if (cq == sendCq) {
            while (sqFlushNext != sqFlushEnd) {
                int s = sq.slot(sqFlushNext++);
                sqAwait[s] = false;
                if (sqFlushNext == sqFlushEnd) {
                    sqDone = sqFlushEnd;
                    advanceSqTail();
                }
                if (!sqHidden[s]) {
                    c.reset(sqWrId[s], CompletionStatus.FLUSH_ERROR, sqOp[s].completionOpcode(), number);
                    return true;
                }
            }
        }
        if (cq == recvCq) {
            while (rqFlushNext != rqFlushEnd) {
                int s = rq.slot(rqFlushNext++);
                rqAwait[s] = false;
                if (rqFlushNext == rqFlushEnd) {
                    rqDone = rqFlushEnd;
                    advanceRqTail();
                }
                if (!rqHidden[s]) {
                    c.reset(rqWrId[s], CompletionStatus.FLUSH_ERROR, CompletionOpcode.RECV, number);
                    return true;
                }
            }
        }
        return false;
    }

    // ---- Close ---------------------------------------------------------------------------------------------------

    /** Moves the QP to RESET, deregisters the regions bound to it, returns its rings. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        for (MemoryRegion mr : List.copyOf(pd.regionsBoundTo(this))) {
            mr.close();
        }
        closed = true;
        try {
            if (ctx.state() != QpState.RESET) {
                ctx.moveTo(QpState.RESET);
            }
        } finally {
            sendCq.release(this, sendReserve);
            recvCq.release(this, recvReserve);
            sqMemory.close();
            rqMemory.close();
            inlineMemory.close();
            device.releaseQueuePair(number, this);
            pd.forget(this);
        }
    }

    @Override
    public String toString() {
        return "QP[" + number + ", " + state + ", SQ " + (sqProd - sqTail) + "/" + sq.slots() + ", RQ "
                + (rqProd - rqTail) + "/" + rq.slots() + (closed ? ", closed" : "") + "]";
    }
}
