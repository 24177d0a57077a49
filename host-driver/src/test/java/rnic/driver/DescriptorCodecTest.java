package rnic.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.wire.AtomicOpcode;
import rnic.wire.Cqe;
import rnic.wire.CqeKind;
import rnic.wire.RqWqe;
import rnic.wire.SqWqe;
import rnic.wire.WqeOpcode;

/**
 * Send/receive queue elements and completion entries against the {@code rnic.wire} layouts, read back octet by octet
 * with little-endian arithmetic written here (not through {@link Le}); reserved octets are 0.
 */
class DescriptorCodecTest {

    static long le(byte[] b, int offset, int size) {
        long v = 0;
        for (int i = size - 1; i >= 0; i--) {
            v = v << 8 | b[offset + i] & 0xFF;
        }
        return v;
    }

    static void putLe(byte[] b, int offset, int size, long v) {
        for (int i = 0; i < size; i++) {
            b[offset + i] = (byte) (v >>> (8 * i));
        }
    }

    /** Every field of a send queue element lands at its {@link SqWqe} offset; every other octet is 0. */
    @Test
    void sendElementLayout() {
        Random rnd = new Random(5);
        byte[] slot = new byte[SqWqe.SIZE];
        for (int round = 0; round < 200; round++) {
            java.util.Arrays.fill(slot, (byte) 0x5A); // leftovers of an earlier element must be cleared
            SendWqe w = new SendWqe();
            w.opcode = WqeOpcode.values()[rnd.nextInt(WqeOpcode.values().length)];
            w.flags = rnd.nextInt(4);
            w.aop = rnd.nextBoolean() ? AtomicOpcode.FETCH_ADD : AtomicOpcode.CMP_SWAP;
            w.length = rnd.nextInt();
            w.localAddress = rnd.nextLong();
            w.localStag = rnd.nextInt();
            w.remoteStag = rnd.nextInt();
            w.localTo = rnd.nextLong();
            w.remoteTo = rnd.nextLong();
            w.invalidateStag = rnd.nextInt();
            w.data = rnd.nextLong();
            w.mask = rnd.nextLong();
            w.compareData = rnd.nextLong();
            w.compareMask = rnd.nextLong();
            w.encode(slot);
            assertEquals(w.opcode.code(), slot[0] & 0xFF);
            assertEquals(w.flags, slot[1] & 0xFF);
            assertEquals(w.aop.code(), slot[2] & 0xFF);
            assertEquals(0, slot[3]);
            assertEquals(w.length & 0xFFFF_FFFFL, le(slot, 4, 4));
            assertEquals(w.localAddress, le(slot, 8, 8));
            assertEquals(w.localStag & 0xFFFF_FFFFL, le(slot, 16, 4));
            assertEquals(w.remoteStag & 0xFFFF_FFFFL, le(slot, 20, 4));
            assertEquals(w.localTo, le(slot, 24, 8));
            assertEquals(w.remoteTo, le(slot, 32, 8));
            assertEquals(w.invalidateStag & 0xFFFF_FFFFL, le(slot, 40, 4));
            assertEquals(0, le(slot, 44, 4));
            assertEquals(w.data, le(slot, 48, 8));
            assertEquals(w.mask, le(slot, 56, 8));
            assertEquals(w.compareData, le(slot, 64, 8));
            assertEquals(w.compareMask, le(slot, 72, 8));
            for (int i = 80; i < 128; i++) {
                assertEquals(0, slot[i], "reserved octet " + i);
            }
        }
        // the layout constants are the ones the hardware reads
        assertEquals(128, SqWqe.SIZE);
        assertEquals(0x0F, WqeOpcode.LOCAL_INVALIDATE.code());
    }

    /** A cleared element is a zero-length unsignaled Send: all octets 0 but the Send opcode. */
    @Test
    void clearedElement() {
        byte[] slot = new byte[SqWqe.SIZE];
        new SendWqe().clear().encode(slot);
        assertEquals(WqeOpcode.SEND.code(), slot[0]);
        for (int i = 1; i < SqWqe.SIZE; i++) {
            assertEquals(0, slot[i], "octet " + i);
        }
    }

    /** A receive element: address at 0, capacity at 8, the rest 0 ({@link RqWqe}). */
    @Test
    void receiveElementLayout() {
        byte[] slot = new byte[RqWqe.SIZE];
        java.util.Arrays.fill(slot, (byte) 0x77);
        RecvWqe.encode(slot, 0x1122_3344_5566_7788L, 0x99AA_BBCC);
        assertEquals(0x1122_3344_5566_7788L, le(slot, 0, 8));
        assertEquals(0x99AA_BBCCL, le(slot, 8, 4));
        for (int i = 12; i < 32; i++) {
            assertEquals(0, slot[i], "reserved octet " + i);
        }
    }

