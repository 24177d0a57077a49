package rnic.sim.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import rnic.sim.tcp.Segmentation;
import rnic.sim.tcp.TcpChannel;
import rnic.sim.tcp.TcpOptions;
import rnic.sim.tcp.TcpStats;
import rnic.sim.tcp.TcpWireCapture;

/**
 * What a {@link TcpChannel} writes into a capture, read back by Wireshark ({@code tshark}): MPA connections (one per
 * QP, distinct client ports, all in one file) carried over the channel, with the golden MPA models as the cores.
 *
 * <ul>
 *   <li>tshark reads the file without a malformed frame or an expert warning/error, and every IPv4 and TCP checksum is
 *       good;</li>
 *   <li>MPA-27: it recognises each connection's MPA Request and Reply — plain stream octets before the hand-over;</li>
 *   <li>MPA-26 / DDP-02: the FPDUs after the hand-over decode as MPA with good CRC32c and as DDP/RDMAP (at least one
 *       decode per FPDU sent; retransmissions decode again);</li>
 *   <li>DDP-03 on the wire: every segment the channel sent again after its RTO is flagged by TCP analysis as a
 *       retransmission — exactly those frames, their number equal to the channel's statistics — and nothing else
 *       is.</li>
 * </ul>
 * Captures are left under {@code target/pcap-test/} for Wireshark.
 */
class TcpChannelCaptureTest {
    static final int CONNECTIONS = 3;
    static final int PER_DIRECTION = 16;
    static final int EMSS = 1460;

    static Stream<Arguments> cases() {
        TcpOptions d = TcpOptions.defaults();
        return Stream.of(
                Arguments.of("channel-clean", d.withDelay(10), 1L),
                Arguments.of("channel-loss5", d.withDelay(10, 40).withLoss(0.05), 2L),
                Arguments.of("channel-loss10-window", d.withDelay(30).withLoss(0.1).withWindow(8000), 3L),
                Arguments.of("channel-seqwrap", d.withIsn(0xFFFF_F000L, 0xFFFF_FF00L).withLoss(0.05), 4L),
                Arguments.of("channel-random-loss", d.withSegmentation(Segmentation.random(64, 1460)).withLoss(0.03),
                        6L),
                Arguments.of("channel-mixed", d.withSegmentation(Segmentation.mixed()), 7L),
                Arguments.of("channel-kernel", d.withMode(TcpChannel.Mode.KERNEL).withPollInterval(4), 5L));
    }

