package rnic.hw.qp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.hw.rdmap.RdmapRxControl;
import rnic.sim.SimModel;
import rnic.wire.Cqe;
import rnic.wire.CqeKind;
import rnic.wire.MpaErrorCode;
import rnic.wire.QpState;
import rnic.wire.TerminateCause;
import rnic.wire.WqeOpcode;

/**
 * Verilator testbench of {@link QpRings} alone against the ring model of {@link RingsBench} (issue 5 contract, "Core
 * behaviour"): every send queue opcode field by field, round robin over four QPs, fence and local-invalidate ordering
 * (RDMAP-23: completions in submission order per QP), CQ-full back-pressure and release, the owner phase over several
 * wraps, receive credits against the engine's queue depth, clear (RESET), Terminates and MPA errors (QP to ERR,
 * RFC 5040 §5.4), a bad opcode (SQE), all with and without idle cycles and back-pressure on every stream and a slow
 * memory; and the figures: doorbell-to-request latency, completion-entry latency, requests per cycle.
 */
class QpRingsTest {
    static SimModel<QpRings> model(int width) {
        QpRingsConfig cfg = QpRingsConfig.defaults().withDataWidth(width);
        return SimModel.of("QpRings-w" + width, () -> new QpRings(cfg));
    }

    static final WqeOpcode[] OPS = {WqeOpcode.RDMA_WRITE, WqeOpcode.RDMA_READ, WqeOpcode.SEND,
        WqeOpcode.SEND_WITH_INVALIDATE, WqeOpcode.SEND_WITH_SE, WqeOpcode.SEND_WITH_SE_AND_INVALIDATE,
        WqeOpcode.IMMEDIATE_DATA, WqeOpcode.IMMEDIATE_DATA_WITH_SE, WqeOpcode.ATOMIC};

    /** Four QPs in RTS, QP q completing on CQ q (both queues), rings of 2^sqLog / 2^rqLog slots. */
    static RingsBench fourQps(RingsBench b, int sqLog, int rqLog, int cqLog) {
        for (int c = 0; c < 4; c++) {
            b.setupCq(c, cqLog);
        }
        for (int q = 0; q < 4; q++) {
            b.setupQp(q, sqLog, rqLog, q, q, QpState.RTS);
        }
        b.tb.step(2);
        return b;
    }

