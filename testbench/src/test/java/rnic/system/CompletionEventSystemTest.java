package rnic.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import rnic.sim.RnicSystem;
import rnic.transport.Transport;
import rnic.verbs.Access;
import rnic.verbs.AsyncEvent;
import rnic.verbs.AsyncEventChannel;
import rnic.verbs.Completion;
import rnic.verbs.CompletionChannel;
import rnic.verbs.CompletionOpcode;
import rnic.verbs.CompletionQueue;
import rnic.verbs.CompletionStatus;
import rnic.verbs.Device;
import rnic.verbs.DmaBuffer;
import rnic.verbs.InvalidRequestException;
import rnic.verbs.MemoryRegion;
import rnic.verbs.ProtectionDomain;
import rnic.verbs.QueuePair;
import rnic.verbs.RecvRequest;
import rnic.verbs.RemoteBuffer;
import rnic.verbs.WorkRequest;
import rnic.wire.CqeKind;
import rnic.wire.QpState;
import rnic.wire.TerminateCause;

/**
 * Completion and asynchronous events through the real driver on the two-RNIC system ({@code RnicPair}, W = 64): both
 * hosts block on completion channels ({@link CompletionChannel#await}, backed by the cores' interrupt outputs) — no
 * polling loop anywhere in the test; the two hosts pace each other with messages, each waiting for the other's on its
 * own channel (arm, drain once, block: the verbs pattern, since an entry written before the request does not fire).
 *
 * <ol>
 *   <li>b arms its receive CQ solicited-only; a sends a plain Send and Immediate Data without SE: b's await times out
 *       after its full device time, yet both completions are in the CQ when polled (not solicited).</li>
 *   <li>a sends a Send with Solicited Event (RFC 5040 §4.3, RDMAP-04's SE opcodes): b's await returns the CQ, well
 *       before its timeout; the completion is the solicited one.</li>
 *   <li>b re-arms for any completion: a plain Send fires it.</li>
 *   <li>a writes to a region b registered without REMOTE_WRITE: b answers with a Terminate (E-D2, 1/1/00, DDP-30),
 *       b's asynchronous event channel reports QP_ERROR / TERMINATE_SENT with that cause and a's reports QP_ERROR /
 *       TERMINATE_RECEIVED with the same Layer/EType/Code; b then disconnects and a's channel reports TCP_CLOSED.</li>
 * </ol>
 * Misuse: arming a CQ that is on no channel, a negative timeout and closing a channel that still has CQs are refused
 * with clear exceptions, and the device goes on working.
 */
@Tag("verilator")
class CompletionEventSystemTest {
    private static final Duration CONNECT = Duration.ofNanos(200_000 * 4L);
    private static final Duration QUIET = Duration.ofNanos(100_000);
    private static final Duration LONG = Duration.ofMillis(2);

    /** What each host opens: a PD, a completion channel, a send CQ on none, a receive CQ on the channel, 8 KiB. */
    private record Host(ProtectionDomain pd, CompletionChannel channel, CompletionQueue scq, CompletionQueue rcq,
            AsyncEventChannel async, DmaBuffer buf) {
        static Host open(Device dev) {
            CompletionChannel channel = dev.createCompletionChannel();
            return new Host(dev.allocateProtectionDomain(), channel, dev.createCompletionQueue(64),
                    dev.createCompletionQueue(64, channel), dev.asyncEventChannel(), dev.allocate(8192));
        }
    }

    private final List<String> bSaw = new ArrayList<>();
    private final List<String> aSaw = new ArrayList<>();

