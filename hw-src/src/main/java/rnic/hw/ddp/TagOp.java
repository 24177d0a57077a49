package rnic.hw.ddp;

/**
 * What a {@link DdpTagValidator} check is for, with its 2-bit code on the {@code check_op} port. Each kind of remote
 * access needs its own right and reports its faults with its own Terminate (T-17, see {@link TagFault#cause}).
 */
public enum TagOp {
    /**
     * Placement of a tagged DDP segment (RDMA Write, Read Response) of {@code length} octets: needs the remote-write
     * right (DDP-30, E-D1 … E-D6). A zero-length segment is not checked (DDP-19).
     */
    PLACE(0),
    /**
     * The source of an inbound Read Request of RDMARDSZ = {@code length} octets: needs the remote-read right
     * (RDMAP-19, E-R1 … E-R5). RDMARDSZ = 0 is not checked (RDMAP-09).
     */
    READ(1),
    /**
     * The 8-octet target of an Atomic Request: needs the remote-atomic right (RDMAP-44, E-R18), and its host address
     * must be 64-bit aligned (RDMAP-34, E-R16). The {@code length} port is ignored.
     */
    ATOMIC(2),
    /**
     * The remote invalidation a Send with (SE and) Invalidate asks for (RDMAP-13, E-R6): on success the STag is no
     * longer valid for every later check. {@code to} and {@code length} are ignored.
     */
    INVALIDATE(3);

    private final int code;

    TagOp(int code) {
        this.code = code;
    }

    /** The value on the 2-bit {@code op} field. */
    public int code() {
        return code;
    }

    /** The operation with 2-bit code {@code code}. */
    public static TagOp fromCode(int code) {
        for (TagOp op : values()) {
            if (op.code == code) {
                return op;
            }
        }
        throw new IllegalArgumentException("no tag operation has code " + code);
    }
}