    /** Every field of a completion entry is decoded from its {@link Cqe} offset, for every kind. */
    @Test
    void completionEntryFields() {
        Random rnd = new Random(9);
        for (CqeKind kind : CqeKind.values()) {
            byte[] e = new byte[Cqe.SIZE];
            rnd.nextBytes(e);
            int wrId = rnd.nextInt();
            long info = rnd.nextLong();
            putLe(e, 0, 4, wrId);
            putLe(e, 4, 4, 0xFEDC_BA98L);
            putLe(e, 8, 8, info);
            putLe(e, 16, 4, 0x0000_1234);
            e[20] = 3;
            e[21] = (byte) kind.code();
            e[22] = (byte) 0xAB;
            e[23] = 0x05;
            e[31] = 1;
            CqeView v = new CqeView().decode(e);
            assertEquals(wrId, v.wrId);
            assertEquals(0xFEDC_BA98, v.length);
            assertEquals(info, v.info);
            assertEquals(0x1234, v.stag);
            assertEquals(3, v.qp);
            assertEquals(kind, v.kindOrNull());
            assertEquals(0xAB, v.status);
            assertEquals(5, v.opcode);
            assertEquals(1, v.owner);
        }
        byte[] none = new byte[Cqe.SIZE];
        putLe(none, 0, 4, 0xFFFF_FFFFL);
        none[21] = 42;
        CqeView v = new CqeView().decode(none);
        assertFalse(v.hasWorkRequest());
        assertNull(v.kindOrNull(), "unknown kind codes are reported, not guessed");
        putLe(none, 0, 4, 7);
        assertTrue(v.decode(none).hasWorkRequest());
    }

    /** The owner bit of a new entry is 1 on the first pass, flipped at every wrap, 16-bit counters included. */
    @Test
    void completionPhase() {
        CompletionRing ring = new CompletionRing(new Registers(null), 0, 0, 3);
        for (int k = 0; k < 8; k++) {
            assertEquals(1, ring.phase(k));
            assertEquals(0, ring.phase(8 + k));
            assertEquals(1, ring.phase(16 + k));
        }
        assertEquals(ring.phase(0xFFFF + 1), ring.phase(0), "2^16 is an even number of passes");
    }

    /** TYPE tags in either octet order; fields with in-place masks. */
    @Test
    void registerHelpers() {
        assertTrue(Registers.typeIs(0x524E4943, "RNIC"));
        assertTrue(Registers.typeIs(0x43494E52, "RNIC"));
        assertFalse(Registers.typeIs(0x524E4944, "RNIC"));
        assertTrue(Registers.typeIs(0x51502020, "QP  "));
        assertEquals(0x12, Registers.field(0x0012_3400, RnicRegs.CORE_CONFIG_STAG_COUNT_LOG2_SHIFT,
                RnicRegs.CORE_CONFIG_STAG_COUNT_LOG2_MASK));
        assertEquals(0x34, Registers.field(0x0012_3400, RnicRegs.CORE_CONFIG_CQ_COUNT_SHIFT,
                RnicRegs.CORE_CONFIG_CQ_COUNT_MASK));
        assertEquals(0x3300, Registers.place(0x33, 8, 0xFF00));
        assertEquals(RnicRegs.QP_BASE + 2 * RnicRegs.QP_STRIDE + RnicRegs.QP_STATE,
                Registers.qp(2, RnicRegs.QP_STATE));
        assertEquals(RnicRegs.CQ_BASE + 3 * RnicRegs.CQ_STRIDE + RnicRegs.CQ_CONS, Registers.cq(3, RnicRegs.CQ_CONS));
    }

    /** Ring slot arithmetic and sizes. */
    @Test
    void ringArithmetic() {
        assertEquals(0, Ring.log2For(1));
        assertEquals(1, Ring.log2For(2));
        assertEquals(2, Ring.log2For(3));
        assertEquals(6, Ring.log2For(64));
        assertEquals(7, Ring.log2For(65));
        Ring r = new Ring(null, 0x1000, 4, SqWqe.SIZE);
        assertEquals(16, r.slots());
        assertEquals(0x1000 + 3 * 128, r.slotAddress(19));
        assertEquals(0x1000 + 15 * 128, r.slotAddress(0xFFFF));
        assertEquals(2048, Ring.bytes(4, SqWqe.SIZE));
    }

    /** STag = index << 8 | key; a region must fit the 64-bit space (it may end exactly at 2^64). */
    @Test
    void stagRegistration() {
        StagRegistration r = new StagRegistration(0x12, 0x34, 1, false, 0, true, false, false, false, 0x1000, 16);
        assertEquals(0x1234, r.stag());
        new StagRegistration(1, 1, 1, false, 0, false, false, false, false, -16L, 16);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new StagRegistration(1, 1, 1, false, 0, false, false, false, false, -16L, 17));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new StagRegistration(1, 256, 1, false, 0, false, false, false, false, 0, 1));
    }
}
