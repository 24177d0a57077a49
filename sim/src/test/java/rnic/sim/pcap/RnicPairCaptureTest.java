package rnic.sim.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import rnic.hw.top.RegisterExport;
import rnic.hw.top.RnicConfig;
import rnic.hw.top.RnicPair;
import rnic.sim.RnicSystem;
import rnic.sim.SimTransport;
import rnic.sim.tcp.Segmentation;
import rnic.sim.tcp.TcpChannel;
import rnic.sim.tcp.TcpOptions;
import rnic.sim.tcp.TcpStats;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;
import rnic.wire.Cqe;
import rnic.wire.CqeKind;
import rnic.wire.QpState;
import rnic.wire.SqWqe;
import rnic.wire.WqeOpcode;

/**
 * The simulation harness of issue 5 with the real two-RNIC top ({@link RnicPair}, W = 64): {@link RnicSystem} finds its
 * ports by name, each {@link SimTransport} programs its core through APB3 and gives it host memory over AXI4, and a
 * TCP connection from a to b's listener (10.0.0.2:4791) carries the hosts' MPA Request and Reply (RFC 5044 §7.1, as
 * stream octets: MPA-27), then, after the hand-over to QP 1's connection slot at the exact octet (MPA-26), the cores'
 * FPDUs. Each side posts an RDMA Write to the other on QP 1
 * (the Responder holds its FPDUs until the Initiator's first one arrived, MPA-36); both land octet for octet and both
 * complete. Over MODEL channels with loss and re-segmentation (MPA-23, DDP-02/03) and over a KERNEL socket.
 *
 * <p>The capture of each run is read back by tshark: no malformed frame or warning (apart from Wireshark's reassembly
 * false alarm on a retransmission), every retransmission flagged, the MPA Request and Reply recognised, and — when the
 * segments go as the core sent them — every FPDU decoded with a good CRC as an RDMA Write. Left under
 * {@code target/pcap-test/} for Wireshark.
 */
class RnicPairCaptureTest {
    static final int W = 64;
    static final int QP = 1;
    /** The port b listens on (the iWARP port). */
    static final int PORT = 4791;
    static final int WRITES = 8;

    private static Map<String, Integer> regs;

