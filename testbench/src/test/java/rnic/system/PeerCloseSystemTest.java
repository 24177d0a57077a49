package rnic.system;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import rnic.cm.CmEvent;
import rnic.cm.CmEventChannel;
import rnic.cm.ConnectParams;
import rnic.cm.Connection;
import rnic.cm.ConnectionManager;
import rnic.sim.HostThreads;
import rnic.sim.Pacer;
import rnic.sim.RnicSystem;
import rnic.sim.tcp.TcpEnd;
import rnic.transport.Transport;
import rnic.verbs.Access;
import rnic.verbs.AsyncEvent;
import rnic.verbs.AsyncEventChannel;
import rnic.verbs.Completion;
import rnic.verbs.CompletionOpcode;
import rnic.verbs.CompletionQueue;
import rnic.verbs.CompletionStatus;
import rnic.verbs.Device;
import rnic.verbs.DmaBuffer;
import rnic.verbs.MemoryRegion;
import rnic.verbs.ProtectionDomain;
import rnic.verbs.QueuePair;
import rnic.verbs.RecvRequest;
import rnic.verbs.WorkRequest;
import rnic.wire.CqeKind;
import rnic.wire.MpaErrorCode;
import rnic.wire.QpState;

/**
 * The peer ends the TCP connection under a queue pair in RTS, through the real driver on the two-RNIC system
 * ({@code RnicPair}, W = 64): a (Initiator) sends {@value #SENDS} Sends of {@value #LEN} octets to b (Responder, with a
 * connection-manager event channel and {@value #RECVS} receives posted), sees them complete, and then ends its TCP
 * connection — an orderly {@link Connection#disconnect} (QP to ERR, then FIN) or an abortive reset
 * ({@code TcpConnection.abort}, RST). b's tcpRx ports take a beat only on 5 % of the cycles, so when the FIN arrives
 * at b most of the Sends are still waiting in b's TCP receive buffer for the core: data in flight before the FIN.
 *
 * <p>What b's application must see, without polling anything but its CQ and its two event channels:
 * <ul>
 *   <li>FIN: every Send before it placed and completed SUCCESS with its exact octets, in order (RFC 5044 §7.2: the
 *       FIN comes after them in the stream); then the QP in ERR with the cause MPA_ERROR / E-M1 TCP_CLOSED
 *       ({@link QueuePair#error()}; at most one QP_ERROR entry on its CQ, with that cause), the receives still posted
 *       completed FLUSH_ERROR (DDP-27) and so do a receive and a Send posted afterwards, the asynchronous events
 *       QP_ERROR (E-M1) and TCP_CLOSED (DDP-28), the connection manager's {@code Disconnected(PEER_CLOSED)}
 *       (MPA-41).</li>
 *   <li>RST: octets the core had not taken when the reset came are discarded (RFC 793 §3.4); every whole FPDU among
 *       the octets it had taken is placed (the golden count: octets taken over the FPDU size, 2 + 18 + {@value #LEN}
 *       + 4 with Rev 1 frames, no Markers, no RTR), nothing after; the same ERR, cause, flushes and events, and
 *       {@code Disconnected(RESET)}.</li>
 *   <li>Nothing is placed after the stream ended: the buffers of the flushed receives keep their fill octets, also
 *       after a further wait.</li>
 * </ul>
 * Run time: about 20 s for both cases with the model compiled.
 */
@Tag("verilator")
class PeerCloseSystemTest {
    private static final int SENDS = 6;
    private static final int RECVS = 10;
    private static final int LEN = 1024;
    /** FPDU of one Send: ULPDU_Length, the untagged DDP/RDMAP header, the payload (a multiple of 4: no PAD), CRC. */
    private static final int FPDU = 2 + 18 + LEN + 4;
    private static final byte FILL = (byte) 0xEE;
    private static final Duration CONNECT = Duration.ofNanos(200_000 * 4L);
    private static final Duration LONG = Duration.ofMillis(2);

