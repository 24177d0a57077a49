package rnic.board;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import rnic.demo.BoardDemo;
import rnic.demo.DemoScenario;
import rnic.sim.pcap.Tshark;

/**
 * {@code ./rnic demo --board sim}: every operation of the demo ({@link DemoScenario}, the scenario of
 * {@code ./rnic demo}) with host a's driver on the simulated board over the exact serial path — the board SoC in
 * Verilator running the real firmware, its UART pins driven and sampled bit by bit at 3 Mbaud and joined to a
 * pseudo-terminal that jssc opens like {@code /dev/ttyUSB0} — and host b on the simulated RNIC (W = 64) over kernel
 * TCP on loopback. Covers what {@code EveryOperationSystemTest} covers, through the board: MPA Request/Reply with
 * private data, markers and CRC (MPA-26…MPA-37, RFC 6581); RDMA Write (RDMAP-05), Write with Immediate, RDMA Read
 * (RDMAP-07…11), the Sends (RDMAP-12, RDMAP-13, RDMAP-26), the atomics against the golden AtomicAlu (RDMAP-28…36),
 * local invalidate, fence; and the Write to an invalidated STag answered by a Terminate (E-D1 1/1/00, DDP-30), both
 * QPs in ERR (RDMAP-18). The peer's socket capture must decode in Wireshark: one MPA Request and Reply, every FPDU it
 * decodes with a good CRC32c, no malformed frame (DDP-04, MPA-17). Wireshark's MPA dissector decodes only FPDUs that
 * start a TCP segment, and the capture's a → b segments are the peer socket's reads, which cut FPDUs anywhere; so the
 * board's direction is also walked here, independently of the RTL: FPDU layout and pad (MPA-07, MPA-08), a marker
 * every 512 octets of the FPDU stream with zero reserved bits whose FPDUPTR points back to its FPDU's header (MPA-10,
 * MPA-12, MPA-13), and a CRC32C (the JDK's) over the FPDU and the markers in it (MPA-15, MPA-19); the peer's receive
 * of segments cut anywhere (MPA-23).
 */
class BoardDemoTest {
    @Test
    void everyDemoOperationThroughTheSimulatedBoardsSerialLine() throws Exception {
        Path pcap = Files.createTempFile("board-demo", ".pcap");
        BoardDemo.Result r = BoardDemo.run(new BoardDemo.Options("sim", pcap, 3, Duration.ofMinutes(20)), line -> { });
        BoardDemo.print(System.out, new BoardDemo.Options("sim", pcap, 3, Duration.ofMinutes(20)), r);
        assertNull(r.error(), () -> "the run failed: " + r.error());
        assertEquals(List.of(), r.scenario().failures());
        Set<String> ops = r.scenario().rows().stream().map(DemoScenario.Row::operation).collect(Collectors.toSet());
        for (String op : List.of("RDMA Write", "RDMA Write with Immediate", "RDMA Read", "Send",
                "Send with Solicited Event", "Send inline", "Send with Invalidate", "Send with Immediate", "FetchAdd",
                "CmpSwap", "masked FetchAdd", "masked CmpSwap", "Local Invalidate")) {
            assertTrue(ops.contains(op), "no row for " + op + ": " + ops);
        }
        long receives = r.scenario().peerRows().stream().filter(x -> x.operation().startsWith("receive RECV")
                && x.status().equals("SUCCESS")).count();
        assertEquals(6, receives, "receive completions at b: " + r.scenario().peerRows());
        assertTrue(r.board().startsWith("board RNBD"), r.board());
        assertNotNull(r.link());
        assertTrue(r.link().octetsSent() > 8192 && r.link().octetsReceived() > 8192, r.link()::toString);

        Tshark.Summary t = Tshark.summarize(pcap);
        System.out.println("tshark: " + t + "; RDMAP opcodes " + t.rdmapOpcodes());
        assertEquals(1, t.mpaRequests(), t::toString);
        assertEquals(1, t.mpaReplies(), t::toString);
        assertTrue(t.fpdus() >= 8, t::toString);
        assertEquals(t.fpdus(), t.goodCrcs(), t::toString);
        assertEquals(0, t.badCrcs(), t::toString);
        assertEquals(0, t.malformed(), t::toString);
        // b's direction: Read Responses (0x02), Atomic Responses (RFC 7306, 0x0b), the Terminate (0x07)
        for (String op : List.of("0x02", "0x0b", "0x07")) {
            assertTrue(t.rdmapOpcodes().contains(op), "no RDMAP opcode " + op + " decoded: " + t.rdmapOpcodes());
        }

        // a's direction, walked here: at least one FPDU per operation a sent (the RTR Write, 3 Writes, a 4 KB Write
        // in 3, the Read Request, 5 Sends, 4 atomics, the unsignaled Write and the fenced Read, the refused Write).
        String request = Tshark.run(pcap, "-Y", "iwarp_mpa.req", "-T", "fields", "-e", "tcp.srcport", "-e",
                "tcp.len").get(0);
        String[] f = request.split("\t");
        byte[] stream = payload(pcap, Integer.parseInt(f[0].trim()));
        int requestLength = Integer.parseInt(f[1].trim());
        int[] counts = walkFpdus(java.util.Arrays.copyOfRange(stream, requestLength, stream.length));
        System.out.printf("a → b: %d octets after the MPA Request, %d FPDUs, %d markers, every CRC32C good%n",
                stream.length - requestLength, counts[0], counts[1]);
        assertTrue(counts[0] >= 20, "FPDUs from a: " + counts[0]);
        assertTrue(counts[1] >= (stream.length - requestLength) / 512, "markers: " + counts[1]);
        Files.deleteIfExists(pcap);
    }

