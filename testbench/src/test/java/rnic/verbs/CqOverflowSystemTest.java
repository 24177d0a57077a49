package rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import rnic.cm.ConnectParams;
import rnic.cm.Connection;
import rnic.cm.ConnectionManager;
import rnic.driver.Registers;
import rnic.driver.RnicRegs;
import rnic.sim.RnicSystem;
import rnic.system.SystemRig;
import rnic.transport.Transport;
import rnic.wire.QpState;

/**
 * A completion queue overrun through the real driver on the two-RNIC system ({@code RnicPair}, W = 64). The verbs
 * cannot overrun a queue (every queue pair reserves its depths), so b drives its core past them the way only a
 * faulty driver could: once connected, it shrinks its receive queue's ring to 2 slots (CQ_SIZE, through the
 * driver's own register access — hence this package) and never polls it. a sends 6 Sends.
 *
 * <ul>
 *   <li>b's asynchronous event channel reports exactly one {@link AsyncEvent.Type#CQ_ERROR}, naming the receive
 *       queue; {@link CompletionQueue#overflowed()} is true for it and false for the send queue;</li>
 *   <li>the queue pair stays in RTS and b's own Send completes SUCCESS on its send queue: one queue's overrun holds
 *       nothing else;</li>
 *   <li>a sees all six Sends complete SUCCESS (the Sends were placed; only b's entries were lost).</li>
 * </ul>
 * RDMAP-26 (a CQ overflow leaves streams not using that CQ alone).
 */
@Tag("verilator")
class CqOverflowSystemTest {
    private static final Duration CONNECT = Duration.ofNanos(200_000 * 4L);
    private static final Duration LONG = Duration.ofMillis(2);
    private static final int SENDS = 6;

    private final List<String> bSaw = new ArrayList<>();
    private final List<String> aSaw = new ArrayList<>();

    private void a(Transport t) {
        try (Device dev = Device.open(t)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue cq = dev.createCompletionQueue(32);
            DmaBuffer buf = dev.allocate(4096);
            MemoryRegion mr = pd.registerMemory(buf, EnumSet.of(Access.LOCAL_WRITE));
            QueuePair qp = pd.createQueuePair(new QueuePair.Config(cq, cq, 8, 8, 0, 0));
            qp.postRecv(RecvRequest.of(mr.sge(2048, 256)));
            SystemRig.connect(new ConnectionManager(dev), SystemRig.B_LISTENS, qp,
                    ConnectParams.defaults().withTimeout(CONNECT));
            for (int i = 0; i < SENDS; i++) {
                qp.postSend(WorkRequest.send(mr.sge(0, 64)).withId(i));
            }
            Completion[] out = Completion.array(8);
            int sends = 0;
            int recvs = 0;
            long start = dev.nanoTime();
            while (sends < SENDS || recvs < 1) {
                int n = cq.poll(out);
                for (int i = 0; i < n; i++) {
                    assertEquals(CompletionStatus.SUCCESS, out[i].status(), "a: " + out[i]);
                    if (out[i].opcode() == CompletionOpcode.RECV) {
                        recvs++;
                    } else {
                        sends++;
                    }
                }
                assertTrue(dev.nanoTime() - start < LONG.toNanos(), "a: " + sends + " Sends, " + recvs + " receive");
                t.advance();
            }
            aSaw.add(sends + " sends, " + recvs + " receive");
            long idle = dev.nanoTime();
            while (dev.nanoTime() - idle < 20_000) {
                t.advance();
            }
        }
    }

    private void b(Transport t) {
        try (Device dev = Device.open(t)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue scq = dev.createCompletionQueue(16);
            CompletionQueue rcq = dev.createCompletionQueue(16);
            AsyncEventChannel async = dev.asyncEventChannel();
            DmaBuffer buf = dev.allocate(4096);
            MemoryRegion mr = pd.registerMemory(buf, EnumSet.of(Access.LOCAL_WRITE));
            QueuePair qp = pd.createQueuePair(new QueuePair.Config(scq, rcq, 8, 8, 0, 0));
            for (int i = 0; i < 8; i++) {
                qp.postRecv(RecvRequest.of(mr.sge(256 * i, 256)));
            }
            Connection conn = new ConnectionManager(dev).listen(SystemRig.B_LISTENS).accept(qp,
                    ConnectParams.defaults().withTimeout(CONNECT), CONNECT);
            assertFalse(rcq.overflowed(), "b: no overflow before any entry");
            // Past the verbs: the receive queue's ring shrinks to 2 slots (a new ring for the core) and is not read.
            dev.registers().write(Registers.cq(rcq.number(), RnicRegs.CQ_SIZE), 1);

            AsyncEvent e = async.await(LONG);
            assertNotNull(e, "b: no asynchronous event for its overrun receive queue");
            assertEquals(AsyncEvent.Type.CQ_ERROR, e.type(), e.toString());
            assertSame(rcq, e.completionQueue());
            assertNull(e.queuePair());
            assertTrue(rcq.overflowed());
            assertFalse(scq.overflowed(), "b: the send queue is not marked");
            bSaw.add(e.toString().replaceAll(" at .*", ""));

            assertEquals(QpState.RTS, qp.state(), "b: a queue's overrun does not end the queue pair");
            qp.postSend(WorkRequest.send(mr.sge(0, 16)).withId(77));
            Completion[] out = Completion.array(4);
            long start = dev.nanoTime();
            int n = 0;
            while (n == 0) {
                n = scq.poll(out);
                assertTrue(dev.nanoTime() - start < LONG.toNanos(), "b: its Send did not complete");
                t.advance();
            }
            assertEquals(1, n);
            assertEquals(77, out[0].wrId());
            assertEquals(CompletionStatus.SUCCESS, out[0].status());
            bSaw.add("send done");
            assertNull(async.await(Duration.ofNanos(40_000)), "b: one event per overrun");
            conn.disconnect();
        }
    }

    @Test
    void anOverrunCompletionQueueIsReportedAndHoldsNothingElse() {
        SystemRig.run("cqOverflow", 21, RnicSystem.builder(), this::a, this::b);
        assertEquals(List.of("AsyncEvent[CQ_ERROR CQ 1", "send done"), bSaw, "b saw " + bSaw);
        assertEquals(List.of(SENDS + " sends, 1 receive"), aSaw, "a saw " + aSaw);
        System.out.println("[CqOverflowSystemTest] b: " + bSaw + "; a: " + aSaw);
    }
}
