package rnic.sim.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import rnic.sim.pcap.PcapWriter;
import rnic.sim.pcap.Tshark;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;

/**
 * The simulated network ({@link TcpNetwork}) with two hosts, a (10.0.0.1) and b (10.0.0.2), each with the connection
 * slots of a core ({@link TcpSlots}), pure Java: the "cores" here take and send octets through the {@code core…}
 * methods of whatever end a slot is bound to, as the tcpRx/tcpTx agents do.
 *
 * <ul>
 *   <li>listen / connect / accept: an active open is established after the handshake delay and the listener hands
 *       out the server end; addresses and ports on both ends; two connections to one port get distinct ephemeral
 *       ports; nothing listening → refused; misuse (foreign address, port in use, hand-over before establishment or
 *       after refusal) is a clear exception;</li>
 *   <li>MPA-26, DDP-02, DDP-03: after the MPA-like startup both ends hand over to arbitrary slots (a's slot 2, b's
 *       slot 0) and every octet of both directions — host's and core's — arrives exactly once, in order, at the exact
 *       switch octet: MODEL with re-segmentation, jitter and loss, and KERNEL;</li>
 *   <li>a slot is refused while its connection is open and can be rebound after close: the new connection's octets
 *       reach the slot, nothing of the old one;</li>
 *   <li>FIN vs RST: {@code close()} is seen as {@code peerFinished()} and {@code closed()}, {@code abort()} only as
 *       {@code closed()}; a closed listener refuses later connects and resets unaccepted ones;</li>
 *   <li>options per destination port and per connection number;</li>
 *   <li>the capture, decoded by tshark: 10.0.0.1:ephemeral ↔ 10.0.0.2:listener port, SYN/SYN-ACK per connection,
 *       SYN + RST for the refused one, a FIN and a RST where the hosts closed and aborted.</li>
 * </ul>
 */
class TcpNetworkTest {
    static final InetAddress A = addr(1);
    static final InetAddress B = addr(2);
    static final int PORT = 20049;