    /** The TCP payload {@code port} sent, in sequence order, from the capture. */
    static byte[] payload(Path pcap, int port) throws java.io.IOException {
        java.util.TreeMap<Long, byte[]> bySeq = new java.util.TreeMap<>();
        for (String l : Tshark.run(pcap, "-Y", "tcp.len > 0 && tcp.srcport == " + port, "-T", "fields", "-e",
                "tcp.seq", "-e", "tcp.payload")) {
            String[] f = l.split("\t");
            bySeq.put(Long.parseLong(f[0].trim()), java.util.HexFormat.of().parseHex(f[1].trim().replace(":", "")));
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        long next = bySeq.isEmpty() ? 0 : bySeq.firstKey();
        for (var e : bySeq.entrySet()) {
            assertEquals(next, e.getKey(), "a gap or an overlap in the captured stream");
            out.writeBytes(e.getValue());
            next += e.getValue().length;
        }
        return out.toByteArray();
    }

    /**
     * Walks an MPA FPDU stream with markers (RFC 5044: a marker at every 512th octet of the stream, holding 16 reserved
     * zero bits and the distance back to its FPDU's header; a marker where an FPDU starts belongs to that FPDU; each
     * FPDU is length, ULPDU, pad to 4, CRC32C over all of it with its markers, sent least significant octet first);
     * returns {FPDUs, markers}.
     */
    static int[] walkFpdus(byte[] s) {
        int pos = 0;
        int fpdus = 0;
        int markers = 0;
        while (pos < s.length) {
            int start = pos;
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            int[] cursor = {pos, markers};
            byte[] header = take(s, cursor, start, 2, crc);
            int length = ((header[0] & 0xFF) << 8) | (header[1] & 0xFF);
            take(s, cursor, start, length + Math.floorMod(-(2 + length), 4), crc);
            long want = crc.getValue();
            byte[] c = take(s, cursor, start, 4, null);
            long got = (c[0] & 0xFFL) | (c[1] & 0xFFL) << 8 | (c[2] & 0xFFL) << 16 | (c[3] & 0xFFL) << 24;
            assertEquals(want, got, "CRC32C of the FPDU at stream octet " + start + " (ULPDU " + length + " octets)");
            pos = cursor[0];
            markers = cursor[1];
            fpdus++;
        }
        return new int[] {fpdus, markers};
    }

    /** Takes {@code n} octets at cursor[0], stepping over (and checking) markers; feeds them and the markers to crc. */
    private static byte[] take(byte[] s, int[] cursor, int fpduStart, int n, java.util.zip.CRC32C crc) {
        byte[] out = new byte[n];
        int i = 0;
        while (i < n) {
            int pos = cursor[0];
            assertTrue(pos < s.length, "the stream ends inside an FPDU that starts at octet " + fpduStart);
            if (pos % 512 == 0) {
                assertTrue(pos + 4 <= s.length, "a cut marker at octet " + pos);
                int reserved = ((s[pos] & 0xFF) << 8) | (s[pos + 1] & 0xFF);
                int pointer = ((s[pos + 2] & 0xFF) << 8) | (s[pos + 3] & 0xFF);
                assertEquals(0, reserved, "marker at octet " + pos + ": reserved bits");
                assertEquals(pos - fpduStart, pointer, "marker at octet " + pos + ": FPDUPTR");
                if (crc != null) {
                    crc.update(s, pos, 4);
                }
                cursor[0] += 4;
                cursor[1]++;
                continue;
            }
            out[i++] = s[pos];
            if (crc != null) {
                crc.update(s, pos, 1);
            }
            cursor[0]++;
        }
        return out;
    }
}
