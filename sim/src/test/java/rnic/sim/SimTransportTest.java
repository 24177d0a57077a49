package rnic.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.sim.tcp.Segmentation;
import rnic.sim.tcp.TcpChannel;
import rnic.sim.tcp.TcpEnd;
import rnic.sim.tcp.TcpOptions;
import rnic.sim.tcp.TcpStats;
import rnic.transport.TcpConnection;

/**
 * {@link RnicSystem} and {@link SimTransport} in Verilator, against {@link FakeRnicPair} (the contract's port names
 * with a register file, a one-beat AXI reader and a tcpRx → tcpTx echo behind them), at W = 64 and 512.
 *
 * <ul>
 *   <li>registers: APB3 reads and writes of both cores through their transports, with the slave's wait state;
 *       PSLVERROR and a slave that never answers fail with clear messages and leave the bus usable;</li>
 *   <li>memory: allocate (page aligned, zeroed) / write by the host / read by the core over AXI4 ({@link
 *       Axi4MemorySlave}) / free; accesses outside every region and unknown frees are refused;</li>
 *   <li>connections (MPA-26, DDP-02, DDP-03): per QP the hosts exchange startup octets over the channel (QP 0 MODEL
 *       with re-segmentation and 5 % loss, QP 1 KERNEL), a hands over and its core echoes; b's host reads exactly
 *       half of the echo and hands over, and b's core counts exactly the other half — the switch is at the exact
 *       octet on the RTL side of the channel too, and the core's {@code seq} is the stream's;</li>
 *   <li>{@code advance()}, {@code cycles()}, {@code connection(i)}, {@code describe()}, {@code close()}.</li>
 * </ul>
 */
