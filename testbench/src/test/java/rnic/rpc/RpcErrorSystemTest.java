package rnic.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import rnic.oncrpc.Auth;
import rnic.oncrpc.RpcClient;
import rnic.oncrpc.RpcException;
import rnic.oncrpc.RpcServer;
import rnic.rpcrdma.RpcRdmaCall;
import rnic.rpcrdma.RpcRdmaConfig;
import rnic.rpcrdma.RpcRdmaException;
import rnic.rpcrdma.RpcRdmaReply;
import rnic.rpcrdma.RpcRdmaRequester;
import rnic.rpcrdma.RpcRdmaResponder;
import rnic.sim.RnicSystem;
import rnic.xdr.DdpItem;
import rnic.xdr.XdrEncoder;

/**
 * Every error a responder answers, over the two simulated RNICs: the requester sends headers octet for octet and
 * checks the exact RDMA_ERROR that comes back (docs/requirements.md §5.3 examples 5 and 6, §5.4), or that nothing
 * comes back, then that the connection still serves calls; then the RPC-level outcomes over the wire; last an RDMA
 * Read of a handle that does not exist, which ends the connection (RPCRDMA-28).
 */
@Tag("verilator")
class RpcErrorSystemTest {
    static final Duration WAIT = Duration.ofMillis(2);
    static final Duration SILENCE = Duration.ofNanos(40_000);
    static final int GRANT = 8;

