package rnic.hw.top;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.hw.top.RnicBench.cqReg;
import static rnic.hw.top.RnicBench.qpReg;
import static rnic.hw.top.RnicBench.reg;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;
import rnic.sim.RnicSystem;
import rnic.sim.SimSignal;
import rnic.wire.Cqe;
import rnic.wire.CqeKind;
import rnic.wire.QpState;
import rnic.wire.RqWqe;
import rnic.wire.SqWqe;
import rnic.wire.WqeOpcode;

/**
 * Completion events and the interrupt of {@link RnicCore} (issue 12, "time and events"), in a Verilator model of
 * {@link RnicPair} (W = 64) through the registers, with real traffic between the two cores: a sends on QP 0, b's
 * receive completions go to CQ 1 and its send-side ones to CQ 0.
 *
 * <ul>
 *   <li>A solicited-only request on b's CQ 1 ignores a plain Send (its entry is written, no event, still armed) and
 *       fires for a Send with Solicited Event, Send with SE and Invalidate and Immediate Data with SE (RFC 5040 §4.3,
 *       RFC 7306 §4.1: the SE opcodes RDMAP-04 lists); firing disarms it, so a second solicited message gives no
 *       event until the host re-arms; a request for any completion fires for a plain Send.</li>
 *   <li>The event follows its entry: when the interrupt rises, the entry is already in host memory with its owner
 *       bit.</li>
 *   <li>IRQ_STATUS bits are write-1-to-clear and the output follows IRQ_ENABLE: a pending but disabled bit keeps
 *       the interrupt low, enabling it raises it.</li>
 *   <li>A Terminate (a's RDMA Write to an STag b does not have, DDP-34) moves both QPs to ERR: IRQ_STATUS.ASYNC
 *       on both cores; the TERMINATE_SENT entry on b's CQ 0 counts as an error completion for a solicited-only
 *       request.</li>
 * </ul>
 */
class RnicInterruptTest {
    static final long SQ = 0x10_0000;
    static final long RQ = 0x20_0000;
    static final long CQ0 = 0x30_0000;
    static final long CQ1 = 0x40_0000;
    static final long SOURCE = 0x1_0000_0000L;
    static final long SINK = 0x2_0000_0000L;
    /** Registered at b (PD 1, QP 0) for the Send with SE and Invalidate: a failed invalidation would end the QP. */
    static final int INVALIDATE_STAG = 0x0142;
    static final int ARMED = 1;
    static final int SOLICITED_ONLY = 2;