    /** a's side: waits for b's "go" messages on its own channel, then does what b expects next. */
    private void a(Transport t) {
        try (Device dev = Device.open(t)) {
            Host h = Host.open(dev);
            MemoryRegion mr = h.pd().registerMemory(h.buf(), EnumSet.of(Access.LOCAL_WRITE));
            QueuePair qp = h.pd().createQueuePair(new QueuePair.Config(h.scq(), h.rcq(), 16, 16, 0, 0));
            for (int i = 0; i < 8; i++) {
                qp.postRecv(RecvRequest.of(mr.sge(4096 + 256 * i, 256)));
            }
            var conn = SystemRig.connect(new ConnectionManager(dev), SystemRig.B_LISTENS, qp,
                    ConnectParams.defaults().withTimeout(CONNECT));
            java.nio.ByteBuffer pdata = java.nio.ByteBuffer.wrap(conn.peerPrivateData());
            RemoteBuffer readOnly = new RemoteBuffer(pdata.getInt(), pdata.getLong());
            Completion[] out = Completion.array(8);

            h.rcq().requestNotify(false);
            awaitGo(h.channel(), h.rcq(), out, 1);
            aSaw.clear(); // message 1 may come before a's first request (b sends it as soon as it is connected)
            qp.postSend(WorkRequest.send(mr.sge(0, 64)).withId(101));
            qp.postSend(WorkRequest.sendWithImmediate(0x1122_3344_5566_7788L, false).withId(102));
            awaitGo(h.channel(), h.rcq(), out, 2);
            qp.postSend(WorkRequest.sendWithSolicitedEvent(mr.sge(0, 64)).withId(103));
            awaitGo(h.channel(), h.rcq(), out, 3);
            qp.postSend(WorkRequest.send(mr.sge(0, 32)).withId(104));
            awaitGo(h.channel(), h.rcq(), out, 4);
            qp.postSend(WorkRequest.rdmaWrite(mr.sge(0, 64), readOnly).withId(105));

            AsyncEvent terminated = h.async().await(LONG);
            assertNotNull(terminated, "a: no asynchronous event after the peer's Terminate");
            assertEquals(AsyncEvent.Type.QP_ERROR, terminated.type());
            assertSame(qp, terminated.queuePair());
            assertEquals(CqeKind.TERMINATE_RECEIVED, terminated.kind(), terminated.toString());
            aSaw.add("terminate " + terminated.terminateLayer() + "/" + terminated.terminateEtype() + "/"
                    + terminated.terminateErrorCode());
            AsyncEvent closed = h.async().await(LONG);
            assertNotNull(closed, "a: no TCP_CLOSED after b disconnected");
            assertEquals(AsyncEvent.Type.TCP_CLOSED, closed.type(), closed.toString());
            assertSame(qp, closed.queuePair());
            aSaw.add("closed");
            assertEquals(QpState.ERR, qp.state());
            assertNull(h.async().poll(), "one event per failure");
        }
    }

    /**
     * Takes b's message number {@code n}: the CQ's request is armed, so first drain what is already there (an entry
     * written before the request does not fire it, as in verbs), and only when nothing is, block on the channel; then
     * re-arm before acting, so b's next message cannot be missed.
     */
    private void awaitGo(CompletionChannel channel, CompletionQueue rcq, Completion[] out, int n) {
        int got = rcq.poll(out);
        if (got == 0) {
            assertSame(rcq, channel.await(LONG), "a: b's message " + n + " did not raise an event");
            got = rcq.poll(out);
        } else {
            aSaw.add("message " + n + " before the request");
        }
        rcq.requestNotify(false);
        assertEquals(1, got, "a: one message from b per step");
        assertEquals(CompletionOpcode.RECV, out[0].opcode());
        assertEquals(n, out[0].byteLength(), "a: message " + n + " has " + n + " octets");
    }

