package rnic.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import rnic.demo.DemoScenario;
import rnic.sim.RnicSystem;
import rnic.sim.pcap.Tshark;
import rnic.sim.tcp.TcpChannel;
import rnic.sim.tcp.TcpOptions;

/**
 * Every operation of the verbs surface through the real driver against two simulated RNICs — the scenario of
 * {@code ./rnic demo} ({@link DemoScenario}), over the TCP channel model and over real kernel sockets: MPA Request/Reply
 * with private data both ways (MPA-26…MPA-37, RFC 6581), RDMA Write (RDMAP-05), Write with Immediate (RFC 7306 §6),
 * RDMA Read (RDMAP-07…11), Send / Send with SE / inline Send / Send with Invalidate (RDMAP-12, RDMAP-13, RDMAP-26),
 * Send with Immediate, FetchAdd / CmpSwap and their masked forms (RDMAP-28…36, results against the golden AtomicAlu),
 * local invalidate, fence, and a Write to an STag the peer's Send with Invalidate invalidated: the peer's Terminate
 * (E-D1, 1/1/00, DDP-30), QP → ERR on both sides (RDMAP-18), the next request flushed, nothing placed.
 *
 * <p>Over the model channel the capture must decode in Wireshark: the MPA Request and Reply, every FPDU with a good
 * CRC32c, no malformed frame, no expert warning (DDP-04, MPA-17).
 */
@Tag("verilator")
class EveryOperationSystemTest {
    @ParameterizedTest
    @EnumSource(TcpChannel.Mode.class)
    void everyOperationThenAProtectionFault(TcpChannel.Mode mode) throws Exception {
        Path pcap = Files.createTempFile("every-op-" + mode, ".pcap");
        DemoScenario s = new DemoScenario(line -> { });
        SystemRig.run("everyOp-" + mode, 7, RnicSystem.builder().tcp(TcpOptions.defaults().withMode(mode))
                .capture(pcap), s::initiator, s::responder);
        assertEquals(List.of(), s.failures());
        Set<String> ops = s.rows().stream().map(DemoScenario.Row::operation).collect(Collectors.toSet());
        for (String op : List.of("RDMA Write", "RDMA Write with Immediate", "RDMA Read", "Send",
                "Send with Solicited Event", "Send inline", "Send with Invalidate", "Send with Immediate", "FetchAdd",
                "CmpSwap", "masked FetchAdd", "masked CmpSwap", "Local Invalidate")) {
            assertTrue(ops.contains(op), "no row for " + op + ": " + ops);
        }
        long receives = s.peerRows().stream().filter(r -> r.operation().startsWith("receive RECV")
                && r.status().equals("SUCCESS")).count();
        assertEquals(6, receives, "receive completions at b: " + s.peerRows());

        if (mode == TcpChannel.Mode.MODEL) {
            Tshark.Summary t = Tshark.summarize(pcap);
            assertEquals(1, t.mpaRequests(), t::toString);
            assertEquals(1, t.mpaReplies(), t::toString);
            assertTrue(t.fpdus() >= 20, t::toString);
            assertEquals(t.fpdus(), t.goodCrcs(), t::toString);
            assertEquals(0, t.badCrcs(), t::toString);
            assertEquals(0, t.malformed(), t::toString);
            assertEquals(0, t.expertWarnings(), t::toString);
            for (String op : List.of("0x00", "0x01", "0x02", "0x03", "0x04", "0x05", "0x07")) {
                assertTrue(t.rdmapOpcodes().contains(op), "no RDMAP opcode " + op + " decoded: " + t.rdmapOpcodes());
            }
        }
        Files.deleteIfExists(pcap);
    }
}
