package rnic.wire;

/**
 * A send queue element in host memory: {@value #SIZE} octets per ring slot, fields little-endian at the offsets
 * below (the host's byte order; the core reads the slot in one burst). The driver writes the slot and then the
 * producer index ({@code QP_SQ_PROD}); the core reads it, starts the request and, when the request has completed,
 * advances {@code QP_SQ_CONS} past it and — when {@link #FLAG_SIGNALED} is set or it failed — writes a {@link Cqe}
 * whose {@code wrId} is the slot index. Reserved octets are written as 0.
 *
 * <pre>
 *  0 opcode (WqeOpcode)   1 flags   2 aop (AtomicOpcode)   3 reserved
 *  4 length (u32)                        8 localAddress (u64)
 * 16 localStag (u32, Read sink)         20 remoteStag (u32)
 * 24 localTo (u64, Read sink)           32 remoteTo (u64)
 * 40 invalidateStag (u32)               44 reserved
 * 48 data (u64: Immediate Data, Add Data, Swap Data)
 * 56 mask (u64: Add Mask, Swap Mask)    64 compareData (u64)   72 compareMask (u64)
 * 80 … 127 reserved
 * </pre>
 */
public final class SqWqe {
    private SqWqe() {
    }

    public static final int SIZE = 128;
    public static final int OPCODE = 0;
    public static final int FLAGS = 1;
    public static final int AOP = 2;
    public static final int LENGTH = 4;
    public static final int LOCAL_ADDRESS = 8;
    public static final int LOCAL_STAG = 16;
    public static final int REMOTE_STAG = 20;
    public static final int LOCAL_TO = 24;
    public static final int REMOTE_TO = 32;
    public static final int INVALIDATE_STAG = 40;
    public static final int DATA = 48;
    public static final int MASK = 56;
    public static final int COMPARE_DATA = 64;
    public static final int COMPARE_MASK = 72;

    /** Flags bit: write a completion when the request completes successfully. */
    public static final int FLAG_SIGNALED = 0x01;
    /** Flags bit: start only after every earlier request of the QP has completed (verbs IBV_SEND_FENCE). */
    public static final int FLAG_FENCE = 0x02;
}
