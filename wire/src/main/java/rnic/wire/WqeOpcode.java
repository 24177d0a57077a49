package rnic.wire;

/**
 * What a send work queue element asks for (octet {@link SqWqe#OPCODE}). Every code but {@link #LOCAL_INVALIDATE} is
 * the RDMAP opcode of the message the core sends (RFC 5040 §4.1, RFC 7306 §4.1), so the core needs no translation;
 * {@link #LOCAL_INVALIDATE} uses 0xF, which is reserved on the wire and never sent (RFC 6580).
 *
 * <p>Verbs that are not one message are composed by the driver: RDMA Write with Immediate is an RDMA Write followed
 * by an Immediate Data message (RFC 7306 §6); the unmasked atomics are the masked ones with neutral masks
 * (docs/requirements.md §2.7.3).
 */
public enum WqeOpcode {
    RDMA_WRITE(RdmapOpcode.RDMA_WRITE),
    RDMA_READ(RdmapOpcode.RDMA_READ_REQUEST),
    SEND(RdmapOpcode.SEND),
    SEND_WITH_INVALIDATE(RdmapOpcode.SEND_WITH_INVALIDATE),
    SEND_WITH_SE(RdmapOpcode.SEND_WITH_SE),
    SEND_WITH_SE_AND_INVALIDATE(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE),
    IMMEDIATE_DATA(RdmapOpcode.IMMEDIATE_DATA),
    IMMEDIATE_DATA_WITH_SE(RdmapOpcode.IMMEDIATE_DATA_WITH_SE),
    /** FetchAdd or CmpSwap, the Atomic Operation in octet {@link SqWqe#AOP}. */
    ATOMIC(RdmapOpcode.ATOMIC_REQUEST),
    /** Invalidates a local STag ({@link SqWqe#INVALIDATE_STAG}) once every earlier request of the QP completed. */
    LOCAL_INVALIDATE(null);

    /** The code of {@link #LOCAL_INVALIDATE}. */
    public static final int LOCAL_INVALIDATE_CODE = 0xF;

    private final RdmapOpcode rdmap;

    WqeOpcode(RdmapOpcode rdmap) {
        this.rdmap = rdmap;
    }

    /** The message opcode, or null for {@link #LOCAL_INVALIDATE}. */
    public RdmapOpcode rdmap() {
        return rdmap;
    }

    /** The value of octet {@link SqWqe#OPCODE}. */
    public int code() {
        return rdmap == null ? LOCAL_INVALIDATE_CODE : rdmap.code();
    }

    /** The opcode of a code. */
    public static WqeOpcode of(int code) {
        for (WqeOpcode o : values()) {
            if (o.code() == code) {
                return o;
            }
        }
        throw new IllegalArgumentException("no work queue opcode " + code);
    }
}
