package rnic.driver;

import static rnic.driver.RnicRegs.*;

import rnic.wire.QpState;

/**
 * The register block of one queue pair: configuration written in RESET/INIT, the state register, the doorbells and
 * the consumer indices (issue 5 contract, block QP q at QP_BASE + q * QP_STRIDE).
 */
public final class QpContext {
    /** State reads after a request before the core counts as not following it. */
    public static final int MAX_STATE_POLLS = 10_000;

    private final Registers regs;
    private final int qp;

    public QpContext(Registers regs, int qp) {
        this.regs = regs;
        this.qp = qp;
    }

    public int number() {
        return qp;
    }

    private int reg(int offset) {
        return Registers.qp(qp, offset);
    }

    /** Whether the block's QP_TYPE reads "QP  ". */
    public boolean present() {
        return Registers.typeIs(regs.read(reg(QP_TYPE)), "QP  ");
    }

    /** Rings, PD and CQs, taken by the core at RESET→INIT. */
    public void configure(int pd, Ring sq, Ring rq, int sqCq, int rqCq) {
        regs.write(reg(QP_PD), pd);
        regs.write(reg(QP_SQ_BASE_LO), (int) sq.address());
        regs.write(reg(QP_SQ_BASE_HI), (int) (sq.address() >>> 32));
        regs.write(reg(QP_SQ_SIZE), sq.log2Slots());
        regs.write(reg(QP_RQ_BASE_LO), (int) rq.address());
        regs.write(reg(QP_RQ_BASE_HI), (int) (rq.address() >>> 32));
        regs.write(reg(QP_RQ_SIZE), rq.log2Slots());
        regs.write(reg(QP_SQ_CQ), sqCq);
        regs.write(reg(QP_RQ_CQ), rqCq);
    }

    /** IRD and ORD alone (before a connection exists; the connection setup writes them again). */
    public void irdOrd(int ird, int ord) {
        regs.write(reg(QP_IRD), ird);
        regs.write(reg(QP_ORD), ord);
    }

    /** The negotiated connection, written in INIT and taken by the core at INIT→RTR. */
    public void program(MpaSettings s) {
        irdOrd(s.ird(), s.ord());
        regs.write(reg(QP_MPA), Registers.flag(s.txMarkers(), QP_MPA_TX_MARKERS_MASK)
                | Registers.flag(s.rxMarkers(), QP_MPA_RX_MARKERS_MASK)
                | Registers.flag(s.crc(), QP_MPA_CRC_MASK)
                | Registers.flag(s.holdTxUntilRx(), QP_MPA_HOLD_TX_UNTIL_RX_MASK));
        regs.write(reg(QP_EMSS), s.emss());
        regs.write(reg(QP_RX_SEQ_START), (int) s.rxSeqStart());
    }

    /** The current state (QP_STATE). */
    public QpState state() {
        return QpState.of(regs.read(reg(QP_STATE)) & 0x7);
    }

    /**
     * Requests {@code target} and reads QP_STATE until it shows it, or ERR (the core failed the QP meanwhile), or
     * {@link #MAX_STATE_POLLS} reads passed.
     *
     * @return the state last read
     */
    public QpState moveTo(QpState target) {
        regs.write(reg(QP_STATE), target.code());
        QpState now = state();
        for (int i = 0; i < MAX_STATE_POLLS && now != target && now != QpState.ERR; i++) {
            regs.transport().advance();
            now = state();
        }
        return now;
    }

    /** Send queue doorbell: the producer index (free-running, 16 bits). */
    public void sqDoorbell(int prod) {
        regs.write(reg(QP_SQ_PROD), prod & 0xFFFF);
    }

    /** Receive queue doorbell. */
    public void rqDoorbell(int prod) {
        regs.write(reg(QP_RQ_PROD), prod & 0xFFFF);
    }

    /** Send requests completed by the core so far (QP_SQ_CONS, 16 bits). */
    public int sqCons() {
        return regs.read(reg(QP_SQ_CONS)) & 0xFFFF;
    }

    /** Receive requests completed by the core so far (QP_RQ_CONS, 16 bits). */
    public int rqCons() {
        return regs.read(reg(QP_RQ_CONS)) & 0xFFFF;
    }

    /** QP_ERROR: the CqeKind code of what failed the QP. */
    public static int errorKind(int value) {
        return Registers.field(value, QP_ERROR_KIND_SHIFT, QP_ERROR_KIND_MASK);
    }

    /** QP_ERROR: the status of what failed the QP. */
    public static int errorStatus(int value) {
        return Registers.field(value, QP_ERROR_STATUS_SHIFT, QP_ERROR_STATUS_MASK);
    }

    /** The raw QP_ERROR value. */
    public int error() {
        return regs.read(reg(QP_ERROR));
    }

    /** QP_MULPDU, derived by the core from QP_EMSS and the markers (§2.3.4). */
    public int mulpdu() {
        return regs.read(reg(QP_MULPDU));
    }
}
