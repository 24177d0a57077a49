package rnic.model.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.model.ddp.StagTable.Access.REMOTE_ATOMIC;
import static rnic.model.ddp.StagTable.Access.REMOTE_READ;
import static rnic.model.ddp.StagTable.Access.REMOTE_WRITE;
import static rnic.model.rdmap.EndpointLink.le;
import static rnic.model.rdmap.EndpointLink.of;
import static rnic.model.rdmap.EndpointLink.qp;
import static rnic.model.rdmap.EndpointLink.random;
import static rnic.model.rdmap.EndpointLink.region;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.model.TestMemory;
import rnic.model.ddp.DdpSegment;
import rnic.model.rdmap.EndpointAction.Dropped;
import rnic.model.rdmap.EndpointAction.Failure;
import rnic.model.rdmap.EndpointAction.Outbound;
import rnic.model.rdmap.EndpointAction.ReceiveCompletion;
import rnic.model.rdmap.EndpointAction.RequestCompletion;
import rnic.model.rdmap.EndpointAction.TerminateReceived;
import rnic.model.rdmap.RdmapEndpoint.QpConfig;
import rnic.wire.AtomicOpcode;
import rnic.wire.RdmapOpcode;

/**
 * Random mixes of every operation over 4 QPs in both directions at once, through two {@link RdmapEndpoint}s back to
 * back, with every legal interleaving the scheduler can pick: any side, QP and source that can send goes next, and work
 * requests are posted while traffic flows. Per QP, IRD = ORD (1 … 4) and each side's MULPDU (128 … 9000) are random,
 * so messages run to dozens of segments, ORD blocks the send queue and responses interleave with requests.
 *
 * <p>The expectation is the test's own: every Write, Read, Send and Immediate Data gets fresh destination octets, so
 * the final memories are known whatever the interleaving and are compared whole — octets nobody should write included;
 * Atomics on private slots get the docs/requirements.md §2.9 carry-save and CmpSwap formulas (not the model's bit loop);
 * FetchAdds from two QPs to one shared counter per PD must return distinct originals that chain up to the final value
 * (RDMAP-37). Requester completions per QP are exactly the posted requests in order, receive completions the Sends and
 * Immediate Data in the order sent, with their lengths, opcodes, SE, values and invalidated STags.
 *
 * <p>Requirements: DDP-12, DDP-15 … DDP-18, DDP-21 … DDP-24, RDMAP-05 … RDMAP-13, RDMAP-20 … RDMAP-24, RDMAP-30,
 * RDMAP-32, RDMAP-33, RDMAP-35 … RDMAP-40.
 */
class RdmapEndpointRandomTest {
    static final int QPS = 4;
    static final int OPS_PER_QP = 100;
    static final long AREA = 0x100_0000L;
    static final long LOCAL_SOURCE = 0x1_0000_0000L;
    static final long TARGET = 0x2_0000_0000L;
    static final long SOURCE = 0x3_0000_0000L;
    static final long SINK = 0x4_0000_0000L;
    static final long RECV = 0x5_0000_0000L;
    static final long ATOMIC = 0x6_0000_0000L;
    static final long RESULT = 0x7_0000_0000L;
    static final long COUNTER = 0x8_0000_0000L;
    static final long VICTIM = 0x9_0000_0000L;
    static final int DATA = 0x10000;
    static final int[] MULPDUS = {128, 129, 200, 512, 1500, 9000};

    /** A FetchAdd on a shared counter: who asked, where the original lands, how much it added. */
    record CounterOp(Side requester, long result, long add) {
    }

    /** One endpoint with everything the test expects of it. */
    static final class Side {
        final String name;
        final RdmapEndpoint ep;
        final TestMemory mem;
        final TestMemory expected = new TestMemory();
        final byte[] localSource;
        final byte[][] source = new byte[QPS][];
        final long[] counter = new long[3];
        final long[] targetNext = new long[QPS];
        final long[] sinkNext = new long[QPS];
        final long[] recvNext = new long[QPS];
        final long[] slotNext = new long[QPS];
        final long[] resultNext = new long[QPS];
        final List<List<RequestCompletion>> requests = new ArrayList<>();
        final List<List<ReceiveCompletion>> receives = new ArrayList<>();
        final List<ArrayDeque<WorkRequest>> unposted = new ArrayList<>();
        final List<Integer> victims = new ArrayList<>();

