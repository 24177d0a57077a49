package rnic.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import rnic.sim.HostThreads;
import rnic.sim.RnicSystem;
import rnic.sim.pcap.Tshark;
import rnic.sim.tcp.LoopbackPorts;

/**
 * The project's rping ({@link RpingPeer} on the verbs/cm API) against itself over <b>real kernel sockets</b>: both
 * simulated cores of one {@code RnicPair} simulation use {@link rnic.sim.tcp.KernelTcp} on 127.0.0.1 (core b the
 * server, core a the client), so every octet crosses Linux's TCP. The pattern, the echo and the validation are
 * rping's; the capture written from the sockets decodes in tshark. Requirements: MPA-26 (hand-over at the exact octet
 * after the startup frames, with octets already read going to the core first), MPA-18 (CRC if either side asks), MPA-49 (IRD/ORD negotiation),
 * MPA-25 (CRC on every FPDU), RDMAP-24 (IRD = ORD = 1), DDP-17 (segmentation at MULPDU), RDMAP-08 (Read Response
 * placement).
 */
class RpingLoopbackTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** What each side printed and returned. */
    private record Pair(RpingPeer.Result client, RpingPeer.Result server, String clientOut, String serverOut) {
    }

    /** Runs the server on core b and the client on core a, side by side in one simulation. */
    private static Pair run(RpingPeer.Options server, RpingPeer.Options client, Path pcap) {
        RnicSystem.Builder b = RnicSystem.builder().kernelTcp(0, LOOPBACK).kernelTcp(1, LOOPBACK);
        if (pcap != null) {
            b.capture(pcap);
        }
        RpingPeer.Result[] r = new RpingPeer.Result[2];
        ByteArrayOutputStream cOut = new ByteArrayOutputStream();
        ByteArrayOutputStream sOut = new ByteArrayOutputStream();
        boolean[] listening = {false};
        RnicSystem.run(RnicSystem.model(64), "rping-loopback", 1, b, sys -> new HostThreads()
                .add("server", sys.b(), t -> r[1] = RpingPeer.run(t, server, print(sOut), print(sOut),
                        () -> listening[0] = true))
                .add("client", sys.a(), t -> {
                    while (!listening[0]) {
                        t.advance();
                    }
                    r[0] = RpingPeer.run(t, client, print(cOut), print(cOut));
                })
                .run());
        return new Pair(r[0], r[1], cOut.toString(StandardCharsets.UTF_8), sOut.toString(StandardCharsets.UTF_8));
    }

    private static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }

    /**
     * rping -s -V ↔ rping -c -V -C 3 at 64, 4096 and 65000 octets, CRC off and on: every iteration completes and
     * validates on both sides, the client prints rping's ping data, CRC is in use exactly when asked.
     */
    @ParameterizedTest(name = "size={0} crc={1}")
    @CsvSource({"64,false", "4096,true", "65000,false", "65000,true"})
    void projectPingsProjectOverKernelSockets(int size, boolean crc) throws IOException {
        int port = LoopbackPorts.free();
        RpingPeer.Options server = RpingPeer.Options.server(LOOPBACK, port, size).withCrc(crc).withVerbose(true);
        RpingPeer.Options client = RpingPeer.Options.client(LOOPBACK, port, size, 3).withVerbose(true);
        Pair p = run(server, client, null);
        assertNull(p.client().error(), () -> "client: " + p.clientOut() + "\nserver: " + p.serverOut());
        assertNull(p.server().error(), () -> "server: " + p.serverOut());
        assertEquals(3, p.client().iterations());
        assertEquals(3, p.server().iterations());
        assertEquals(crc, p.client().crc(), "CRC is on when either side asks (the server asked: " + crc + ")");
        assertEquals(crc, p.server().crc());
        List<String> pings = p.clientOut().lines().filter(l -> l.startsWith("ping data: ")).toList();
        assertEquals(3, pings.size(), p.clientOut());
        // rping's own format: the sink as a C string, rdma-ping-<n>: then the letters from the iteration's start
        String want = new String(GoldenRping.pattern(2, size), 0, size - 1, StandardCharsets.US_ASCII);
        assertEquals("ping data: " + want, pings.get(2));
        assertTrue(p.serverOut().contains("server ping data: rdma-ping-0: ABC"), p.serverOut());
    }

    /**
     * The capture written from the sockets of a CRC run decodes in tshark: one MPA Request and Reply, the FPDUs of 2
     * iterations (per iteration 4 Sends, a Read Request, a Read Response of 45 FPDUs at 65000 octets, a Write of as
     * many), every CRC good, no malformed frame (MPA-25).
     */
    @Test
    void captureOfTheSocketsDecodesInTshark() throws IOException {
        int port = LoopbackPorts.free();
        Path pcap = Path.of("target", "rping-loopback-crc.pcap");
        Files.deleteIfExists(pcap);
        Pair p = run(RpingPeer.Options.server(LOOPBACK, port, 65000).withCrc(true),
                RpingPeer.Options.client(LOOPBACK, port, 65000, 2).withCrc(true), pcap);
        assertNull(p.client().error(), p.clientOut());
        assertEquals(2, p.client().iterations());
        Tshark.Summary s = Tshark.summarize(pcap);
        String what = s + " (server port " + port + ", capture " + pcap.toAbsolutePath() + ")";
        RpingCapture.assertCrcRun(s, 2, what);
    }

    /**
     * rping -s -P serves one connection after another: two clients in turn (each a new queue pair on the server, in
     * the connection slot the previous connection released), 2 iterations each, all validated.
     */
    @Test
    void persistentServerServesOneConnectionAfterAnother() throws IOException {
        int port = LoopbackPorts.free();
        RpingPeer.Options server = RpingPeer.Options.server(LOOPBACK, port, 4096).withPersistent(true)
                .withConnections(2);
        RpingPeer.Result[] r = new RpingPeer.Result[3];
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        boolean[] listening = {false};
        RnicSystem.run(RnicSystem.model(64), "rping-persistent", 1,
                RnicSystem.builder().kernelTcp(0, LOOPBACK).kernelTcp(1, LOOPBACK), sys -> new HostThreads()
                        .add("server", sys.b(), t -> r[0] = RpingPeer.run(t, server, print(log), print(log),
                                () -> listening[0] = true))
                        .add("clients", sys.a(), t -> {
                            while (!listening[0]) {
                                t.advance();
                            }
                            for (int i = 1; i <= 2; i++) {
                                r[i] = RpingPeer.run(t, RpingPeer.Options.client(LOOPBACK, port, 4096, 2), print(log),
                                        print(log));
                            }
                        })
                        .run());
        String what = log.toString(StandardCharsets.UTF_8);
        assertNull(r[1].error(), what);
        assertNull(r[2].error(), what);
        assertEquals(2, r[1].iterations());
        assertEquals(2, r[2].iterations());
        assertNull(r[0].error(), what);
        assertEquals(2, r[0].connections(), what);
        assertEquals(4, r[0].iterations(), what);
    }

    /** A client toward a port nobody listens on: the kernel's RST makes the connection refused, rping fails. */
    @Test
    void refusedConnectionFailsTheClient() throws IOException {
        int port = LoopbackPorts.free();
        RpingPeer.Result[] r = new RpingPeer.Result[1];
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        RnicSystem.run(RnicSystem.model(64), "rping-refused", 1, RnicSystem.builder().kernelTcp(0, LOOPBACK),
                sys -> r[0] = RpingPeer.run(sys.a(), RpingPeer.Options.client(LOOPBACK, port, 64, 1), print(err),
                        print(err)));
        assertNotNull(r[0].error());
        assertTrue(r[0].error().contains("refused"), r[0].error());
        assertEquals(0, r[0].connections());
        assertTrue(!r[0].ok(1));
    }
}