    private void b(Transport t) {
        try (Device dev = Device.open(t)) {
            Host h = Host.open(dev);
            MemoryRegion mr = h.pd().registerMemory(h.buf(), 0, 4096, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion readOnly = h.pd().registerMemory(h.buf(), 4096, 1024, EnumSet.of(Access.REMOTE_READ));
            QueuePair qp = h.pd().createQueuePair(new QueuePair.Config(h.scq(), h.rcq(), 16, 16, 0, 0));
            for (int i = 0; i < 8; i++) {
                qp.postRecv(RecvRequest.of(mr.sge(256 * i, 256)));
            }
            byte[] pdata = java.nio.ByteBuffer.allocate(12).putInt(readOnly.rkey()).putLong(readOnly.address())
                    .array();
            Connection conn = new ConnectionManager(dev).listen(SystemRig.B_LISTENS).accept(qp,
                    ConnectParams.defaults().withTimeout(CONNECT).withPrivateData(pdata), CONNECT);
            Completion[] out = Completion.array(8);

            // Misuse is refused and changes nothing.
            assertThrows(InvalidRequestException.class, () -> h.scq().requestNotify(true), "a CQ on no channel");
            assertThrows(IllegalArgumentException.class, () -> h.channel().await(Duration.ofNanos(-1)));
            assertThrows(InvalidRequestException.class, h.channel()::close, "a channel with CQs");

            // 1. Solicited-only: a plain Send and Immediate Data without SE do not fire.
            h.rcq().requestNotify(true);
            qp.postSend(WorkRequest.send(mr.sge(4000, 1)).withSignaled(false));
            long t0 = dev.nanoTime();
            assertNull(h.channel().await(QUIET),
                    "b: an event for unsolicited messages under a solicited-only request");
            long waited = dev.nanoTime() - t0;
            assertTrue(waited >= QUIET.toNanos(), "b: the await returned after " + waited + " ns, before its timeout");
            assertTrue(waited < QUIET.toNanos() + 10_000, "b: the await took " + waited + " ns for a timeout of "
                    + QUIET.toNanos() + " ns of device time");
            int n = h.rcq().poll(out);
            assertEquals(2, n, "b: both unsolicited messages are in the CQ");
            assertEquals(CompletionOpcode.RECV, out[0].opcode());
            assertFalse(out[0].solicited());
            assertEquals(64, out[0].byteLength());
            assertTrue(out[1].hasImmediate());
            assertFalse(out[1].solicited());
            assertEquals(0x1122_3344_5566_7788L, out[1].immediate());
            bSaw.add("quiet " + waited / 1000 + " us");
            assertTrue(h.rcq().notifyRequested(), "b: the request is still outstanding");

            // 2. A Send with Solicited Event fires it.
            qp.postSend(WorkRequest.send(mr.sge(4000, 2)).withSignaled(false));
            t0 = dev.nanoTime();
            assertSame(h.rcq(), h.channel().await(LONG), "b: no event for a Send with Solicited Event");
            long latency = dev.nanoTime() - t0;
            assertTrue(latency < LONG.toNanos(), "b: woke " + latency + " ns after it began waiting");
            assertFalse(h.rcq().notifyRequested(), "b: one request, one event");
            n = h.rcq().poll(out);
            assertEquals(1, n);
            assertTrue(out[0].solicited(), "b: the event's completion is the solicited one");
            assertEquals(CompletionStatus.SUCCESS, out[0].status());
            bSaw.add("solicited");

            // 3. A request for any completion fires for a plain Send.
            h.rcq().requestNotify(false);
            qp.postSend(WorkRequest.send(mr.sge(4000, 3)).withSignaled(false));
            assertSame(h.rcq(), h.channel().await(LONG),
                    "b: no event for a plain Send under a request for any completion");
            n = h.rcq().poll(out);
            assertEquals(1, n);
            assertFalse(out[0].solicited());
            assertEquals(32, out[0].byteLength());
            bSaw.add("any");

            // 4. a's Write to the read-only region: b sends a Terminate; an asynchronous event with its cause.
            qp.postSend(WorkRequest.send(mr.sge(4000, 4)).withSignaled(false));
            AsyncEvent e = h.async().await(LONG);
            assertNotNull(e, "b: no asynchronous event for the Terminate it sent");
            assertEquals(AsyncEvent.Type.QP_ERROR, e.type());
            assertSame(qp, e.queuePair());
            assertEquals(CqeKind.TERMINATE_SENT, e.kind(), e.toString());
            assertEquals(TerminateCause.DDP_PLACEMENT_NOT_ALLOWED, e.terminateCause(), e.toString());
            bSaw.add("terminate " + e.terminateLayer() + "/" + e.terminateEtype() + "/" + e.terminateErrorCode());
            assertNull(h.channel().await(Duration.ofNanos(4_000)), "b: no completion event was asked for");
            conn.disconnect();
            // let a see the FIN before b's host ends (b's device stays up meanwhile)
            assertNull(h.async().await(Duration.ofNanos(200_000)), "b: nothing more on its own asynchronous channel");
            h.scq().close();
            h.rcq().close();
            h.channel().close();
        }
    }

    @Test
    void aSolicitedOnlyRequestFiresOnlyForASolicitedMessage() {
        SystemRig.run("completionEvents", 12, RnicSystem.builder(), this::a, this::b);
        assertEquals(List.of("solicited", "any", "terminate 1/1/0"), bSaw.subList(1, 4), "b saw " + bSaw);
        assertTrue(bSaw.get(0).startsWith("quiet "), bSaw.toString());
        assertEquals(List.of("terminate 1/1/0", "closed"), aSaw, "a saw " + aSaw);
        System.out.println("[CompletionEventSystemTest] b: " + bSaw + "; a: " + aSaw);
    }
}
