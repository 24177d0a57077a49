package rnic.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import rnic.rpcrdma.RpcRdmaConfig;
import rnic.rpcrdma.RpcRdmaResponder;
import rnic.sim.RnicSystem;
import rnic.sim.pcap.Tshark;

/**
 * The {@code ./rnic demo rpc} scenario over the two simulated RNICs with the real driver: NULL, READ inline and through
 * a Write chunk (RDMA Write by the responder, RPCRDMA-16/17/18), WRITE inline and through a Read chunk (RDMA Read by
 * the responder, RPCRDMA-14/15), READDIR through the Reply chunk (RPCRDMA-19/20), LOOKUP of a long name as a
 * Position-Zero Read chunk (RPCRDMA-11/20), eight calls at once within the credits (RPCRDMA-05); every result checked
 * against the client's own model of the server's disk; every region fenced by Send with Invalidate or Local
 * Invalidate (RPCRDMA-31); replies never carry a Read list (RPCRDMA-36); no Send over the inline threshold
 * (RPCRDMA-07, RPCRDMA-08; the driver refuses a larger Send, and the receive buffers are the threshold's size).
 *
 * <p>tshark decodes the capture as RPC-over-RDMA (RPCRDMA-01, RPCRDMA-02, RPCRDMA-10) with ONC RPC (NFS v3) calls and
 * replies inside (NFS version 3): one RPC-over-RDMA message per Send, as many calls as replies, the chunk data
 * reassembled into its messages, no malformed frame, no expert warning.
 */
@Tag("verilator")
class RpcDemoSystemTest {
    @Test
    void demoScenarioOverTwoRnics() throws Exception {
        Path pcap = Files.createTempFile("rpc-demo", ".pcap");
        RpcScenario s = new RpcScenario(line -> { }, RpcRdmaConfig.defaults());
        RpcRig.run("rpcDemo", 3, RnicSystem.builder().capture(pcap), s::client, s::server);
        assertEquals(List.of(), s.failures());
        assertEquals(18, s.calls());
        Set<String> shapes = s.rows().stream().map(RpcScenario.Row::chunks).collect(Collectors.toSet());
        for (String want : List.of("inline", "inline + 1 write chunk(s)", "read chunk(s) x1", "inline + reply chunk",
                "PZRC")) {
            assertTrue(shapes.contains(want), "no call went " + want + ": " + shapes);
        }
        int withChunks = 0;
        for (RpcScenario.Row r : s.rows()) {
            RpcRdmaResponder.Served v = s.served(r.xid());
            if (r.chunks().startsWith("read") || r.chunks().equals("PZRC")) {
                assertTrue(v.reads() > 0 && v.readBytes() >= r.argBytes() - 40, r + " " + v);
            }
            if (r.chunks().contains("write chunk") || r.chunks().contains("reply chunk")) {
                assertTrue(v.writes() > 0, r + " " + v);
            }
            if (!r.chunks().startsWith("inline, ") && !r.chunks().equals("inline")) {
                withChunks++;
                assertTrue(v.sendWithInvalidate(), "a call with chunks is answered with Send with Invalidate: " + r);
            } else if (r.chunks().equals("inline")) {
                assertTrue(!v.sendWithInvalidate() && v.reads() == 0 && v.writes() == 0, r + " " + v);
            }
        }
        assertEquals(6, withChunks);

        if (Tshark.binary().isPresent()) {
            RpcCapture.Summary t = RpcCapture.summarize(pcap);
            assertEquals(2 * s.calls(), t.rpcordma(), t::toString);
            assertEquals(s.calls(), t.rpcCalls(), t::toString);
            assertEquals(s.calls(), t.rpcReplies(), t::toString);
            assertEquals(2, t.rdmaNomsg(), "the PZRC call and the Reply-chunk reply: " + t);
            assertEquals(0, t.rdmaError(), t::toString);
            assertTrue(t.nfs() >= 2 * s.calls() - 2, t::toString);
            assertEquals(0, t.malformed(), t::toString);
            assertEquals(0, t.warnings(), t::toString);
            // the chunk data went back into the messages: every READ with a Write chunk, the Read chunks, the PZRC,
            // the Reply chunk
            assertTrue(t.reassembled() >= 6, t::toString);
        }
    }
}