    static byte[] words(String s) {
        return HexFormat.of().parseHex(s.replaceAll("[^0-9a-fA-F]", ""));
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    /** A whole message: header words then a minimal RPC call (NULL of the block service) with {@code rpcXid}. */
    static byte[] withCall(String header, int rpcXid) {
        XdrEncoder e = new XdrEncoder().opaqueFixed(words(header)).int32(rpcXid).int32(0).int32(2)
                .int32(BlockService.PROGRAM).int32(BlockService.VERSION).int32(0).int32(0).int32(0).int32(0).int32(0);
        return e.toByteArray();
    }

    final List<String> log = new ArrayList<>();
    final List<RpcRdmaResponder.Served> served = new ArrayList<>();
    final List<Integer> failedXids = new ArrayList<>();
    boolean serverBroken;
    rnic.wire.QpState serverQpState;

    void server(rnic.transport.Transport t, RpcRig.Flag done, RpcRig.Flag listening) {
        RpcHosts.Server s = RpcHosts.serve(t, RpcRdmaConfig.defaults(), listening::set);
        try (rnic.verbs.Device dev = s.device()) {
            RpcServer rpc = new RpcServer().register(new BlockService(64 * 1024, 1).program());
            s.responder().serve(rpc, done);
            served.addAll(s.responder().served());
            failedXids.addAll(s.responder().failedXids());
            serverBroken = s.responder().isBroken();
            serverQpState = s.qp().state();
        }
    }

    /** Sends {@code message} raw and returns the reply's octets (header and payload), or null if none came. */
    static String exchange(RpcRdmaRequester rq, int xid, byte[] message, Duration wait) {
        RpcRdmaRequester.Call c = rq.sendRaw(xid, message);
        try {
            RpcRdmaReply r = rq.await(c, wait);
            return hex(r.message());
        } catch (RpcRdmaException e) {
            assertEquals(RpcRdmaException.Reason.TIMEOUT, e.reason(), e.getMessage());
            return null;
        }
    }

    /**
     * RPCRDMA-03, RPCRDMA-04, RPCRDMA-09, RPCRDMA-11, RPCRDMA-14, RPCRDMA-21, RPCRDMA-23, RPCRDMA-24, RPCRDMA-25,
     * RPCRDMA-26, RPCRDMA-27, RPCRDMA-28, RPCRDMA-29, RPCRDMA-30, RPCRDMA-34: the exact error replies and the silent
     * discards; no extension header types exist (RPCRDMA-34: an undefined proc is ERR_CHUNK).
     */
    @Test
    void everyErrorReply() {
        RpcRig.Flag done = new RpcRig.Flag();
        RpcRig.Flag listening = new RpcRig.Flag();
        List<String> checks = new ArrayList<>();
        RpcRig.run("rpcErrors", 11, RnicSystem.builder(), t -> {
            try {
                while (!listening.getAsBoolean()) {
                    t.advance();
                }
                RpcHosts.Client c = RpcHosts.connect(t, RpcRdmaConfig.defaults());
                RpcRdmaRequester rq = c.requester();
                RpcClient rpc = new RpcClient(rq, Auth.none(), 0x7000);
                rpc.call(BlockService.nullCall(), WAIT); // learn the grant first (RPCRDMA-06)
                String grant = String.format("%08x", GRANT);
                // RPCRDMA-04/25: vers 2 → ERR_VERS echoing xid and vers, range 1..1 (§5.3 example 5)
                checks.add(exchange(rq, 0x1a2b3c4d, withCall("1a2b3c4d 00000002 00000004 00000000 00000000 00000000"
                        + " 00000000", 0x1a2b3c4d), WAIT) + " vers2");
                // RPCRDMA-09/26: undefined proc 5 → ERR_CHUNK (§5.3 example 6)
                checks.add(exchange(rq, 0x1a2b3c4e, withCall("1a2b3c4e 00000001 00000004 00000005 00000000 00000000"
                        + " 00000000", 0x1a2b3c4e), WAIT) + " proc5");
                // RPCRDMA-30: RDMA_MSGP → ERR_CHUNK
                checks.add(exchange(rq, 0x1a2b3c4f, withCall("1a2b3c4f 00000001 00000004 00000002 00000004 00000400"
                        + " 00000000 00000000 00000000", 0x1a2b3c4f), WAIT) + " msgp");
                // RPCRDMA-11: RDMA_NOMSG without chunks → ERR_CHUNK
                checks.add(exchange(rq, 0x1a2b3c50, words("1a2b3c50 00000001 00000004 00000001 00000000 00000000"
                        + " 00000000"), WAIT) + " nomsg");
                // RPCRDMA-03: RPC XID differs from rdma_xid → ERR_CHUNK
                checks.add(exchange(rq, 0x1a2b3c51, withCall("1a2b3c51 00000001 00000004 00000000 00000000 00000000"
                        + " 00000000", 0x0badbad0), WAIT) + " xid");
                // RPCRDMA-14: Position 0x66, not a multiple of 4 → ERR_CHUNK before any RDMA Read
                checks.add(exchange(rq, 0x1a2b3c52, withCall("1a2b3c52 00000001 00000004 00000000 00000001 00000066"
                        + " 00001111 00000008 00000000 10000000 00000000 00000000 00000000", 0x1a2b3c52), WAIT)
                        + " pos");
                // RPCRDMA-26: a Write list cut short → ERR_CHUNK
                checks.add(exchange(rq, 0x1a2b3c53, words("1a2b3c53 00000001 00000004 00000000 00000000 00000001"
                        + " 00000003 00000001"), WAIT) + " cut");
                // RPCRDMA-24/30: RDMA_DONE, an RDMA_ERROR sent to a responder, a message under 28 octets: no reply
                checks.add(exchange(rq, 0x1a2b3c54, words("1a2b3c54 00000001 00000004 00000003 00000000 00000000"
                        + " 00000000"), SILENCE) + " done");
                checks.add(exchange(rq, 0x1a2b3c55, words("1a2b3c55 00000001 00000004 00000004 00000002 00000000"
                        + " 00000000"), SILENCE) + " error");
                checks.add(exchange(rq, 0x1a2b3c56, words("1a2b3c56 00000001 00000004 00000000 00000000 00000000"),
                        SILENCE) + " short");
                // RPCRDMA-21: the count left inline says 1496, the Read chunk holds 1500 → ERR_CHUNK
                XdrEncoder m = rpc.message(0x1a2b3c57, BlockService.write(0, new byte[1500]));
                byte[] msg = m.toByteArray();
                DdpItem item = m.ddpItems().get(0);
                msg[item.position() - 2] = 0x05;
                msg[item.position() - 1] = (byte) 0xd8;
                RpcRdmaRequester.Call cc = rq.start(new RpcRdmaCall(msg, List.of(item), List.of(), 64));
                checks.add(errorOf(rq, cc) + " count");
                // RPCRDMA-23: LOOKUP's name (not DDP-eligible) sent in a Read chunk → ERR_CHUNK
                XdrEncoder w = rpc.message(0x1a2b3c58, BlockService.lookup("n".repeat(1500)));
                int nameData = 40 + 4 + BlockService.FH.length + 4; // call header, handle, the name's count word
                RpcRdmaRequester.Call ce = rq.start(new RpcRdmaCall(w.toByteArray(), List.of(new DdpItem(nameData,
                        1500)), List.of(), 64));
                checks.add(errorOf(rq, ce) + " eligible");
                // the connection still serves: RPC-level outcomes over the wire (RPCRDMA-27 GARBAGE_ARGS)
                RpcException e1 = assertThrows(RpcException.class, () -> rpc.call(new RpcClient.Request(
                        BlockService.PROGRAM, BlockService.VERSION, BlockService.READ, new XdrEncoder().opaque(
                                BlockService.FH)), WAIT));
                checks.add(e1.kind() + " garbage");
                RpcException e2 = assertThrows(RpcException.class, () -> rpc.call(new RpcClient.Request(
                        BlockService.PROGRAM, 4, 0, new XdrEncoder()), WAIT));
                checks.add(e2.kind() + " " + e2.low() + ".." + e2.high());
                RpcException e3 = assertThrows(RpcException.class, () -> rpc.call(new RpcClient.Request(
                        BlockService.PROGRAM, BlockService.VERSION, 99, new XdrEncoder()), WAIT));
                checks.add(e3.kind().toString());
                RpcException e4 = assertThrows(RpcException.class, () -> rpc.call(new RpcClient.Request(100005, 3, 0,
                        new XdrEncoder()), WAIT));
                checks.add(e4.kind().toString());
                checks.add("null " + (rpc.call(BlockService.nullCall(), WAIT).results().remaining() == 0));
                checks.add("discarded " + rq.discarded());
                // RPCRDMA-28: a Read chunk naming a handle that does not exist: the RDMA Read fails, the connection
                // ends (the requester's RNIC answers the Read Request with a Terminate)
                RpcRdmaException gone = assertThrows(RpcRdmaException.class, () -> rq.await(rq.sendRaw(0x1a2b3c59,
                        withCall("1a2b3c59 00000001 00000004 00000000 00000001 00000028 00dead01 00000008 00000001"
                                + " 00000000 00000000 00000000 00000000", 0x1a2b3c59)), WAIT));
                checks.add(gone.reason().toString());
            } finally {
                done.set();
            }
        }, t -> server(t, done, listening));

        String g = String.format("%08x", GRANT);
        assertEquals(List.of(
                "1a2b3c4d00000002" + g + "00000004000000010000000100000001 vers2",
                "1a2b3c4e00000001" + g + "0000000400000002 proc5",
                "1a2b3c4f00000001" + g + "0000000400000002 msgp",
                "1a2b3c5000000001" + g + "0000000400000002 nomsg",
                "1a2b3c5100000001" + g + "0000000400000002 xid",
                "1a2b3c5200000001" + g + "0000000400000002 pos",
                "1a2b3c5300000001" + g + "0000000400000002 cut",
                "null done", "null error", "null short",
                "ERR_CHUNK count", "ERR_CHUNK eligible",
                "GARBAGE_ARGS garbage", "PROG_MISMATCH 3..3", "PROC_UNAVAIL", "PROG_UNAVAIL", "null true",
                "discarded []", "CONNECTION"), checks);
        List<String> outcomes = served.stream().map(RpcRdmaResponder.Served::outcome).toList();
        assertTrue(outcomes.stream().anyMatch(o -> o.startsWith("discarded: RDMA_DONE")), outcomes::toString);
        assertTrue(outcomes.stream().anyMatch(o -> o.startsWith("discarded: a responder discards RDMA_ERROR")),
                outcomes::toString);
        assertTrue(outcomes.stream().anyMatch(o -> o.startsWith("discarded: message of 24 octets")),
                outcomes::toString);
        // no RDMA operation for a call refused at its header
        for (RpcRdmaResponder.Served v : served) {
            if (v.outcome().startsWith("ERR_") && !v.outcome().contains("RPCRDMA-21")
                    && !v.outcome().contains("RPCRDMA-23")) {
                assertEquals(0, v.reads() + v.writes(), v.toString());
            }
        }
        assertTrue(failedXids.contains(0x1a2b3c59), "RPCRDMA-28: the failed xid is remembered: " + failedXids);
        assertTrue(serverBroken);
        // RPCRDMA-29 (responder half): a call it cannot finish leaves the connection closed, not half-used
        assertEquals(rnic.wire.QpState.ERR, serverQpState);
    }

    private static String errorOf(RpcRdmaRequester rq, RpcRdmaRequester.Call c) {
        RpcRdmaException e = assertThrows(RpcRdmaException.class, () -> rq.await(c, WAIT));
        assertFalse(rq.isBroken());
        return e.reason().toString();
    }
}