    /** Octet {@code i} of Send {@code m}: the golden content, written by a and expected at b. */
    private static byte octet(int m, int i) {
        return (byte) (m * 31 + i * 7 + 1);
    }

    private static byte[] message(int m) {
        byte[] d = new byte[LEN];
        for (int i = 0; i < LEN; i++) {
            d[i] = octet(m, i);
        }
        return d;
    }

    private static ConnectParams params() {
        return ConnectParams.defaults().withRev1().withTimeout(CONNECT);
    }

    /** a: connects, sends, waits for its completions, then FIN ({@code reset} false) or RST. */
    private static void sender(Transport t, boolean reset) {
        try (Device dev = Device.open(t)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue cq = dev.createCompletionQueue(64);
            DmaBuffer buf = dev.allocate(SENDS * LEN);
            for (int m = 0; m < SENDS; m++) {
                buf.put((long) m * LEN, message(m));
            }
            MemoryRegion mr = pd.registerMemory(buf, EnumSet.of(Access.LOCAL_WRITE));
            QueuePair qp = pd.createQueuePair(new QueuePair.Config(cq, cq, 16, 16, 0, 0));
            Connection conn = SystemRig.connect(new ConnectionManager(dev), SystemRig.B_LISTENS, qp, params());
            for (int m = 0; m < SENDS; m++) {
                qp.postSend(WorkRequest.send(mr.sge((long) m * LEN, LEN)).withId(m));
            }
            Completion[] out = Completion.array(8);
            int done = 0;
            long start = dev.nanoTime();
            while (done < SENDS) {
                int n = cq.poll(out);
                for (int i = 0; i < n; i++) {
                    assertEquals(CompletionStatus.SUCCESS, out[i].status(), "a: " + out[i]);
                    assertEquals(done + i, out[i].wrId());
                }
                done += n;
                assertTrue(dev.nanoTime() - start < LONG.toNanos(), "a: only " + done + " Sends completed");
                t.advance();
            }
            // A Send's completion may come a few cycles before its last octets reach tcpTx: let the framer finish.
            long quiet = dev.nanoTime();
            while (dev.nanoTime() - quiet < 4_000) {
                t.advance();
            }
            if (reset) {
                qp.tcpConnection().abort();
            } else {
                conn.disconnect();
            }
            long idle = dev.nanoTime();
            while (dev.nanoTime() - idle < 200_000) { // b's program ends first; a's device stays up meanwhile
                t.advance();
            }
        }
    }

    /** What b saw, checked in the test thread. */
    private record Seen(int success, int flushed, int pendingAtFin, long taken, List<AsyncEvent> events,
            Connection.CloseReason reason, QpState state, Completion error, List<String> late) {
    }

