package rnic.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import rnic.cm.ConnectParams;
import rnic.cm.ConnectionManager;
import rnic.cm.Listener;
import rnic.sim.RnicSystem;
import rnic.sim.tcp.Segmentation;
import rnic.sim.tcp.TcpChannel;
import rnic.sim.tcp.TcpOptions;
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

/**
 * A random mix of RDMA Writes, Reads, Sends and FetchAdds in both directions over all four QPs of two RNICs at once,
 * through the real driver, checked against a host-memory model kept by the test: over the TCP channel model with mixed
 * re-segmentation (down to 1-octet segments) and 2 % loss with retransmission (MPA-23, DDP-02, DDP-03), and over real
 * kernel sockets on 127.0.0.1 (Linux's segmentation).
 *
 * <p>Per QP each side has a Write target (only the peer writes it), a Read source (a fixed pattern), a FetchAdd
 * counter and receive buffers. The model's expectations: the Write target ends as the peer's Writes applied in posting
 * order (one stream places in order, RDMAP-05, DDP-10); every Read returns the source's octets (RDMAP-11); the n-th
 * receive completion of a QP carries the n-th Send's payload (RDMAP-12, DDP-14); the n-th FetchAdd returns the initial
 * value plus the earlier adds and the counter ends at the sum (RDMAP-28, RFC 7306 §5.1.1); every completion is
 * SUCCESS and comes in posting order per QP (RDMAP-23). Sends are paced by a credit count the test keeps (a ULP's
 * credits), so a receive buffer is always there. A request's local buffer is a slot that is free again the moment its
 * completion is seen (RDMAP-23: a completed Write or Send no longer reads its source): the test then overwrites the
 * slot with a new pattern at once, and the next request of that QP takes the slot freed last — so a completion that
 * came before the core had read its payload would show up as a wrong Write target or Send payload at the peer.
 */
@Tag("verilator")
class RandomMixSystemTest {
    static final int QPS = 4;
    static final int OPS = 120;
    static final int TARGET = 16 * 1024;
    static final int RECV = 2048;
    static final int RECVS = 8;
    static final long TIMEOUT = 400_000;
    static final int LOCAL_SLOTS = QPS * 16;

    /** One side's state, shared with the other host's program (the hosts alternate strictly: plain fields). */
    static final class Side {
        final String name;
        final long seed;
        /** Expected image of the PEER's Write target per QP (this side writes it). */
        final byte[][] peerTarget = new byte[QPS][TARGET];
        /** Payloads this side sent per QP, in order. */
        final List<ArrayDeque<byte[]>> sent = new ArrayList<>();
        /** Receive buffers this side has posted and not yet seen completed, per QP (the peer's send credits). */
        final int[] credits = new int[QPS];
        /** Sum of this side's FetchAdds per QP so far (the peer's counter must end at initial + this). */
        final long[] addsTotal = new long[QPS];
        final List<String> failures = new ArrayList<>();
        boolean finished;
        boolean verified;
        int completions;

        Side(String name, long seed) {
            this.name = name;
            this.seed = seed;
            for (int q = 0; q < QPS; q++) {
                sent.add(new ArrayDeque<>());
            }
        }
    }

    static final long COUNTER_INITIAL = 1_000_000;

    static byte[] sourcePattern(String side, int qp) {
        byte[] b = new byte[TARGET];
        new Random(side.hashCode() * 31L + qp).nextBytes(b);
        return b;
    }

    private static void fail(Side s, String what) {
        if (s.failures.size() < 20) {
            s.failures.add(s.name + ": " + what);
        }
    }