    /**
     * One capture per case. With segments as sent (each FPDU starts a segment) every FPDU must decode; with the stream
     * re-segmented Wireshark's MPA dissector only finds FPDUs that start a segment or follow one it reassembled, so
     * there only the startup frames and the TCP analysis are checked (it takes any segment start for an FPDU start, so
     * on a re-segmented stream some of its CRC verdicts are about octets that are no FPDU). Its TCP
     * reassembly also reports a retransmitted segment that straddles the end of an FPDU it already reassembled as
     * "New fragment overlaps old data (retransmission?)" (a known false alarm of Wireshark's reassembly): that is
     * accepted on frames that are retransmissions, nowhere else.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void tsharkDecodesTheChannel(String name, TcpOptions o, long seed) throws Exception {
        Path file = TsharkMpaTest.DIR.resolve(name + ".pcap");
        List<TcpChannel> channels = run(file, o, seed);
        long retransmissions = channels.stream()
                .mapToLong(c -> c.statsAtoB().retransmissions() + c.statsBtoA().retransmissions()).sum();
        int fpdus = CONNECTIONS * 2 * PER_DIRECTION;
        boolean aligned = o.mode() == TcpChannel.Mode.KERNEL || o.segmentation().toString().equals("asSent");

        Set<Integer> expected = retransmissionsFlagged(file);
        assertEquals(retransmissions, expected.size(), "retransmitted frames in the capture");
        if (o.loss() > 0) {
            assertTrue(retransmissions > 0);
        }
        assertCleanBesidesRetransmissionReassembly(file, expected);

        assertEquals(CONNECTIONS, TsharkMpaTest.filterCount(file, "iwarp_mpa.req"), "MPA Requests");
        assertEquals(CONNECTIONS, TsharkMpaTest.filterCount(file, "iwarp_mpa.rep"), "MPA Replies");
        List<String> crc = crcChecks(file);
        long ddp = TsharkMpaTest.tshark(file, "-Y", "iwarp_ddp_rdmap", "-T", "fields", "-E", "occurrence=a", "-E",
                "aggregator=,", "-e", "iwarp_rdma.opcode").stream().mapToLong(l -> l.split(",").length).sum();
        if (aligned) {
            crc.forEach(v -> assertEquals("Good CRC32", v));
            assertTrue(crc.size() >= fpdus, "FPDUs with a CRC check: " + crc.size() + " of " + fpdus);
            assertTrue(ddp >= fpdus, "DDP/RDMAP decodes: " + ddp + " of " + fpdus);
        } else {
            // the stream itself is right (the golden deframer took every FPDU with a good CRC, see run()); Wireshark
            // takes any segment start for an FPDU start, so on a re-segmented stream some of its guesses are wrong
            assertTrue(crc.stream().filter(v -> v.equals("Good CRC32")).count() > fpdus / 4, "FPDUs decode: " + crc);
        }
        System.out.println(name + ": " + TsharkMpaTest.filterCount(file, "frame") + " frames, " + retransmissions
                + " retransmissions, " + crc.size() + " FPDU decodes (" + fpdus + " FPDUs); "
                + channels.get(0).statsAtoB());
    }

    /**
     * Both hosts close (a first, then b after it saw a's FIN) with data still flowing: one FIN per side in the
     * capture, after the side's last data octet, and tshark sees no problem with the sequence and acknowledgment
     * numbers around them.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(TcpChannel.Mode.class)
    void hostCloseInTheCapture(TcpChannel.Mode mode) throws Exception {
        Path file = TsharkMpaTest.DIR.resolve("channel-close-" + mode.name().toLowerCase() + ".pcap");
        Random rng = new Random(12);
        try (PcapWriter w = PcapWriter.create(file)) {
            TcpChannel ch = new TcpChannel("qp0", TcpOptions.defaults().withMode(mode).withDelay(5, 20)
                    .withPollInterval(2), rng, new TcpWireCapture(w, TcpEndpoint.DEFAULT_CLIENT,
                    TcpEndpoint.DEFAULT_SERVER), 0);
            byte[] buf = new byte[5000];
            ch.a().send(new byte[3000]);
            ch.b().send(new byte[2000]);
            ch.a().close();
            for (int i = 0; !ch.idle() || !ch.a().closed(); i++) {
                assertTrue(i < 1_000_000);
                if (!ch.b().closeRequested()) {
                    ch.b().receive(buf, 0, buf.length);
                }
                if (ch.b().closed() && !ch.b().closeRequested()) {
                    ch.b().send(new byte[100]); // half-closed: b may still send
                    ch.b().close();
                }
                ch.tick();
            }
            assertTrue(ch.a().closed(), "a saw b's FIN");
            ch.close();
        }
        TsharkMpaTest.assertClean(file);
        List<String> fins = TsharkMpaTest.tshark(file, "-Y", "tcp.flags.fin == 1", "-T", "fields", "-e",
                "tcp.srcport", "-e", "tcp.seq", "-e", "tcp.ack");
        assertEquals(2, fins.size(), "one FIN per side: " + fins);
        assertEquals(List.of("3001", "2101"), fins.stream().map(l -> l.split("\t")[1]).toList(),
                "each FIN right after its side's data (relative sequence numbers)");
    }

    static final Pattern CRC_CHECK = Pattern.compile("^\\s+CRC check: 0x[0-9a-f]{8} \\(([^)]*)\\)");

    /**
     * The data frames that repeat octets already sent in their direction (by relative sequence number), which must be
     * exactly the frames Wireshark's TCP analysis flags as retransmissions (plain, fast or spurious; or a 1-octet
     * "Keep-Alive", see below).
     */
    static Set<Integer> retransmissionsFlagged(Path file) throws Exception {
        Set<Integer> expected = new TreeSet<>();
        Set<Integer> flagged = new TreeSet<>();
        Map<String, Long> highest = new HashMap<>();
        for (String line : TsharkMpaTest.tshark(file, "-T", "fields", "-E", "separator=/t", "-e", "frame.number",
                "-e", "tcp.stream", "-e", "tcp.srcport", "-e", "tcp.seq", "-e", "tcp.len", "-e",
                "tcp.analysis.retransmission", "-e", "tcp.analysis.fast_retransmission", "-e",
                "tcp.analysis.spurious_retransmission", "-e", "tcp.analysis.keep_alive")) {
            String[] f = line.split("\\t", -1);
            int frame = Integer.parseInt(f[0]);
            long len = Long.parseLong(f[4]);
            if (len > 0) {
                String dir = f[1] + "/" + f[2];
                long end = Long.parseLong(f[3]) + len;
                long top = highest.getOrDefault(dir, 0L);
                if (end <= top) {
                    expected.add(frame);
                }
                highest.put(dir, Math.max(top, end));
            }
            // The channel never sends keep-alives, but Wireshark calls a 1-octet segment one below the next expected
            // sequence number a "Keep-Alive": with 1-octet re-segmentation that is the retransmission of the last
            // octet sent, so it counts as flagged (and must still be one of the expected retransmissions).
            boolean keepAlive = !f[8].isEmpty() && len == 1;
            if (!f[5].isEmpty() || !f[6].isEmpty() || !f[7].isEmpty() || keepAlive) {
                flagged.add(frame);
            }
        }
        assertEquals(expected, flagged, "frames Wireshark flags as retransmissions");
        return expected;
    }

