package rnic.hw.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpTaggedHeader;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.ddp.StagTable;
import rnic.model.ddp.TerminateException;
import rnic.model.rdmap.RdmapDecoder;
import rnic.model.rdmap.TaggedMessage;
import rnic.model.rdmap.Terminate;
import rnic.model.rdmap.WorkRequest;
import rnic.sim.Agent;
import rnic.sim.Pacer;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * What a requester completion of {@link RdmapEngine} promises, at W = 64 and 512, with the golden twin
 * ({@link EngineBench}) checking every segment, event and the memory.
 *
 * <ul>
 *   <li>RDMAP-23 (a Send or Write is not complete until DDP has completed it; completions in submission order): a
 *       Write, each of the four Sends and Immediate Data complete only after the last segment of their message has left
 *       the engine, every payload octet read; the test overwrites each source buffer in the cycle its completion
 *       appears, and the wire still carries the old content (checked here against the original pattern, and by the
 *       twin octet for octet).</li>
 *   <li>RDMAP-18, RDMAP-14, RDMAP-17 rule 1, DDP-27 (local errors): a Write whose payload read is answered SLVERR
 *       completes with an error ({@code RDMAP_LOCAL_CATASTROPHIC}) before the QP's TERMINATE_SENT event; the QP sends
 *       exactly one Terminate, its last segment: QN 2, MSN 1, MO 0, Layer 0 / EType 0 / Error Code 0 with M = D = R = 0
 *       (docs/requirements.md §3 E-R0; no segment caused it, so no headers, RFC 5040 §7.1 rule 1); nothing more is sent or placed
 *       on it, nothing completes after it, and the other QPs go on. A fault in a middle segment of a long Write fails
 *       it at its end.</li>
 *   <li>RDMAP-25, RDMAP-18 (teardown): opening a QP again forgets the Read it still had outstanding — a Send of the
 *       new connection completes instead of waiting behind it, and a Read Response for the old Read is now E-R11.</li>
 * </ul>
 */
class RdmapEngineCompletionTest {
    static final int DUT_PD = 1;
    static final int SINK = 0x0100;

    /** A posted request and its source buffer. */
    record Posted(WorkRequest wr, long address, byte[] original) {
    }

