package rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import rnic.driver.SendWqe;
import rnic.wire.AtomicOpcode;
import rnic.wire.RdmapOpcode;
import rnic.wire.SqWqe;
import rnic.wire.WqeOpcode;

/**
 * The send queue elements the driver writes for every work request factory, read back octet by octet at the
 * {@link SqWqe} offsets with little-endian arithmetic written here: opcode, flags, AOpCode, length, addresses, STags,
 * operands; every octet a request does not use is 0.
 *
 * <p>Requirements: RDMAP-04 (opcodes), RDMAP-12/RDMAP-13 (Send family, Invalidate STag), RDMAP-28…RDMAP-31 (Atomic
 * operands, neutral masks for the unmasked forms, docs/requirements.md §2.7.3), RDMAP-40 (Immediate Data, 8 octets),
 * RFC 7306 §6 (Write with Immediate = Write + Immediate Data).
 */
class WqeEncodingTest {
    static final MemoryRegion MR = Detached.region(); // address 0x100100, STag 0x500
    static final RemoteBuffer REMOTE = new RemoteBuffer(0xABCD_0001, 0x7000_0000_1000L);

    /** Expected field values; null means 0. */
    static final class Want {
        int opcode;
        int flags = SqWqe.FLAG_SIGNALED;
        int aop;
        long length;
        long localAddress;
        long localStag;
        long remoteStag;
        long localTo;
        long remoteTo;
        long invalidateStag;
        long data;
        long mask;
        long compareData;
        long compareMask;
    }

    static long le(byte[] b, int offset, int size) {
        long v = 0;
        for (int i = size - 1; i >= 0; i--) {
            v = v << 8 | b[offset + i] & 0xFF;
        }
        return v;
    }

    static byte[] encode(WorkRequest wr, int part, long source) {
        SendWqe w = new SendWqe();
        WqeEncoder.encode(wr, part, source, w);
        byte[] slot = new byte[SqWqe.SIZE];
        java.util.Arrays.fill(slot, (byte) 0xEE);
        w.encode(slot);
        return slot;
    }

    static void check(Want want, byte[] s) {
        assertEquals(want.opcode, s[SqWqe.OPCODE] & 0xFF, "opcode");
        assertEquals(want.flags, s[SqWqe.FLAGS] & 0xFF, "flags");
        assertEquals(want.aop, s[SqWqe.AOP] & 0xFF, "aop");
        assertEquals(0, s[3], "reserved 3");
        assertEquals(want.length, le(s, SqWqe.LENGTH, 4), "length");
        assertEquals(want.localAddress, le(s, SqWqe.LOCAL_ADDRESS, 8), "localAddress");
        assertEquals(want.localStag & 0xFFFF_FFFFL, le(s, SqWqe.LOCAL_STAG, 4), "localStag");
        assertEquals(want.remoteStag & 0xFFFF_FFFFL, le(s, SqWqe.REMOTE_STAG, 4), "remoteStag");
        assertEquals(want.localTo, le(s, SqWqe.LOCAL_TO, 8), "localTo");
        assertEquals(want.remoteTo, le(s, SqWqe.REMOTE_TO, 8), "remoteTo");
        assertEquals(want.invalidateStag & 0xFFFF_FFFFL, le(s, SqWqe.INVALIDATE_STAG, 4), "invalidateStag");
        assertEquals(0, le(s, 44, 4), "reserved 44");
        assertEquals(want.data, le(s, SqWqe.DATA, 8), "data");
        assertEquals(want.mask, le(s, SqWqe.MASK, 8), "mask");
        assertEquals(want.compareData, le(s, SqWqe.COMPARE_DATA, 8), "compareData");
        assertEquals(want.compareMask, le(s, SqWqe.COMPARE_MASK, 8), "compareMask");
        for (int i = 80; i < SqWqe.SIZE; i++) {
            assertEquals(0, s[i], "reserved octet " + i);
        }
    }

    static Want want(RdmapOpcode op) {
        Want w = new Want();
        w.opcode = op.code();
        return w;
    }

    /** RDMAP-05: RDMA Write: source, length, Data Sink STag and TO; flags as asked. */
    @Test
    void rdmaWrite() {
        Sge src = MR.sge(16, 100);
        Want w = want(RdmapOpcode.RDMA_WRITE);
        w.length = 100;
        w.localAddress = 0x100110;
        w.remoteStag = REMOTE.stag();
        w.remoteTo = REMOTE.address();
        check(w, encode(WorkRequest.rdmaWrite(src, REMOTE), 0, 0x100110));
        w.flags = SqWqe.FLAG_FENCE;
        check(w, encode(WorkRequest.rdmaWrite(src, REMOTE).withSignaled(false).withFence(), 0, 0x100110));
        // inline: the source is the driver's copy
        w.flags = SqWqe.FLAG_SIGNALED;
        w.localAddress = 0xCAFE_0000L;
        check(w, encode(WorkRequest.rdmaWrite(src, REMOTE).withInline(), 0, 0xCAFE_0000L));
    }

