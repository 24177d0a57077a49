package rnic.hw.top;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static rnic.hw.top.RnicBench.qpReg;
import static rnic.hw.top.RnicBench.reg;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.model.rdmap.TaggedMessage;
import rnic.sim.HostMemory;
import rnic.sim.RnicSystem;
import rnic.sim.TcpPayloadSource;
import rnic.wire.CqeKind;
import rnic.wire.MpaErrorCode;
import rnic.wire.QpState;

/**
 * QP states of the RNIC core (register QP_STATE, the issue-5 contract; RFC 5040 §5 / §6 meanings with InfiniBand
 * names) in a Verilator model of {@link RnicPair} at W = 64.
 *
 * <ul>
 *   <li>The host's requests follow the contract's rule, "RESET→INIT→RTR→RTS, RTS⇄SQD, SQE→RTS, any→ERR, any→RESET",
 *       typed here from the contract: from every state the host can reach, all eight codes are asked for, and the
 *       state read back is the requested one exactly when the rule allows it (codes that are no state, and SQE, are
 *       always ignored). {@link QpState#hostMayMoveTo} states the same rule.</li>
 *   <li>RESET clears: the producer indices read 0 and ignore writes, QP_ERROR reads 0.</li>
 *   <li>An MPA receive error moves the QP to ERR by itself (E-M2, MPA-44), QP_ERROR says MPA_ERROR with the MPA Error
 *       Code, nothing after the bad FPDU is placed; a RESET then restarts the connection (MPA-12: a new Marker grid
 *       from the new QP_RX_SEQ_START), and the next Write is placed octet for octet.</li>
 *   <li>An MPA receive error on a QP in RTS (its transmitter running) also sends the Terminate of docs/requirements.md §3.1 on
 *       that connection — Layer LLP, EType 0, Error Code 2 (E-M2), M = D = R = 0, QN 2, MSN 1 — as its last FPDU, and
 *       the QP goes to ERR with QP_ERROR MPA_ERROR (MPA-44, MPA-45, DDP-27, DDP-28, RDMAP-18).</li>
 *   <li>An FPDU longer than the receive buffer the core is built for ({@code RnicConfig.mss}, default 9000: ULPDUs up
 *       to 8994 octets) is the same MPA error, E-M2, at W = 64 and 512: the QP stops, nothing of it or after it is
 *       placed, and the connection keeps taking its TCP payload (no hang).</li>
 * </ul>
 */
class RnicQpStateTest {
    /** The contract's rule, typed from its text. */
    static boolean contractAllows(QpState from, QpState to) {
        return switch (to) {
            case RESET, ERR -> true;
            case INIT -> from == QpState.RESET;
            case RTR -> from == QpState.INIT;
            case RTS -> from == QpState.RTR || from == QpState.SQD || from == QpState.SQE;
            case SQD -> from == QpState.RTS;
            case SQE -> false;
        };
    }

    /** The host's way from RESET to {@code s}. */
    static List<QpState> path(QpState s) {
        return switch (s) {
            case RESET -> List.of();
            case INIT -> List.of(QpState.INIT);
            case RTR -> List.of(QpState.INIT, QpState.RTR);
            case RTS -> List.of(QpState.INIT, QpState.RTR, QpState.RTS);
            case SQD -> List.of(QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD);
            case ERR -> List.of(QpState.ERR);
            case SQE -> throw new IllegalArgumentException("SQE is entered by the core only");
        };
    }

    @Test
    void theWireEnumStatesTheContractsRule() {
        for (QpState from : QpState.values()) {
            for (QpState to : QpState.values()) {
                assertEquals(contractAllows(from, to), from.hostMayMoveTo(to), from + " -> " + to);
            }
        }
    }