    /** Every RDMAP opcode, signaled, with random fields (reserved octets random too) on one QP, in order. */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void everyOpcodeFieldByField(int w) {
        model(w).run("everyOpcode", 11, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, RingsBench.Pacing.full()), 4, 4, 5);
            for (int round = 0; round < 3; round++) {
                for (WqeOpcode op : OPS) {
                    b.post(1, RingsBench.Wqe.random(tb.random(), op.code(), true, false));
                }
                b.ring(1);
                b.settle(5_000);
            }
            assertEquals(3L * OPS.length, b.requestsTaken());
        });
    }

    static RingsBench.Pacing pacing(Random r, boolean paced) {
        return paced ? RingsBench.Pacing.random(r) : RingsBench.Pacing.full();
    }

    /**
     * Four QPs with work posted and rung in the same cycle are served strictly in turn, one request each; with the
     * engine always ready the rings hand out about one request every few cycles (the figure is printed).
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void roundRobinOverFourQps(int w) {
        model(w).run("roundRobin", 12, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, RingsBench.Pacing.full()), 5, 4, 6);
            int per = 24;
            for (int q = 0; q < 4; q++) {
                for (int i = 0; i < per; i++) {
                    b.post(q, RingsBench.Wqe.random(tb.random(), OPS[tb.random().nextInt(OPS.length)].code(),
                            i % 3 == 0, false));
                }
                b.ring(q);
            }
            b.settle(20_000);
            List<Integer> order = b.requestQps;
            assertEquals(4 * per, order.size());
            for (int i = 1; i < order.size(); i++) {
                assertEquals((order.get(i - 1) + 1) % 4, order.get(i), "request " + i + " in " + order);
            }
            double perCycle = (order.size() - 1) / (double) (b.lastRequestCycle - b.firstRequestCycle);
            System.out.printf("[QpRings W=%d] %d requests over 4 QPs: %.3f requests/cycle (%.1f cycles each)%n", w,
                    order.size(), perCycle, 1 / perCycle);
        });
    }

    /**
     * The doorbell-to-request latency of one element on an idle QP and the event-to-CQE latency of its completion
     * (read from the cycles the bench sees them; printed as figures), at full rate with a one-cycle memory.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void latencies(int w) {
        model(w).run("latencies", 13, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, RingsBench.Pacing.full()), 4, 4, 4);
            b.completionMin = 5;
            b.completionMax = 5;
            List<Long> doorbell = new ArrayList<>();
            List<Long> entry = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                b.post(2, RingsBench.Wqe.random(tb.random(), WqeOpcode.SEND.code(), true, false));
                b.ring(2);
                long before = b.requestsTaken();
                tb.runUntil(() -> b.requestsTaken() > before, 1_000, "the request");
                doorbell.add(b.lastRequestCycle - b.doorbellCycle);
                int entries = b.entryCycles.size();
                b.settle(1_000);
                assertEquals(entries + 1, b.entryCycles.size());
                // The completion is pushed 5 cycles after the request was taken, shown by the source next cycle.
                entry.add(b.entryCycles.get(entries) - (b.lastRequestCycle + 5 + 1));
            }
            System.out.printf("[QpRings W=%d] doorbell to WorkRequest: %s cycles; event to CQE seen by the host: %s "
                    + "cycles%n", w, doorbell, entry);
            assertTrue(doorbell.stream().allMatch(c -> c == doorbell.get(0)), "latency varies: " + doorbell);
        });
    }

    /**
     * FENCE: a fenced request starts only when every earlier request of its QP has completed; unfenced ones do not
     * wait (the three before it are out within a few cycles while their completions take 60).
     */
    @ParameterizedTest(name = "W={0} paced={1}")
    @org.junit.jupiter.params.provider.CsvSource({"64,false", "64,true", "512,false", "512,true"})
    void fenceWaitsForEarlierRequests(int w, boolean paced) {
        model(w).run("fence", 14, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, pacing(tb.random(), paced)), 4, 4, 5);
            b.completionMin = 60;
            b.completionMax = 80;
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 3; i++) {
                    b.post(0, RingsBench.Wqe.random(tb.random(), WqeOpcode.RDMA_WRITE.code(), true, false));
                }
                b.post(0, RingsBench.Wqe.random(tb.random(), WqeOpcode.SEND.code(), true, true));
                b.post(1, RingsBench.Wqe.random(tb.random(), WqeOpcode.RDMA_READ.code(), true, false));
                b.ring(0);
                b.ring(1);
                b.settle(20_000);
                int n = b.requestCycles.size();
                long unfenced = b.requestCycles.get(n - 3) - b.requestCycles.get(n - 5);
                long fenced = b.requestCycles.get(n - 1) - b.requestCycles.get(n - 5);
                if (!paced) {
                    assertTrue(unfenced < 40, "unfenced requests waited " + unfenced + " cycles");
                }
                assertTrue(fenced >= 60, "fenced request after " + fenced + " cycles");
            }
        });
    }

    /**
     * LOCAL_INVALIDATE waits for every earlier request of its QP, goes to the STag table, and nothing starts until
     * it is answered; LOCAL_INVALIDATE_DONE is written signaled or not (the driver shows an unsignaled one only when
     * it failed), with {@link Cqe#STATUS_INVALIDATE_FAILED} when the STag was not valid.
     */
    @ParameterizedTest(name = "W={0} paced={1}")
    @org.junit.jupiter.params.provider.CsvSource({"64,false", "64,true", "512,false", "512,true"})
    void localInvalidateOrdering(int w, boolean paced) {
        model(w).run("localInvalidate", 15, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, pacing(tb.random(), paced)), 4, 4, 5);
            b.completionMin = 10;
            b.completionMax = 40;
            b.invalidateFinds = stag -> (stag & 1) == 0;
            Random r = tb.random();
            for (int round = 0; round < 6; round++) {
                for (int q = 0; q < 4; q++) {
                    b.post(q, RingsBench.Wqe.random(r, WqeOpcode.RDMA_WRITE.code(), true, false));
                    b.post(q, RingsBench.Wqe.random(r, WqeOpcode.LOCAL_INVALIDATE_CODE, r.nextBoolean(), false));
                    b.post(q, RingsBench.Wqe.random(r, WqeOpcode.SEND.code(), true, false));
                    b.ring(q);
                }
                b.settle(20_000);
            }
            assertEquals(6L * 4 * 2, b.requestsTaken());
            assertEquals(6L * 4, b.invalidateSink.received());
        });
    }

    /**
     * One QP's waiting element never holds another QP's work (issue 11, RDMAP-23): QP 0 has an RDMA Read out that
     * its peer does not answer, then a LOCAL_INVALIDATE or a fenced Send that must wait for it, then a Send; QP 1's
     * Sends, rung after QP 0's waiting element reached the rings, are all handed out and completed meanwhile, and QP
     * 0's waiting element, and the Send behind it, start only once the Read completed — in order.
     */
    @ParameterizedTest(name = "W={0} invalidate={1}")
    @org.junit.jupiter.params.provider.CsvSource({"64,true", "64,false", "512,true", "512,false"})
    void aWaitingElementDoesNotHoldOtherQps(int w, boolean invalidate) {
        model(w).run("isolation", 18, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, RingsBench.Pacing.full()), 4, 4, 5);
            Random r = tb.random();
            RingsBench.Qp slow = b.qps.get(0);
            slow.held = true;
            b.post(0, RingsBench.Wqe.random(r, WqeOpcode.RDMA_READ.code(), true, false));
            b.post(0, invalidate ? RingsBench.Wqe.random(r, WqeOpcode.LOCAL_INVALIDATE_CODE, true, false)
                    : RingsBench.Wqe.random(r, WqeOpcode.SEND.code(), true, true));
            b.post(0, RingsBench.Wqe.random(r, WqeOpcode.SEND.code(), true, false));
            b.ring(0);
            tb.runUntil(() -> slow.requests == 1, 2_000, "QP 0's Read");
            tb.step(200);
            int others = 12;
            for (int i = 0; i < others; i++) {
                b.post(1, RingsBench.Wqe.random(r, WqeOpcode.SEND.code(), true, false));
            }
            b.ring(1);
            tb.step(3_000);
            assertEquals(others, b.qps.get(1).requests, "QP 1's Sends handed out while QP 0 waits");
            assertEquals(others, b.cqs.get(1).written, "QP 1's completions written while QP 0 waits");
            assertEquals(1, slow.requests, "QP 0's fenced Send or the Send behind its invalidation started early");
            assertEquals(0, b.invalidateSink.received(), "QP 0's invalidation started before its Read completed");
            assertEquals(0, b.cqs.get(0).written, "a completion of QP 0 before its Read's");
            slow.held = false;
            b.settle(20_000);
            assertEquals(invalidate ? 2 : 3, slow.requests);
            assertEquals(invalidate ? 1 : 0, b.invalidateSink.received());
            assertEquals(3, b.cqs.get(0).written, "QP 0's three completions");
        });
    }

    /**
     * A full CQ never holds another CQ's entries. QP 3's CQ of 4 slots is not read while QP 3 and QP 0 each complete
     * 20 elements: CQ 3 takes exactly 4 entries, then the next one meets it full, is dropped and marks it overflowed
     * (a CQ error, as a verbs CQ overrun), and so is every later one; QP 0's 20 entries all reach CQ 0 meanwhile and
     * the engine's events are never held. A new ring clears the mark and CQ 3 works again, the owner phase flipping
     * at its wraps. RDMAP-26 (a CQ overflow leaves streams not using that CQ alone).
     */
    @ParameterizedTest(name = "W={0} paced={1}")
    @org.junit.jupiter.params.provider.CsvSource({"64,false", "64,true", "512,false", "512,true"})
    void fullCqDropsItsOwnEntriesOnly(int w, boolean paced) {
        model(w).run("cqFull", 16, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, pacing(tb.random(), paced)), 5, 4, 2);
            b.consume(3, false);
            for (int i = 0; i < 20; i++) {
                b.post(3, RingsBench.Wqe.random(tb.random(), OPS[i % OPS.length].code(), true, false));
                b.post(0, RingsBench.Wqe.random(tb.random(), OPS[i % OPS.length].code(), true, false));
            }
            b.ring(3);
            b.ring(0);
            b.runUntil(() -> b.cqs.get(0).read == 20, 20_000, "QP 0's 20 entries while CQ 3 is full");
            tb.step(500);
            assertEquals(4, b.cqs.get(3).written, "entries written into a CQ of 4 the host does not read");
            assertTrue(b.overflowed(3), "CQ 3 marked overflowed");
            assertFalse(b.overflowed(0), "CQ 0 is not");
            assertEquals(1, b.cqs.get(3).overflows);
            assertFalse(b.events.busy(), "the engine's events are never held by a full CQ");
            b.consume(3, true);
            b.settle(20_000);
            assertEquals(4, b.cqs.get(3).read, "the 4 entries written before the overflow are all read");
            assertEquals(16, b.cqs.get(3).dropped, "every later entry of CQ 3 dropped");
            assertTrue(b.overflowed(3), "the mark stays until CQ 3 is given a new ring");
            b.setupCq(3, 2);
            b.settle(1_000);
            assertFalse(b.overflowed(3), "a new ring clears the mark");
            for (int i = 0; i < 10; i++) {
                b.post(3, RingsBench.Wqe.random(tb.random(), OPS[i % OPS.length].code(), true, false));
            }
            b.ring(3);
            b.settle(20_000);
            assertEquals(14, b.cqs.get(3).read, "10 more entries through the new ring (two and a half passes)");
            assertEquals(16, b.cqs.get(3).dropped);
        });
    }

    /**
     * Receive buffers: 40 posted on a QP whose engine queue holds {@code recvDepth} (16): exactly 16 are handed on
     * until Sends consume some; then every buffer is handed on as credits return, each RECEIVE / RECEIVE_IMMEDIATE
     * written to the receive CQ with the slot as wrId, rqCons following.
     */
    @ParameterizedTest(name = "W={0} paced={1}")
    @org.junit.jupiter.params.provider.CsvSource({"64,false", "64,true", "512,false", "512,true"})
    void receiveCredits(int w, boolean paced) {
        model(w).run("receiveCredits", 17, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, pacing(tb.random(), paced)), 4, 6, 5);
            int depth = b.cfg.ddp().recvDepth();
            for (int i = 0; i < 40; i++) {
                b.postRecv(1, tb.random().nextLong(), tb.random().nextInt(9000));
            }
            tb.step(2_000);
            assertEquals(depth, b.postsTaken(), "buffers handed to the engine without credits");
            b.incoming(1, 40);
            b.settle(50_000);
            assertEquals(40, b.postsTaken());
            // And a second batch across the ring's wrap, on every QP.
            for (int q = 0; q < 4; q++) {
                for (int i = 0; i < 40; i++) {
                    b.postRecv(q, tb.random().nextLong(), tb.random().nextInt(100));
                }
                b.incoming(q, 40);
            }
            b.settle(100_000);
            assertEquals(200, b.postsTaken());
        });
    }

    /**
     * A QP reset (clear) with work in flight: its indices return to 0, nothing of the old rings is handed out after
     * (but the one request or post already shown), the engine's completions of the old work are ignored, and the QP
     * works again from index 0 after INIT → RTS — while the other QPs carry on.
     */
    @ParameterizedTest(name = "W={0} paced={1}")
    @org.junit.jupiter.params.provider.CsvSource({"64,false", "64,true", "512,false", "512,true"})
    void clearResetsTheQp(int w, boolean paced) {
        model(w).run("clear", 18, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, pacing(tb.random(), paced)), 4, 4, 5);
            Random r = tb.random();
            for (int round = 0; round < 3; round++) {
                b.autoComplete = false;
                for (int i = 0; i < 12; i++) {
                    b.post(2, RingsBench.Wqe.random(r, OPS[r.nextInt(OPS.length)].code(), true, false));
                    b.post(0, RingsBench.Wqe.random(r, OPS[r.nextInt(OPS.length)].code(), true, false));
                    b.postRecv(2, r.nextLong(), r.nextInt(64));
                }
                b.ring(2);
                b.ring(0);
                tb.step(30 + r.nextInt(30));
                b.reset(2);
                tb.step(200);
                b.autoComplete = true;
                b.completeAll();
                b.settle(20_000);
                assertEquals(0, b.sqConsNow(2));
                assertEquals(0, b.rqConsNow(2));
                b.setState(2, QpState.INIT);
                b.setState(2, QpState.RTS);
                for (int i = 0; i < 6; i++) {
                    b.post(2, RingsBench.Wqe.random(r, OPS[r.nextInt(OPS.length)].code(), true, false));
                    b.postRecv(2, r.nextLong(), r.nextInt(64));
                }
                b.ring(2);
                b.incoming(2, 6);
                b.settle(20_000);
            }
        });
    }

    /**
     * TERMINATE_SENT, TERMINATE_RECEIVED and an MPA error: a CQE with wrId 0xFFFFFFFF on the send CQ (status: the
     * Terminate cause / the MPA error code; info: the Terminate octets / the sequence number), the QP to ERR through
     * qpError; in ERR nothing more is fetched and late completions write nothing.
     */
    @ParameterizedTest(name = "W={0} paced={1}")
    @org.junit.jupiter.params.provider.CsvSource({"64,false", "64,true", "512,false", "512,true"})
    void terminatesAndMpaErrorsMoveToErr(int w, boolean paced) {
        model(w).run("terminate", 19, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, pacing(tb.random(), paced)), 4, 4, 5);
            Random r = tb.random();
            for (int q = 0; q < 4; q++) {
                for (int i = 0; i < 5; i++) {
                    b.post(q, RingsBench.Wqe.random(r, OPS[r.nextInt(OPS.length)].code(), true, false));
                }
                b.ring(q);
            }
            b.settle(20_000);
            TerminateCause cause = TerminateCause.values()[r.nextInt(TerminateCause.values().length)];
            b.event(new RingsBench.Event(CqeKind.TERMINATE_SENT.code(), 0, 0, 18, 0, RdmapRxControl.causeCode(cause),
                    0, 0));
            b.event(new RingsBench.Event(CqeKind.TERMINATE_RECEIVED.code(), 1, 0, 46, r.nextLong(), 0, 7, 0));
            b.mpaError(2, MpaErrorCode.CRC_ERROR.code(), r.nextInt() & 0xFFFFFFFFL);
            b.settle(20_000);
            assertEquals(3, b.qpErrors.matched());
            // A second error on a QP already in ERR: nothing.
            b.mpaError(0, MpaErrorCode.MARKER_ERROR.code(), 5);
            // Work posted on QPs in ERR is not fetched; QP 3 still works.
            long before = b.requestsTaken();
            for (int q = 0; q < 4; q++) {
                b.post(q, RingsBench.Wqe.random(r, OPS[r.nextInt(OPS.length)].code(), true, false));
                b.ring(q);
            }
            tb.step(500);
            b.settle(20_000);
            assertEquals(before + 1, b.requestsTaken());
            assertEquals(3, b.qpErrors.matched());
            // QP 3 fails with requests in the engine whose completions arrive right behind the Terminate, long before
            // the register block's state says ERR: no entry for them, sqCons stays.
            b.registerDelay = 40;
            b.autoComplete = false;
            for (int i = 0; i < 4; i++) {
                b.post(3, RingsBench.Wqe.random(r, OPS[r.nextInt(OPS.length)].code(), true, false));
            }
            b.ring(3);
            tb.runUntil(() -> b.requestsTaken() == before + 5, 2_000, "QP 3's requests");
            int cons = b.sqConsNow(3);
            b.event(new RingsBench.Event(CqeKind.TERMINATE_RECEIVED.code(), 3, 0, 46, r.nextLong(), 0, 7, 0));
            b.completeAll();
            b.autoComplete = true;
            b.settle(20_000);
            assertEquals(cons, b.sqConsNow(3));
            assertEquals(4, b.qpErrors.matched());
        });
    }

    /**
     * An element with an opcode that is no WqeOpcode: the requests before it complete, then it completes with
     * {@link Cqe#STATUS_BAD_OPCODE} and the QP goes to SQE; nothing after it starts until the host moves the QP back to
     * RTS, then the send queue resumes right after it.
     */
    @ParameterizedTest(name = "W={0} paced={1}")
    @org.junit.jupiter.params.provider.CsvSource({"64,false", "64,true", "512,false", "512,true"})
    void badOpcodeMovesToSqe(int w, boolean paced) {
        model(w).run("badOpcode", 20, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, pacing(tb.random(), paced)), 4, 4, 5);
            Random r = tb.random();
            int[] bad = {2, 7, 0xB, 0xC, 0xE, 0x13, 0x80, 0xFF};
            for (int round = 0; round < 4; round++) {
                for (int q = 0; q < 4; q++) {
                    b.post(q, RingsBench.Wqe.random(r, WqeOpcode.RDMA_WRITE.code(), true, false));
                    b.post(q, RingsBench.Wqe.random(r, bad[r.nextInt(bad.length)], r.nextBoolean(), false));
                    b.post(q, RingsBench.Wqe.random(r, WqeOpcode.SEND.code(), true, false));
                    b.ring(q);
                }
                b.settle(20_000);
                assertEquals(4L * (2 * round + 1), b.requestsTaken(), "requests after a bad element");
                for (int q = 0; q < 4; q++) {
                    assertEquals(QpState.SQE, b.qps.get(q).state);
                    b.setState(q, QpState.RTS);
                }
                b.settle(20_000);
                assertEquals(4L * (2 * round + 2), b.requestsTaken());
            }
        });
    }

    /**
     * Ring reads that fail (the memory answers SLVERR): a send queue element completes with
     * {@link Cqe#STATUS_WQE_READ_ERROR} and moves its QP to SQE like a bad opcode (resumed by the host); a receive
     * buffer is posted with capacity 0, keeping the ring's order; {@code memoryError} is set and stays.
     */
    @ParameterizedTest(name = "W={0} paced={1}")
    @org.junit.jupiter.params.provider.CsvSource({"64,false", "64,true", "512,false", "512,true"})
    void ringReadErrors(int w, boolean paced) {
        model(w).run("readErrors", 21, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, pacing(tb.random(), paced)), 4, 4, 5);
            Random r = tb.random();
            b.faultSqSlot(1, 1);
            b.faultRqSlot(2, 2);
            assertTrue(!b.memoryError());
            for (int i = 0; i < 3; i++) {
                b.post(1, RingsBench.Wqe.random(r, OPS[r.nextInt(OPS.length)].code(), true, false));
            }
            b.ring(1);
            for (int i = 0; i < 4; i++) {
                b.postRecv(2, r.nextLong(), 100 + r.nextInt(100));
            }
            b.incoming(2, 4);
            b.settle(20_000);
            assertEquals(1, b.requestsTaken());
            assertEquals(4, b.postsTaken());
            assertEquals(QpState.SQE, b.qps.get(1).state);
            assertTrue(b.memoryError(), "memoryError after a failed ring read");
            b.setState(1, QpState.RTS);
            b.settle(20_000);
            assertEquals(2, b.requestsTaken());
            assertTrue(b.memoryError(), "memoryError is sticky");
        });
    }

    /**
     * Completion entries back to back: 48 signaled requests over four QPs completed by the engine all at once; the
     * rings write one entry per AW and its beats (the figure, entries per cycle, is printed).
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void completionEntriesBackToBack(int w) {
        model(w).run("entriesBackToBack", 22, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, RingsBench.Pacing.full()), 4, 4, 6);
            b.autoComplete = false;
            for (int q = 0; q < 4; q++) {
                for (int i = 0; i < 12; i++) {
                    b.post(q, RingsBench.Wqe.random(tb.random(), WqeOpcode.SEND.code(), true, false));
                }
                b.ring(q);
            }
            tb.runUntil(() -> b.requestsTaken() == 48, 10_000, "every request");
            b.completeAll();
            b.autoComplete = true;
            b.settle(10_000);
            List<Long> at = b.entryCycles;
            assertEquals(48, at.size());
            double perCycle = (at.size() - 1) / (double) (at.get(at.size() - 1) - at.get(0));
            System.out.printf("[QpRings W=%d] %d completion entries back to back: %.3f entries/cycle (%.1f cycles "
                    + "each)%n", w, at.size(), perCycle, 1 / perCycle);
        });
    }

    /**
     * A CQ number given a new ring (another base and size) starts afresh: entries from slot 0 with phase 1 and
     * {@code cqProd} from 0, whatever the old ring had reached (the host sets cqCons to 0 with it).
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void newRingForACqStartsAfresh(int w) {
        model(w).run("cqAfresh", 23, tb -> {
            RingsBench b = fourQps(new RingsBench(tb, RingsBench.Pacing.full()), 4, 4, 2);
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 5 + round; i++) {
                    b.post(1, RingsBench.Wqe.random(tb.random(), OPS[i % OPS.length].code(), true, false));
                }
                b.ring(1);
                b.settle(10_000);
                b.setupCq(1, 2 + round);
                b.settle(10_000);
                assertEquals(0, b.cqs.get(1).written);
            }
        });
    }
}