    static synchronized int reg(String name) {
        if (regs == null) {
            try {
                regs = RegisterExport.constants(RegisterExport.export(RnicConfig.defaults()).registers());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Integer v = regs.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no register constant " + name);
        }
        return v;
    }

    static int qpReg(int q, String name) {
        return reg("QP_BASE") + q * reg("QP_STRIDE") + reg(name);
    }

    static int cqReg(int c, String name) {
        return reg("CQ_BASE") + c * reg("CQ_STRIDE") + reg(name);
    }

    static Stream<Arguments> cases() {
        TcpOptions d = TcpOptions.defaults();
        return Stream.of(
                Arguments.of("rnic-pair-markers-loss", d.withDelay(10, 40).withLoss(0.1), true),
                Arguments.of("rnic-pair-mixed-loss", d.withSegmentation(Segmentation.mixed()).withDelay(5, 30)
                        .withLoss(0.03), false),
                Arguments.of("rnic-pair-kernel", d.withMode(TcpChannel.Mode.KERNEL).withPollInterval(8), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void rdmaWritesBothWaysOverTheChannel(String name, TcpOptions o, boolean markers) throws Exception {
        Path file = TsharkMpaTest.DIR.resolve(name + ".pcap");
        long[] fpdus = new long[1];
        long[] retransmissions = new long[1];
        RnicSystem.run(RnicSystem.model(W), name, 41, RnicSystem.builder().tcp(o).capture(file), sys -> {
            Random rng = new Random(41);
            SimTransport a = sys.a();
            SimTransport b = sys.b();
            for (SimTransport t : List.of(a, b)) {
                assertEquals(0x524E4943, t.read32(reg("CORE_TYPE")), "CORE_TYPE \"RNIC\"");
                assertEquals(4, t.read32(reg("CORE_CONFIG")) & 0xFF, "qpCount");
                assertEquals(4, t.connectionSlots());
            }
            // Hosts: buffers and rings; WRITES Writes per side of random sizes (the first ones tiny).
            int[] sizes = new int[WRITES];
            for (int i = 0; i < WRITES; i++) {
                sizes[i] = i == 0 ? 1 : i == 1 ? 8 : 1 + rng.nextInt(12_000);
            }
            int length = java.util.Arrays.stream(sizes).sum();
            Side sa = new Side(a, rng, sizes);
            Side sb = new Side(b, rng, sizes);
            // TCP: b listens on its address, a connects (active open); the accepted end is b's.
            InetSocketAddress where = new InetSocketAddress(b.localAddress(), PORT);
            TcpListener lb = b.listen(where);
            TcpConnection ca = a.connect(where);
            for (int i = 0; !ca.established(); i++) {
                assertTrue(i < 100_000 && !ca.refused(), "TCP open to " + where + ": refused " + ca.refused());
                a.advance();
            }
            TcpConnection cb = lb.accept();
            assertTrue(cb != null, "b's listener has the established connection");
            assertEquals(where, cb.localAddress());
            assertEquals(ca.localAddress(), cb.remoteAddress());
            // MPA startup: Request from a (the Initiator, TCP client), Reply from b.
            byte[] request = startup(false, markers);
            byte[] reply = startup(true, markers);
            ca.send(request);
            assertArrayEquals(request, receive(b, cb, request.length));
            cb.send(reply);
            assertArrayEquals(reply, receive(a, ca, reply.length));
            // Full Operation: settings, INIT, RTR, hand-over, RTS (the driver's order)
            sa.fullOperation(ca, markers, false);
            sb.fullOperation(cb, markers, true);
            // each writes into the other's sink
            sa.post(sb);
            sb.post(sa);
            long start = sys.tb().cycle();
            long t0 = System.nanoTime();
            while (!sa.done() || !sb.done() || !sa.holds(sb) || !sb.holds(sa)) {
                assertTrue(sys.tb().cycle() - start < 400_000, "the Writes did not complete: " + sys.report());
                a.advance();
            }
            long cycles = sys.tb().cycle() - start;
            double seconds = (System.nanoTime() - t0) / 1e9;
            sa.check(sb);
            sb.check(sa);
            sys.tb().runUntilIdle(100_000);
            for (TcpChannel c : sys.channels()) {
                for (TcpStats s : List.of(c.statsAtoB(), c.statsBtoA())) {
                    assertEquals(s.octets(), s.delivered(), s.toString());
                    retransmissions[0] += s.retransmissions();
                }
            }
            fpdus[0] = sys.txMonitor(0, QP).segments() + sys.txMonitor(1, QP).segments();
            System.out.printf("[RnicPairCaptureTest] %s: %d RDMA Writes, %d octets, each way on QP %d in %d cycles "
                    + "(%.2f octets/cycle each way; simulated at %.0f cycles/s), %d FPDU segments, %d "
                    + "retransmissions%n%s", name, WRITES, length, QP, cycles, (double) length / cycles,
                    cycles / seconds, fpdus[0], retransmissions[0], sys.report());
        });

        if (o.loss() > 0) {
            assertTrue(retransmissions[0] > 0, "losses were retransmitted");
        }
        Set<Integer> retx = TcpChannelCaptureTest.retransmissionsFlagged(file);
        assertEquals(retransmissions[0], retx.size(), "retransmitted frames in the capture");
        TcpChannelCaptureTest.assertCleanBesidesRetransmissionReassembly(file, retx);
        assertEquals(1, TsharkMpaTest.filterCount(file, "iwarp_mpa.req"), "the MPA Request");
        assertEquals(1, TsharkMpaTest.filterCount(file, "iwarp_mpa.rep"), "the MPA Reply");
        if (o.mode() == TcpChannel.Mode.MODEL && o.segmentation().toString().equals("asSent")) {
            List<String> crc = TcpChannelCaptureTest.crcChecks(file);
            crc.forEach(v -> assertEquals("Good CRC32", v));
            assertTrue(crc.size() >= fpdus[0], crc.size() + " CRC checks for " + fpdus[0] + " FPDUs");
            assertTrue(TsharkMpaTest.filterCount(file, "iwarp_rdma.opcode == 0 && iwarp_ddp.tagged_flag == 1")
                    >= fpdus[0], "every FPDU decodes as an RDMA Write");
        }
    }

    /** Exactly {@code n} octets from {@code c}, advancing the simulation while waiting. */
    static byte[] receive(SimTransport t, TcpConnection c, int n) {
        byte[] out = new byte[n];
        int got = 0;
        for (int i = 0; got < n; i++) {
            assertTrue(i < 100_000, "only " + got + " of " + n + " startup octets arrived");
            got += c.receive(out, got, n - got);
            if (got < n) {
                t.advance();
            }
        }
        return out;
    }

    /** Request or Reply: M as given (both directions marked alike), C = 1, Rev 1, no private data. */
    static byte[] startup(boolean reply, boolean markers) {
        byte[] f = MpaOverChannel.startupFrame(reply, new byte[0]);
        f[16] |= (byte) (markers ? 0x80 : 0);
        return f;
    }

    /** One RNIC's host: its rings, its source buffer (what it writes to the peer) and its sink (what the peer writes). */
    static final class Side {
        final SimTransport t;
        final long sq;
        final long rq;
        final long cq;
        final long source;
        final long sink;
        final int stag;
        final int[] sizes;
        final byte[] payload;

        Side(SimTransport t, Random rng, int[] sizes) {
            this.t = t;
            this.sizes = sizes;
            int length = java.util.Arrays.stream(sizes).sum();
            sq = t.allocate(16 * SqWqe.SIZE, 4096);
            rq = t.allocate(16 * 32, 4096);
            cq = t.allocate(16 * Cqe.SIZE, 4096);
            source = t.allocate(length + 64, 64) + rng.nextInt(64);
            sink = t.allocate(length + 64, 64) + rng.nextInt(64);
            stag = 0x0300 | rng.nextInt(256);
            payload = new byte[length];
            rng.nextBytes(payload);
            t.write(source, payload, 0, length);
            int q = QP;
            t.write32(qpReg(q, "QP_PD"), 1);
            t.write32(qpReg(q, "QP_IRD"), 4);
            t.write32(qpReg(q, "QP_ORD"), 4);
            t.write32(qpReg(q, "QP_SQ_BASE_LO"), (int) sq);
            t.write32(qpReg(q, "QP_SQ_BASE_HI"), (int) (sq >>> 32));
            t.write32(qpReg(q, "QP_SQ_SIZE"), 4);
            t.write32(qpReg(q, "QP_RQ_BASE_LO"), (int) rq);
            t.write32(qpReg(q, "QP_RQ_BASE_HI"), (int) (rq >>> 32));
            t.write32(qpReg(q, "QP_RQ_SIZE"), 4);
            t.write32(qpReg(q, "QP_SQ_CQ"), q);
            t.write32(qpReg(q, "QP_RQ_CQ"), q);
            t.write32(cqReg(q, "CQ_BASE_LO"), (int) cq);
            t.write32(cqReg(q, "CQ_BASE_HI"), (int) (cq >>> 32));
            t.write32(cqReg(q, "CQ_SIZE"), 4);
            t.write32(cqReg(q, "CQ_CONS"), 0);
            // the sink, remotely writable, bound to the QP (RFC 5040 §8.1 through the STAG block)
            t.write32(reg("STAG_INDEX"), stag >>> 8);
            t.write32(reg("STAG_KEY"), stag & 0xFF);
            t.write32(reg("STAG_PD"), 1);
            t.write32(reg("STAG_QP"), q);
            t.write32(reg("STAG_FLAGS"), reg("STAG_FLAGS_VALID_MASK") | reg("STAG_FLAGS_QP_BOUND_MASK")
                    | reg("STAG_FLAGS_REMOTE_WRITE_MASK"));
            t.write32(reg("STAG_VA_LO"), (int) sink);
            t.write32(reg("STAG_VA_HI"), (int) (sink >>> 32));
            t.write32(reg("STAG_LEN_LO"), length);
            t.write32(reg("STAG_LEN_HI"), 0);
            t.write32(reg("STAG_COMMAND"), 1);
            for (int polls = 0; (t.read32(reg("STAG_STATUS")) & 1) != 0; polls++) {
                assertTrue(polls < 100, "STAG_STATUS.BUSY stays set");
            }
        }

        /** MPA settings with SeqStart from the connection, INIT, RTR, hand-over, RTS. */
        void fullOperation(TcpConnection c, boolean markers, boolean responder) {
            int q = QP;
            t.write32(qpReg(q, "QP_MPA"), (markers ? reg("QP_MPA_TX_MARKERS_MASK") | reg("QP_MPA_RX_MARKERS_MASK") : 0)
                    | reg("QP_MPA_CRC_MASK") | (responder ? reg("QP_MPA_HOLD_TX_UNTIL_RX_MASK") : 0));
            t.write32(qpReg(q, "QP_EMSS"), 1460);
            t.write32(qpReg(q, "QP_RX_SEQ_START"), (int) c.receiveSequence());
            for (QpState s : List.of(QpState.INIT, QpState.RTR)) {
                t.write32(qpReg(q, "QP_STATE"), s.code());
                assertEquals(s, QpState.of(t.read32(qpReg(q, "QP_STATE"))));
            }
            c.handOver(q);
            t.write32(qpReg(q, "QP_STATE"), QpState.RTS.code());
            assertEquals(QpState.RTS, QpState.of(t.read32(qpReg(q, "QP_STATE"))));
        }

        /** One signaled RDMA Write per size, source chunk i into the peer's sink at the same offset; the doorbell. */
        void post(Side peer) {
            long off = 0;
            for (int i = 0; i < sizes.length; i++) {
                ByteBuffer w = ByteBuffer.allocate(SqWqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
                w.put(SqWqe.OPCODE, (byte) WqeOpcode.RDMA_WRITE.code());
                w.put(SqWqe.FLAGS, (byte) SqWqe.FLAG_SIGNALED);
                w.putInt(SqWqe.LENGTH, sizes[i]);
                w.putLong(SqWqe.LOCAL_ADDRESS, source + off);
                w.putInt(SqWqe.REMOTE_STAG, peer.stag);
                w.putLong(SqWqe.REMOTE_TO, peer.sink + off);
                t.write(sq + (long) i * SqWqe.SIZE, w.array(), 0, SqWqe.SIZE);
                off += sizes[i];
            }
            t.write32(qpReg(QP, "QP_SQ_PROD"), sizes.length);
        }

        /** Every completion of this side is written. */
        boolean done() {
            byte[] owner = new byte[1];
            t.read(cq + (long) (sizes.length - 1) * Cqe.SIZE + Cqe.OWNER, owner, 0, 1);
            return (owner[0] & 1) != 0;
        }

        /** The peer's Writes have landed in this side's sink. */
        boolean holds(Side peer) {
            byte[] got = new byte[peer.payload.length];
            t.read(sink, got, 0, got.length);
            return java.util.Arrays.equals(peer.payload, got);
        }

        /** The completions are successful SEND_DONEs of slots 0, 1, …; the peer's Writes landed in the sink. */
        void check(Side peer) {
            for (int i = 0; i < sizes.length; i++) {
                byte[] c = new byte[Cqe.SIZE];
                t.read(cq + (long) i * Cqe.SIZE, c, 0, c.length);
                ByteBuffer cqe = ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN);
                assertEquals(i, cqe.getInt(Cqe.WR_ID), "wrId = slot index (RDMAP-23: in order)");
                assertEquals(CqeKind.SEND_DONE.code(), cqe.get(Cqe.KIND) & 0xFF);
                assertEquals(0, cqe.get(Cqe.STATUS), "status: success");
                assertEquals(QP, cqe.get(Cqe.QP));
            }
            assertEquals(sizes.length, t.read32(qpReg(QP, "QP_SQ_CONS")));
            assertTrue(holds(peer), "the peer's Writes, octet for octet");
        }
    }
}
