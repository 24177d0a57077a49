package rnic.wire;

/**
 * The state of a queue pair as the host and the core both see it (register {@code QP_STATE}). The names are the
 * InfiniBand verbs ones every RDMA programmer knows; the meanings are iWARP's (RFC 5040 §5, §6; docs/requirements.md
 * RDMAP-18, DDP-26…28):
 *
 * <ul>
 *   <li>{@link #RESET}: no connection; the QP's MPA framer/deframer, ring indices and receive state are cleared.
 *   <li>{@link #INIT}: rings and PD set; receive buffers may be posted (they are not consumed yet).
 *   <li>{@link #RTR}: the MPA Request/Reply exchange is over; the connection's receive direction is in Full
 *       Operation from {@code QP_RX_SEQ_START} (MPA-26) and the DDP stream is open: inbound segments are placed.
 *   <li>{@link #RTS}: the send queue is processed: FPDUs go out (the first Full-Operation octet of the transmit
 *       direction is the first octet after the startup frames the host sent).
 *   <li>{@link #SQD}: send queue drained: no further work request is started, the ones started complete.
 *   <li>{@link #SQE}: a local error in a send work request (e.g. an unknown opcode in the ring): the send queue stops,
 *       the receive side goes on. Back to {@link #RTS} by the host.
 *   <li>{@link #ERR}: the stream is dead (RFC 5040 §5.4): a Terminate was sent or received, the MPA receiver failed, or
 *       the host asked for it. Nothing is sent or placed; the host flushes the queues; only {@link #RESET} leaves it.
 * </ul>
 */
public enum QpState {
    RESET(0),
    INIT(1),
    RTR(2),
    RTS(3),
    SQD(4),
    SQE(5),
    ERR(6);

    private final int code;

    QpState(int code) {
        this.code = code;
    }

    /** The value of register {@code QP_STATE}. */
    public int code() {
        return code;
    }

    /** The state of a {@code QP_STATE} value. */
    public static QpState of(int code) {
        for (QpState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException("no QP state " + code);
    }

    /**
     * Whether the host may move a QP from this state to {@code to}: RESET→INIT→RTR→RTS, RTS⇄SQD, SQE→RTS, any→ERR,
     * any→RESET (the hardware applies the same rule and ignores any other request).
     */
    public boolean hostMayMoveTo(QpState to) {
        return switch (to) {
            case RESET, ERR -> true;
            case INIT -> this == RESET;
            case RTR -> this == INIT;
            case RTS -> this == RTR || this == SQD || this == SQE;
            case SQD -> this == RTS;
            case SQE -> false;
        };
    }
}
