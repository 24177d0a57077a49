package rnic.wire;

/**
 * A completion queue entry the core writes into host memory: {@value #SIZE} octets per ring slot, little-endian,
 * written in one burst with {@link #OWNER} last. The entry is new when bit 0 of {@link #OWNER} equals the ring's
 * current phase: 1 on the first pass through the ring, flipped at every wrap, so the host never has to clear slots.
 *
 * <pre>
 *  0 wrId (u32: SQ or RQ slot index; 0xFFFFFFFF when no request)   4 length (u32)
 *  8 info (u64: Immediate Data, original atomic value, Terminate octets 0–7, MPA error sequence number)
 * 16 stag (u32: STag a Send with Invalidate invalidated)   20 qp   21 kind (CqeKind)   22 status   23 opcode
 * 24 … 30 reserved   31 owner (bit 0 = phase)
 * </pre>
 *
 * {@link #STATUS} is 0 for success, else the cause: for {@link CqeKind#TERMINATE_SENT}
 * {@code TerminateCause.ordinal() + 1}, for {@link CqeKind#MPA_ERROR} the {@link MpaErrorCode}; a send queue
 * element the core could not carry out completes with one of the {@code STATUS_*} codes below (from 0x80 on, apart
 * from every Terminate cause).
 *
 * <p>{@link #WR_ID} of a send or receive queue completion is the element's slot: its ring index mod 2^size.
 */
public final class Cqe {
    private Cqe() {
    }

    public static final int SIZE = 32;
    public static final int WR_ID = 0;
    public static final int LENGTH = 4;
    public static final int INFO = 8;
    public static final int STAG = 16;
    public static final int QP = 20;
    public static final int KIND = 21;
    public static final int STATUS = 22;
    public static final int OPCODE = 23;
    public static final int OWNER = 31;

    /** {@link #STATUS} of a completion without error. */
    public static final int STATUS_SUCCESS = 0;
    /**
     * {@link #STATUS} of a send queue element whose opcode is no {@link WqeOpcode} (kind {@link CqeKind#SEND_DONE},
     * opcode octet = the element's opcode, low 4 bits): the QP moved to SQE; the send queue resumes after it when the
     * host moves the QP back to RTS.
     */
    public static final int STATUS_BAD_OPCODE = 0x80;
    /**
     * As {@link #STATUS_BAD_OPCODE}, but reading the element from host memory failed (an AXI error response); the
     * opcode octet is 0.
     */
    public static final int STATUS_WQE_READ_ERROR = 0x81;
    /**
     * {@link #STATUS} of a {@link CqeKind#LOCAL_INVALIDATE_DONE} whose STag was not valid (or its key did not match):
     * nothing was invalidated; the QP stays in its state.
     */
    public static final int STATUS_INVALIDATE_FAILED = 0x82;

    /** {@link #WR_ID} of an entry that belongs to no work request. */
    public static final int NO_WR_ID = 0xFFFFFFFF;
}
