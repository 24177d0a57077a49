package rnic.wire;

/**
 * What a {@link Cqe} reports (octet {@link Cqe#KIND}). Codes 0–6 are the RDMAP engine's event kinds
 * ({@code rnic.hw.rdmap.RxEventKind}) unchanged; 7 and 8 come from the QP layer of the core.
 */
public enum CqeKind {
    /** A Send (any of the four) arrived into the receive buffer of slot {@code wrId}; receive queue. */
    RECEIVE(0, false),
    /** Immediate Data arrived; {@code info} holds it; receive queue. */
    RECEIVE_IMMEDIATE(1, false),
    /** An RDMA Read completed. */
    READ_DONE(2, true),
    /** An Atomic completed; {@code info} holds the original value. */
    ATOMIC_DONE(3, true),
    /** The peer sent a Terminate; {@code info} holds its octets 0–7; the QP is in ERR. */
    TERMINATE_RECEIVED(4, true),
    /** This side sent a Terminate; {@code status} is the cause; the QP is in ERR. */
    TERMINATE_SENT(5, true),
    /** A Write, Send (any) or Immediate Data went out. */
    SEND_DONE(6, true),
    /** A local invalidate completed. */
    LOCAL_INVALIDATE_DONE(7, true),
    /** The MPA receiver failed ({@code status}: MpaErrorCode, {@code info}: sequence number); the QP is in ERR. */
    MPA_ERROR(8, true);

    private final int code;
    private final boolean sendQueue;

    CqeKind(int code, boolean sendQueue) {
        this.code = code;
        this.sendQueue = sendQueue;
    }

    /** The value of octet {@link Cqe#KIND}. */
    public int code() {
        return code;
    }

    /** Whether the entry goes to the completion queue of the QP's send queue (else its receive queue's). */
    public boolean sendQueue() {
        return sendQueue;
    }

    /** The kind of a code. */
    public static CqeKind of(int code) {
        for (CqeKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        throw new IllegalArgumentException("no completion kind " + code);
    }
}