    /**
     * No expert warning or error, and no malformed frame except Wireshark's reassembly false alarm "New fragment
     * overlaps old data (retransmission?)" on a frame that is a retransmission; every checksum good.
     */
    static void assertCleanBesidesRetransmissionReassembly(Path file, Set<Integer> retransmissions)
            throws Exception {
        for (String line : TsharkMpaTest.tshark(file, "-Y", "_ws.malformed", "-T", "fields", "-e", "frame.number",
                "-e", "_ws.expert.message")) {
            int frame = Integer.parseInt(line.split("\\t")[0]);
            assertTrue(retransmissions.contains(frame)
                    && line.contains("New fragment overlaps old data (retransmission?)"), "malformed: " + line);
        }
        List<String> warnings = TsharkMpaTest.tshark(file, "-Y",
                "_ws.expert.severity >= warning && !_ws.malformed", "-T", "fields", "-e", "frame.number", "-e",
                "_ws.expert.message");
        assertTrue(warnings.isEmpty(), "expert warnings/errors: " + warnings);
        assertEquals(0, TsharkMpaTest.filterCount(file, "ip.checksum.status != 1 || tcp.checksum.status != 1"),
                "bad checksums");
    }

    /** The verdict of every "CRC check" item in the file, several per frame when a segment carries several FPDUs. */
    static List<String> crcChecks(Path file) throws Exception {
        List<String> out = new ArrayList<>();
        for (String line : TsharkMpaTest.tshark(file, "-V")) {
            Matcher m = CRC_CHECK.matcher(line);
            if (m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    /**
     * Ports other protocols own in Wireshark (a client on NVMe/TCP's 4420, a server on EtherNet/IP's 44818): the
     * captures' decode ({@link Tshark#summarize}) still finds every connection's MPA Request and Reply and every FPDU,
     * with good CRCs. Over real sockets the ports are whatever the kernel hands out, so any of them can be one of these.
     */
    @Test
    void portsOtherProtocolsOwnStillDecodeAsMpa() throws Exception {
        Path file = TsharkMpaTest.DIR.resolve("channel-foreign-ports.pcap");
        run(file, TcpOptions.defaults().withDelay(10), 8L, 4420, 44818);
        Tshark.Summary s = Tshark.summarize(file);
        assertEquals(CONNECTIONS, s.mpaRequests(), s.toString());
        assertEquals(CONNECTIONS, s.mpaReplies(), s.toString());
        assertTrue(s.fpdus() >= CONNECTIONS * 2 * PER_DIRECTION, s.toString());
        assertEquals(s.fpdus(), s.goodCrcs(), s.toString());
        assertEquals(0, s.badCrcs(), s.toString());
        assertEquals(0, s.malformed(), s.toString());
    }

    /** CONNECTIONS MPA connections over channels with options {@code o}, all written to {@code file}. */
    static List<TcpChannel> run(Path file, TcpOptions o, long seed) throws Exception {
        return run(file, o, seed, 49152, 20049);
    }

    /** As {@link #run(Path, TcpOptions, long)}, connection q from client port {@code clientPort + q}. */
    static List<TcpChannel> run(Path file, TcpOptions o, long seed, int clientPort, int serverPort)
            throws Exception {
        Random rng = new Random(seed);
        List<TcpChannel> channels = new ArrayList<>();
        List<MpaOverChannel> mpa = new ArrayList<>();
        try (PcapWriter w = PcapWriter.create(file)) {
            for (int q = 0; q < CONNECTIONS; q++) {
                TcpWireCapture cap = new TcpWireCapture(w, TcpEndpoint.of("02:00:00:00:00:01", "10.0.0.1", clientPort + q),
                        TcpEndpoint.of("02:00:00:00:00:02", "10.0.0.2", serverPort));
                TcpChannel ch = new TcpChannel("qp" + q, o, rng, cap, 0);
                channels.add(ch);
                mpa.add(new MpaOverChannel(ch, rng, PER_DIRECTION, EMSS));
            }
            for (long c = 0; !mpa.stream().allMatch(MpaOverChannel::done) || !channels.stream()
                    .allMatch(TcpChannel::idle); c++) {
                if (c > 2_000_000) {
                    throw new AssertionError("MPA exchange stalled: " + channels.stream()
                            .map(x -> x.statsAtoB() + "; " + x.statsBtoA()).toList());
                }
                for (int q = 0; q < CONNECTIONS; q++) {
                    mpa.get(q).step();
                    channels.get(q).tick();
                }
            }
            for (TcpChannel ch : channels) {
                ch.close();
            }
        }
        mpa.forEach(MpaOverChannel::check);
        for (TcpChannel ch : channels) {
            for (TcpStats s : List.of(ch.statsAtoB(), ch.statsBtoA())) {
                assertEquals(s.octets(), s.delivered(), s.toString());
            }
        }
        return channels;
    }
}
