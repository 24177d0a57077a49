package rnic.hw.qp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import rnic.hw.rdmap.RdmapRxControl;
import rnic.wire.CqeKind;
import rnic.wire.MpaErrorCode;
import rnic.wire.QpState;
import rnic.wire.TerminateCause;
import rnic.wire.WqeOpcode;

/**
 * Random mixes on {@link QpRings} against the ring model of {@link RingsBench}: four QPs on two shared CQs, small
 * rings (every index wraps many times, the CQs' owner phase with them), every opcode with random signaled and fence
 * flags, local invalidations that find their STag or not, unknown opcodes (SQE, then back to RTS), receive buffers
 * and incoming Sends, the host pausing its CQ reads (full CQs), Terminates and MPA errors in the middle of traffic
 * (ERR, then RESET → INIT → RTS with new rings), random idle and back-pressure on every engine-side stream and a slow,
 * paced memory. At W = 64 and 512 (two seeds each) and once at 32, 128 and 256 (other beat and lane layouts of
 * the elements and entries). Everything {@link RingsBench} checks, checked all along (RDMAP-23 completion order,
 * fence, credits, no overwrite, field-by-field requests, posts and completion entries).
 */
class QpRingsRandomTest {
    static final int ROUNDS = 150;

    @ParameterizedTest(name = "W={0} seed={1}")
    @CsvSource({"64,101", "64,102", "512,201", "512,202", "32,301", "128,401", "256,501"})
    void randomMix(int w, long seed) {
        QpRingsTest.model(w).run("randomMix", seed, tb -> {
            Random r = tb.random();
            RingsBench b = new RingsBench(tb, RingsBench.Pacing.random(r));
            b.completionMin = 1;
            b.completionMax = 1 + r.nextInt(60);
            b.invalidateFinds = stag -> (stag & 3) != 0;
            b.setupCq(0, 3);
            b.setupCq(1, 2 + r.nextInt(3));
            for (int q = 0; q < 4; q++) {
                b.setupQp(q, 2 + r.nextInt(3), 2 + r.nextInt(4), q % 2, (q + 1) % 2, QpState.RTS);
            }
            tb.step(2);
            long posted = 0;
            for (int round = 0; round < ROUNDS; round++) {
                // A burst of traffic with the odd error, then quiet, then maybe a QP's life cycle.
                for (int step = 0; step < 40; step++) {
                    int q = r.nextInt(4);
                    RingsBench.Qp p = b.qps.get(q);
                    switch (r.nextInt(10)) {
                        case 0, 1, 2, 3 -> {
                            int n = Math.min(b.sqRoom(q), 1 + r.nextInt(4));
                            for (int i = 0; i < n; i++) {
                                b.post(q, randomWqe(r));
                                posted++;
                            }
                            b.ring(q);
                        }
                        case 4, 5 -> {
                            int n = Math.min(b.rqRoom(q), 1 + r.nextInt(4));
                            for (int i = 0; i < n; i++) {
                                b.postRecv(q, r.nextLong(), r.nextInt(5000));
                            }
                            b.incoming(q, r.nextInt(n + 2));
                        }
                        case 6 -> b.consume(r.nextInt(2), r.nextInt(3) != 0);
                        case 7 -> {
                            if (p.state == QpState.SQE) {
                                b.host(() -> {
                                    if (p.state == QpState.SQE) {
                                        b.setState(q, QpState.RTS);
                                    }
                                });
                            }
                        }
                        case 8 -> {
                            if (r.nextInt(30) == 0) {
                                if (r.nextBoolean()) {
                                    TerminateCause c = TerminateCause.values()[r.nextInt(
                                            TerminateCause.values().length)];
                                    b.event(new RingsBench.Event(r.nextBoolean() ? CqeKind.TERMINATE_SENT.code()
                                            : CqeKind.TERMINATE_RECEIVED.code(), q, 0, r.nextInt(64), r.nextLong(),
                                            RdmapRxControl.causeCode(c), 7, 0));
                                } else {
                                    b.mpaError(q, MpaErrorCode.values()[r.nextInt(3)].code(),
                                            r.nextInt() & 0xFFFFFFFFL);
                                }
                            }
                        }
                        default -> {
                        }
                    }
                    tb.step(1 + r.nextInt(30));
                }
                // Quiet: every CQ read, QPs in SQE back to RTS (elements behind the bad one then run).
                b.consume(0, true);
                b.consume(1, true);
                for (int k = 0; k < 3; k++) {
                    for (int q = 0; q < 4; q++) {
                        if (b.qps.get(q).state == QpState.SQE) {
                            b.setState(q, QpState.RTS);
                        }
                    }
                    b.settle(200_000);
                }
                // A CQ the core marked overflowed (entries met it full while the host was not reading) gets a new
                // ring, which clears the mark; its dropped entries were taken off the scoreboards by settle.
                for (int c = 0; c < 2; c++) {
                    if (b.overflowed(c)) {
                        b.setupCq(c, b.cqs.get(c).log);
                        b.settle(10_000);
                        assertFalse(b.overflowed(c), "a new ring clears the overflow mark");
                    }
                }
                // A QP in ERR is reset and brought up again with new rings.
                for (int q = 0; q < 4; q++) {
                    if (b.qps.get(q).state == QpState.ERR) {
                        b.reset(q);
                        tb.step(5);
                        b.setupQp(q, 2 + r.nextInt(3), 2 + r.nextInt(4), r.nextInt(2), r.nextInt(2), QpState.INIT);
                        b.setState(q, QpState.RTR);
                        b.setState(q, QpState.RTS);
                        b.settle(10_000);
                    }
                }
            }
            System.out.printf("[QpRings random W=%d seed %d] %d elements posted, %d requests, %d posts, %d CQEs, %d "
                    + "QP errors, %d CQ overflows (%d entries dropped) in %d cycles%n", w, seed, posted,
                    b.requestsTaken(), b.postsTaken(), b.cqs.get(0).read + b.cqs.get(1).read, b.qpErrors.matched(),
                    b.cqs.get(0).overflows + b.cqs.get(1).overflows, b.cqs.get(0).dropped + b.cqs.get(1).dropped,
                    tb.cycle());
            assertTrue(b.requestsTaken() > ROUNDS * 10, "too little traffic");
        });
    }

    private static RingsBench.Wqe randomWqe(Random r) {
        int kind = r.nextInt(40);
        int opcode;
        if (kind == 0) {
            opcode = new int[] {2, 7, 0xB, 0xC, 0xD, 0xE, 0x10, 0xFF}[r.nextInt(8)];
        } else if (kind < 4) {
            opcode = WqeOpcode.LOCAL_INVALIDATE_CODE;
        } else {
            opcode = QpRingsTest.OPS[r.nextInt(QpRingsTest.OPS.length)].code();
        }
        return RingsBench.Wqe.random(r, opcode, r.nextInt(3) != 0, r.nextInt(8) == 0);
    }
}
