package rnic.model.rdmap;

import java.nio.ByteBuffer;
import rnic.model.ddp.TerminateException;
import rnic.wire.AtomicOpcode;
import rnic.wire.Rdmap;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * An Atomic Request, whose DDP message is exactly its 52-octet header (RFC 7306 §5.2.1 Fig. 4, docs/requirements.md §2.7.3,
 * RDMAP-30, RDMAP-31). It travels untagged on QN 1, sharing MSNs and IRD/ORD with Read Requests.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                    Reserved (28)                      |AOpCode|
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                      Request Identifier                       |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                         Remote STag                           |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Remote Tagged Offset (64)                    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Add or Swap Data (64)                        |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Add or Swap Mask (64)                        |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Compare Data (64)                            |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                  Compare Mask (64)                            |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * The Reserved bits are sent as zero and ignored on receive. The arithmetic is {@code AtomicAlu}'s, not this class's.
 *
 * @param aOpCode       FetchAdd or CmpSwap
 * @param requestId     chosen by the requester, echoed in the Atomic Response
 * @param remoteStag    target STag
 * @param remoteTo      target Tagged Offset (a 64-bit-aligned address, RDMAP-34)
 * @param addOrSwapData Add Data or Swap Data
 * @param addOrSwapMask Add Mask or Swap Mask
 * @param compareData   Compare Data (a FetchAdd sends 0)
 * @param compareMask   Compare Mask (a FetchAdd sends all ones)
 */
public record AtomicRequest(AtomicOpcode aOpCode, int requestId, int remoteStag, long remoteTo, long addOrSwapData,
        long addOrSwapMask, long compareData, long compareMask) implements RdmapMessage {

    /** The AOpCode field: the low nibble of the first word. */
    private static final int AOPCODE_MASK = 0x0F;

    /** A FetchAdd with the unused compare fields as §2.7.3 has them sent: 0 and all ones. */
    public static AtomicRequest fetchAdd(int requestId, int remoteStag, long remoteTo, long addData, long addMask) {
        return new AtomicRequest(AtomicOpcode.FETCH_ADD, requestId, remoteStag, remoteTo, addData, addMask, 0, -1L);
    }

    /** A CmpSwap. */
    public static AtomicRequest cmpSwap(int requestId, int remoteStag, long remoteTo, long swapData, long swapMask,
            long compareData, long compareMask) {
        return new AtomicRequest(AtomicOpcode.CMP_SWAP, requestId, remoteStag, remoteTo, swapData, swapMask,
                compareData, compareMask);
    }

    @Override
    public RdmapOpcode opcode() {
        return RdmapOpcode.ATOMIC_REQUEST;
    }

    @Override
    public int ddpPayloadLength() {
        return Rdmap.ATOMIC_REQUEST_HEADER_SIZE;
    }

    @Override
    public void writeTo(ByteBuffer b) {
        b.putInt(aOpCode.code()).putInt(requestId).putInt(remoteStag).putLong(remoteTo).putLong(addOrSwapData)
                .putLong(addOrSwapMask).putLong(compareData).putLong(compareMask);
    }

    /**
     * Reads the 52 octets at the buffer's position. An AOpCode that is Reserved (0x1) or unassigned (0x3–0xF) is
     * {@link TerminateCause#ATOMIC_UNSUPPORTED_OPCODE} (RDMAP-30, E-R17).
     */
    static AtomicRequest read(ByteBuffer b) throws TerminateException {
        int code = b.getInt() & AOPCODE_MASK;
        AtomicOpcode op = null;
        for (AtomicOpcode o : AtomicOpcode.values()) {
            if (o.code() == code) {
                op = o;
            }
        }
        if (op == null) {
            throw new TerminateException(TerminateCause.ATOMIC_UNSUPPORTED_OPCODE,
                    "AOpCode 0x" + Integer.toHexString(code));
        }
        return new AtomicRequest(op, b.getInt(), b.getInt(), b.getLong(), b.getLong(), b.getLong(), b.getLong(),
                b.getLong());
    }

    @Override
    public String toString() {
        return String.format("AtomicRequest[%s id=%08x target=%08x/%016x data=%016x mask=%016x cmp=%016x/%016x]",
                aOpCode, requestId, remoteStag, remoteTo, addOrSwapData, addOrSwapMask, compareData, compareMask);
    }
}