        Side(String name, RdmapEndpoint ep, TestMemory mem, Random rng) {
            this.name = name;
            this.ep = ep;
            this.mem = mem;
            localSource = random(rng, DATA);
            init(LOCAL_SOURCE, localSource);
            for (int q = 0; q < QPS; q++) {
                source[q] = random(rng, DATA);
                init(SOURCE + q * AREA, source[q]);
                requests.add(new ArrayList<>());
                receives.add(new ArrayList<>());
                unposted.add(new ArrayDeque<>());
                int pd = pd(q);
                ep.register(region(0x100 + q, pd, OptionalInt.of(q), TARGET + q * AREA, AREA, true, REMOTE_WRITE));
                ep.register(region(0x200 + q, pd, OptionalInt.of(q), SOURCE + q * AREA, DATA, false, REMOTE_READ));
                ep.register(region(0x300 + q, pd, OptionalInt.of(q), SINK + q * AREA, AREA, true, REMOTE_WRITE));
                ep.register(region(0x400 + q, pd, OptionalInt.of(q), ATOMIC + q * AREA, AREA, true, REMOTE_ATOMIC));
            }
            for (int pd = 1; pd <= 2; pd++) {
                counter[pd] = rng.nextLong() >>> 24;
                init(COUNTER + 8 * pd, le(counter[pd]));
                ep.register(region(0x500 + pd, pd, OptionalInt.empty(), COUNTER + 8 * pd, 8, true, REMOTE_ATOMIC));
            }
        }

        void init(long address, byte[] data) {
            mem.write(address, data);
            expected.write(address, data);
        }
    }

    static int pd(int q) {
        return 1 + q / 2;
    }

    static int size(Random rng) {
        return switch (rng.nextInt(10)) {
            case 0 -> 0;
            case 1, 2, 3 -> 1 + rng.nextInt(64);
            default -> 65 + rng.nextInt(3000);
        };
    }

    /** The new value of an Atomic target, from docs/requirements.md §2.9's formulas. */
    static long expectedAtomic(AtomicOp op) {
        long o = op.original();
        long d = op.addOrSwapData();
        long m = op.addOrSwapMask();
        if (op.opcode() == AtomicOpcode.FETCH_ADD) {
            return ((o & ~m) + (d & ~m)) ^ ((o ^ d) & m);
        }
        return ((op.compareData() ^ o) & op.compareMask()) == 0 ? (o & ~m) | (d & m) : o;
    }

