package rnic.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import rnic.sim.pcap.Tshark;
import rnic.sim.tcp.Segmentation;
import rnic.sim.tcp.TcpChannel;
import rnic.sim.tcp.TcpOptions;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;
import rnic.transport.Transport;

/**
 * The simulated network through {@link RnicSystem}, {@link SimTransport} and {@link HostThreads}, in Verilator against
 * {@link FakeRnicPair} (its cores echo every tcpRx beat of an enabled slot back out on that slot's tcpTx): two host
 * programs on the transport SPI, b listening on 10.0.0.2:5000 (MODEL: re-segmentation, jitter, 5 % loss) and on the
 * any-address port 6000 (KERNEL), a connecting.
 *
 * <ul>
 *   <li>a connect to a port nobody listens on is refused;</li>
 *   <li>MPA-26 through the real port agents: a's connections hand over to a's slot 1 and slot 0 (not their order),
 *       a's core echoes, and b's host reads back exactly what it sent — every octet once, in order, both ways; a's
 *       core counts exactly those octets on exactly that slot;</li>
 *   <li>a slot is refused while its connection is open, and rebound after b closed it (FIN): a third connection on
 *       slot 1 echoes again;</li>
 *   <li>{@code clockHz()} and {@code nanoTime()} (4 ns per cycle at 250 MHz);</li>
 *   <li>the capture shows 10.0.0.1:ephemeral → 10.0.0.2:listener port for each connection, and the refused SYN.</li>
 * </ul>
 */
class SimNetworkTest {
    static final int LEN = 2500;

    @Test
    void listenConnectHandOverToSlots() throws Exception {
        Path pcap = Path.of("target", "pcap-test", "sim-network.pcap");
        RnicSystem.Builder builder = RnicSystem.builder().capture(pcap)
                .tcpForPort(5000, TcpOptions.defaults().withSegmentation(Segmentation.mixed()).withDelay(5, 30)
                        .withLoss(0.05))
                .tcpForPort(6000, TcpOptions.defaults().withMode(TcpChannel.Mode.KERNEL).withPollInterval(4))
                .rxPacer(() -> Pacer.random(new Random(3), 0.6));
        RnicSystem.run(SimTransportTest.model(64), "network", 64, builder, sys -> {
            Random rng = new Random(7);
            byte[][] payload = {SimTransportTest.bytes(rng, LEN), SimTransportTest.bytes(rng, LEN),
                    SimTransportTest.bytes(rng, LEN)};
            TcpConnection[] aConn = new TcpConnection[3];
            long c0 = sys.a().cycles();
            long n0 = sys.a().nanoTime();
            assertEquals(250_000_000L, sys.a().clockHz());
            TcpListener l5000 = sys.b().listen(new InetSocketAddress(sys.b().localAddress(), 5000));
            TcpListener l6000 = sys.b().listen(new InetSocketAddress(6000)); // any-address
            HostThreads hosts = new HostThreads();
            hosts.add("a", sys.a(), t -> {
                assertEquals(2, t.connectionSlots());
                t.write32(0, 0b11); // echo on both slots
                TcpConnection nobody = t.connect(new InetSocketAddress("10.0.0.2", 7));
                await(t, () -> nobody.refused() || nobody.established());
                assertTrue(nobody.refused(), "nothing listens on port 7");
                aConn[0] = t.connect(new InetSocketAddress("10.0.0.2", 5000));
                aConn[1] = t.connect(new InetSocketAddress("10.0.0.2", 6000));
                await(t, () -> aConn[0].established() && aConn[1].established());
                aConn[0].handOver(1);
                aConn[1].handOver(0);
                aConn[2] = t.connect(new InetSocketAddress("10.0.0.2", 5000));
                await(t, aConn[2]::established);
                IllegalStateException busy = assertThrows(IllegalStateException.class, () -> aConn[2].handOver(1));
                assertTrue(busy.getMessage().contains("slot 1"), busy.getMessage());
                await(t, aConn[0]::closed); // b's FIN
                assertTrue(aConn[0].peerFinished());
                aConn[2].handOver(1); // the slot is free again
            });
            hosts.add("b", sys.b(), t -> {
                TcpListener[] via = {l5000, l6000, l5000};
                for (int i = 0; i < 3; i++) {
                    TcpConnection c = acceptNext(t, via[i]);
                    assertEquals(via[i].localAddress().getPort(), c.localAddress().getPort());
                    assertEquals("10.0.0.1", c.remoteAddress().getAddress().getHostAddress());
                    c.send(payload[i]);
                    assertArrayEquals(payload[i], read(t, c, LEN), "the echo of connection " + i);
                    if (i == 0) {
                        c.close();
                    }
                }
            });
            hosts.run();
            assertEquals(2 * LEN, sys.a().read32(0x40 + 4), "a's slot 1 took connections 0 and 2");
            assertEquals(LEN, sys.a().read32(0x40), "a's slot 0 took connection 1");
            assertSame(aConn[2], sys.a().slot(1));
            assertSame(aConn[1], sys.a().slot(0));
            assertFalse(sys.a().slot(0).closed());
            assertEquals((sys.a().cycles() - c0) * 4, sys.a().nanoTime() - n0, "4 ns per cycle at 250 MHz");
            assertTrue(sys.network().channels().get(1).statsAtoB().retransmissions()
                    + sys.network().channels().get(1).statsBtoA().retransmissions() > 0, sys.report());
            System.out.print(sys.report());
        });
        List<String> lines = Tshark.run(pcap, "-T", "fields", "-E", "separator=,", "-e", "ip.src", "-e",
                "tcp.srcport", "-e", "ip.dst", "-e", "tcp.dstport", "-e", "tcp.flags.reset");
        Set<String> conversations = new TreeSet<>();
        List<String> resets = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.split(",", -1);
            String src = f[0] + ":" + f[1];
            String dst = f[2] + ":" + f[3];
            conversations.add(f[0].equals("10.0.0.1") ? src + " > " + dst : dst + " > " + src);
            if (f[4].equals("1") || f[4].equalsIgnoreCase("true")) {
                resets.add(src + " > " + dst);
            }
        }
        assertEquals(Set.of("10.0.0.1:49152 > 10.0.0.2:7", "10.0.0.1:49153 > 10.0.0.2:5000",
                "10.0.0.1:49154 > 10.0.0.2:6000", "10.0.0.1:49155 > 10.0.0.2:5000"), conversations);
        assertEquals(List.of("10.0.0.2:7 > 10.0.0.1:49152"), resets, "only the refusal is a RST");
    }

    private static void await(Transport t, java.util.function.BooleanSupplier done) {
        for (int i = 0; !done.getAsBoolean(); i++) {
            if (i > 20_000) {
                throw new AssertionError("timeout");
            }
            t.advance();
        }
    }

    private static TcpConnection acceptNext(Transport t, TcpListener l) {
        TcpConnection[] c = {null};
        await(t, () -> (c[0] = l.accept()) != null);
        return c[0];
    }

    private static byte[] read(Transport t, TcpConnection c, int n) {
        byte[] out = new byte[n];
        int[] got = {0};
        await(t, () -> (got[0] += c.receive(out, got[0], n - got[0])) == n);
        return out;
    }
}
