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
 * QPs in ERR (RDMAP-18). The peer's socket capture must decode in Wireshark: one MPA Request and Reply, every FPDU with
 * a good CRC32c, no malformed frame (DDP-04, MPA-17).
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
        assertEquals(1, t.mpaRequests(), t::toString);
        assertEquals(1, t.mpaReplies(), t::toString);
        assertTrue(t.fpdus() >= 20, t::toString);
        assertEquals(t.fpdus(), t.goodCrcs(), t::toString);
        assertEquals(0, t.badCrcs(), t::toString);
        assertEquals(0, t.malformed(), t::toString);
        for (String op : List.of("0x00", "0x01", "0x02", "0x03", "0x04", "0x05", "0x07")) {
            assertTrue(t.rdmapOpcodes().contains(op), "no RDMAP opcode " + op + " decoded: " + t.rdmapOpcodes());
        }
        Files.deleteIfExists(pcap);
    }
}
