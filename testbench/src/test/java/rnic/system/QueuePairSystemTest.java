package rnic.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
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
import rnic.verbs.Completion;
import rnic.verbs.CompletionQueue;
import rnic.verbs.CompletionStatus;
import rnic.verbs.Device;
import rnic.verbs.DmaBuffer;
import rnic.verbs.LocalProtectionException;
import rnic.verbs.MemoryRegion;
import rnic.verbs.ProtectionDomain;
import rnic.verbs.QueueFullException;
import rnic.verbs.QueuePair;
import rnic.verbs.RemoteBuffer;
import rnic.verbs.ResourceClosedException;
import rnic.verbs.Sge;
import rnic.verbs.VerbsException;
import rnic.verbs.WorkRequest;
import rnic.verbs.WrongStateException;
import rnic.wire.QpState;

/**
 * QP states, IRD/ORD limits, queue-full handling and host-API misuse through the real driver and both cores:
 *
 * <ul>
 *   <li>States: a QP is INIT before connecting (posting a send is refused: wrong state), INIT → RTS directly is
 *       refused and leaves it INIT, the connection brings it to RTS, RTS → SQD → RTS keeps it working, ERR on request,
 *       RESET, INIT (RDMAP-18; the host moves of {@code QpState.hostMayMoveTo}).
 *   <li>IRD/ORD (RFC 6581 negotiation, RDMAP-24, RDMAP-37): the Responder offers IRD 2; the Initiator's ORD comes
 *       out as 2, and eight back-to-back RDMA Reads all complete — had the core let a third Read out while two were
 *       outstanding, the Responder would have answered with a Terminate (E-R12).
 *   <li>Queue full: a send queue of 4 takes 4 signaled requests, the 5th throws QueueFullException (a signaled
 *       request's slot is free once its completion was polled); once they are polled it takes more.
 *   <li>Unsignaled Local Invalidate: of a valid region it shows no completion (the next Write's is the first) and
 *       the driver knows the region is invalid; of that region again it shows its failure, the QP staying in RTS.
 *       The core writes the entry either way, so the CQ room the driver reserves covers it.
 *   <li>Misuse (a clear exception, the device stays usable): an unregistered buffer, a region of another PD, a
 *       Read sink without REMOTE_WRITE, a closed region, a closed QP.
 * </ul>
 * After every refused call a real operation still completes.
 */
@Tag("verilator")
class QueuePairSystemTest {
    private static final long TIMEOUT = 300_000;
    private final List<String> log = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private Connection connection;
    private int readsDone;

    private static ConnectParams params() {
        return ConnectParams.defaults().withTimeout(Duration.ofNanos(TIMEOUT * 4)); // cycles at 250 MHz
    }

    private <E extends VerbsException> void expect(Class<E> type, String what, Runnable r) {
        try {
            r.run();
            failures.add(what + ": no exception");
        } catch (VerbsException e) {
            if (type.isInstance(e)) {
                log.add(what + ": " + type.getSimpleName());
            } else {
                failures.add(what + ": " + e);
            }
        }
    }

    private void completeOne(Device dev, CompletionQueue cq, String what) {
        Completion[] out = Completion.array(1);
        int n = cq.awaitCount(out, 1, Duration.ofNanos(TIMEOUT * 4)); // TIMEOUT cycles at 250 MHz
        if (n != 1 || out[0].status() != CompletionStatus.SUCCESS) {
            failures.add(what + ": " + (n == 0 ? "no completion" : out[0].toString()));
        }
    }