    private static Seen receiver(Transport t, RnicSystem sys, boolean reset) {
        try (Device dev = Device.open(t)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue cq = dev.createCompletionQueue(64);
            DmaBuffer buf = dev.allocate(RECVS * LEN);
            buf.fill(0, RECVS * LEN, FILL);
            MemoryRegion mr = pd.registerMemory(buf, EnumSet.of(Access.LOCAL_WRITE));
            QueuePair qp = pd.createQueuePair(new QueuePair.Config(cq, cq, 16, 16, 0, 0));
            for (int r = 0; r < RECVS; r++) {
                qp.postRecv(RecvRequest.of(mr.sge((long) r * LEN, LEN)).withId(100 + r));
            }
            ConnectionManager cm = new ConnectionManager(dev);
            CmEventChannel ch = cm.createEventChannel();
            cm.listen(SystemRig.B_LISTENS, ch);
            CmEvent.ConnectRequest req = ch.await(CmEvent.ConnectRequest.class, CONNECT);
            Connection conn = req.request().accept(qp, params());
            assertSame(conn, ch.await(CmEvent.Established.class, CONNECT).connection());
            AsyncEventChannel async = dev.asyncEventChannel();

            // The peer's FIN (or RST) reaches b's TCP end; how many octets still wait for the core then.
            TcpEnd end = (TcpEnd) qp.tcpConnection();
            long start = dev.nanoTime();
            while (!end.closed()) {
                assertTrue(dev.nanoTime() - start < LONG.toNanos(), "b: the peer never closed");
                t.advance();
            }
            int pendingAtFin = end.coreAvailable();

            // The application's view: asynchronous events, the connection manager, the CQ.
            List<AsyncEvent> events = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                AsyncEvent e = async.await(LONG);
                assertNotNull(e, "b: only " + events + " on the asynchronous event channel");
                events.add(e);
            }
            CmEvent.Disconnected gone = ch.await(CmEvent.Disconnected.class, LONG);
            assertSame(conn, gone.connection());
            int success = 0;
            int flushed = 0;
            Completion error = null;
            Completion[] out = Completion.array(16);
            start = dev.nanoTime();
            while (success + flushed < RECVS) {
                int n = cq.poll(out);
                for (int i = 0; i < n; i++) {
                    Completion c = out[i];
                    if (c.opcode() == CompletionOpcode.QP_ERROR) {
                        assertEquals(null, error, "b: a second error entry " + c);
                        error = c.copy();
                        continue;
                    }
                    assertEquals(CompletionOpcode.RECV, c.opcode(), c.toString());
                    assertEquals(100 + success + flushed, c.wrId(), "b: receives complete in order");
                    if (c.status() == CompletionStatus.SUCCESS) {
                        assertEquals(0, flushed, "b: a receive completed after a flushed one: " + c);
                        assertEquals(LEN, c.byteLength());
                        success++;
                    } else {
                        assertEquals(CompletionStatus.FLUSH_ERROR, c.status(), c.toString());
                        flushed++;
                    }
                }
                assertTrue(dev.nanoTime() - start < LONG.toNanos(), "b: only " + (success + flushed) + " of "
                        + RECVS + " receives completed");
                t.advance();
            }
            // Requests posted now, with the QP in ERR, complete with a flush error too.
            qp.postRecv(RecvRequest.of(mr.sge(0, LEN)).withId(200));
            qp.postSend(WorkRequest.send(mr.sge(0, 8)).withId(300));
            List<String> late = new ArrayList<>();
            start = dev.nanoTime();
            while (late.size() < 2) {
                int n = cq.poll(out);
                for (int i = 0; i < n; i++) {
                    if (out[i].opcode() == CompletionOpcode.QP_ERROR) { // the error entry may come after the flushes
                        assertEquals(null, error, "b: a second error entry " + out[i]);
                        error = out[i].copy();
                    } else {
                        late.add(out[i].wrId() + " " + out[i].opcode() + " " + out[i].status());
                    }
                }
                assertTrue(dev.nanoTime() - start < LONG.toNanos(), "b: requests posted in ERR gave only " + late);
                t.advance();
            }
            // Nothing is placed after the end of the stream, also later: placed messages intact, the rest untouched.
            long later = dev.nanoTime();
            while (dev.nanoTime() - later < 20_000) {
                t.advance();
            }
            int n = cq.poll(out);
            if (n == 1 && error == null && out[0].opcode() == CompletionOpcode.QP_ERROR) {
                error = out[0].copy();
                n = 0;
            }
            assertEquals(0, n, "b: a completion after the flush");
            for (int r = 0; r < RECVS; r++) {
                byte[] got = buf.get((long) r * LEN, LEN);
                if (r < success) {
                    assertArrayEquals(message(r), got, "b: receive " + r + " holds Send " + r);
                } else {
                    byte[] fill = new byte[LEN];
                    java.util.Arrays.fill(fill, FILL);
                    assertArrayEquals(fill, got, "b: receive " + r + " was flushed, yet octets were placed in it");
                }
            }
            long taken = sys.rxDriver(1, qp.number()).octets();
            if (error == null) { // no error entry on the CQ: the cause as the driver reads it (QP_ERROR)
                error = qp.error();
            }
            return new Seen(success, flushed, pendingAtFin, taken, events, gone.reason(), qp.state(), error, late);
        }
    }

    private static Seen run(String name, boolean reset) {
        Seen[] seen = new Seen[1];
        RnicSystem.Builder builder = RnicSystem.builder().rxPacer(() -> Pacer.random(new Random(41), 0.05));
        RnicSystem.run(RnicSystem.model(SystemRig.WIDTH), name, 41, builder, sys -> new HostThreads()
                .add("a", sys.a(), t -> sender(t, reset))
                .add("b", sys.b(), t -> seen[0] = receiver(t, sys, reset)).run());
        return seen[0];
    }

    /** Checks what both cases share: ERR, the E-M1 entry, the two asynchronous events, all receives accounted for. */
    private static void common(Seen s) {
        assertEquals(QpState.ERR, s.state(), "b's QP after the end of its stream");
        assertEquals(RECVS, s.success() + s.flushed());
        assertNotNull(s.error(), "b: QueuePair.error() names no cause");
        assertEquals(CqeKind.MPA_ERROR, s.error().cqeKind(), s.error().toString());
        assertEquals(MpaErrorCode.TCP_CLOSED, s.error().mpaError(), s.error().toString());
        AsyncEvent qpError = null;
        AsyncEvent closed = null;
        for (AsyncEvent e : s.events()) {
            if (e.type() == AsyncEvent.Type.QP_ERROR) {
                qpError = e;
            } else if (e.type() == AsyncEvent.Type.TCP_CLOSED) {
                closed = e;
            }
        }
        assertNotNull(qpError, "no QP_ERROR event: " + s.events());
        assertNotNull(closed, "no TCP_CLOSED event: " + s.events());
        assertEquals(CqeKind.MPA_ERROR, qpError.kind(), qpError.toString());
        assertEquals(MpaErrorCode.TCP_CLOSED, qpError.mpaError(), qpError.toString());
        assertEquals(List.of("200 RECV FLUSH_ERROR", "300 SEND FLUSH_ERROR"), s.late().stream().sorted().toList(),
                "requests posted in ERR");
    }

    /**
     * MPA-41, DDP-28, DDP-27, DDP-26, MPA-25: a FIN after Sends still in flight — every Send before it placed and
     * completed, then E-M1, ERR, flushes and the events.
     */
    @Test
    void aPeerFinAfterDataInFlightPlacesTheDataThenFailsTheQueuePair() {
        Seen s = run("peerFin", false);
        System.out.println("[PeerCloseSystemTest] FIN: " + s.success() + " placed, " + s.flushed() + " flushed, "
                + s.pendingAtFin() + " octets waiting for b's core when the FIN arrived, events " + s.events());
        assertTrue(s.pendingAtFin() > 0, "the FIN should arrive while Sends still wait for b's core");
        assertEquals(SENDS, s.success(), "every Send before the FIN is placed");
        assertEquals((long) SENDS * FPDU, s.taken(), "b's core took exactly the FPDUs before the FIN");
        assertEquals(Connection.CloseReason.PEER_CLOSED, s.reason());
        common(s);
    }

    /**
     * MPA-41, DDP-28, DDP-27, MPA-25: a RST — what b's core had taken in whole FPDUs is placed, the rest is discarded,
     * then E-M1, ERR, flushes and the events.
     */
    @Test
    void aPeerResetDiscardsWhatTheCoreHadNotTakenAndFailsTheQueuePair() {
        Seen s = run("peerRst", true);
        System.out.println("[PeerCloseSystemTest] RST: " + s.success() + " placed, " + s.flushed() + " flushed, "
                + s.taken() + " octets taken by b's core, events " + s.events());
        assertEquals(Math.min(SENDS, s.taken() / FPDU), s.success(), "whole FPDUs taken before the RST are placed");
        assertTrue(s.success() < SENDS, "the RST should come while Sends still wait for b's core");
        assertEquals(Connection.CloseReason.RESET, s.reason());
        common(s);
    }
}
