package rnic.sim.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import rnic.sim.pcap.PcapWriter;
import rnic.sim.pcap.Tshark;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;

/**
 * Real TCP for simulated cores ({@link KernelTcp}), pure Java (the "core" takes and sends octets through the
 * {@code core…} methods of the end its slot is bound to, as the tcpRx/tcpTx agents do), against plain
 * {@link java.net.Socket}s on 127.0.0.1 — the kernel is the peer:
 * <ul>
 *   <li>MPA-26: the host exchanges startup octets, the peer sends more right behind its own; after
 *       {@code handOver(slot)} the core receives exactly the octets the host did not read, in order, including those
 *       already read from the socket, and its octets follow the host's on the wire;</li>
 *   <li>an active open is established or refused (nothing listening: RST) as the simulation polls;</li>
 *   <li>FIN and RST: the peer's close is {@code peerFinished()}, a reset only {@code closed()}; the host's
 *       {@code close()} reaches the peer as end of stream after every octet;</li>
 *   <li>idle: with no activity the simulation waits on the sockets instead of spinning, and an arriving octet ends
 *       the wait at once;</li>
 *   <li>misuse: listening on a foreign address is refused;</li>
 *   <li>the capture decodes in tshark: handshake, the data of both directions with the real ports, FIN.</li>
 * </ul>
 */
class KernelTcpTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** A core's slots that only remember the bound end. */
    private static final class Slots implements TcpEnd.SlotBinder {
        TcpEnd bound;

        @Override
        public void bind(TcpEnd end, int slot) {
            bound = end;
        }
    }

    private static void run(KernelTcp k, BooleanSupplier done, String what) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            k.drive();
        }
    }

    private static byte[] readExactly(InputStream in, int n) throws IOException {
        byte[] b = in.readNBytes(n);
        assertEquals(n, b.length, "end of stream after " + b.length + " octets");
        return b;
    }

    /** Passive side on kernel sockets, a plain socket as the peer: startup octets, then the core's stream. */
    @Test
    void acceptedConnectionHandsOverAtTheExactOctet() throws IOException {
        Slots slots = new Slots();
        Path pcap = Files.createTempFile("kerneltcp", ".pcap");
        try (PcapWriter w = PcapWriter.create(pcap); KernelTcp k = new KernelTcp(new Random(1), w, 0)) {
            KernelTcp.Host h = k.host("a", LOOPBACK, "02:00:00:00:00:01").slots(slots);
            TcpListener l = h.listen(new InetSocketAddress(LOOPBACK, 0));
            try (Socket peer = new Socket(LOOPBACK, l.localAddress().getPort())) {
                TcpConnection[] c = new TcpConnection[1];
                run(k, () -> (c[0] = c[0] != null ? c[0] : l.accept()) != null, "the accept");
                TcpEnd e = (TcpEnd) c[0];
                assertTrue(e.established());
                assertEquals(peer.getLocalPort(), e.remoteAddress().getPort());
                // the peer's "Request" and, right behind it, its first FPDU octets
                OutputStream out = peer.getOutputStream();
                byte[] request = "REQUEST-20-OCTETS...".getBytes();
                byte[] behind = new byte[3000];
                new Random(2).nextBytes(behind);
                ByteArrayOutputStream both = new ByteArrayOutputStream();
                both.write(request);
                both.write(behind);
                out.write(both.toByteArray());
                out.flush();
                // the host reads only the Request, after everything has arrived in the end
                run(k, () -> e.rx.size() >= request.length + behind.length, "the peer's octets");
                byte[] got = new byte[request.length];
                assertEquals(request.length, e.receive(got, 0, got.length));
                assertArrayEquals(request, got);
                byte[] reply = "REPLY".getBytes();
                e.send(reply);
                long rxSeq = e.receiveSequence();
                long txSeq = e.sendSequence();
                e.handOver(3);
                assertSame(e, slots.bound);
                assertEquals(rxSeq, e.handOverReceiveSequence());
                assertEquals(txSeq, e.handOverSendSequence());
                assertThrows(IllegalStateException.class, () -> e.send(new byte[1]));
                // the core gets exactly the octets behind the Request, the first of them already read earlier
                assertEquals(behind.length, e.coreAvailable());
                byte[] core = new byte[behind.length];
                assertEquals(behind.length, e.corePeek(core, 0, core.length));
                e.coreConsume(core.length);
                assertArrayEquals(behind, core);
                // the core's segment follows the host's Reply on the wire
                byte[] segment = "CORE-SEGMENT".getBytes();
                e.coreSend(segment);
                run(k, () -> e.tx.isEmpty(), "the writes");
                InputStream in = peer.getInputStream();
                assertArrayEquals(reply, readExactly(in, reply.length));
                assertArrayEquals(segment, readExactly(in, segment.length));
                // the peer's FIN: peerFinished and closed
                peer.shutdownOutput();
                run(k, e::closed, "the peer's FIN");
                assertTrue(e.peerFinished());
                assertTrue(e.slotReleasable());
            }
        }
        Tshark.Summary s = Tshark.summarize(pcap);
        assertTrue(s.frames() >= 3 + 3 + 2, s.toString());
        assertEquals(0, s.malformed(), s.toString());
        assertTrue(Tshark.run(pcap, "-Y", "tcp.flags.syn == 1").size() == 2, "SYN and SYN-ACK");
        assertFalse(Tshark.run(pcap, "-Y", "tcp.flags.fin == 1").isEmpty(), "the peer's FIN");
        Files.deleteIfExists(pcap);
    }

    /** Active opens: refused when nothing listens, established otherwise; the host's close is the peer's EOF. */
    @Test
    void activeOpenIsEstablishedOrRefused() throws IOException {
        Slots slots = new Slots();
        try (KernelTcp k = new KernelTcp(new Random(1), null, 0); ServerSocket server = new ServerSocket(0, 1,
                LOOPBACK)) {
            KernelTcp.Host h = k.host("a", InetAddress.getByName("0.0.0.0"), "02:00:00:00:00:01").slots(slots);
            int closedPort;
            try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK)) {
                closedPort = s.getLocalPort();
            }
            TcpEnd refused = h.connect(new InetSocketAddress(LOOPBACK, closedPort));
            run(k, () -> refused.refused() || refused.established(), "the refused open");
            assertTrue(refused.refused());
            assertFalse(refused.established());
            assertThrows(IllegalStateException.class, () -> refused.handOver(0));

            TcpEnd e = h.connect(new InetSocketAddress(LOOPBACK, server.getLocalPort()));
            try (Socket peer = server.accept()) {
                run(k, e::established, "the handshake");
                assertEquals(peer.getPort(), e.localAddress().getPort(), "the kernel's ephemeral port");
                e.send("hello".getBytes());
                e.close();
                run(k, () -> e.tx.isEmpty(), "the write");
                for (int i = 0; i < 64; i++) {
                    k.drive(); // the FIN goes out on a poll after the last octet
                }
                peer.setSoTimeout(5000);
                assertArrayEquals("hello".getBytes(), peer.getInputStream().readAllBytes(), "FIN after the octets");
                peer.close();
                run(k, e::closed, "the peer's close");
            }
        }
    }

    /** A peer's RST: closed, not finished. */
    @Test
    void resetIsClosedButNotFinished() throws IOException {
        Slots slots = new Slots();
        try (KernelTcp k = new KernelTcp(new Random(1), null, 0)) {
            KernelTcp.Host h = k.host("a", LOOPBACK, "02:00:00:00:00:01").slots(slots);
            TcpListener l = h.listen(new InetSocketAddress(LOOPBACK, 0));
            Socket peer = new Socket(LOOPBACK, l.localAddress().getPort());
            TcpConnection[] c = new TcpConnection[1];
            run(k, () -> (c[0] = c[0] != null ? c[0] : l.accept()) != null, "the accept");
            peer.setSoLinger(true, 0);
            peer.close(); // RST
            run(k, c[0]::closed, "the reset");
            assertFalse(c[0].peerFinished());
        }
    }

    /** With nothing to do the simulation waits on the sockets; an arriving octet is taken at once. */
    @Test
    void idleSimulationWaitsOnTheSockets() throws Exception {
        Slots slots = new Slots();
        try (KernelTcp k = new KernelTcp(new Random(1), null, 0).idleCycles(10)) {
            KernelTcp.Host h = k.host("a", LOOPBACK, "02:00:00:00:00:01").slots(slots);
            TcpListener l = h.listen(new InetSocketAddress(LOOPBACK, 0));
            try (Socket peer = new Socket(LOOPBACK, l.localAddress().getPort())) {
                TcpConnection[] c = new TcpConnection[1];
                run(k, () -> (c[0] = c[0] != null ? c[0] : l.accept()) != null, "the accept");
                long t0 = System.nanoTime();
                for (int i = 0; i < 200; i++) {
                    k.drive();
                }
                double idleSeconds = (System.nanoTime() - t0) / 1e9;
                assertTrue(idleSeconds >= 0.15, "200 idle cycles should wait about 1 ms each, took " + idleSeconds);
                assertTrue(k.idleReport().matches("\\d+ idle waits, .*") && !k.idleReport().startsWith("0 "),
                        k.idleReport());
                Thread writer = new Thread(() -> {
                    try {
                        Thread.sleep(50);
                        peer.getOutputStream().write(7);
                    } catch (Exception ignored) {
                        // the assertion below fails instead
                    }
                });
                writer.start();
                TcpEnd e = (TcpEnd) c[0];
                long t1 = System.nanoTime();
                run(k, () -> e.rx.size() == 1, "the octet");
                double waited = (System.nanoTime() - t1) / 1e9;
                assertTrue(waited < 1.0, "the octet should end the wait at once, took " + waited + " s");
                writer.join();
            }
        }
    }

    /**
     * Misuse is a clear exception and leaves the host usable: listening on another host's address, or on a port
     * something already listens on.
     */
    @Test
    void listenMisuseIsRefusedAndTheHostStaysUsable() throws IOException {
        try (KernelTcp k = new KernelTcp(new Random(1), null, 0)) {
            KernelTcp.Host h = k.host("a", LOOPBACK, "02:00:00:00:00:01");
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                    () -> h.listen(new InetSocketAddress(InetAddress.getByName("10.9.9.9"), 7174)));
            assertTrue(x.getMessage().contains("10.9.9.9"), x.getMessage());
            try (ServerSocket taken = new ServerSocket(0, 1, LOOPBACK)) {
                IllegalStateException y = assertThrows(IllegalStateException.class,
                        () -> h.listen(new InetSocketAddress(LOOPBACK, taken.getLocalPort())));
                assertTrue(y.getMessage().contains(String.valueOf(taken.getLocalPort())), y.getMessage());
            }
            TcpListener l = h.listen(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));
            assertNotNull(l);
            try (Socket peer = new Socket(LOOPBACK, l.localAddress().getPort())) {
                TcpConnection[] c = new TcpConnection[1];
                run(k, () -> (c[0] = c[0] != null ? c[0] : l.accept()) != null, "the accept after the misuse");
                assertTrue(c[0].established());
            }
        }
    }
}
