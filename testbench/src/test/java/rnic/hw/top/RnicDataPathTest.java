package rnic.hw.top;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.hw.top.RnicBench.qpReg;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.sim.HostMemory;
import rnic.sim.Pacer;
import rnic.sim.RnicSystem;
import rnic.sim.TcpPayloadSource;
import rnic.wire.QpState;

/**
 * The data path of the RNIC core in a Verilator model of {@link RnicPair} at W = 64 (the Write through the send queue
 * also at W = 512).
 *
 * <ul>
 *   <li>MPA-02 / MPA-21: QP_MULPDU reads what RFC 5044 §4.5 gives for the QP's EMSS and TX_MARKERS, computed here from
 *       the formula (with the 128 floor and the 64768 ceiling) and checked against docs/requirements.md §2.3.4's table.</li>
 *   <li>Inbound RDMA Writes on all four connections at once (DDP-18 tagged placement, MPA-23 any segmentation, MPA-25
 *       a ULPDU is used only when its whole FPDU checked out): each QP runs Full Operation from its own sequence
 *       number with its own Marker and CRC settings, its STag programmed through the STAG registers; the peer's FPDUs
 *       come from the golden {@link MpaFramer}, cut into random beats, and the host memory is slow and paced. Every
 *       Write lands octet for octet, nothing is written outside the registered regions, the connections' ULPDUs are
 *       interleaved by the core's round-robin receive mux.</li>
 *   <li>An RDMA Write from RNIC a to RNIC b through a's send queue (RDMAP-23 completion, DDP-18 placement, MPA-12/13
 *       Markers, MPA-19 CRC on both sides): the WQE in host memory, the doorbell QP_SQ_PROD, the STag at b and both
 *       QPs moved RESET→INIT→RTR→RTS through the registers; b's memory holds the payload octet for octet, a's
 *       completion queue the signaled SEND_DONE for slot 0, QP_SQ_CONS and CQ_PROD advanced; at full rate and with
 *       back-pressure on both TCP streams and slow, paced memories on both sides.</li>
 *   <li>MPA-36: a responder (HOLD_TX_UNTIL_RX) with a Write posted sends nothing, and does not start the request,
 *       until the initiator's first FPDU has arrived and been validated; then both Writes land.</li>
 * </ul>
 */
class RnicDataPathTest {
    /** RFC 5044 §4.5: MULPDU for EMSS with or without Markers, never below 128 nor above 64768. */
    static int mulpdu(int emss, boolean markers) {
        int overhead = 6 + (markers ? 4 * ((emss + 511) / 512) : 0) + emss % 4;
        return Math.max(128, Math.min(64768, emss - overhead));
    }

