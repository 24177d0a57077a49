package rnic.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import rnic.model.mpa.MpaDeframer;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.model.rdmap.EndpointAction;
import rnic.model.rdmap.RdmapEndpoint;
import rnic.model.rdmap.WorkRequest;
import rnic.sim.HostMemory;
import rnic.wire.AtomicOpcode;
import rnic.wire.MpaStartupFrame;

/**
 * Where Linux siw departs from the RFCs or from what the project's models expect, each measured against
 * {@code rping -s} in the VM with a hand-made peer on a raw socket (documented in
 * {@code testbench/interop/siw/README.md}). Requirements: MPA-30 (Markers are negotiable: a receiver may ask for them),
 * MPA-32 (private data up to 512 octets), RDMAP-17 (Terminate layout), RFC 7306 (Atomic Requests).
 */
@Tag("interop")
class SiwDeviationTest {
    private static SiwVm vm;

    @BeforeAll
    static void boot() throws IOException {
        vm = SiwVm.start(false);
    }

    @AfterAll
    static void stop() {
        if (vm != null) {
            vm.close();
        }
    }

    /** Lets the waiting rping -s finish with one good golden iteration, so the VM's console is free again. */
    private static void finish(SiwVm.Pending server) throws IOException {
        GoldenRping.Outcome o = GoldenRping.client(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                vm.serverPort()), new GoldenRping.Options(64, 1, true, false, 60, SiwInterop.FIRST_FPDU_DELAY_MS));
        assertTrue(o.ok(1), "the follow-up golden run failed: " + o.error());
        server.await(SiwVm.RPING_TIMEOUT + 30);
    }

    private static Socket connect() throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), vm.serverPort()), 30_000);
        s.setSoTimeout(30_000);
        return s;
    }

    /** An MPA Rev 2 Request with S=1, IRD = ORD = 1, no CRC, {@code privateData} zero octets after the enhanced 4. */
    private static MpaStartupFrame request(boolean markers, int privateData) {
        return new MpaStartupFrame(false, markers, false, false, 2,
                new MpaStartupFrame.Enhanced(false, false, 1, false, false, 1), new byte[privateData]);
    }

    /** Everything the peer sends until it closes (or 30 s pass). */
    private static byte[] readAll(Socket s) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        InputStream in = s.getInputStream();
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                b.write(buf, 0, n);
            }
        } catch (SocketTimeoutException e) {
            // the peer kept the connection open: what came so far is the answer
        }
        return b.toByteArray();
    }

    /** A Request with M=1 gets a Reply with R=1 (Markers refused), then siw closes: it never sends Markers. */
    @Test
    void markersAreRefusedWithAReject() throws Exception {
        SiwVm.Pending server = vm.rpingServer(64, 1, true);
        try (Socket s = connect()) {
            s.getOutputStream().write(request(true, 0).encode());
            byte[] got = readAll(s);
            MpaStartupFrame reply = MpaStartupFrame.decode(ByteBuffer.wrap(got), true, true);
            assertNotNull(reply);
            assertTrue(reply.reject(), "siw rejects Markers: " + reply);
            assertTrue(!reply.markers(), "siw's reject does not ask for Markers itself: " + reply);
            assertEquals(reply.size(), got.length, "nothing follows the reject: siw closes");
        }
        finish(server);
    }

    /** Private data over 256 octets (the 4 enhanced ones included) makes siw close without any Reply. */
    @Test
    void privateDataAbove256ClosesWithoutReply() throws Exception {
        SiwVm.Pending server = vm.rpingServer(64, 1, true);
        try (Socket s = connect()) {
            s.getOutputStream().write(request(false, 253).encode());
            assertEquals(0, readAll(s).length, "siw answers PD_Length 257 with a close, no Reply");
        }
        try (Socket s = connect()) {   // 256 in all is still accepted: the limit is exactly there
            s.getOutputStream().write(request(false, 252).encode());
            s.setSoTimeout(10_000);
            byte[] buf = new byte[64];
            int n = s.getInputStream().read(buf);
            MpaStartupFrame reply = MpaStartupFrame.decode(ByteBuffer.wrap(buf, 0, Math.max(n, 0)), true, true);
            assertTrue(!reply.reject(), "PD_Length 256 is accepted: " + reply);
        }
        server.await(SiwVm.RPING_TIMEOUT + 30);   // the accepted connection closed: rping ends
    }

    /**
     * An RFC 7306 Atomic Request gets a Terminate: siw does not implement RFC 7306. The Terminate's first octet has
     * Layer and EType swapped (siw's bit-field order), and its M/D/R flags are not where RFC 5040 §4.8 puts them.
     */
    @Test
    void atomicRequestGetsANonConformantTerminate() throws Exception {
        SiwVm.Pending server = vm.rpingServer(64, 1, true);
        byte[] term;
        try (Socket s = connect()) {
            s.getOutputStream().write(request(false, 0).encode());
            byte[] hdr = s.getInputStream().readNBytes(24);
            MpaStartupFrame reply = MpaStartupFrame.decode(ByteBuffer.wrap(hdr), true, false);
            assertNotNull(reply);
            HostMemory mem = new HostMemory();
            RdmapEndpoint ep = new RdmapEndpoint(mem, List.of(new RdmapEndpoint.QpConfig(1, 1, 1, 1454)));
            ep.postSend(0, new WorkRequest.Atomic(1, AtomicOpcode.FETCH_ADD, 0x1234, 0x1000, 1, 0, 0, 0, 0x100));
            MpaFramer tx = new MpaFramer(new MpaDirection(false, false, 0), 1460);
            for (EndpointAction a : ep.transmitAll(0)) {
                if (a instanceof EndpointAction.Outbound o) {
                    s.getOutputStream().write(tx.fpdu(o.ulpdu()));
                }
            }
            byte[] got = readAll(s);
            MpaDeframer rx = new MpaDeframer(new MpaDirection(false, false, 0));
            List<MpaDeframer.Event> ev = rx.receive(new TcpSegment(0, got));
            assertTrue(!ev.isEmpty() && ev.get(0) instanceof MpaDeframer.Ulpdu, "siw answers with an FPDU: "
                    + HexFormat.of().formatHex(got));
            term = ((MpaDeframer.Ulpdu) ev.get(0)).data();
        }
        server.await(SiwVm.RPING_TIMEOUT + 30);
        // DDP untagged header (18 octets): QN 2, RDMAP opcode 7 (Terminate).
        assertEquals(7, term[1] & 0x0F, "a Terminate: " + HexFormat.of().formatHex(term));
        assertEquals(2, ByteBuffer.wrap(term, 6, 4).getInt(), "on QN 2: " + HexFormat.of().formatHex(term));
        SiwTerminate t = SiwTerminate.decode(term);
        System.out.println("siw's Terminate for an Atomic Request: " + t);
        assertTrue(t.swapped(), "siw's Layer/EType order: " + t);
        assertEquals(0, t.layer(), "RDMAP layer (as siw meant it): " + t);
        assertEquals(2, t.etype(), "remote operation error (as siw meant it): " + t);
        assertEquals(0x06, t.errorCode(), "unexpected opcode (E-R9's 0/2/06): " + t);
        // What the golden endpoint makes of it as received: the RFC layout read literally.
        RdmapEndpoint model = new RdmapEndpoint(new HostMemory(), List.of(new RdmapEndpoint.QpConfig(1, 1, 1, 1454)));
        List<EndpointAction> seen = model.receive(0, term);
        System.out.println("the golden endpoint on siw's Terminate: " + seen);
        assertTrue(model.failed(0), "a Terminate fails the stream either way: " + seen);
    }
}