    /**
     * Every source buffer is overwritten the cycle its completion appears; the wire carried the original octets, and
     * each completion came after its message's last segment had left. RDMAP-23.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void sourceBufferIsFreeAtCompletion(int width) {
        RdmapEngineTest.model(width).run("reuse-at-completion", 31, tb -> {
            EngineBench b = new EngineBench(tb, tb.dut().config, Pacer.always(), Pacer.always(), false);
            b.openQp(0, DUT_PD, 4, 4, 1500);
            Random rng = tb.random();
            List<Posted> posted = new ArrayList<>();
            long base = 0x10_0000L;
            posted.add(new Posted(new WorkRequest.Write(1, base, 4096, SINK, 0), base, null));
            RdmapOpcode[] sends = {RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_INVALIDATE, RdmapOpcode.SEND_WITH_SE,
                RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE};
            int[] lengths = {3000, 1, 700, 64};
            for (int i = 0; i < sends.length; i++) {
                long a = base + 0x2000L * (i + 1) + 3; // unaligned sources too
                boolean inv = sends[i] == RdmapOpcode.SEND_WITH_INVALIDATE
                        || sends[i] == RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE;
                posted.add(new Posted(new WorkRequest.Send(2 + i, sends[i], a, lengths[i], inv ? 0x4242 : 0), a,
                        null));
            }
            posted.add(new Posted(new WorkRequest.Immediate(6, RdmapOpcode.IMMEDIATE_DATA, 0x0123_4567_89AB_CDEFL),
                    0, null));
            posted.add(new Posted(new WorkRequest.Write(7, base + 0xC000L, 2000, SINK, 0x2000), base + 0xC000L, null));
            Map<Long, Posted> byWr = new HashMap<>();
            for (int i = 0; i < posted.size(); i++) {
                Posted p = posted.get(i);
                int len = (int) p.wr.completionLength();
                byte[] data = RdmapEngineTest.pattern(rng, len);
                if (p.address != 0) {
                    b.fill(p.address, data);
                }
                p = new Posted(p.wr, p.address, data);
                posted.set(i, p);
                byWr.put(p.wr.wrId(), p);
            }
            b.start();

            // At each completion: the message's last segment has left, and its source is overwritten at once.
            Map<Long, Long> completedAt = new HashMap<>();
            long[] postedAt = new long[1];
            tb.add(new Agent() {
                int seen;

                @Override
                public void sample() {
                    while (seen < b.events.size()) {
                        EngineBench.Event e = b.events.get(seen++);
                        if (e.kind() != RxEventKind.SEND_DONE) {
                            continue;
                        }
                        completedAt.put(e.wrId(), tb.cycle());
                        Posted p = byWr.get(e.wrId());
                        assertTrue(messagesSent(b) >= completedAt.size(), "cycle " + tb.cycle() + ": wr "
                                + e.wrId() + " completed before its last segment left");
                        if (p.address != 0) {
                            byte[] fresh = new byte[p.original.length];
                            Arrays.fill(fresh, (byte) 0xEE);
                            b.memory.write(p.address, fresh);
                            b.twinMemory.write(p.address, fresh);
                        }
                    }
                }
            });
            postedAt[0] = tb.cycle();
            for (Posted p : posted) {
                b.postSend(0, p.wr);
            }
            b.settle(100_000);
            assertEquals(posted.size(), completedAt.size(), "every request completed");

            // The wire: the Writes' payloads by TO, the Sends' by MSN, all the original octets.
            Map<Long, byte[]> untagged = new HashMap<>();
            byte[] write1 = new byte[4096];
            byte[] write7 = new byte[2000];
            for (EngineBench.Segment s : b.sent) {
                DdpSegment seg = parse(s.ulpdu());
                if (seg.header() instanceof DdpTaggedHeader t) {
                    byte[] into = t.to() >= 0x2000 ? write7 : write1;
                    System.arraycopy(seg.payload(), 0, into, (int) (t.to() & 0x1FFF), seg.payload().length);
                } else {
                    DdpUntaggedHeader u = (DdpUntaggedHeader) seg.header();
                    byte[] m = untagged.computeIfAbsent(u.msn(), k -> new byte[8192]);
                    System.arraycopy(seg.payload(), 0, m, (int) u.mo(), seg.payload().length);
                }
            }
            assertTrue(Arrays.equals(byWr.get(1L).original, write1), "Write 1 carried its original octets");
            assertTrue(Arrays.equals(byWr.get(7L).original, write7), "Write 7 carried its original octets");
            for (int i = 0; i < sends.length; i++) {
                byte[] want = byWr.get(2L + i).original;
                assertTrue(Arrays.equals(want, Arrays.copyOf(untagged.get(1L + i), want.length)),
                        sends[i] + " carried its original octets");
            }
            long cycles = completedAt.get(1L) - postedAt[0];
            int wireCycles = 4096 / (width / 8);
            System.out.printf("RdmapEngine W=%d: 4 KiB Write posted to completion in %d cycles (%d beats of payload)%n",
                    width, cycles, wireCycles);
            assertTrue(cycles >= wireCycles, "a 4 KiB Write cannot complete faster than its payload leaves");
            b.checkEvents();
            b.checkMemory();
        });
    }

    /** Messages of QP 0 whose last segment has left (L = 1, not a Terminate). */
    private static int messagesSent(EngineBench b) {
        int n = 0;
        for (EngineBench.Segment s : b.sent) {
            if ((s.ulpdu()[0] & 0x40) != 0 && (s.ulpdu()[1] & 0x0F) != RdmapOpcode.TERMINATE.code()) {
                n++;
            }
        }
        return n;
    }