    static InetAddress addr(int last) {
        try {
            return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Two hosts with 4 slots each. */
    static final class Net {
        final TcpNetwork net;
        final TcpNetwork.Host a;
        final TcpNetwork.Host b;
        final TcpSlots slotsA = new TcpSlots("a", 4, (s, e) -> { });
        final TcpSlots slotsB = new TcpSlots("b", 4, (s, e) -> { });

        Net(long seed, TcpOptions defaults, PcapWriter pcap) {
            net = new TcpNetwork(new Random(seed), pcap, defaults, 0);
            a = net.host("a", A, "02:00:00:00:00:01").slots(slotsA);
            b = net.host("b", B, "02:00:00:00:00:02").slots(slotsB);
        }

        Net(long seed, TcpOptions defaults) {
            this(seed, defaults, null);
        }

        void run(BooleanSupplier done, int max, String what) {
            for (int i = 0; !done.getAsBoolean(); i++) {
                assertTrue(i < max, "timeout waiting for " + what);
                net.tick();
            }
        }

        void tick(int n) {
            for (int i = 0; i < n; i++) {
                net.tick();
            }
        }
    }

    static byte[] random(Random rng, int n) {
        byte[] b = new byte[n];
        rng.nextBytes(b);
        return b;
    }

    /** Reads exactly {@code n} octets as the host, ticking the network. */
    static byte[] hostRead(Net n, TcpConnection c, int len) {
        byte[] out = new byte[len];
        int got = 0;
        for (int i = 0; got < len; i++) {
            assertTrue(i < 200_000, "timeout reading " + len + " octets, got " + got);
            got += c.receive(out, got, len - got);
            if (got < len) {
                n.net.tick();
            }
        }
        return out;
    }

    @Test
    void listenConnectAccept() {
        Net n = new Net(1, TcpOptions.defaults().withDelay(3));
        TcpListener l = n.b.listen(new InetSocketAddress(B, PORT));
        assertEquals(new InetSocketAddress(B, PORT), l.localAddress());
        TcpConnection c = n.a.connect(new InetSocketAddress(B, PORT));
        assertFalse(c.established());
        assertFalse(c.refused());
        assertNull(l.accept(), "nothing established yet");
        assertThrows(IllegalStateException.class, () -> c.handOver(0), "hand-over before establishment");
        byte[] early = {1, 2, 3};
        c.send(early); // waits for the handshake
        n.run(c::established, 100, "established");
        assertEquals(n.net.handshakeCycles(), n.net.cycle(), "established after the handshake delay");
        TcpConnection s = l.accept();
        assertNotNull(s);
        assertNull(l.accept());
        assertTrue(s.established());
        assertEquals(new InetSocketAddress(A, TcpNetwork.EPHEMERAL_FIRST), c.localAddress());
        assertEquals(new InetSocketAddress(B, PORT), c.remoteAddress());
        assertEquals(new InetSocketAddress(B, PORT), s.localAddress());
        assertEquals(c.localAddress(), s.remoteAddress());
        assertArrayEquals(early, hostRead(n, s, 3));
        s.send(new byte[] {9, 8});
        assertArrayEquals(new byte[] {9, 8}, hostRead(n, c, 2));
        // the any-address listens on the host's own address; port 0 picks a free one
        TcpListener any = n.a.listen(new InetSocketAddress(0));
        assertEquals(A, any.localAddress().getAddress());
        assertNotEquals(0, any.localAddress().getPort());
        assertNotEquals(c.localAddress().getPort(), any.localAddress().getPort(), "an ephemeral port in use");
    }

    @Test
    void misuseIsRefusedClearly() {
        Net n = new Net(2, TcpOptions.defaults());
        IllegalArgumentException foreign = assertThrows(IllegalArgumentException.class,
                () -> n.b.listen(new InetSocketAddress(A, PORT)));
        assertTrue(foreign.getMessage().contains("10.0.0.1"), foreign.getMessage());
        n.b.listen(new InetSocketAddress(B, PORT));
        assertThrows(IllegalStateException.class, () -> n.b.listen(new InetSocketAddress(B, PORT)), "port in use");
        assertThrows(IllegalArgumentException.class, () -> n.a.connect(new InetSocketAddress(B, 0)));
        assertThrows(IllegalArgumentException.class, () -> n.net.host("c", A, "02:00:00:00:00:03"));
    }

    @Test
    void nothingListeningIsRefused() {
        Net n = new Net(3, TcpOptions.defaults());
        TcpConnection noPort = n.a.connect(new InetSocketAddress(B, 7));
        TcpConnection noHost = n.a.connect(new InetSocketAddress(addr(9), PORT));
        n.run(() -> noPort.refused() && noHost.refused(), 100, "refused");
        assertFalse(noPort.established());
        assertThrows(IllegalStateException.class, () -> noPort.send(new byte[1]));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> noPort.handOver(0));
        assertTrue(e.getMessage().contains("refused"), e.getMessage());
        assertNull(n.slotsA.end(0), "the slot was not taken");
        // a closed listener refuses later connects
        TcpListener l = n.b.listen(new InetSocketAddress(B, PORT));
        l.close();
        l.close(); // idempotent
        TcpConnection late = n.a.connect(new InetSocketAddress(B, PORT));
        n.run(() -> late.refused() || late.established(), 100, "an answer");
        assertTrue(late.refused());
    }

    @Test
    void listenerCloseResetsUnaccepted() {
        Net n = new Net(4, TcpOptions.defaults());
        TcpListener l = n.b.listen(new InetSocketAddress(B, PORT));
        TcpConnection c = n.a.connect(new InetSocketAddress(B, PORT));
        n.run(c::established, 100, "established");
        l.close();
        n.run(c::closed, 100, "the reset");
        assertFalse(c.peerFinished(), "a reset, not a FIN");
        assertThrows(IllegalStateException.class, l::accept);
    }

    @Test
    void twoConnectionsToOnePortGetDistinctEphemeralPorts() {
        Net n = new Net(5, TcpOptions.defaults().withDelay(2, 9));
        TcpListener l = n.b.listen(new InetSocketAddress(B, PORT));
        TcpConnection c1 = n.a.connect(new InetSocketAddress(B, PORT));
        TcpConnection c2 = n.a.connect(new InetSocketAddress(B, PORT));
        n.run(() -> c1.established() && c2.established(), 100, "both established");
        TcpConnection s1 = l.accept();
        TcpConnection s2 = l.accept();
        assertNotEquals(c1.localAddress().getPort(), c2.localAddress().getPort());
        assertEquals(c1.localAddress(), s1.remoteAddress(), "accepted in the order of the SYNs");
        assertEquals(c2.localAddress(), s2.remoteAddress());
        c1.send("one".getBytes());
        c2.send("two".getBytes());
        assertArrayEquals("two".getBytes(), hostRead(n, s2, 3));
        assertArrayEquals("one".getBytes(), hostRead(n, s1, 3));
    }

    @Test
    void optionsPerPortAndPerConnection() {
        TcpOptions kernel = TcpOptions.defaults().withMode(TcpChannel.Mode.KERNEL).withPollInterval(2);
        TcpOptions model = TcpOptions.defaults().withSegmentation(Segmentation.oneOctet());
        TcpOptions plain = TcpOptions.defaults();
        Net n = new Net(6, plain);
        n.net.optionsForPort(5000, kernel).optionsForConnection(2, model);
        n.b.listen(new InetSocketAddress(B, 5000));
        n.b.listen(new InetSocketAddress(B, 6000));
        n.a.connect(new InetSocketAddress(B, 5000)); // 0: per port → KERNEL
        n.a.connect(new InetSocketAddress(B, 6000)); // 1: default
        n.a.connect(new InetSocketAddress(B, 5000)); // 2: per connection wins → oneOctet MODEL
        n.tick(20);
        List<TcpChannel> ch = n.net.channels();
        assertEquals(TcpChannel.Mode.KERNEL, ch.get(0).mode());
        assertSame(plain, ch.get(1).options());
        assertSame(model, ch.get(2).options());
        n.net.closeAll();
    }

    static Stream<Arguments> paths() {
        TcpOptions d = TcpOptions.defaults();
        return Stream.of(
                Arguments.of("MODEL mixed, jitter, 5 % loss",
                        d.withSegmentation(Segmentation.mixed()).withDelay(3, 40).withLoss(0.05), 11L),
                Arguments.of("MODEL random segments, 10 % loss, small window",
                        d.withSegmentation(Segmentation.random(1, 700)).withLoss(0.1).withWindow(4000), 12L),
                Arguments.of("KERNEL", d.withMode(TcpChannel.Mode.KERNEL).withPollInterval(3), 13L));
    }

    /**
     * MPA-26, DDP-02, DDP-03: a's connection hands over to a's slot 2, b's accepted end to b's slot 0, each at the
     * octet its host stopped reading; everything each side sent (host octets first, then its core's segments) is
     * received exactly once and in order (the host's reads, then the core's takes).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("paths")
    void handOverToArbitrarySlots(String what, TcpOptions o, long seed) {
        Random rng = new Random(seed);
        Net n = new Net(seed, o);
        TcpListener l = n.b.listen(new InetSocketAddress(B, PORT));
        TcpConnection ca = n.a.connect(new InetSocketAddress(B, PORT));
        n.run(ca::established, 100, "established");
        TcpConnection cb = l.accept();
        // the startup: a's "Request", b's "Reply" plus b's first FPDUs right behind it (b's host hands over at once)
        byte[] req = random(rng, 40);
        byte[] rep = random(rng, 30);
        ca.send(req);
        assertArrayEquals(req, hostRead(n, cb, req.length));
        cb.send(rep);
        cb.handOver(0);
        assertSame(cb, n.slotsB.end(0));
        assertArrayEquals(rep, hostRead(n, ca, rep.length)); // a reads exactly the Reply ...
        ca.handOver(2); // ... and hands over: what follows goes to a's core
        assertSame(ca, n.slotsA.end(2));
        assertNull(n.slotsA.end(0));
        assertThrows(IllegalStateException.class, () -> ca.receive(new byte[1], 0, 1));
        assertThrows(IllegalStateException.class, () -> ca.handOver(3), "only once");

        int total = 60_000;
        byte[][] sent = {random(rng, total), random(rng, total)};
        ByteArrayOutputStream[] got = {new ByteArrayOutputStream(), new ByteArrayOutputStream()};
        int[] queued = {0, 0};
        TcpEnd[] cores = {n.slotsA.end(2), n.slotsB.end(0)};
        byte[] buf = new byte[4096];
        for (int i = 0; got[0].size() < total || got[1].size() < total; i++) {
            assertTrue(i < 2_000_000, "timeout: " + got[0].size() + " / " + got[1].size() + " of " + total);
            for (int s = 0; s < 2; s++) {
                TcpEnd e = cores[s];
                if (queued[s] < total && e.coreCanSend()) { // a core segment of random size
                    int len = Math.min(total - queued[s], 1 + rng.nextInt(1500));
                    byte[] seg = new byte[len];
                    System.arraycopy(sent[s], queued[s], seg, 0, len);
                    e.coreSend(seg);
                    queued[s] += len;
                }
                int take = Math.min(e.coreAvailable(), rng.nextInt(300)); // a core taking beats at its own pace
                if (take > 0) {
                    int k = e.corePeek(buf, 0, take);
                    got[1 - s].write(buf, 0, k);
                    e.coreConsume(k);
                }
            }
            n.net.tick();
        }
        assertArrayEquals(sent[0], got[0].toByteArray(), "a's core → b's core, every octet once, in order");
        assertArrayEquals(sent[1], got[1].toByteArray(), "b's core → a's core");
        n.net.closeAll();
    }

    /** b listens, a opens two connections: {client 1, server 1, client 2, server 2}, established. */
    static TcpConnection[] twoConnections(Net n) {
        TcpListener l = n.b.listen(new InetSocketAddress(B, PORT));
        TcpConnection c1 = n.a.connect(new InetSocketAddress(B, PORT));
        TcpConnection c2 = n.a.connect(new InetSocketAddress(B, PORT));
        n.run(() -> c1.established() && c2.established(), 100, "established");
        return new TcpConnection[] {c1, l.accept(), c2, l.accept()};
    }

    /** A slot is refused while its connection is open; after close it takes a new one, whose octets alone arrive. */
    @ParameterizedTest
    @EnumSource(TcpChannel.Mode.class)
    void rebindASlotAfterClose(TcpChannel.Mode mode) {
        Net n = new Net(21, TcpOptions.defaults().withMode(mode).withPollInterval(2));
        TcpConnection[] c = twoConnections(n);
        TcpConnection c1 = c[0];
        TcpConnection s1 = c[1];
        TcpConnection c2 = c[2];
        TcpConnection s2 = c[3];
        c1.handOver(1);
        s1.handOver(3);
        IllegalStateException busy = assertThrows(IllegalStateException.class, () -> c2.handOver(1));
        assertTrue(busy.getMessage().contains("slot 1"), busy.getMessage());
        assertFalse(c2.closed());
        assertThrows(IllegalArgumentException.class, () -> c2.handOver(4), "no slot 4");
        assertSame(c1, n.slotsA.end(1), "the refused hand-over changed nothing");
        // one octet through the first connection, then both sides close it
        n.slotsB.end(3).coreSend(new byte[] {42});
        n.run(() -> n.slotsA.end(1).coreAvailable() == 1, 100_000, "the octet");
        n.slotsA.end(1).coreConsume(1);
        c1.close();
        n.run(s1::peerFinished, 100_000, "b sees a's FIN");
        s1.close();
        n.run(c1::peerFinished, 100_000, "a sees b's FIN");
        // the slots take the second connection
        c2.handOver(1);
        s2.handOver(3);
        assertSame(c2, n.slotsA.end(1));
        byte[] data = random(new Random(5), 5000);
        n.slotsB.end(3).coreSend(data);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[2048];
        n.run(() -> {
            TcpEnd e = n.slotsA.end(1);
            int k = e.corePeek(buf, 0, buf.length);
            got.write(buf, 0, k);
            e.coreConsume(k);
            return got.size() >= data.length;
        }, 100_000, "the second connection's octets");
        n.tick(200);
        assertEquals(0, n.slotsA.end(1).coreAvailable(), "nothing more");
        assertArrayEquals(data, got.toByteArray());
        n.net.closeAll();
    }

    /** FIN: peerFinished and closed; RST: closed only, queued octets dropped, no more sending. Both modes. */
    @ParameterizedTest
    @EnumSource(TcpChannel.Mode.class)
    void finVersusRst(TcpChannel.Mode mode) {
        Net n = new Net(31, TcpOptions.defaults().withMode(mode).withPollInterval(2));
        TcpConnection[] c = twoConnections(n);
        TcpConnection fin = c[0];
        TcpConnection finPeer = c[1];
        TcpConnection rst = c[2];
        TcpConnection rstPeer = c[3];
        fin.send(new byte[] {1, 2, 3});
        fin.close();
        assertThrows(IllegalStateException.class, () -> fin.send(new byte[1]), "send after close");
        n.run(finPeer::closed, 100_000, "the FIN");
        assertTrue(finPeer.peerFinished());
        assertArrayEquals(new byte[] {1, 2, 3}, hostRead(n, finPeer, 3), "octets before the FIN arrive");
        rstPeer.abort();
        n.run(rst::closed, 100_000, "the RST");
        assertFalse(rst.peerFinished(), "a reset is no FIN");
        assertTrue(rstPeer.closed());
        assertTrue(((TcpEnd) rst).wasReset());
        assertThrows(IllegalStateException.class, () -> rstPeer.send(new byte[1]), "send after abort");
        assertFalse(fin.closed(), "b has not closed its side of the first connection");
        n.net.closeAll();
    }

    /**
     * The capture with the real addresses (tshark decodes it): two connections from a's ephemeral ports to b's
     * listener, one refused connect (SYN, RST-ACK), one connection closed with FIN and one aborted with RST.
     */
    @Test
    void captureShowsAddressesAndPorts() throws Exception {
        Path file = Path.of("target", "pcap-test", "tcp-network.pcap");
        Files.createDirectories(file.getParent());
        try (PcapWriter pcap = PcapWriter.create(file)) {
            Net n = new Net(41, TcpOptions.defaults().withDelay(2), pcap);
            TcpListener l = n.b.listen(new InetSocketAddress(B, PORT));
            TcpConnection c1 = n.a.connect(new InetSocketAddress(B, PORT));
            TcpConnection c2 = n.a.connect(new InetSocketAddress(B, PORT));
            TcpConnection refused = n.a.connect(new InetSocketAddress(B, 7));
            n.run(() -> c1.established() && c2.established() && refused.refused(), 100, "handshakes");
            TcpConnection s1 = l.accept();
            TcpConnection s2 = l.accept();
            c1.send("hello".getBytes());
            assertArrayEquals("hello".getBytes(), hostRead(n, s1, 5));
            c1.close();
            n.run(s1::peerFinished, 10_000, "FIN");
            s2.abort();
            n.run(c2::closed, 10_000, "RST");
            n.tick(50);
        }
        List<String> lines = Tshark.run(file, "-T", "fields", "-E", "separator=,", "-e", "ip.src", "-e",
                "tcp.srcport", "-e", "ip.dst", "-e", "tcp.dstport", "-e", "tcp.flags.syn", "-e", "tcp.flags.ack",
                "-e", "tcp.flags.fin", "-e", "tcp.flags.reset", "-e", "tcp.checksum.status", "-e", "_ws.malformed");
        Set<String> conversations = new TreeSet<>();
        List<String> syns = new ArrayList<>();
        List<String> rsts = new ArrayList<>();
        List<String> fins = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.split(",", -1);
            assertEquals("", f[9], "no malformed frame: " + line);
            assertEquals("1", f[8], "good TCP checksum: " + line);
            for (int k = 4; k <= 7; k++) {
                f[k] = f[k].equals("1") || f[k].equalsIgnoreCase("true") ? "1" : "0";
            }
            String src = f[0] + ":" + f[1];
            String dst = f[2] + ":" + f[3];
            conversations.add(f[0].equals("10.0.0.1") ? src + " > " + dst : dst + " > " + src);
            if (f[4].equals("1") && f[5].equals("0")) {
                syns.add(src + " > " + dst);
            }
            if (f[7].equals("1")) {
                rsts.add(src + " > " + dst);
            }
            if (f[6].equals("1")) {
                fins.add(src + " > " + dst);
            }
        }
        assertEquals(Set.of("10.0.0.1:49152 > 10.0.0.2:20049", "10.0.0.1:49153 > 10.0.0.2:20049",
                "10.0.0.1:49154 > 10.0.0.2:7"), conversations, String.join("\n", lines));
        assertEquals(List.of("10.0.0.1:49152 > 10.0.0.2:20049", "10.0.0.1:49153 > 10.0.0.2:20049",
                "10.0.0.1:49154 > 10.0.0.2:7"), syns);
        assertEquals(List.of("10.0.0.2:7 > 10.0.0.1:49154", "10.0.0.2:20049 > 10.0.0.1:49153"), rsts,
                "the refusal and the abort");
        assertEquals(List.of("10.0.0.1:49152 > 10.0.0.2:20049"), fins, "the orderly close");
    }
}