class SimTransportTest {
    static SimModel<FakeRnicPair> model(int w) {
        return SimModel.of("FakeRnicPair-w" + w, () -> new FakeRnicPair(w));
    }

    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void registers(int w) {
        model(w).run("registers", w, tb -> {
            try (RnicSystem sys = RnicSystem.builder().build(tb)) {
                Random rng = new Random(w);
                int[][] values = new int[2][16];
                for (int s = 0; s < 2; s++) {
                    SimTransport t = s == 0 ? sys.a() : sys.b();
                    for (int i = 1; i < 16; i++) { // register 0 holds the echo enables: leave it
                        values[s][i] = rng.nextInt();
                        t.write32(4 * i, values[s][i]);
                    }
                }
                for (int s = 0; s < 2; s++) {
                    SimTransport t = s == 0 ? sys.a() : sys.b();
                    for (int i = 1; i < 16; i++) {
                        assertEquals(values[s][i], t.read32(4 * i), "core " + s + " register " + i);
                    }
                    assertEquals(30, t.apb().transfers());
                    assertEquals(30, t.apb().waitCycles(), "one wait state per transfer");
                }
                Apb3Master.SlaveError e = assertThrows(Apb3Master.SlaveError.class, () -> sys.a().read32(0x100));
                assertTrue(e.getMessage().contains("PSLVERROR"), e.getMessage());
                assertThrows(Apb3Master.SlaveError.class, () -> sys.b().write32(0x200, 1));
                sys.a().apb().withTimeout(50);
                IllegalStateException t = assertThrows(IllegalStateException.class, () -> sys.a().read32(0x80));
                assertTrue(t.getMessage().contains("no PREADY 50 cycles after a read of 0x0080"), t.getMessage());
                assertThrows(IllegalArgumentException.class, () -> sys.a().read32(0x42), "unaligned");
                assertThrows(IllegalArgumentException.class, () -> sys.a().read32(0x10000), "beyond PADDR");
                assertEquals(values[0][5], sys.a().read32(20), "the bus works after the errors");
            }
        });
    }

    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void memoryThroughAxi(int w) {
        model(w).run("memory", w, tb -> {
            try (RnicSystem sys = RnicSystem.builder().build(tb)) {
                Random rng = new Random(w + 1);
                for (SimTransport t : new SimTransport[] {sys.a(), sys.b()}) {
                    long r1 = t.allocate(100, 64);
                    long r2 = t.allocate(3 * 4096 + 1, 65536);
                    assertEquals(0, r1 % 4096);
                    assertEquals(0, r2 % 65536);
                    byte[] got = new byte[100];
                    t.read(r1, got, 0, 100);
                    assertArrayEquals(new byte[100], got, "allocated memory reads as zero");
                    for (long region : new long[] {r1, r2 + 2 * 4096}) {
                        byte[] data = new byte[w / 8];
                        rng.nextBytes(data);
                        t.write(region, data, 0, data.length);
                        t.write32(0x60, (int) region);
                        t.write32(0x64, (int) (region >>> 32));
                        t.write32(0x68, 1);
                        int status = 0;
                        for (int i = 0; i < 100 && (status & 2) == 0; i++) {
                            t.advance();
                            status = t.read32(0x70);
                        }
                        assertEquals(2, status, "DMA done without error");
                        int expect = (data[0] & 0xFF) | (data[1] & 0xFF) << 8 | (data[2] & 0xFF) << 16
                                | (data[3] & 0xFF) << 24;
                        assertEquals(expect, t.read32(0x6C), "the core read the host's octets over AXI");
                    }
                    assertThrows(IllegalArgumentException.class, () -> t.write(r1 + 4090, new byte[10], 0, 10),
                            "a write past the end of the region's pages");
                    assertThrows(IllegalArgumentException.class, () -> t.read(0x10, new byte[4], 0, 4));
                    t.write(r1, new byte[] {1, 2, 3}, 0, 3);
                    t.free(r1);
                    assertThrows(IllegalArgumentException.class, () -> t.free(r1), "double free");
                    long again = t.allocate(4096, 4096);
                    assertEquals(r1, again, "first fit reuses the freed page");
                    byte[] z = new byte[3];
                    t.read(again, z, 0, 3);
                    assertArrayEquals(new byte[3], z, "reallocated memory is zeroed again");
                }
            }
        });
    }

    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void connectionsHandOverToTheCores(int w) throws Exception {
        Path pcap = Path.of("target", "pcap-test", "fake-pair-w" + w + ".pcap");
        TcpOptions model = TcpOptions.defaults().withSegmentation(Segmentation.mixed()).withLoss(0.05)
                .withDelay(5, 30);
        RnicSystem.Builder b = RnicSystem.builder().tcp(0, model)
                .tcp(1, TcpOptions.defaults().withMode(TcpChannel.Mode.KERNEL).withPollInterval(8))
                .capture(pcap).rxPacer(() -> Pacer.random(new Random(w), 0.7));
        RnicSystem.run(model(w), "connections", w, b, sys -> {
            Random rng = new Random(w + 2);
            int echoes = 0;
            for (int q = 0; q < FakeRnicPair.QPS; q++) {
                TcpEnd a = sys.a().connection(q);
                TcpEnd bb = sys.b().connection(q);
                byte[] req = bytes(rng, 24);
                a.send(req);
                assertArrayEquals(req, receive(sys.b(), bb, req.length));
                byte[] rep = bytes(rng, 20);
                bb.send(rep);
                assertArrayEquals(rep, receive(sys.a(), a, rep.length));
                a.handOver();
                long echoStart = a.sendSequence(); // a's core sends from here: the echo
                echoes |= 1 << q;
                sys.a().write32(0, echoes);
                byte[] payload = bytes(rng, 3000);
                bb.send(payload);
                int half = payload.length / 2;
                byte[] echoed = receive(sys.b(), bb, half);
                assertArrayEquals(Arrays.copyOf(payload, half), echoed, "the echo of the first half");
                long switchSeq = bb.receiveSequence();
                bb.handOver();
                assertEquals((echoStart + half) & 0xFFFF_FFFFL, switchSeq);
                int rest = payload.length - half;
                int qq = q;
                sys.tb().runUntil(() -> Integer.toUnsignedLong(sys.b().read32(0x40 + 4 * qq)) == rest, 100_000,
                        "b's core to take the second half");
                assertEquals(rest, sys.b().read32(0x40 + 4 * q), "exactly the octets after the switch");
                assertEquals(payload.length, sys.a().read32(0x40 + 4 * q), "a's core took every octet");
                long end = (switchSeq + rest) & 0xFFFF_FFFFL;
                long last = Integer.toUnsignedLong(sys.b().read32(0x50 + 4 * q));
                long before = (end - last) & 0xFFFF_FFFFL;
                assertTrue(before >= 1 && before <= w / 8, "seq of b's last beat " + Long.toHexString(last)
                        + " within one beat of the end " + Long.toHexString(end));
                assertEquals(0, sys.memory(0).pageCount() + sys.memory(1).pageCount(),
                        "the cores did not touch memory");
            }
            sys.tb().runUntilIdle(100_000);
            for (TcpChannel c : sys.channels()) {
                for (TcpStats s : new TcpStats[] {c.statsAtoB(), c.statsBtoA()}) {
                    assertEquals(s.octets(), s.delivered(), s.toString());
                }
            }
            assertTrue(sys.channel(0).statsAtoB().retransmissions() + sys.channel(0).statsBtoA().retransmissions() > 0,
                    sys.report());
            System.out.print(sys.report());
        });
        assertTrue(Files.size(pcap) > 24 + 20 * 16, "capture written");
    }

    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64})
    void transportBasics(int w) {
        model(w).run("basics", w, tb -> {
            RnicSystem sys = RnicSystem.builder().advanceCycles(16).build(tb);
            SimTransport t = sys.a();
            long c0 = t.cycles();
            t.advance();
            assertEquals(c0 + 16, t.cycles());
            t.withAdvanceCycles(5).advance();
            assertEquals(c0 + 21, t.cycles());
            assertEquals(c0 + 21, tb.cycle());
            assertEquals(2, t.connectionCount());
            assertThrows(IllegalArgumentException.class, () -> t.connection(2));
            assertTrue(t.describe().contains("RnicCore a (W=" + w + ", 2 QPs"), t.describe());
            sys.close();
            assertThrows(IllegalStateException.class, () -> t.read32(0));
            assertThrows(IllegalStateException.class, t::advance);
        });
    }

    static byte[] bytes(Random rng, int n) {
        byte[] b = new byte[n];
        rng.nextBytes(b);
        return b;
    }

    /** Exactly {@code n} octets from {@code c}, advancing the simulation while waiting. */
    static byte[] receive(SimTransport t, TcpConnection c, int n) {
        byte[] out = new byte[n];
        int got = 0;
        for (int i = 0; got < n; i++) {
            if (i > 100_000) {
                throw new AssertionError("only " + got + " of " + n + " octets arrived on " + c);
            }
            got += c.receive(out, got, n - got);
            if (got < n) {
                t.advance();
            }
        }
        return out;
    }
}