    /**
     * SLVERR on a Write's payload read: error completion, then the QP fails with one headerless Terminate
     * (0/0/00, E-R0), nothing after it; a fault in the middle of a long Write fails it at its end; QP 0 goes on.
     * RDMAP-18, RDMAP-14, RDMAP-17, RDMAP-23, DDP-27.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void payloadReadErrorFailsTheQp(int width) {
        RdmapEngineTest.model(width).run("payload-read-error", 32, tb -> {
            EngineBench b = new EngineBench(tb, tb.dut().config, Pacer.always(), Pacer.always(), false);
            for (int q = 0; q < 3; q++) {
                b.openQp(q, DUT_PD, 4, 4, 1500);
            }
            b.register(new StagTable.Region(SINK, DUT_PD, OptionalInt.empty(),
                    EnumSet.of(StagTable.Access.REMOTE_WRITE), 0x80_0000L, 0x1000, true));
            Random rng = tb.random();
            b.fill(0x10_0000L, RdmapEngineTest.pattern(rng, 0x1000));
            b.fill(0x20_0000L, RdmapEngineTest.pattern(rng, 0x1000));
            b.fill(0x30_0000L, RdmapEngineTest.pattern(rng, 0x3000));
            b.start();
            b.readFault(0x20_0000L, 0x20_1000L);
            b.readFault(0x30_1000L, 0x30_2000L);

            // QP 1: a good Write, the faulted one, a Send behind it. QP 2: a long Write faulted in its middle.
            b.postSend(1, new WorkRequest.Write(10, 0x10_0000L, 4096, 0x77, 0));
            b.postSend(1, new WorkRequest.Write(11, 0x20_0000L, 4096, 0x77, 0));
            b.postSend(1, new WorkRequest.Send(12, RdmapOpcode.SEND, 0x10_0000L, 100, 0));
            b.postSend(2, new WorkRequest.Write(20, 0x30_0000L, 0x3000, 0x77, 0));
            b.postSend(0, new WorkRequest.Write(30, 0x10_0000L, 4096, 0x77, 0));
            b.settle(100_000);

            for (int qp : new int[] {1, 2}) {
                long failedWr = qp == 1 ? 11 : 20;
                List<EngineBench.Event> evs = b.events.stream().filter(e -> e.qp() == qp).toList();
                int errorDone = -1;
                int failure = -1;
                for (int i = 0; i < evs.size(); i++) {
                    EngineBench.Event e = evs.get(i);
                    if (e.kind() == RxEventKind.SEND_DONE && e.wrId() == failedWr) {
                        errorDone = i;
                        assertEquals(TerminateCause.RDMAP_LOCAL_CATASTROPHIC, e.cause(), "the Write completes in error");
                    } else if (e.kind() == RxEventKind.SEND_DONE) {
                        assertNull(e.cause(), "wr " + e.wrId() + " succeeded");
                        assertTrue(e.wrId() < failedWr, "nothing completes after the failed Write: " + e);
                    } else {
                        assertEquals(RxEventKind.TERMINATE_SENT, e.kind(), e.toString());
                        assertEquals(TerminateCause.RDMAP_LOCAL_CATASTROPHIC, e.cause());
                        assertEquals(-1, failure, "one failure");
                        failure = i;
                    }
                }
                assertTrue(errorDone >= 0 && failure > errorDone,
                        "QP " + qp + ": the error completion, then the failure: " + evs);

                List<EngineBench.Segment> mine = b.sent.stream().filter(s -> s.qp() == qp).toList();
                long terminates = mine.stream().filter(s -> (s.ulpdu()[1] & 0x0F) == RdmapOpcode.TERMINATE.code())
                        .count();
                assertEquals(1, terminates, "exactly one Terminate on QP " + qp);
                DdpSegment seg = parse(mine.get(mine.size() - 1).ulpdu());
                Terminate t;
                try {
                    t = (Terminate) new RdmapDecoder(true).decode(List.of(seg));
                } catch (TerminateException e) {
                    throw new AssertionError("the Terminate does not parse: " + e.getMessage(), e);
                }
                assertEquals(new DdpUntaggedHeader(true, 0x47L << 32, 2, 1, 0), seg.header(), "QN 2, MSN 1, MO 0");
                assertEquals(0, t.layer(), "Layer RDMAP");
                assertEquals(0, t.etype(), "EType Local Catastrophic");
                assertEquals(0, t.errorCode(), "Error Code");
                assertEquals(false, t.segmentLengthValid(), "M");
                assertNull(t.ddpHeader(), "D");
                assertNull(t.rdmaHeader(), "R");
                assertEquals(4, seg.payload().length, "a Terminate without headers is 4 octets");
            }
            // QP 2's Write went out whole (12 KiB in 1486-octet segments) before its Terminate.
            long write20 = b.sent.stream().filter(s -> s.qp() == 2 && (s.ulpdu()[0] & 0x80) != 0)
                    .mapToLong(s -> s.ulpdu().length - 14).sum();
            assertEquals(0x3000, write20, "the faulted Write was sent whole");

            // Silence on QP 1: an inbound Write is dropped, nothing sent; QP 0 still places one.
            int sentAfter = b.sent.size();
            byte[] w = TaggedMessage.write(SINK, 0, new byte[] {0x11, 0x22}).segments(
                    new rnic.model.ddp.DdpSegmenter(), 1500).get(0).encode();
            b.receive(1, w);
            b.settle(20_000);
            assertEquals(sentAfter, b.sent.size(), "nothing more sent");
            assertEquals(0, b.memory.read(0x80_0000L, 1)[0], "QP 1 placed nothing");
            byte[] w0 = TaggedMessage.write(SINK, 0, new byte[] {0x5A}).segments(
                    new rnic.model.ddp.DdpSegmenter(), 1500).get(0).encode();
            b.receive(0, w0);
            b.settle(20_000);
            assertEquals(0x5A, b.memory.read(0x80_0000L, 1)[0] & 0xFF, "QP 0 placed its Write");
            b.checkEvents();
            b.checkMemory();
        });
    }

    /**
     * Opening a QP again forgets its outstanding Read: a Send of the new connection completes at once, and a Read
     * Response for the old Read is E-R11 (no Read outstanding). RDMAP-25, RDMAP-18, RDMAP-23.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void reopeningForgetsOutstandingReads(int width) {
        RdmapEngineTest.model(width).run("reopen-forgets-reads", 33, tb -> {
            EngineBench b = new EngineBench(tb, tb.dut().config, Pacer.always(), Pacer.always(), false);
            b.openQp(1, DUT_PD, 4, 4, 1500);
            b.startWithoutTwin();
            b.postSendToEngine(1, new WorkRequest.Read(1, SINK, 0, 0x99, 0, 64));
            b.postSendToEngine(1, new WorkRequest.Send(2, RdmapOpcode.SEND, 0x10_0000L, 8, 0));
            b.settle(20_000);
            assertEquals(2, b.sent.size(), "the Read Request and the Send went out");
            assertTrue(b.events.isEmpty(), "the Send waits for the Read: " + b.events);

            b.reopen(1);
            b.settle(1_000);
            b.postSendToEngine(1, new WorkRequest.Send(3, RdmapOpcode.SEND, 0x10_0000L, 8, 0));
            b.settle(20_000);
            assertEquals(1, b.events.size(), "one completion: " + b.events);
            EngineBench.Event done = b.events.get(0);
            assertEquals(RxEventKind.SEND_DONE, done.kind());
            assertEquals(3, done.wrId(), "the new connection's Send, not the old one's");
            assertNull(done.cause());

            b.receive(1, new TaggedMessage(RdmapOpcode.RDMA_READ_RESPONSE, SINK, 0, new byte[8]).segments(
                    new rnic.model.ddp.DdpSegmenter(), 1500).get(0).encode());
            b.settle(20_000);
            assertEquals(2, b.events.size(), "one failure: " + b.events);
            assertEquals(RxEventKind.TERMINATE_SENT, b.events.get(1).kind());
            assertEquals(TerminateCause.UNEXPECTED_READ_RESPONSE, b.events.get(1).cause(),
                    "the old Read is no longer outstanding (E-R11)");
        });
    }

    private static DdpSegment parse(byte[] ulpdu) {
        try {
            return DdpSegment.parse(ulpdu);
        } catch (TerminateException e) {
            throw new AssertionError("a sent segment does not parse: " + e.getMessage(), e);
        }
    }
}
