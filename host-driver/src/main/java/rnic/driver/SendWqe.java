package rnic.driver;

import java.util.Arrays;
import rnic.wire.AtomicOpcode;
import rnic.wire.SqWqe;
import rnic.wire.WqeOpcode;

/**
 * A send queue element being built: the fields of {@link SqWqe} by name, encoded little-endian into a ring slot with
 * every reserved octet 0. One instance per send queue is reused for every post (no allocation while posting).
 */
public final class SendWqe {
    public WqeOpcode opcode = WqeOpcode.SEND;
    /** {@link SqWqe#FLAG_SIGNALED} | {@link SqWqe#FLAG_FENCE}. */
    public int flags;
    /** Atomic Operation (FetchAdd / CmpSwap), for {@link WqeOpcode#ATOMIC} only. */
    public AtomicOpcode aop;
    /** Octets: payload of a Write or Send, RDMARDSZ of a Read, 8 for Atomics and Immediate Data. */
    public int length;
    /** Source of a Write or Send; where an Atomic's original value is stored; sink address of a Read. */
    public long localAddress;
    /** Data Sink STag of a Read. */
    public int localStag;
    /** Data Sink STag of a Write, Data Source of a Read, target of an Atomic. */
    public int remoteStag;
    /** Data Sink TO of a Read. */
    public long localTo;
    /** TO at {@link #remoteStag}. */
    public long remoteTo;
    /** STag a Send with (SE and) Invalidate invalidates at the peer, or a Local Invalidate here. */
    public int invalidateStag;
    /** Immediate Data; Add Data (FetchAdd); Swap Data (CmpSwap). */
    public long data;
    /** Add Mask (FetchAdd) or Swap Mask (CmpSwap). */
    public long mask;
    public long compareData;
    public long compareMask;

    /** Back to an all-zero element (a Send of 0 octets, unsignaled). */
    public SendWqe clear() {
        opcode = WqeOpcode.SEND;
        flags = 0;
        aop = null;
        length = 0;
        localAddress = 0;
        localStag = 0;
        remoteStag = 0;
        localTo = 0;
        remoteTo = 0;
        invalidateStag = 0;
        data = 0;
        mask = 0;
        compareData = 0;
        compareMask = 0;
        return this;
    }

    /** Writes the {@value SqWqe#SIZE} octets of the element into {@code slot} from offset 0. */
    public void encode(byte[] slot) {
        Arrays.fill(slot, 0, SqWqe.SIZE, (byte) 0);
        slot[SqWqe.OPCODE] = (byte) opcode.code();
        slot[SqWqe.FLAGS] = (byte) flags;
        slot[SqWqe.AOP] = (byte) (aop == null ? 0 : aop.code());
        Le.putInt(slot, SqWqe.LENGTH, length);
        Le.putLong(slot, SqWqe.LOCAL_ADDRESS, localAddress);
        Le.putInt(slot, SqWqe.LOCAL_STAG, localStag);
        Le.putInt(slot, SqWqe.REMOTE_STAG, remoteStag);
        Le.putLong(slot, SqWqe.LOCAL_TO, localTo);
        Le.putLong(slot, SqWqe.REMOTE_TO, remoteTo);
        Le.putInt(slot, SqWqe.INVALIDATE_STAG, invalidateStag);
        Le.putLong(slot, SqWqe.DATA, data);
        Le.putLong(slot, SqWqe.MASK, mask);
        Le.putLong(slot, SqWqe.COMPARE_DATA, compareData);
        Le.putLong(slot, SqWqe.COMPARE_MASK, compareMask);
    }
}
