package rnic.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import rnic.cm.ConnectParams;
import rnic.cm.ConnectionManager;
import rnic.cm.Listener;
import rnic.sim.RnicSystem;
import rnic.transport.Transport;
import rnic.verbs.Access;
import rnic.verbs.Completion;
import rnic.verbs.CompletionQueue;
import rnic.verbs.CompletionStatus;
import rnic.verbs.Device;
import rnic.verbs.DmaBuffer;
import rnic.verbs.MemoryRegion;
import rnic.verbs.ProtectionDomain;
import rnic.verbs.QueuePair;
import rnic.verbs.RecvRequest;
import rnic.verbs.RemoteBuffer;
import rnic.verbs.WorkRequest;
import rnic.verbs.WrongStateException;
import rnic.wire.QpState;
import rnic.wire.TerminateCause;

/**
 * Each error completion status through the real driver and both cores, one fault per QP on four QPs of one simulated
 * pair, in order, so every later QP also shows that an earlier QP's failure did not touch it (DDP-27, RDMAP-25):
 *
 * <ul>
 *   <li>QP 0 — RDMA Write to a region registered without REMOTE_WRITE: the Responder sends Terminate 1/1/00 (E-D2,
 *       DDP-30); the requester sees REMOTE_ACCESS_ERROR, the Responder PEER_ACCESS_VIOLATION.
 *   <li>QP 1 — a Send with no receive buffer posted: E-D9 (DDP 1/2/02, DDP-16): REMOTE_INVALID_REQUEST and
 *       NO_RECEIVE_BUFFER.
 *   <li>QP 2 — a 256-octet Send into a 64-octet buffer: E-D12 (1/2/05, DDP-18): REMOTE_INVALID_REQUEST and
 *       LOCAL_LENGTH_ERROR.
 *   <li>QP 3 — a Send with Invalidate naming an STag that was never registered: E-R6 (0/2/09, RDMAP-13, RDMAP-26):
 *       REMOTE_OPERATION_ERROR and PEER_ACCESS_VIOLATION.
 * </ul>
 * After each fault both QPs read ERR (RDMAP-18), a request posted after it completes with FLUSH_ERROR, the posted
 * receive buffers are flushed, posting on a QP in ERR is refused only when the QP was moved to RESET (wrong state),
 * and RESET then INIT bring the QP back.
 */
@Tag("verilator")
class CompletionStatusSystemTest {
    private static final long TIMEOUT = 200_000;

    /** What each side saw per QP. */
    private final List<List<CompletionStatus>> seenA = new ArrayList<>();
    private final List<List<CompletionStatus>> seenB = new ArrayList<>();
    private final List<TerminateCause> causesB = new ArrayList<>();
    private final List<QpState> statesA = new ArrayList<>();
    private final List<QpState> statesB = new ArrayList<>();
    private final List<String> afterReset = new ArrayList<>();
    private boolean bReady;

    private static ConnectParams params() {
        return ConnectParams.defaults().withTimeout(java.time.Duration.ofNanos(TIMEOUT * 4)); // cycles at 250 MHz
    }

    /** Collects completions of {@code qp} from {@code cq} until one matches {@code last} or the timeout. */
    private static List<Completion> until(Device dev, CompletionQueue cq, int qp, Predicate<Completion> last) {
        Completion[] out = Completion.array(8);
        List<Completion> got = new ArrayList<>();
        long t0 = dev.cycles();
        while (dev.cycles() - t0 < TIMEOUT) {
            int n = cq.poll(out);
            boolean done = false;
            for (int i = 0; i < n; i++) {
                Completion c = out[i].copy();
                if (c.qpNumber() == qp) {
                    got.add(c);
                    done |= last.test(c);
                }
            }
            if (done) {
                return got;
            }
            if (n == 0) {
                dev.transport().advance();
            }
        }
        return got;
    }