    @Test
    void solicitedOnlyNotifyFiresOnlyForSolicitedCompletions() {
        RnicSystem.model(RnicBench.W).run("interrupt", 31, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side a = bench.a;
            RnicBench.Side b = bench.b;
            SimSignal irqA = tb.signal(tb.dut().io.a.interrupt);
            SimSignal irqB = tb.signal(tb.dut().io.b.interrupt);
            open(bench);
            b.programStag(INVALIDATE_STAG, 1, 0, true, true, false, false, false, SINK + 0x10_0000, 4096);
            for (int i = 0; i < 15; i++) {
                postRecv(b, i, SINK + 0x1000L * i, 4096);
            }
            b.write(qpReg(0, "QP_RQ_PROD"), 15);
            a.memory.write(SOURCE, new byte[256]);
            b.write(reg("IRQ_ENABLE"), reg("IRQ_ENABLE_CQ_MASK") | reg("IRQ_ENABLE_ASYNC_MASK"));
            a.write(reg("IRQ_ENABLE"), reg("IRQ_ENABLE_ASYNC_MASK"));

            // Solicited-only: a plain Send is written but does not fire.
            b.write(cqReg(1, "CQ_NOTIFY"), ARMED | SOLICITED_ONLY);
            int sq = 0;
            int rx = 0;
            postSend(a, sq++, WqeOpcode.SEND, 100);
            rx = awaitEntries(tb, b, 1, rx + 1);
            tb.step(200);
            assertFalse(irqB.getBool(), "no interrupt for a plain Send under a solicited-only request");
            assertEquals(0, b.read(reg("IRQ_STATUS")));
            assertEquals(ARMED | SOLICITED_ONLY, b.read(cqReg(1, "CQ_NOTIFY")), "still armed");
            assertEquals(rnic.wire.RdmapOpcode.SEND.code(), cqe(b, CQ1, rx - 1).get(Cqe.OPCODE));

            // Each SE opcode fires; firing disarms; W1C clears; the entry is in memory when the interrupt rises.
            for (WqeOpcode op : List.of(WqeOpcode.SEND_WITH_SE, WqeOpcode.SEND_WITH_SE_AND_INVALIDATE,
                    WqeOpcode.IMMEDIATE_DATA_WITH_SE)) {
                b.write(cqReg(1, "CQ_NOTIFY"), ARMED | SOLICITED_ONLY);
                postSend(a, sq++, op, op == WqeOpcode.IMMEDIATE_DATA_WITH_SE ? 0 : 64);
                tb.runUntil(irqB::getBool, 20_000, op + " to raise b's interrupt");
                rx++;
                assertEquals(rx, b.read(cqReg(1, "CQ_PROD")), op + ": the entry is counted written");
                ByteBuffer e = cqe(b, CQ1, rx - 1);
                assertEquals(1, e.get(Cqe.OWNER) & 1, op + ": the entry is in host memory before the event");
                assertEquals(op.rdmap().code(), e.get(Cqe.OPCODE), op + ": the entry's opcode");
                assertEquals(1 << 1, b.read(reg("IRQ_STATUS")), op + ": CQ 1's bit, nothing else");
                assertEquals(SOLICITED_ONLY, b.read(cqReg(1, "CQ_NOTIFY")) & 3, op + ": firing disarms");
                b.write(reg("IRQ_STATUS"), 1 << 1);
                assertEquals(0, b.read(reg("IRQ_STATUS")), op + ": write 1 clears");
                tb.step(2);
                assertFalse(irqB.getBool(), op + ": interrupt low once cleared");
            }

            // Disarmed: a solicited Send fires nothing.
            postSend(a, sq++, WqeOpcode.SEND_WITH_SE, 32);
            rx = awaitEntries(tb, b, 1, rx + 1);
            tb.step(200);
            assertEquals(0, b.read(reg("IRQ_STATUS")), "no event without a request");
            assertFalse(irqB.getBool());

            // Any completion: a plain Send fires; a pending but disabled bit keeps the output low.
            b.write(reg("IRQ_ENABLE"), reg("IRQ_ENABLE_ASYNC_MASK"));
            b.write(cqReg(1, "CQ_NOTIFY"), ARMED);
            postSend(a, sq++, WqeOpcode.SEND, 16);
            rx = awaitEntries(tb, b, 1, rx + 1);
            tb.step(50);
            assertEquals(1 << 1, b.read(reg("IRQ_STATUS")), "a plain Send fires a request for any completion");
            assertFalse(irqB.getBool(), "CQ 1's bit is not enabled");
            b.write(reg("IRQ_ENABLE"), reg("IRQ_ENABLE_CQ_MASK") | reg("IRQ_ENABLE_ASYNC_MASK"));
            tb.step(2);
            assertTrue(irqB.getBool(), "enabling the pending bit raises the interrupt");
            b.write(reg("IRQ_STATUS"), 1 << 1);
            tb.step(2);
            assertFalse(irqB.getBool());

            // A Terminate: a writes to an STag b never registered; b answers with a Terminate, both QPs go to ERR.
            b.write(cqReg(0, "CQ_NOTIFY"), ARMED | SOLICITED_ONLY);
            assertFalse(irqA.getBool());
            postWrite(a, sq++, 0x1234_5600, 0);
            tb.runUntil(irqB::getBool, 20_000, "b's interrupt after the Terminate it sent");
            tb.runUntil(irqA::getBool, 20_000, "a's interrupt after the Terminate it received");
            assertEquals(QpState.ERR, b.state(0));
            assertEquals(QpState.ERR, a.state(0));
            int statusB = b.read(reg("IRQ_STATUS"));
            assertTrue((statusB & reg("IRQ_STATUS_ASYNC_MASK")) != 0, "ASYNC on b");
            assertEquals(1, statusB & 1, "b's TERMINATE_SENT entry counts for CQ 0's solicited-only request");
            assertEquals(CqeKind.TERMINATE_SENT.code(), cqe(b, CQ0, 0).get(Cqe.KIND));
            assertEquals(CqeKind.TERMINATE_SENT.code(), b.read(qpReg(0, "QP_ERROR")) & 0xFF);
            assertEquals(reg("IRQ_STATUS_ASYNC_MASK"), a.read(reg("IRQ_STATUS")), "ASYNC on a, no CQ bit (none armed)");
            assertEquals(CqeKind.TERMINATE_RECEIVED.code(), a.read(qpReg(0, "QP_ERROR")) & 0xFF);
            a.write(reg("IRQ_STATUS"), reg("IRQ_STATUS_ASYNC_MASK"));
            tb.step(2);
            assertFalse(irqA.getBool(), "a's interrupt low once ASYNC is cleared");
            assertEquals(0, a.read(reg("IRQ_STATUS")));
            System.out.printf("[RnicInterruptTest] %d receive completions on b's CQ 1, 4 notify events, 2 async%n",
                    rx);
        });
    }

    /**
     * A CQ overrun is a CQ error of that CQ alone: b's receive CQ 1 is given 2 slots the host never reads; of four
     * Sends, two entries are written, the third meets the ring full and is dropped, CQ_STATUS.OVERFLOW rises with
     * IRQ_STATUS.ASYNC (and the interrupt), and the fourth is dropped too (CQ_PROD stays 2). Meanwhile b's send CQ 0
     * takes its own Send's entry, and QP 0 stays in RTS. A new ring (another CQ_SIZE) clears the mark; the next Send's
     * entry is written at index 0. RDMAP-26 (a CQ overflow leaves what does not use that CQ alone).
     */
    @Test
    void aFullCqDropsItsEntriesAndRaisesAnAsyncEventForItselfOnly() {
        RnicSystem.model(RnicBench.W).run("cqOverflow", 32, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side a = bench.a;
            RnicBench.Side b = bench.b;
            SimSignal irqB = tb.signal(tb.dut().io.b.interrupt);
            open(bench);
            for (int i = 0; i < 15; i++) {
                postRecv(b, i, SINK + 0x1000L * i, 4096);
                postRecv(a, i, SINK + 0x1000L * i, 4096);
            }
            b.write(qpReg(0, "QP_RQ_PROD"), 15);
            a.write(qpReg(0, "QP_RQ_PROD"), 15);
            a.memory.write(SOURCE, new byte[256]);
            b.memory.write(SOURCE, new byte[256]);
            b.write(cqReg(1, "CQ_SIZE"), 1);
            assertEquals(0, b.read(cqReg(1, "CQ_STATUS")), "no overflow before any entry");
            b.write(reg("IRQ_ENABLE"), reg("IRQ_ENABLE_ASYNC_MASK"));
            int sq = 0;
            for (int i = 0; i < 2; i++) {
                postSend(a, sq++, WqeOpcode.SEND, 64);
            }
            awaitEntries(tb, b, 1, 2);
            tb.step(200);
            assertEquals(0, b.read(cqReg(1, "CQ_STATUS")), "a full ring is not yet an overflow");
            assertFalse(irqB.getBool());
            postSend(a, sq++, WqeOpcode.SEND, 64);
            tb.runUntil(irqB::getBool, 20_000, "b's interrupt for CQ 1's overflow");
            assertEquals(reg("CQ_STATUS_OVERFLOW_MASK"), b.read(cqReg(1, "CQ_STATUS")));
            assertEquals(reg("IRQ_STATUS_ASYNC_MASK"), b.read(reg("IRQ_STATUS")), "ASYNC, no CQ bit");
            assertEquals(0, b.read(cqReg(0, "CQ_STATUS")), "CQ 0 is not marked");
            postSend(a, sq++, WqeOpcode.SEND, 64);
            awaitEntries(tb, a, 0, 4);
            tb.step(500);
            assertEquals(2, b.read(cqReg(1, "CQ_PROD")), "nothing written into the overflowed ring");
            assertEquals(QpState.RTS, b.state(0), "a CQ error does not end the QP");
            // b's own Send completes on its send CQ 0 while CQ 1 is in error.
            postSend(b, 0, WqeOpcode.SEND, 32);
            awaitEntries(tb, b, 0, 1);
            assertEquals(CqeKind.SEND_DONE.code(), cqe(b, CQ0, 0).get(Cqe.KIND));
            b.write(reg("IRQ_STATUS"), reg("IRQ_STATUS_ASYNC_MASK"));
            tb.step(2);
            assertFalse(irqB.getBool(), "interrupt low once ASYNC is cleared");
            // A new ring clears the mark; the next entry goes to index 0.
            b.write(cqReg(1, "CQ_SIZE"), 4);
            assertEquals(0, b.read(cqReg(1, "CQ_STATUS")), "a new ring clears OVERFLOW");
            assertEquals(0, b.read(cqReg(1, "CQ_PROD")));
            postSend(a, sq++, WqeOpcode.SEND, 64);
            awaitEntries(tb, b, 1, 1);
            assertEquals(CqeKind.RECEIVE.code(), cqe(b, CQ1, 0).get(Cqe.KIND));
            assertEquals(1, cqe(b, CQ1, 0).get(Cqe.OWNER) & 1);
            assertEquals(0, b.read(reg("IRQ_STATUS")), "no further event");
        });
    }

    /** QP 0 on both cores: send completions to CQ 0, receive completions to CQ 1 (16 slots each), RTS. */
    static void open(RnicBench bench) {
        for (RnicBench.Side s : List.of(bench.a, bench.b)) {
            RnicDataPathTest.rings(s, 0, SQ, RQ, CQ0);
            s.write(qpReg(0, "QP_RQ_CQ"), 1);
            s.write(cqReg(1, "CQ_BASE_LO"), (int) CQ1);
            s.write(cqReg(1, "CQ_BASE_HI"), (int) (CQ1 >>> 32));
            s.write(cqReg(1, "CQ_SIZE"), 4);
            s.write(cqReg(1, "CQ_CONS"), 0);
            s.write(qpReg(0, "QP_PD"), 1);
            s.write(qpReg(0, "QP_IRD"), 4);
            s.write(qpReg(0, "QP_ORD"), 4);
            s.mpa(0, true, true, true, false, 1460, 0);
            assertEquals(QpState.INIT, s.request(0, QpState.INIT));
            assertEquals(QpState.RTR, s.request(0, QpState.RTR));
            assertEquals(QpState.RTS, s.request(0, QpState.RTS));
        }
    }

    static void postRecv(RnicBench.Side s, int slot, long address, int capacity) {
        ByteBuffer w = ByteBuffer.allocate(RqWqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        w.putLong(RqWqe.ADDRESS, address);
        w.putInt(RqWqe.CAPACITY, capacity);
        s.memory.write(RQ + (long) slot * RqWqe.SIZE, w.array());
    }

    /** A signaled send-family element (or Immediate Data, 8 octets of data) in slot {@code slot}, then the doorbell. */
    static void postSend(RnicBench.Side s, int slot, WqeOpcode op, int length) {
        ByteBuffer w = ByteBuffer.allocate(SqWqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        w.put(SqWqe.OPCODE, (byte) op.code());
        w.put(SqWqe.FLAGS, (byte) SqWqe.FLAG_SIGNALED);
        w.putInt(SqWqe.LENGTH, length);
        w.putLong(SqWqe.LOCAL_ADDRESS, SOURCE);
        w.putInt(SqWqe.INVALIDATE_STAG, INVALIDATE_STAG);
        w.putLong(SqWqe.DATA, 0x0123_4567_89AB_CDEFL);
        s.memory.write(SQ + (long) (slot % 16) * SqWqe.SIZE, w.array());
        s.write(qpReg(0, "QP_SQ_PROD"), slot + 1);
    }

    static void postWrite(RnicBench.Side s, int slot, int stag, long to) {
        ByteBuffer w = ByteBuffer.allocate(SqWqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        w.put(SqWqe.OPCODE, (byte) WqeOpcode.RDMA_WRITE.code());
        w.put(SqWqe.FLAGS, (byte) SqWqe.FLAG_SIGNALED);
        w.putInt(SqWqe.LENGTH, 64);
        w.putLong(SqWqe.LOCAL_ADDRESS, SOURCE);
        w.putInt(SqWqe.REMOTE_STAG, stag);
        w.putLong(SqWqe.REMOTE_TO, to);
        s.memory.write(SQ + (long) (slot % 16) * SqWqe.SIZE, w.array());
        s.write(qpReg(0, "QP_SQ_PROD"), slot + 1);
    }

    /** Steps until CQ {@code cq} of {@code s} counts {@code entries} written; returns that count. */
    static int awaitEntries(rnic.sim.Tb<?> tb, RnicBench.Side s, int cq, int entries) {
        long start = tb.cycle();
        while (s.read(cqReg(cq, "CQ_PROD")) < entries) {
            assertTrue(tb.cycle() - start < 20_000, "CQ " + cq + " did not reach " + entries + " entries");
            tb.step(10);
        }
        return entries;
    }

    /** Entry {@code index} of the 16-slot CQ ring at {@code base}. */
    static ByteBuffer cqe(RnicBench.Side s, long base, int index) {
        return ByteBuffer.wrap(s.memory.read(base + (long) (index % 16) * Cqe.SIZE, Cqe.SIZE))
                .order(ByteOrder.LITTLE_ENDIAN);
    }
}