    /**
     * Generates one operation from {@code r} to {@code p} on QP {@code q}: the work request (queued for posting), the
     * receive buffer it needs (posted now), and everything both sides should show for it.
     */
    static void generate(Random rng, Side r, Side p, int q, long wrId, List<List<CounterOp>> counters) {
        WorkRequest wr;
        int kind = rng.nextInt(20);
        if (kind < 4) {
            int len = size(rng);
            int off = rng.nextInt(DATA - len + 1);
            long to = p.targetNext[q] + rng.nextInt(16);
            p.targetNext[q] = to + len;
            wr = WorkRequest.write(wrId, LOCAL_SOURCE + off, len, 0x100 + q, to);
            p.expected.write(TARGET + q * AREA + to, Arrays.copyOfRange(r.localSource, off, off + len));
        } else if (kind < 8) {
            int len = size(rng);
            int off = rng.nextInt(DATA - len + 1);
            long to = r.sinkNext[q] + rng.nextInt(16);
            r.sinkNext[q] = to + len;
            wr = WorkRequest.read(wrId, 0x300 + q, to, 0x200 + q, SOURCE + q * AREA + off, len);
            r.expected.write(SINK + q * AREA + to, Arrays.copyOfRange(p.source[q], off, off + len));
        } else if (kind < 13) {
            RdmapOpcode op = RdmapOpcode.decode(3 + rng.nextInt(4)).orElseThrow();
            int len = size(rng);
            int off = rng.nextInt(DATA - len + 1);
            int victim = 0;
            if (op.invalidates()) {
                victim = 0x10000 + p.victims.size();
                p.ep.register(region(victim, pd(q), OptionalInt.of(q), VICTIM + 64L * p.victims.size(), 64, true,
                        REMOTE_WRITE));
                p.victims.add(victim);
            }
            wr = new WorkRequest.Send(wrId, op, LOCAL_SOURCE + off, len, victim);
            long buffer = post(rng, p, q, len, wrId);
            p.expected.write(buffer, Arrays.copyOfRange(r.localSource, off, off + len));
            p.receives.get(q).add(new ReceiveCompletion(q, wrId, op, len, op.solicitedEvent(), OptionalLong.empty(),
                    op.invalidates() ? OptionalInt.of(victim) : OptionalInt.empty()));
        } else if (kind < 15) {
            RdmapOpcode op = rng.nextBoolean() ? RdmapOpcode.IMMEDIATE_DATA : RdmapOpcode.IMMEDIATE_DATA_WITH_SE;
            long data = rng.nextLong();
            wr = new WorkRequest.Immediate(wrId, op, data);
            long buffer = post(rng, p, q, 8, wrId);
            p.expected.write(buffer, ByteBuffer.allocate(8).putLong(data).array());
            p.receives.get(q).add(new ReceiveCompletion(q, wrId, op, 8, op.solicitedEvent(), OptionalLong.of(data),
                    OptionalInt.empty()));
        } else if (kind < 18) {
            AtomicOp op = AtomicOp.random(rng);
            long slot = p.slotNext[q];
            p.slotNext[q] += 8;
            p.init(ATOMIC + q * AREA + slot, le(op.original()));
            p.expected.write(ATOMIC + q * AREA + slot, le(expectedAtomic(op)));
            long result = RESULT + q * AREA + r.resultNext[q];
            r.resultNext[q] += 8;
            r.expected.write(result, le(op.original()));
            wr = new WorkRequest.Atomic(wrId, op.opcode(), 0x400 + q, slot, op.addOrSwapData(), op.addOrSwapMask(),
                    op.compareData(), op.compareMask(), result);
        } else {
            long add = 1 + rng.nextInt(1000);
            long result = RESULT + q * AREA + r.resultNext[q];
            r.resultNext[q] += 8;
            wr = WorkRequest.fetchAdd(wrId, 0x500 + pd(q), 0, add, 0, result);
            counters.get(pd(q)).add(new CounterOp(r, result, add));
        }
        r.unposted.get(q).add(wr);
        r.requests.get(q).add(new RequestCompletion(q, wrId, wr.opcode(), wr.completionLength()));
    }