    /** RFC 7306 §6, RDMAP-40: Write with Immediate = unsignaled Write (with the fence) + signaled Immediate Data. */
    @Test
    void rdmaWriteWithImmediate() {
        WorkRequest wr = WorkRequest.rdmaWriteWithImmediate(MR.sge(0, 64), REMOTE, 0x0102_0304_0506_0708L)
                .withFence();
        Want write = want(RdmapOpcode.RDMA_WRITE);
        write.flags = SqWqe.FLAG_FENCE;
        write.length = 64;
        write.localAddress = 0x100100;
        write.remoteStag = REMOTE.stag();
        write.remoteTo = REMOTE.address();
        check(write, encode(wr, 0, 0x100100));
        Want imm = want(RdmapOpcode.IMMEDIATE_DATA);
        imm.length = 8;
        imm.data = 0x0102_0304_0506_0708L;
        check(imm, encode(wr, 1, 0x100100));
        Want se = want(RdmapOpcode.IMMEDIATE_DATA_WITH_SE);
        se.flags = 0;
        se.length = 8;
        se.data = -2;
        check(se, encode(WorkRequest.rdmaWriteWithImmediate(MR.sge(0, 8), REMOTE, -2, true).withSignaled(false), 1,
                0));
    }

    /** RDMAP-07/RDMAP-08: RDMA Read: RDMARDSZ, Data Sink STag and TO (this side), Data Source (the peer). */
    @Test
    void rdmaRead() {
        Want w = want(RdmapOpcode.RDMA_READ_REQUEST);
        w.length = 512;
        w.localAddress = 0x100100 + 32;
        w.localStag = 0x500;
        w.localTo = 0x100100 + 32;
        w.remoteStag = REMOTE.stag();
        w.remoteTo = REMOTE.address();
        check(w, encode(WorkRequest.rdmaRead(MR.sge(32, 512), REMOTE), 0, 0));
    }

    /** RDMAP-12, RDMAP-13: the four Sends; the Invalidate STag only where the opcode carries one. */
    @Test
    void sendFamily() {
        Sge src = MR.sge(8, 33);
        Want w = want(RdmapOpcode.SEND);
        w.length = 33;
        w.localAddress = 0x100108;
        check(w, encode(WorkRequest.send(src), 0, 0x100108));
        w.opcode = RdmapOpcode.SEND_WITH_SE.code();
        check(w, encode(WorkRequest.sendWithSolicitedEvent(src), 0, 0x100108));
        w.opcode = RdmapOpcode.SEND_WITH_INVALIDATE.code();
        w.invalidateStag = 0x0000_7702;
        check(w, encode(WorkRequest.sendWithInvalidate(src, 0x7702), 0, 0x100108));
        w.opcode = RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE.code();
        w.invalidateStag = 0xFFFF_FF01L;
        check(w, encode(WorkRequest.sendWithSolicitedEventAndInvalidate(src, 0xFFFF_FF01), 0, 0x100108));
        Want empty = want(RdmapOpcode.SEND);
        check(empty, encode(WorkRequest.send(Sge.empty()), 0, 0));
    }

    /** RDMAP-40: Send with Immediate is one Immediate Data message: 8 octets of data, no payload. */
    @Test
    void sendWithImmediate() {
        Want w = want(RdmapOpcode.IMMEDIATE_DATA);
        w.length = 8;
        w.data = 0x1122_3344_5566_7788L;
        check(w, encode(WorkRequest.sendWithImmediate(0x1122_3344_5566_7788L), 0, 0));
        w.opcode = RdmapOpcode.IMMEDIATE_DATA_WITH_SE.code();
        check(w, encode(WorkRequest.sendWithImmediate(0x1122_3344_5566_7788L, true), 0, 0));
    }

    /** RDMAP-28…RDMAP-31, §2.7.3: the four atomics; the unmasked ones use the neutral masks. */
    @Test
    void atomics() {
        Sge result = MR.sge(64, 8);
        Want w = want(RdmapOpcode.ATOMIC_REQUEST);
        w.length = 8;
        w.localAddress = 0x100140;
        w.remoteStag = REMOTE.stag();
        w.remoteTo = REMOTE.address();
        w.aop = AtomicOpcode.FETCH_ADD.code();
        w.data = 5;
        w.mask = 0;
        w.compareData = 0;
        w.compareMask = -1L;
        check(w, encode(WorkRequest.fetchAdd(result, REMOTE, 5), 0, 0));
        w.mask = 0x8000_8000_8000_8000L;
        check(w, encode(WorkRequest.maskedFetchAdd(result, REMOTE, 5, 0x8000_8000_8000_8000L), 0, 0));
        w.aop = AtomicOpcode.CMP_SWAP.code();
        w.data = 0xAAAA;
        w.mask = -1L;
        w.compareData = 0x1234;
        w.compareMask = -1L;
        check(w, encode(WorkRequest.compareSwap(result, REMOTE, 0x1234, 0xAAAA), 0, 0));
        w.mask = 0x0000_0000_FFFF_FFFFL;
        w.compareMask = 0xFFFF_0000_0000_0000L;
        check(w, encode(WorkRequest.maskedCompareSwap(result, REMOTE, 0x1234, 0xFFFF_0000_0000_0000L, 0xAAAA,
                0x0000_0000_FFFF_FFFFL), 0, 0));
    }

    /** Local Invalidate: opcode 0xF (reserved on the wire, never sent) and the STag. */
    @Test
    void localInvalidate() {
        Want w = new Want();
        w.opcode = WqeOpcode.LOCAL_INVALIDATE_CODE;
        w.invalidateStag = 0x0000_0501;
        check(w, encode(WorkRequest.localInvalidate(0x501), 0, 0));
        assertEquals(EnumSet.allOf(Access.class), MR.access());
    }
}