    @Test
    void mulpduFollowsRfc5044() {
        // docs/requirements.md §2.3.4: EMSS, MULPDU with Markers, MULPDU without.
        int[][] table = {{536, 522, 530}, {1448, 1430, 1442}, {1460, 1442, 1454}, {8960, 8882, 8954},
            {9000, 8922, 8994}};
        for (int[] row : table) {
            assertEquals(row[1], mulpdu(row[0], true), "the test's formula, EMSS " + row[0]);
            assertEquals(row[2], mulpdu(row[0], false), "the test's formula, EMSS " + row[0]);
        }
        RnicSystem.model(RnicBench.W).run("mulpdu", 21, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side a = bench.a;
            Random rng = tb.random();
            List<Integer> emss = new ArrayList<>(List.of(0, 64, 100, 127, 128, 134, 135, 136, 139, 140, 144, 511, 512,
                    513, 516, 1024, 1025, 64768, 64780, 65535));
            for (int[] row : table) {
                emss.add(row[0]);
            }
            for (int i = 0; i < 40; i++) {
                emss.add(rng.nextInt(65536));
            }
            int q = 0;
            assertEquals(QpState.INIT, a.request(q, QpState.INIT));
            int n = 0;
            for (int e : emss) {
                for (boolean markers : new boolean[] {false, true}) {
                    a.mpa(q, markers, false, true, false, e, 0);
                    assertEquals(mulpdu(e, markers), a.read(qpReg(q, "QP_MULPDU")), "EMSS " + e + " markers "
                            + markers);
                    n++;
                }
            }
            assertEquals(2 * emss.size(), n);
        });
    }

    /** One Write as the test sends it: QP, target, payload, and its TCP segments. */
    record Write(int qp, long to, byte[] payload, List<TcpSegment> segments) {
    }

    @Test
    void inboundWritesOnEveryConnectionArePlaced() {
        RnicSystem.model(RnicBench.W).run("inbound", 22, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side b = bench.b;
            Random rng = tb.random();
            b.slave.withReadLatency(5).withPacing(Pacer.random(rng, 0.7), Pacer.random(rng, 0.6),
                    Pacer.random(rng, 0.8), Pacer.random(rng, 0.7), Pacer.random(rng, 0.8));
            HostMemory expected = new HostMemory();
            List<long[]> regions = new ArrayList<>();
            b.memory.onAccess((address, length, isWrite) -> {
                assertTrue(isWrite, "a Write's placement only writes");
                boolean inside = false;
                for (long[] r : regions) {
                    inside |= Long.compareUnsigned(address, r[0]) >= 0
                            && Long.compareUnsigned(address + length, r[1]) <= 0;
                }
                assertTrue(inside, "write of " + length + " octets at " + HostMemory.hex(address)
                        + " outside every registered region");
            });
            List<List<Write>> perQp = new ArrayList<>();
            long octets = 0;
            for (int q = 0; q < 4; q++) {
                int stag = (q + 1) << 8 | rng.nextInt(256);
                long va = 0x0001_0000_0000L * (q + 1) + rng.nextInt(1 << 20);
                int length = 64 * 1024;
                regions.add(new long[] {va, va + length});
                b.programStag(stag, q + 1, q, true, true, false, false, false, va, length);
                boolean markers = q % 2 == 1 || rng.nextBoolean();
                boolean crc = q != 2 || rng.nextBoolean();
                long seqStart = q == 0 ? 0 : rng.nextLong() & 0xFFFF_FFFFL;
                b.write(qpReg(q, "QP_PD"), q + 1);
                b.mpa(q, false, markers, crc, false, 1460, seqStart);
                assertEquals(QpState.INIT, b.request(q, QpState.INIT));
                assertEquals(QpState.RTR, b.request(q, QpState.RTR));
                MpaFramer framer = new MpaFramer(new MpaDirection(markers, crc, seqStart), 1460);
                List<Write> writes = new ArrayList<>();
                long to = va;
                for (int i = 0; i < 6; i++) {
                    int n = switch (i) {
                        case 0 -> 1;
                        case 1 -> 8;
                        default -> 1 + rng.nextInt(5000);
                    };
                    byte[] payload = RnicQpStateTest.randomBytes(rng, n);
                    to += rng.nextInt(64);
                    writes.add(new Write(q, to, payload, RnicQpStateTest.write(framer, stag, to, payload)));
                    expected.write(to, payload);
                    to += n;
                    octets += n;
                }
                perQp.add(writes);
            }
            // The connections' segments go in at the same time, each cut into random beats.
            for (int q = 0; q < 4; q++) {
                TcpPayloadSource in = b.tcpIn.get(q);
                for (Write w : perQp.get(q)) {
                    for (TcpSegment s : w.segments()) {
                        in.send(s.seq(), s.payload(), TcpPayloadSource.resegmenting(rng, 8));
                    }
                }
            }
            long start = tb.cycle();
            tb.runUntil(() -> b.tcpIn.stream().noneMatch(s -> s.busy()), 200_000, "the TCP payload to be taken");
            // Placement ends some cycles after the last octet was taken; compared every 32 cycles.
            while (b.memory.firstDifference(expected).isPresent()) {
                assertTrue(tb.cycle() - start < 300_000, "Writes still not placed after 300 000 cycles");
                tb.step(32);
            }
            long cycles = tb.cycle() - start;
            tb.step(100);
            b.memory.assertSameAs(expected, "placed Writes");
            for (int q = 0; q < 4; q++) {
                assertEquals(QpState.RTR, b.state(q), "QP " + q + " stays in RTR");
            }
            System.out.printf("[RnicDataPathTest] %d octets of inbound Writes on 4 connections placed in %d cycles"
                    + " (within 32; W=%d, paced memory)%n", octets, cycles, RnicBench.W);
        });
    }

    @ParameterizedTest(name = "W={0} {1}")
    @CsvSource({"64, full rate", "64, paced", "512, full rate", "512, paced"})
    void rdmaWriteThroughTheSendQueueLandsAtThePeer(int w, String mode) {
        boolean paced = mode.equals("paced");
        RnicSystem.model(w).run("write-a-to-b-" + (paced ? "paced" : "full"), w + (paced ? 24 : 23), tb -> {
            Random rng = tb.random();
            RnicBench bench = new RnicBench(tb, () -> paced ? Pacer.randomMix(rng) : Pacer.always());
            RnicBench.Side a = bench.a;
            RnicBench.Side b = bench.b;
            if (paced) {
                for (RnicBench.Side s : List.of(a, b)) {
                    s.slave.withReadLatency(7).withPacing(Pacer.random(rng, 0.6), Pacer.random(rng, 0.6),
                            Pacer.random(rng, 0.7), Pacer.random(rng, 0.6), Pacer.random(rng, 0.7));
                }
            }
            int q = 0;
            int pd = 1;
            // B: a region for remote write, bound to QP 0 (RFC 5040 §8.1 via the STAG registers).
            int stag = 0x0500 | rng.nextInt(256);
            long sinkVa = 0x0000_0002_0000_0000L + 64 * rng.nextInt(1000) + rng.nextInt(8);
            int length = 3000 + rng.nextInt(2000);
            b.programStag(stag, pd, q, true, true, false, false, false, sinkVa, 65536);
            // A: the source buffer and its rings.
            long source = 0x0000_0001_0000_0000L + rng.nextInt(4096);
            byte[] payload = RnicQpStateTest.randomBytes(rng, length);
            a.memory.write(source, payload);
            long cq = CQ;
            openBoth(bench, q, pd, false);
            long start = tb.cycle();
            postWrite(a, q, 0, source, length, stag, sinkVa);
            // Done when the last octet is at B and A's completion is written.
            long placedAt = -1;
            long doneAt = -1;
            while (placedAt < 0 || doneAt < 0) {
                assertTrue(tb.cycle() - start < 100_000, "the Write did not complete in 100 000 cycles");
                tb.step(1);
                if (placedAt < 0 && java.util.Arrays.equals(payload, b.memory.read(sinkVa, length))) {
                    placedAt = tb.cycle();
                }
                if (doneAt < 0 && (a.memory.read(cq + rnic.wire.Cqe.OWNER, 1)[0] & 1) != 0) {
                    doneAt = tb.cycle();
                }
            }
            assertTrue(java.util.Arrays.equals(payload, b.memory.read(sinkVa, length)), "the Write at B, octet for octet");
            java.nio.ByteBuffer cqe = java.nio.ByteBuffer.wrap(a.memory.read(cq, rnic.wire.Cqe.SIZE))
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN);
            assertEquals(0, cqe.getInt(rnic.wire.Cqe.WR_ID), "wrId = slot index");
            assertEquals(rnic.wire.CqeKind.SEND_DONE.code(), cqe.get(rnic.wire.Cqe.KIND) & 0xFF);
            assertEquals(0, cqe.get(rnic.wire.Cqe.STATUS), "status: success");
            assertEquals(q, cqe.get(rnic.wire.Cqe.QP));
            assertEquals(1, a.read(qpReg(q, "QP_SQ_CONS")), "QP_SQ_CONS advanced past the request");
            assertEquals(1, a.read(RnicBench.cqReg(0, "CQ_PROD")), "one completion written");
            assertEquals(QpState.RTS, a.state(q));
            assertEquals(QpState.RTS, b.state(q));
            // On the wire: FPDUs with Markers and CRC, each within EMSS, one per TCP segment.
            int fpdus = bench.a.tcpOut.get(q).segments.size();
            assertTrue(fpdus >= (length + 1443) / 1444, fpdus + " FPDUs for " + length + " octets");
            System.out.printf("[RnicDataPathTest] RDMA Write of %d octets A->B (W=%d, Markers+CRC, %s): the last"
                    + " octet placed at B %d cycles after the doorbell write began, A's completion written after %d;"
                    + " %d FPDUs%n", length, w, mode, placedAt - start, doneAt - start, fpdus);
        });
    }

    @Test
    void aResponderHoldsItsFirstFpduUntilItHasReceivedOne() {
        RnicSystem.model(RnicBench.W).run("hold-tx", 25, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side a = bench.a;
            RnicBench.Side b = bench.b;
            Random rng = tb.random();
            int q = 0;
            int pd = 2;
            int stagA = 0x0600 | rng.nextInt(256);
            int stagB = 0x0700 | rng.nextInt(256);
            long sinkA = 0x0000_0003_0000_0000L;
            long sinkB = 0x0000_0004_0000_0000L;
            a.programStag(stagA, pd, q, true, true, false, false, false, sinkA, 4096);
            b.programStag(stagB, pd, q, true, true, false, false, false, sinkB, 4096);
            byte[] fromB = RnicQpStateTest.randomBytes(rng, 700);
            byte[] fromA = RnicQpStateTest.randomBytes(rng, 300);
            long source = 0x0000_0001_0000_0000L;
            b.memory.write(source, fromB);
            a.memory.write(source, fromA);
            openBoth(bench, q, pd, true); // b is the MPA responder: HOLD_TX_UNTIL_RX
            // b's Write is posted first, but b must send nothing (no FPDU, no Marker) before a valid FPDU arrived.
            postWrite(b, q, 0, source, fromB.length, stagA, sinkA);
            tb.step(3000);
            assertTrue(bench.b.tcpOut.get(q).segments.isEmpty(), "the responder sent before it received (MPA-36)");
            assertEquals(0, b.read(qpReg(q, "QP_SQ_CONS")), "the held request has not started");
            // a (the initiator) sends; once b has validated that FPDU its own Write goes out.
            postWrite(a, q, 0, source, fromA.length, stagB, sinkB);
            long start = tb.cycle();
            while (!java.util.Arrays.equals(fromB, a.memory.read(sinkA, fromB.length))
                    || !java.util.Arrays.equals(fromA, b.memory.read(sinkB, fromA.length))) {
                assertTrue(tb.cycle() - start < 50_000, "the two Writes did not arrive");
                tb.step(1);
            }
            assertTrue(!bench.a.tcpOut.get(q).segments.isEmpty() && !bench.b.tcpOut.get(q).segments.isEmpty());
            assertEquals(1, b.read(qpReg(q, "QP_SQ_CONS")));
            assertEquals(QpState.RTS, b.state(q));
        });
    }

    /** Send queue, receive queue and completion queue of every QP in the tests' host memories. */
    static final long SQ = 0x10_0000;
    static final long RQ = 0x20_0000;
    static final long CQ = 0x30_0000;

    /**
     * Rings, PD, IRD/ORD and MPA settings (Markers and CRC both ways, EMSS 1460, Full Operation from sequence number 0)
     * of QP q on both RNICs, then RESET→INIT→RTR→RTS through the registers; {@code bHoldsTx}: b is the MPA responder
     * that waits for an FPDU before it sends (MPA-36).
     */
    static void openBoth(RnicBench bench, int q, int pd, boolean bHoldsTx) {
        for (RnicBench.Side s : List.of(bench.a, bench.b)) {
            rings(s, q, SQ, RQ, CQ);
            s.write(qpReg(q, "QP_PD"), pd);
            s.write(qpReg(q, "QP_IRD"), 4);
            s.write(qpReg(q, "QP_ORD"), 4);
            s.mpa(q, true, true, true, s == bench.b && bHoldsTx, 1460, 0);
            assertEquals(QpState.INIT, s.request(q, QpState.INIT));
            assertEquals(QpState.RTR, s.request(q, QpState.RTR));
            assertEquals(QpState.RTS, s.request(q, QpState.RTS));
        }
    }

    /** A signaled RDMA Write in send queue slot {@code slot} of QP q ({@link rnic.wire.SqWqe}), then the doorbell. */
    static void postWrite(RnicBench.Side s, int q, int slot, long source, int length, int stag, long to) {
        byte[] wqe = new byte[rnic.wire.SqWqe.SIZE];
        java.nio.ByteBuffer fields = java.nio.ByteBuffer.wrap(wqe).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        fields.put(rnic.wire.SqWqe.OPCODE, (byte) rnic.wire.WqeOpcode.RDMA_WRITE.code());
        fields.put(rnic.wire.SqWqe.FLAGS, (byte) rnic.wire.SqWqe.FLAG_SIGNALED);
        fields.putInt(rnic.wire.SqWqe.LENGTH, length);
        fields.putLong(rnic.wire.SqWqe.LOCAL_ADDRESS, source);
        fields.putInt(rnic.wire.SqWqe.REMOTE_STAG, stag);
        fields.putLong(rnic.wire.SqWqe.REMOTE_TO, to);
        s.memory.write(SQ + (long) slot * rnic.wire.SqWqe.SIZE, wqe);
        s.write(qpReg(q, "QP_SQ_PROD"), slot + 1);
    }

    /** Ring and CQ registers of QP q on {@code s}: SQ, RQ of 16 slots, CQ q of 16 entries. */
    static void rings(RnicBench.Side s, int q, long sq, long rq, long cq) {
        s.write(qpReg(q, "QP_SQ_BASE_LO"), (int) sq);
        s.write(qpReg(q, "QP_SQ_BASE_HI"), (int) (sq >>> 32));
        s.write(qpReg(q, "QP_SQ_SIZE"), 4);
        s.write(qpReg(q, "QP_RQ_BASE_LO"), (int) rq);
        s.write(qpReg(q, "QP_RQ_BASE_HI"), (int) (rq >>> 32));
        s.write(qpReg(q, "QP_RQ_SIZE"), 4);
        s.write(qpReg(q, "QP_SQ_CQ"), q);
        s.write(qpReg(q, "QP_RQ_CQ"), q);
        s.write(RnicBench.cqReg(q, "CQ_BASE_LO"), (int) cq);
        s.write(RnicBench.cqReg(q, "CQ_BASE_HI"), (int) (cq >>> 32));
        s.write(RnicBench.cqReg(q, "CQ_SIZE"), 4);
        s.write(RnicBench.cqReg(q, "CQ_CONS"), 0);
    }
}