    @Test
    void hostRequestsFollowTheContractsRule() {
        RnicSystem.model(RnicBench.W).run("transitions", 11, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side a = bench.a;
            int cases = 0;
            for (QpState from : QpState.values()) {
                if (from == QpState.SQE) {
                    continue;
                }
                for (int code = 0; code < 8; code++) {
                    int q = cases % 4;
                    assertEquals(QpState.RESET, a.request(q, QpState.RESET));
                    for (QpState step : path(from)) {
                        assertEquals(step, a.request(q, step), "on the way to " + from);
                    }
                    a.write(qpReg(q, "QP_STATE"), code);
                    QpState to = code < 7 ? QpState.of(code) : null;
                    QpState want = to != null && contractAllows(from, to) ? to : from;
                    assertEquals(want, a.state(q), "QP " + q + " in " + from + " asked for code " + code);
                    cases++;
                }
            }
            assertEquals(48, cases);
        });
    }

    @Test
    void resetClearsProducerIndicesAndError() {
        RnicSystem.model(RnicBench.W).run("reset", 12, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side a = bench.a;
            int q = 3;
            a.write(qpReg(q, "QP_SQ_PROD"), 5);
            assertEquals(0, a.read(qpReg(q, "QP_SQ_PROD")), "ignored in RESET");
            assertEquals(QpState.INIT, a.request(q, QpState.INIT));
            a.write(qpReg(q, "QP_SQ_PROD"), 5);
            a.write(qpReg(q, "QP_RQ_PROD"), 7);
            assertEquals(5, a.read(qpReg(q, "QP_SQ_PROD")));
            assertEquals(7, a.read(qpReg(q, "QP_RQ_PROD")));
            assertEquals(QpState.ERR, a.request(q, QpState.ERR));
            assertEquals(0, a.read(qpReg(q, "QP_ERROR")), "a host request leaves QP_ERROR at 0");
            assertEquals(QpState.RESET, a.request(q, QpState.RESET));
            assertEquals(0, a.read(qpReg(q, "QP_SQ_PROD")));
            assertEquals(0, a.read(qpReg(q, "QP_RQ_PROD")));
            assertEquals(0, a.read(qpReg(q, "QP_SQ_CONS")));
            assertEquals(0, a.read(qpReg(q, "QP_RQ_CONS")));
        });
    }

    @Test
    void anMpaErrorMovesTheQpToErrAndResetRestartsTheConnection() {
        RnicSystem.model(RnicBench.W).run("mpa-error", 13, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side b = bench.b;
            Random rng = tb.random();
            int q = 1;
            int pd = 7;
            int stag = 0x0300 | 0x5A; // index 3, key 0x5A
            long va = 0x0000_7F00_1234_0000L;
            int length = 16384;
            HostMemory expected = new HostMemory();
            b.programStag(stag, pd, q, true, true, false, false, false, va, length);

            // Full Operation from a sequence number near 2^32, Markers and CRC on.
            long seqStart = 0xFFFF_FFFFL - rng.nextInt(4096);
            MpaFramer framer = open(b, q, pd, seqStart);
            byte[] firstPayload = randomBytes(rng, 3000);
            List<TcpSegment> first = write(framer, stag, va, firstPayload);
            List<TcpSegment> second = write(framer, stag, va + 4096, randomBytes(rng, 600));
            // The first Write arrives intact; the second one's first FPDU has a bit of its CRC flipped.
            TcpPayloadSource in = b.tcpIn.get(q);
            for (TcpSegment s : first) {
                in.send(s.seq(), s.payload(), TcpPayloadSource.resegmenting(rng, 8));
            }
            expected.write(va, firstPayload);
            TcpSegment bad = second.get(0);
            byte[] corrupt = bad.payload().clone();
            corrupt[corrupt.length - 1 - rng.nextInt(4)] ^= (byte) (1 << rng.nextInt(8));
            in.send(bad.seq(), corrupt, () -> 8);
            for (TcpSegment s : second.subList(1, second.size())) {
                in.send(s.seq(), s.payload(), () -> 8);
            }
            tb.runUntil(() -> !in.busy(), 20_000, "the TCP payload to be taken");
            tb.step(200);
            assertEquals(QpState.ERR, b.state(q), "E-M2 moves the QP to ERR");
            int error = b.read(qpReg(q, "QP_ERROR"));
            assertEquals(CqeKind.MPA_ERROR.code(), error & reg("QP_ERROR_KIND_MASK"));
            assertEquals(MpaErrorCode.CRC_ERROR.code(), (error & reg("QP_ERROR_STATUS_MASK")) >>> 8);
            b.memory.assertSameAs(expected, "only the Write before the bad FPDU is placed");

            // RESET clears the error and restarts the connection at a new sequence number.
            assertEquals(QpState.RESET, b.request(q, QpState.RESET));
            assertEquals(0, b.read(qpReg(q, "QP_ERROR")), "RESET clears QP_ERROR");
            long seqStart2 = rng.nextInt(1 << 20);
            MpaFramer framer2 = open(b, q, pd, seqStart2);
            byte[] payload = randomBytes(rng, 2500);
            for (TcpSegment s : write(framer2, stag, va + 8192 + 3, payload)) {
                in.send(s.seq(), s.payload(), TcpPayloadSource.resegmenting(rng, 8));
            }
            expected.write(va + 8192 + 3, payload);
            tb.runUntil(() -> !in.busy(), 20_000, "the TCP payload to be taken");
            tb.step(200);
            assertEquals(QpState.RTR, b.state(q), "the restarted connection takes good FPDUs");
            b.memory.assertSameAs(expected, "the Write after the restart is placed");
        });
    }

    /**
     * A well-formed FPDU (CRC and Markers valid) whose ULPDU_Length, 20 014, exceeds the receive buffer's bound (8994 for
     * the default MSS of 9000) stops the QP with E-M2 (2/0/02, the code of the golden {@code MpaDeframer} built with
     * the same bound), after the Write before it was placed and before anything of it or the later Writes is; the whole
     * stream, longer than the buffer, is taken within a bounded number of cycles.
     *
     * <p>Requirements: MPA-25, MPA-42, MPA-44; docs/requirements.md §3.1 E-M2.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "W={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {64, 512})
    void anFpduLongerThanTheReceiveBufferStopsTheQp(int w) {
        RnicSystem.model(w).run("mpa-too-long", 14, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side b = bench.b;
            Random rng = tb.random();
            int q = 2;
            int pd = 5;
            int stag = 0x0400 | 0x33;
            long va = 0x0000_7E00_0000_0000L;
            int length = 65536;
            HostMemory expected = new HostMemory();
            b.programStag(stag, pd, q, true, true, false, false, false, va, length);
            long seqStart = 0xFFFF_FFFFL - rng.nextInt(4096);
            open(b, q, pd, seqStart);
            // A peer that ignores our MSS: its framer (EMSS 65535) puts a 20 000-octet Write in one FPDU.
            MpaFramer framer = new MpaFramer(new MpaDirection(true, true, seqStart), 65535);
            byte[] firstPayload = randomBytes(rng, 3000);
            List<TcpSegment> segs = new ArrayList<>(write(framer, stag, va, firstPayload));
            List<TcpSegment> big = write(framer, stag, va + 4096, randomBytes(rng, 20_000));
            assertEquals(1, big.size(), "one FPDU");
            segs.addAll(big);
            segs.addAll(write(framer, stag, va + 32768, randomBytes(rng, 500)));
            expected.write(va, firstPayload);
            TcpPayloadSource in = b.tcpIn.get(q);
            long octets = 0;
            for (TcpSegment s : segs) {
                in.send(s.seq(), s.payload(), TcpPayloadSource.resegmenting(rng, w / 8));
                octets += s.payload().length;
            }
            tb.runUntil(() -> !in.busy(), 2000 + 2 * octets, "the TCP payload to be taken (no hang)");
            tb.step(200);
            assertEquals(QpState.ERR, b.state(q), "an over-long FPDU moves the QP to ERR");
            int error = b.read(qpReg(q, "QP_ERROR"));
            assertEquals(CqeKind.MPA_ERROR.code(), error & reg("QP_ERROR_KIND_MASK"));
            assertEquals(MpaErrorCode.CRC_ERROR.code(), (error & reg("QP_ERROR_STATUS_MASK")) >>> 8);
            b.memory.assertSameAs(expected, "only the Write before the over-long FPDU is placed");
        });
    }

    @Test
    void anMpaErrorInRtsSendsTheLlpTerminate() {
        RnicSystem.model(RnicBench.W).run("mpa-error-terminate", 14, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side b = bench.b;
            Random rng = tb.random();
            int q = 2;
            int stag = 0x0300 | 0x5A;
            long va = 0x0000_7F00_1234_0000L;
            b.programStag(stag, 7, q, true, true, false, false, false, va, 16384);
            b.tcpOut.get(q).forward = false; // A's QP stays in RESET: only record what B sends
            // No Markers out: the FPDU the core sends is easy to read.
            MpaFramer framer = open(b, q, 7, rng.nextInt(1 << 20), false);
            assertEquals(QpState.RTS, b.request(q, QpState.RTS));
            TcpSegment bad = write(framer, stag, va, randomBytes(rng, 600)).get(0);
            byte[] corrupt = bad.payload().clone();
            corrupt[corrupt.length - 1] ^= 0x10;
            TcpPayloadSource in = b.tcpIn.get(q);
            in.send(bad.seq(), corrupt, () -> 8);
            tb.runUntil(() -> !in.busy(), 20_000, "the TCP payload to be taken");
            tb.step(500);
            assertEquals(QpState.ERR, b.state(q), "E-M2 moves the QP to ERR");
            int error = b.read(qpReg(q, "QP_ERROR"));
            assertEquals(CqeKind.MPA_ERROR.code(), error & reg("QP_ERROR_KIND_MASK"));

            List<byte[]> sent = b.tcpOut.get(q).segments;
            assertEquals(1, sent.size(), "one FPDU: the Terminate");
            byte[] fpdu = sent.get(0);
            int len = (fpdu[0] & 0xFF) << 8 | fpdu[1] & 0xFF;
            byte[] ulpdu = java.util.Arrays.copyOfRange(fpdu, 2, 2 + len);
            DdpSegment seg;
            rnic.model.rdmap.Terminate t;
            try {
                seg = DdpSegment.parse(ulpdu);
                t = (rnic.model.rdmap.Terminate) new rnic.model.rdmap.RdmapDecoder(true).decode(List.of(seg));
            } catch (rnic.model.ddp.TerminateException e) {
                throw new AssertionError("the FPDU holds no Terminate: " + e.getMessage(), e);
            }
            assertEquals(new rnic.model.ddp.DdpUntaggedHeader(true, 0x47L << 32, 2, 1, 0), seg.header());
            assertEquals(MpaErrorCode.LAYER, t.layer(), "Layer LLP");
            assertEquals(MpaErrorCode.ETYPE, t.etype(), "EType MPA error");
            assertEquals(MpaErrorCode.CRC_ERROR.code(), t.errorCode(), "Error Code E-M2");
            assertEquals(false, t.segmentLengthValid(), "M");
            assertEquals(null, t.ddpHeader(), "D");
            assertEquals(null, t.rdmaHeader(), "R");
            tb.step(500);
            assertEquals(1, b.tcpOut.get(q).segments.size(), "nothing after the Terminate");
        });
    }

    /** Opens QP {@code q} of {@code side} for Full Operation from {@code seqStart} (Markers, CRC); the sender's model. */
    static MpaFramer open(RnicBench.Side side, int q, int pd, long seqStart) {
        return open(side, q, pd, seqStart, true);
    }

    /** {@link #open(RnicBench.Side, int, int, long)} with or without Markers in what the core sends. */
    static MpaFramer open(RnicBench.Side side, int q, int pd, long seqStart, boolean txMarkers) {
        side.write(qpReg(q, "QP_PD"), pd);
        side.write(qpReg(q, "QP_IRD"), 4);
        side.write(qpReg(q, "QP_ORD"), 4);
        side.mpa(q, txMarkers, true, true, false, 1460, seqStart);
        assertEquals(QpState.INIT, side.request(q, QpState.INIT));
        assertEquals(QpState.RTR, side.request(q, QpState.RTR));
        return new MpaFramer(new MpaDirection(true, true, seqStart), 1460);
    }

    /** An RDMA Write of {@code payload} to {@code stag}/{@code to}, as the peer's TCP segments. */
    static List<TcpSegment> write(MpaFramer framer, int stag, long to, byte[] payload) {
        List<TcpSegment> out = new ArrayList<>();
        for (DdpSegment s : TaggedMessage.write(stag, to, payload).segments(new DdpSegmenter(), framer.mulpdu())) {
            out.addAll(framer.send(s.encode()));
        }
        return out;
    }

    static byte[] randomBytes(Random rng, int n) {
        byte[] b = new byte[n];
        rng.nextBytes(b);
        return b;
    }
}