    private void requester(Transport t) {
        try (Device dev = Device.open(t)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            ProtectionDomain other = dev.allocateProtectionDomain();
            CompletionQueue scq = dev.createCompletionQueue(64);
            CompletionQueue rcq = dev.createCompletionQueue(64);
            QueuePair qp = pd.createQueuePair(new QueuePair.Config(scq, rcq, 4, 4, 0, 0));
            DmaBuffer buf = dev.allocate(16384);
            MemoryRegion mr = pd.registerMemory(buf, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            MemoryRegion noRemoteWrite = pd.registerMemory(buf, 8192, 4096, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion foreign = other.registerMemory(dev.allocate(4096), EnumSet.of(Access.LOCAL_WRITE));
            DmaBuffer loose = dev.allocate(4096);

            log.add("created: " + qp.state());
            RemoteBuffer nowhere = new RemoteBuffer(0x100, 0);
            expect(WrongStateException.class, "post in INIT",
                    () -> qp.postSend(WorkRequest.rdmaWrite(mr.sge(0, 8), nowhere)));
            expect(WrongStateException.class, "INIT -> RTS", () -> qp.modify(QpState.RTS));
            log.add("after refused move: " + qp.state());

            connection = SystemRig.connect(new ConnectionManager(dev), SystemRig.B_LISTENS, qp,
                    params().withIrdOrd(8, 8));
            log.add("connected: " + qp.state() + ", ORD " + connection.ord());
            ByteBuffer p = ByteBuffer.wrap(connection.peerPrivateData());
            RemoteBuffer source = new RemoteBuffer(p.getInt(), p.getLong());

            // ORD: eight Reads, at most 4 in the queue at once, the core keeps at most ORD of them on the wire
            Completion[] out = Completion.array(4);
            int posted = 0;
            long t0 = dev.cycles();
            while (readsDone < 8 && dev.cycles() - t0 < TIMEOUT) {
                while (posted < 8 && qp.sendQueueFree() > 0) {
                    qp.postSend(WorkRequest.rdmaRead(mr.sge(posted * 512L, 512), source.plus(posted * 512L)));
                    posted++;
                }
                int n = scq.poll(out);
                for (int i = 0; i < n; i++) {
                    if (out[i].status() == CompletionStatus.SUCCESS) {
                        readsDone++;
                    } else {
                        failures.add("Read: " + out[i]);
                    }
                }
                if (n == 0) {
                    t.advance();
                }
            }

            // queue full: 4 slots, each held by a signaled request until its completion is polled
            for (int i = 0; i < 4; i++) {
                qp.postSend(WorkRequest.rdmaWrite(mr.sge(0, 64), source.plus(8192)));
            }
            expect(QueueFullException.class, "5th request on a queue of 4",
                    () -> qp.postSend(WorkRequest.rdmaWrite(mr.sge(0, 64), source.plus(8192))));
            for (int i = 0; i < 4; i++) {
                completeOne(dev, scq, "Write " + i + " of the full queue");
            }
            qp.postSend(WorkRequest.rdmaWrite(mr.sge(0, 64), source.plus(8192)));
            completeOne(dev, scq, "a Write once the queue drained");

            // unsignaled Local Invalidates: of a valid region, no completion shown (the driver learns from the entry
            // the core writes anyway that the region is invalid); of that region again, its failure shown
            MemoryRegion spare = pd.registerMemory(buf, 12288, 1024, EnumSet.of(Access.LOCAL_WRITE));
            qp.postSend(WorkRequest.localInvalidate(spare.lkey()).withSignaled(false));
            qp.postSend(WorkRequest.rdmaWrite(mr.sge(0, 64), source.plus(8192)));
            Completion[] one = Completion.array(1);
            int got = scq.awaitCount(one, 1, Duration.ofNanos(TIMEOUT * 4));
            log.add("quiet invalidate: " + (spare.isValid() ? "region valid" : "region invalid") + ", then "
                    + (got == 1 ? one[0].opcode() + " " + one[0].status() : "nothing"));
            qp.postSend(WorkRequest.localInvalidate(spare.lkey()).withSignaled(false));
            got = scq.awaitCount(one, 1, Duration.ofNanos(TIMEOUT * 4));
            log.add("quiet invalidate that fails: " + (got == 1 ? one[0].opcode() + " " + one[0].status()
                    : "nothing") + ", QP " + qp.state());
            qp.postSend(WorkRequest.rdmaWrite(mr.sge(0, 64), source.plus(8192)));
            completeOne(dev, scq, "a Write after the failed invalidate");

            // misuse
            expect(LocalProtectionException.class, "unregistered buffer",
                    () -> qp.postSend(WorkRequest.send(Sge.unregistered(loose, 0, 64))));
            expect(LocalProtectionException.class, "region of another PD",
                    () -> qp.postSend(WorkRequest.rdmaWrite(foreign.sge(0, 64), source.plus(8192))));
            expect(LocalProtectionException.class, "Read sink without REMOTE_WRITE",
                    () -> qp.postSend(WorkRequest.rdmaRead(noRemoteWrite.sge(0, 64), source)));
            noRemoteWrite.close();
            expect(VerbsException.class, "closed region",
                    () -> qp.postSend(WorkRequest.rdmaWrite(noRemoteWrite.sge(0, 64), source.plus(8192))));
            qp.postSend(WorkRequest.rdmaWrite(mr.sge(0, 64), source.plus(8192)));
            completeOne(dev, scq, "a Write after the refused calls");

            // SQD and back
            qp.modify(QpState.SQD);
            log.add("drained: " + qp.state());
            qp.modify(QpState.RTS);
            qp.postSend(WorkRequest.rdmaWrite(mr.sge(0, 64), source.plus(8192)));
            completeOne(dev, scq, "a Write after SQD -> RTS");

            // ERR on request, RESET, INIT; a closed QP refuses everything
            qp.modify(QpState.ERR);
            log.add("error: " + qp.state());
            qp.modify(QpState.RESET);
            qp.modify(QpState.INIT);
            log.add("reset and init: " + qp.state());
            qp.close();
            expect(ResourceClosedException.class, "closed QP",
                    () -> qp.postSend(WorkRequest.rdmaWrite(mr.sge(0, 64), nowhere)));
        }
    }

    private void responder(Transport t) {
        try (Device dev = Device.open(t)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue scq = dev.createCompletionQueue(64);
            CompletionQueue rcq = dev.createCompletionQueue(64);
            QueuePair qp = pd.createQueuePair(new QueuePair.Config(scq, rcq, 4, 4, 0, 0));
            DmaBuffer buf = dev.allocate(16384);
            MemoryRegion mr = pd.registerMemory(buf, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ));
            new ConnectionManager(dev).listen(SystemRig.B_LISTENS).accept(qp, params().withIrdOrd(2, 2)
                    .withPrivateData(ByteBuffer.allocate(12).putInt(mr.rkey()).putLong(mr.address()).array()),
                    Duration.ofNanos(TIMEOUT * 40));
            // stay up (and answer Reads) until the requester has taken its QP down
            Completion[] out = Completion.array(4);
            long t0 = dev.cycles();
            while (dev.cycles() - t0 < 3 * TIMEOUT) {
                int n = scq.poll(out);
                for (int i = 0; i < n; i++) {
                    if (out[i].isQpError()) {
                        log.add("responder: " + out[i].status());
                        return;
                    }
                }
                t.advance();
                if (log.stream().anyMatch(s -> s.startsWith("reset and init"))) {
                    return;
                }
            }
        }
    }

    @Test
    void statesLimitsQueueFullAndMisuse() {
        SystemRig.run("queuePair", 13, RnicSystem.builder(), this::requester, this::responder);
        assertEquals(List.of(), failures, () -> "log: " + log);
        assertEquals(2, connection.ord(), "ORD after the Responder offered IRD 2");
        assertEquals(8, readsDone);
        for (String want : List.of("created: INIT", "post in INIT: WrongStateException",
                "INIT -> RTS: WrongStateException", "after refused move: INIT", "connected: RTS, ORD 2",
                "5th request on a queue of 4: QueueFullException",
                "quiet invalidate: region invalid, then RDMA_WRITE SUCCESS",
                "quiet invalidate that fails: LOCAL_INVALIDATE LOCAL_QP_OPERATION_ERROR, QP RTS",
                "unregistered buffer: LocalProtectionException",
                "region of another PD: LocalProtectionException",
                "Read sink without REMOTE_WRITE: LocalProtectionException", "closed region: VerbsException",
                "drained: SQD", "error: ERR", "reset and init: INIT", "closed QP: ResourceClosedException")) {
            assertTrue(log.contains(want), "missing \"" + want + "\" in " + log);
        }
    }
}
