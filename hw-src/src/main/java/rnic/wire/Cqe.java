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
 * {@code TerminateCause.ordinal() + 1}, for {@link CqeKind#MPA_ERROR} the {@link MpaErrorCode}.
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

    /** {@link #WR_ID} of an entry that belongs to no work request. */
    public static final int NO_WR_ID = 0xFFFFFFFF;
}
