package rnic.hw.top;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.hw.top.RnicBench.qpReg;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.sim.HostMemory;
import rnic.sim.Pacer;
import rnic.sim.TcpPayloadSource;
import rnic.wire.QpState;

/**
 * The data path of the RNIC core in a Verilator model of {@link RnicPair} at W = 64.
 *
 * <ul>
 *   <li>MPA-02 / MPA-21: QP_MULPDU reads what RFC 5044 §4.5 gives for the QP's EMSS and TX_MARKERS, computed here from
 *       the formula (with the 128 floor and the 64768 ceiling) and checked against CONFORMANCE §2.3.4's table.</li>
 *   <li>Inbound RDMA Writes on all four connections at once (DDP-18 tagged placement, MPA-23 any segmentation, MPA-25
 *       a ULPDU is used only when its whole FPDU checked out): each QP runs Full Operation from its own sequence
 *       number with its own Marker and CRC settings, its STag programmed through the STAG registers; the peer's FPDUs
 *       come from the golden {@link MpaFramer}, cut into random beats, and the host memory is slow and paced. Every
 *       Write lands octet for octet, nothing is written outside the registered regions, the connections' ULPDUs are
 *       interleaved by the core's round-robin receive mux.</li>
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
        // CONFORMANCE §2.3.4: EMSS, MULPDU with Markers, MULPDU without.
        int[][] table = {{536, 522, 530}, {1448, 1430, 1442}, {1460, 1442, 1454}, {8960, 8882, 8954},
            {9000, 8922, 8994}};
        for (int[] row : table) {
            assertEquals(row[1], mulpdu(row[0], true), "the test's formula, EMSS " + row[0]);
            assertEquals(row[2], mulpdu(row[0], false), "the test's formula, EMSS " + row[0]);
        }
        RnicBench.model(RnicBench.W).run("mulpdu", 21, tb -> {
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
        RnicBench.model(RnicBench.W).run("inbound", 22, tb -> {
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
}