    /** Posts a receive buffer for a message of {@code len} octets, sometimes with room to spare. */
    static long post(Random rng, Side p, int q, int len, long wrId) {
        long buffer = RECV + q * AREA + p.recvNext[q];
        long capacity = len + (rng.nextBoolean() ? 0 : rng.nextInt(64));
        p.recvNext[q] += capacity + 1;
        assertTrue(p.ep.postReceive(q, buffer, capacity, wrId));
        return buffer;
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void randomMix(int seed) {
        Random rng = new Random(seed);
        List<QpConfig> configA = new ArrayList<>();
        List<QpConfig> configB = new ArrayList<>();
        for (int q = 0; q < QPS; q++) {
            int k = 1 + rng.nextInt(4);
            configA.add(qp(pd(q), k, k, MULPDUS[rng.nextInt(MULPDUS.length)]));
            configB.add(qp(pd(q), k, k, MULPDUS[rng.nextInt(MULPDUS.length)]));
        }
        EndpointLink link = new EndpointLink(configA, configB);
        Side a = new Side("A", link.a, link.memA, rng);
        Side b = new Side("B", link.b, link.memB, rng);
        List<List<CounterOp>> countersOfA = List.of(List.of(), new ArrayList<>(), new ArrayList<>());
        List<List<CounterOp>> countersOfB = List.of(List.of(), new ArrayList<>(), new ArrayList<>());
        long wrId = 1;
        for (int i = 0; i < OPS_PER_QP; i++) {
            for (int q = 0; q < QPS; q++) {
                generate(rng, a, b, q, wrId++, countersOfB);
                generate(rng, b, a, q, wrId++, countersOfA);
            }
        }

        int steps = 0;
        while (true) {
            List<int[]> unposted = new ArrayList<>();
            for (int s = 0; s < 2; s++) {
                for (int q = 0; q < QPS; q++) {
                    if (!(s == 0 ? a : b).unposted.get(q).isEmpty()) {
                        unposted.add(new int[] {s, q});
                    }
                }
            }
            if (!unposted.isEmpty() && rng.nextInt(3) == 0 || !link.randomStep(rng)) {
                if (unposted.isEmpty()) {
                    break;
                }
                int[] pick = unposted.get(rng.nextInt(unposted.size()));
                Side s = pick[0] == 0 ? a : b;
                assertTrue(s.ep.postSend(pick[1], s.unposted.get(pick[1]).remove()));
            } else {
                steps++;
            }
        }

        for (List<EndpointAction> log : List.of(link.logA, link.logB)) {
            assertEquals(List.of(), of(log, Failure.class));
            assertEquals(List.of(), of(log, TerminateReceived.class));
            assertEquals(List.of(), of(log, Dropped.class));
        }
        for (Side s : List.of(a, b)) {
            List<EndpointAction> log = s == a ? link.logA : link.logB;
            for (int q = 0; q < QPS; q++) {
                int qp = q;
                assertEquals(s.requests.get(q), of(log, RequestCompletion.class).stream().filter(c -> c.qp() == qp)
                        .toList(), s.name + " requester completions, QP " + q);
                assertEquals(s.receives.get(q), of(log, ReceiveCompletion.class).stream().filter(c -> c.qp() == qp)
                        .toList(), s.name + " receive completions, QP " + q);
                assertFalse(s.ep.canTransmit(q, RdmapEndpoint.Source.REQUEST));
            }
            for (int victim : s.victims) {
                assertFalse(s.ep.isValid(victim), "invalidated by a Send with Invalidate: " + victim);
            }
        }
        checkCounters(b, countersOfB);
        checkCounters(a, countersOfA);
        assertEquals(OptionalLong.empty(), link.memA.firstDifference(a.expected), "A's memory");
        assertEquals(OptionalLong.empty(), link.memB.firstDifference(b.expected), "B's memory");

        List<DdpSegment> wire = new ArrayList<>(EndpointLink.sent(link.logA));
        wire.addAll(EndpointLink.sent(link.logB));
        long messages = wire.stream().filter(x -> x.header().last()).count();
        long bytes = of(link.logA, Outbound.class).stream().mapToLong(o -> o.ulpdu().length).sum()
                + of(link.logB, Outbound.class).stream().mapToLong(o -> o.ulpdu().length).sum();
        System.out.printf("seed %d: %d operations, %d messages in %d segments (%d octets), %d transmit steps%n", seed,
                2 * QPS * OPS_PER_QP, messages, wire.size(), bytes, steps);
        assertEquals(wire.size(), steps);
    }

    /**
     * RDMAP-37: FetchAdds to one counter from several QPs returned distinct originals which, sorted, start at the
     * initial value and each add its own operand to give the next, the last giving the final value.
     */
    static void checkCounters(Side target, List<List<CounterOp>> counters) {
        for (int pd = 1; pd <= 2; pd++) {
            List<CounterOp> ops = new ArrayList<>(counters.get(pd));
            ops.sort(Comparator.comparingLong(op -> op.requester().mem.readLong(op.result())));
            long value = target.counter[pd];
            for (CounterOp op : ops) {
                assertEquals(value, op.requester().mem.readLong(op.result()), "original returned by a FetchAdd");
                op.requester().expected.write(op.result(), le(value));
                value += op.add();
            }
            assertEquals(value, target.mem.readLong(COUNTER + 8 * pd), "final counter of PD " + pd);
            target.expected.write(COUNTER + 8 * pd, le(value));
        }
    }
}