    /** One host: both roles per QP are symmetric once connected; {@code initiator} only decides who connects. */
    private static void host(Transport t, Side me, Side peer, boolean initiator) {
        Random rnd = new Random(me.seed);
        try (Device dev = Device.open(t)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue scq = dev.createCompletionQueue(256);
            CompletionQueue rcq = dev.createCompletionQueue(256);
            QueuePair[] qps = new QueuePair[QPS];
            DmaBuffer[] target = new DmaBuffer[QPS];
            DmaBuffer[] source = new DmaBuffer[QPS];
            DmaBuffer[] counter = new DmaBuffer[QPS];
            DmaBuffer[] recv = new DmaBuffer[QPS];
            MemoryRegion[] mrRecv = new MemoryRegion[QPS];
            RemoteBuffer[][] remote = new RemoteBuffer[QPS][];
            // 16 4-KB slots per QP; a slot is busy from posting until its completion is seen (at most 8 are)
            DmaBuffer local = dev.allocate(LOCAL_SLOTS * 4096);
            MemoryRegion mrLocal = pd.registerMemory(local, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            ConnectionManager cm = new ConnectionManager(dev);
            Listener listener = initiator ? null : cm.listen(SystemRig.B_LISTENS);
            for (int q = 0; q < QPS; q++) {
                qps[q] = pd.createQueuePair(new QueuePair.Config(scq, rcq, 16, 16, 0, q));
                target[q] = dev.allocate(TARGET);
                source[q] = dev.allocate(TARGET);
                source[q].put(0, sourcePattern(me.name, q));
                counter[q] = dev.allocate(64);
                counter[q].putLong(0, COUNTER_INITIAL);
                recv[q] = dev.allocate(RECV * RECVS);
                MemoryRegion t1 = pd.registerMemory(target[q], EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
                MemoryRegion s1 = pd.registerMemory(source[q], EnumSet.of(Access.REMOTE_READ));
                MemoryRegion c1 = pd.registerMemory(counter[q], EnumSet.of(Access.LOCAL_WRITE,
                        Access.REMOTE_ATOMIC));
                mrRecv[q] = pd.registerMemory(recv[q], EnumSet.of(Access.LOCAL_WRITE));
                for (int i = 0; i < RECVS; i++) {
                    qps[q].postRecv(RecvRequest.of(mrRecv[q].sge((long) i * RECV, RECV)).withId(i));
                }
                me.credits[q] = RECVS;
                ByteBuffer pdata = ByteBuffer.allocate(36);
                for (MemoryRegion mr : new MemoryRegion[] {t1, s1, c1}) {
                    pdata.putInt(mr.rkey()).putLong(mr.address());
                }
                ConnectParams p = ConnectParams.defaults().withTimeout(java.time.Duration.ofNanos(TIMEOUT * 4))
                        .withPrivateData(pdata.array()); // TIMEOUT cycles at 250 MHz
                var c = initiator ? SystemRig.connect(cm, SystemRig.B_LISTENS, qps[q], p)
                        : listener.accept(qps[q], p, java.time.Duration.ofNanos(TIMEOUT * 40));
                ByteBuffer r = ByteBuffer.wrap(c.peerPrivateData());
                remote[q] = new RemoteBuffer[] {new RemoteBuffer(r.getInt(), r.getLong()),
                        new RemoteBuffer(r.getInt(), r.getLong()), new RemoteBuffer(r.getInt(), r.getLong())};
            }

            // What each posted request expects, per QP in posting order.
            List<ArrayDeque<long[]>> pending = new ArrayList<>();
            for (int q = 0; q < QPS; q++) {
                pending.add(new ArrayDeque<>());
            }
            int[] posted = new int[QPS];
            List<ArrayDeque<Integer>> freeSlots = new ArrayList<>();
            for (int q = 0; q < QPS; q++) {
                freeSlots.add(new ArrayDeque<>());
                for (int i = 0; i < 16; i++) {
                    freeSlots.get(q).add((q * 16 + i) * 4096);
                }
            }
            int[] receivedSends = new int[QPS];
            Completion[] out = Completion.array(32);
            long t0 = dev.cycles();
            int done = 0;
            while ((done < QPS * OPS || !peer.finished) && dev.cycles() - t0 < 20 * TIMEOUT) {
                // post
                int q = rnd.nextInt(QPS);
                if (posted[q] < OPS && qps[q].sendQueueFree() > 0 && pending.get(q).size() < 8) {
                    int kind = rnd.nextInt(4);
                    int len = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(3000) : 1 + rnd.nextInt(200);
                    int off = rnd.nextInt(TARGET - len);
                    // the slot freed last (by the completion just seen, if any): reused at once
                    int loc = freeSlots.get(q).pop();
                    if (kind == 2 && peer.credits[q] == 0) {
                        kind = 0;
                    }
                    WorkRequest wr;
                    switch (kind) {
                        case 0 -> {
                            byte[] data = new byte[len];
                            rnd.nextBytes(data);
                            local.put(loc, data);
                            System.arraycopy(data, 0, me.peerTarget[q], off, len);
                            wr = WorkRequest.rdmaWrite(mrLocal.sge(loc, len), remote[q][0].plus(off));
                            pending.get(q).add(new long[] {0, loc, len});
                        }
                        case 1 -> {
                            wr = WorkRequest.rdmaRead(mrLocal.sge(loc, len), remote[q][1].plus(off));
                            pending.get(q).add(new long[] {1, loc, len, off});
                        }
                        case 2 -> {
                            byte[] data = new byte[Math.min(len, RECV)];
                            rnd.nextBytes(data);
                            local.put(loc, data);
                            me.sent.get(q).add(data);
                            peer.credits[q]--;
                            wr = WorkRequest.send(mrLocal.sge(loc, data.length));
                            pending.get(q).add(new long[] {2, loc, data.length});
                        }
                        default -> {
                            long add = 1 + rnd.nextInt(1000);
                            long expectOriginal = COUNTER_INITIAL + me.addsTotal[q];
                            me.addsTotal[q] += add;
                            wr = WorkRequest.fetchAdd(mrLocal.sge(loc, 8), remote[q][2], add);
                            pending.get(q).add(new long[] {3, loc, 8, expectOriginal});
                        }
                    }
                    qps[q].postSend(wr);
                    posted[q]++;
                }
                // completions of this side's requests
                int n = scq.poll(out);
                for (int i = 0; i < n; i++) {
                    Completion c = out[i];
                    int cq = c.qpNumber();
                    long[] e = pending.get(cq).poll();
                    me.completions++;
                    if (c.status() != CompletionStatus.SUCCESS || e == null) {
                        fail(me, "QP " + cq + " completion " + c + " (expected " + Arrays.toString(e) + ")");
                        continue;
                    }
                    if (e[0] == 1) {
                        byte[] want = Arrays.copyOfRange(sourcePattern(peer.name, cq), (int) e[3],
                                (int) (e[3] + e[2]));
                        if (!Arrays.equals(want, local.get(e[1], (int) e[2]))) {
                            fail(me, "QP " + cq + " Read of " + e[2] + " at " + e[3] + " returned other data");
                        }
                    } else if (e[0] == 3 && local.getLong(e[1]) != e[3]) {
                        fail(me, "QP " + cq + " FetchAdd returned " + local.getLong(e[1]) + ", model " + e[3]);
                    }
                    // The request is done with its buffer: a new pattern goes in at once, and the slot is next.
                    byte[] scribble = new byte[(int) e[2]];
                    rnd.nextBytes(scribble);
                    local.put(e[1], scribble);
                    freeSlots.get(cq).push((int) e[1]);
                    done++;
                }
                // the peer's Sends
                n = takeReceives(rcq, out, me, peer, recv, mrRecv, qps, receivedSends);
                if (n == 0) {
                    t.advance();
                }
                if (done == QPS * OPS) {
                    me.finished = true;
                }
            }
            if (done != QPS * OPS || !peer.finished) {
                fail(me, "timed out: " + done + " of " + QPS * OPS + " requests completed, peer finished "
                        + peer.finished);
            }
            // The peer's last Writes and Sends may still be on the wire (a Write completes at the sender when it has
            // been sent; a retransmission takes an RTO): keep taking receives until every Send the peer made has
            // arrived and the Write targets hold what the model says, or a time limit passes.
            long q0 = dev.cycles();
            while (dev.cycles() - q0 < TIMEOUT && !(allArrived(peer) && targetsMatch(peer, target))) {
                takeReceives(rcq, out, me, peer, recv, mrRecv, qps, receivedSends);
                t.advance();
            }
            for (int q = 0; q < QPS; q++) {
                if (!Arrays.equals(peer.peerTarget[q], target[q].get(0, TARGET))) {
                    fail(me, "QP " + q + " Write target differs from the model of the peer's Writes");
                }
                if (counter[q].getLong(0) != COUNTER_INITIAL + peer.addsTotal[q]) {
                    fail(me, "QP " + q + " counter " + counter[q].getLong(0) + ", model "
                            + (COUNTER_INITIAL + peer.addsTotal[q]));
                }
                if (!peer.sent.get(q).isEmpty()) {
                    fail(me, "QP " + q + ": " + peer.sent.get(q).size() + " Sends never arrived");
                }
            }
            me.verified = true;
        }
    }

    /**
     * Takes the receive completions waiting on {@code rcq}: each must carry the peer's next Send of its QP; the buffer
     * is posted again and the peer gets its credit back. Returns how many were taken.
     */
    private static int takeReceives(CompletionQueue rcq, Completion[] out, Side me, Side peer, DmaBuffer[] recv,
            MemoryRegion[] mrRecv, QueuePair[] qps, int[] receivedSends) {
        int n = rcq.poll(out);
        for (int i = 0; i < n; i++) {
            Completion c = out[i];
            int cq = c.qpNumber();
            byte[] want = peer.sent.get(cq).poll();
            byte[] got = c.status() == CompletionStatus.SUCCESS
                    ? recv[cq].get(c.wrId() * RECV, (int) c.byteLength()) : null;
            if (!Arrays.equals(want, got)) {
                fail(me, "QP " + cq + " receive " + receivedSends[cq] + ": " + c);
            }
            receivedSends[cq]++;
            qps[cq].postRecv(RecvRequest.of(mrRecv[cq].sge(c.wrId() * RECV, RECV)).withId(c.wrId()));
            me.credits[cq]++;
        }
        return n;
    }

    private static boolean allArrived(Side peer) {
        return peer.sent.stream().allMatch(ArrayDeque::isEmpty);
    }

    private static boolean targetsMatch(Side peer, DmaBuffer[] target) {
        for (int q = 0; q < QPS; q++) {
            if (!Arrays.equals(peer.peerTarget[q], target[q].get(0, TARGET))) {
                return false;
            }
        }
        return true;
    }

    @ParameterizedTest
    @EnumSource(TcpChannel.Mode.class)
    void randomMixOverFourQpsBothWays(TcpChannel.Mode mode) {
        Side a = new Side("a", 101);
        Side b = new Side("b", 202);
        TcpOptions tcp = TcpOptions.defaults().withMode(mode);
        if (mode == TcpChannel.Mode.MODEL) {
            tcp = tcp.withSegmentation(Segmentation.mixed()).withLoss(0.02).withDelay(5, 60);
        }
        SystemRig.run("randomMix-" + mode, 5, RnicSystem.builder().tcp(tcp), t -> host(t, a, b, true),
                t -> host(t, b, a, false));
        List<String> failures = new ArrayList<>(a.failures);
        failures.addAll(b.failures);
        assertEquals(List.of(), failures);
        assertTrue(a.verified && b.verified);
        assertEquals(QPS * OPS, a.completions);
        assertEquals(QPS * OPS, b.completions);
    }
}