    private void requester(Transport t) {
        try (Device dev = Device.open(t)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue scq = dev.createCompletionQueue(128);
            CompletionQueue rcq = dev.createCompletionQueue(128);
            DmaBuffer src = dev.allocate(4096);
            MemoryRegion mr = pd.registerMemory(src, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            ConnectionManager cm = new ConnectionManager(dev);
            for (int q = 0; q < 4; q++) {
                QueuePair qp = pd.createQueuePair(new QueuePair.Config(scq, rcq, 16, 16, 0, q));
                var c = SystemRig.connect(cm, SystemRig.B_LISTENS, qp, params());
                java.nio.ByteBuffer pdata = java.nio.ByteBuffer.wrap(c.peerPrivateData());
                RemoteBuffer target = new RemoteBuffer(pdata.getInt(), pdata.getLong());
                WorkRequest bad = switch (q) {
                    case 0 -> WorkRequest.rdmaWrite(mr.sge(0, 64), target);
                    case 1 -> WorkRequest.send(mr.sge(0, 64));
                    case 2 -> WorkRequest.send(mr.sge(0, 256));
                    default -> WorkRequest.sendWithInvalidate(mr.sge(0, 16), 0x00_3F_00_5A);
                };
                qp.postSend(bad);
                // a Read cannot complete once the peer has terminated the stream: it is flushed
                qp.postSend(WorkRequest.rdmaRead(mr.sge(128, 8), target).withFence());
                List<CompletionStatus> s = new ArrayList<>();
                for (Completion x : until(dev, scq, q, x -> x.status() == CompletionStatus.FLUSH_ERROR)) {
                    s.add(x.status());
                }
                seenA.add(s);
                statesA.add(qp.state());
                qp.modify(QpState.RESET);
                try {
                    qp.postSend(WorkRequest.rdmaWrite(mr.sge(0, 8), target));
                    afterReset.add("post accepted in RESET");
                } catch (WrongStateException e) {
                    afterReset.add("refused");
                }
                qp.modify(QpState.INIT);
                afterReset.add(qp.state().toString());
            }
        }
    }

    private void responder(Transport t) {
        try (Device dev = Device.open(t)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue scq = dev.createCompletionQueue(128);
            CompletionQueue rcq = dev.createCompletionQueue(128);
            DmaBuffer buf = dev.allocate(4096);
            MemoryRegion readOnly = pd.registerMemory(buf, 0, 1024, EnumSet.of(Access.REMOTE_READ));
            MemoryRegion atomics = pd.registerMemory(buf, 1024, 1024,
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC));
            MemoryRegion recv = pd.registerMemory(buf, 2048, 2048, EnumSet.of(Access.LOCAL_WRITE));
            Listener listener = new ConnectionManager(dev).listen(SystemRig.B_LISTENS);
            for (int q = 0; q < 4; q++) {
                QueuePair qp = pd.createQueuePair(new QueuePair.Config(scq, rcq, 16, 16, 0, q));
                if (q == 2) {
                    qp.postRecv(RecvRequest.of(recv.sge(0, 64)));
                }
                if (q == 0 || q == 3) {
                    qp.postRecv(RecvRequest.of(recv.sge(0, 1024)));
                }
                MemoryRegion target = q == 3 ? atomics : readOnly;
                byte[] pdata = java.nio.ByteBuffer.allocate(12).putInt(target.rkey()).putLong(target.address())
                        .array();
                listener.accept(qp, params().withPrivateData(pdata), java.time.Duration.ofNanos(TIMEOUT * 40));
                List<CompletionStatus> s = new ArrayList<>();
                TerminateCause cause = null;
                for (Completion x : until(dev, scq, q, Completion::isQpError)) {
                    s.add(x.status());
                    if (x.isQpError()) {
                        cause = x.terminateCause();
                    }
                }
                seenB.add(s);
                causesB.add(cause);
                statesB.add(qp.state());
            }
            bReady = true;
        }
    }

    @Test
    void eachFaultHasItsStatusOnBothSidesAndStaysOnItsQp() {
        SystemRig.run("completionStatus", 11, RnicSystem.builder(), this::requester, this::responder);
        assertTrue(bReady);
        List<CompletionStatus> wantA = List.of(CompletionStatus.REMOTE_ACCESS_ERROR,
                CompletionStatus.REMOTE_INVALID_REQUEST, CompletionStatus.REMOTE_INVALID_REQUEST,
                CompletionStatus.REMOTE_OPERATION_ERROR);
        List<CompletionStatus> wantB = List.of(CompletionStatus.PEER_ACCESS_VIOLATION,
                CompletionStatus.NO_RECEIVE_BUFFER, CompletionStatus.LOCAL_LENGTH_ERROR,
                CompletionStatus.PEER_ACCESS_VIOLATION);
        List<TerminateCause> wantCause = List.of(TerminateCause.DDP_PLACEMENT_NOT_ALLOWED, TerminateCause.DDP_NO_BUFFER,
                TerminateCause.DDP_MESSAGE_TOO_LONG, TerminateCause.INVALIDATE_OPERATION);
        for (int q = 0; q < 4; q++) {
            List<CompletionStatus> a = seenA.get(q);
            assertTrue(a.contains(wantA.get(q)), "QP " + q + " requester saw " + a);
            assertEquals(CompletionStatus.FLUSH_ERROR, a.get(a.size() - 1), "QP " + q + " requester saw " + a);
            assertTrue(seenB.get(q).contains(wantB.get(q)), "QP " + q + " responder saw " + seenB.get(q) + ", cause "
                    + causesB.get(q));
            assertEquals(wantCause.get(q), causesB.get(q), "QP " + q);
            assertEquals(QpState.ERR, statesA.get(q), "QP " + q);
            assertEquals(QpState.ERR, statesB.get(q), "QP " + q);
        }
        assertEquals(List.of("refused", "INIT", "refused", "INIT", "refused", "INIT", "refused", "INIT"), afterReset);
    }
}
