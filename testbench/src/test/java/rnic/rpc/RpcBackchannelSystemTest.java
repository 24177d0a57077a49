package rnic.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import rnic.oncrpc.Auth;
import rnic.oncrpc.RpcClient;
import rnic.oncrpc.RpcServer;
import rnic.rpcrdma.Backchannel;
import rnic.rpcrdma.RdmaSegment;
import rnic.rpcrdma.RpcRdmaCall;
import rnic.rpcrdma.RpcRdmaConfig;
import rnic.rpcrdma.RpcRdmaException;
import rnic.rpcrdma.RpcRdmaHeader;
import rnic.rpcrdma.RpcRdmaRequester;
import rnic.rpcrdma.RpcRdmaResponder;
import rnic.rpcrdma.WriteChunk;
import rnic.sim.RnicSystem;
import rnic.xdr.XdrEncoder;

/**
 * The backchannel (RFC 8167) over the two simulated RNICs: the server calls a program the client serves, on the
 * connection the client's forward calls use, while those are in flight.
 *
 * <p>The upper layer announces support the way NFSv4.1 does with BIND_CONN_TO_SESSION: the client offers its
 * backchannel ({@link RpcRdmaRequester#serveBackchannel}) and then makes a forward call BIND(callback program,
 * version) to {@link #BIND_PROG}; the server's procedure for it calls
 * {@link RpcRdmaResponder#peerSupportsBackchannel()}.
 */
@Tag("verilator")
class RpcBackchannelSystemTest {
    static final Duration WAIT = Duration.ofMillis(20);
    /** The server's program the client announces its backchannel to (user-defined range of RFC 5531). */
    static final int BIND_PROG = 0x20000777;
    /** The client's callback program (transient range of RFC 5531), version 1; procedure 1: v → 3v + 1, xid. */
    static final int CB_PROG = 0x40000001;
    static final int CB_ECHO = 1;
    /** Procedure 2: 2000 octets of results, more than an inline backchannel reply can carry. */
    static final int CB_BIG = 2;
    static final int FIRST_XID = 0x500;
    /** Backchannel calls; their XIDs are FIRST_XID + 1 …, the same as those of the client's forward READs. */
    static final int BC_XIDS = 6;

    static RpcClient.Request bind() {
        return new RpcClient.Request(BIND_PROG, 1, 1, new XdrEncoder().int32(CB_PROG).int32(1)).maxResults(4);
    }

    static RpcRdmaCall echo(int xid, long v) {
        return RpcRdmaCall.of(RpcClient.message(xid, Auth.none(), new RpcClient.Request(CB_PROG, 1, CB_ECHO,
                new XdrEncoder().hyper(v))), RpcClient.REPLY_HEADER + 12);
    }

    /**
     * RPCRDMA-32: no backchannel call before the client said it supports them (refused locally; one sent anyway is
     * discarded by the client, which offered no backchannel yet); six backchannel
     * calls whose XIDs equal those of forward READs in flight, each matched to its own reply in both directions;
     * never more backchannel calls in flight than the client granted (2 against 4 asked, 1 before the first reply),
     * the forward grant untouched; a backchannel call with a Write chunk answered ERR_CHUNK octet for octet; a call
     * that would need a chunk refused locally; a reply too long for an inline backchannel answered ERR_CHUNK, which
     * ends that call at the server and returns its credit.
     */
    @Test
    void serverCallsTheClientsBackchannelWhileForwardCallsAreInFlight() {
        RpcRig.Flag done = new RpcRig.Flag();
        RpcRig.Flag listening = new RpcRig.Flag();
        RpcRig.Flag serverDone = new RpcRig.Flag();
        RpcRig.Flag rawSent = new RpcRig.Flag();
        RpcRig.Flag bcDone = new RpcRig.Flag();
        List<Integer> readsDone = new ArrayList<>();
        List<String> client = new ArrayList<>();
        List<String> server = new ArrayList<>();
        List<Integer> collisions = Collections.synchronizedList(new ArrayList<>());
        int disk = 64 * 1024;
        RpcRig.run("rpcBackchannel", 32, RnicSystem.builder(), t -> {
            try {
                while (!listening.getAsBoolean()) {
                    t.advance();
                }
                RpcHosts.Client c = RpcHosts.connect(t, RpcRdmaConfig.defaults().withBackchannelCredits(2));
                RpcRdmaRequester rq = c.requester();
                // a backchannel CALL before this side offered a backchannel is discarded, nothing answered
                while (!rawSent.getAsBoolean() || rq.discarded().isEmpty()) {
                    if (!rq.progress()) {
                        t.advance();
                    }
                }
                RpcClient rpc = new RpcClient(rq, Auth.none(), FIRST_XID);
                // forward READs under the six XIDs the server's backchannel calls use: each XID is reused as soon
                // as its READ returned, so forward calls of those XIDs are in flight all through the backchannel
                RpcRdmaRequester.Call[] reads = new RpcRdmaRequester.Call[BC_XIDS];
                RpcServer callbacks = new RpcServer().register(new RpcServer.Program(CB_PROG, 1, Map.of(CB_ECHO,
                        (ctx, args, res) -> {
                            // a backchannel XID that names a forward call still waiting for its reply
                            for (RpcRdmaRequester.Call f : reads) {
                                if (f != null && f.xid() == ctx.xid() && !f.isDone()) {
                                    collisions.add(ctx.xid());
                                }
                            }
                            res.hyper(3 * args.hyper() + 1).int32(ctx.xid());
                        }, CB_BIG, (ctx, args, res) -> res.opaque(new byte[2000])), false));
                rq.serveBackchannel(callbacks);
                rpc.call(bind(), WAIT);
                byte[] model = BlockService.pattern(disk, 3);
                int[] block = new int[BC_XIDS];
                int started = 0;
                int right = 0;
                long end = c.device().nanoTime() + Duration.ofMillis(100).toNanos();
                while (true) {
                    if (c.device().nanoTime() > end) {
                        throw new AssertionError("the server's backchannel phase did not end");
                    }
                    boolean more = !bcDone.getAsBoolean();
                    int busy = 0;
                    for (int k = 0; k < BC_XIDS; k++) {
                        if (reads[k] != null && reads[k].isDone()) {
                            int xid = FIRST_XID + 1 + k;
                            byte[] got = BlockService.readResult(RpcClient.results(xid, rq.await(reads[k], WAIT)));
                            assertArrayEquals(java.util.Arrays.copyOfRange(model, block[k] * 4096,
                                    block[k] * 4096 + 4096), got, "READ xid " + xid);
                            right++;
                            reads[k] = null;
                        }
                        if (reads[k] == null && more) {
                            RpcClient.Request q = BlockService.read((started % 16) * 4096L, 4096);
                            XdrEncoder m = rpc.message(FIRST_XID + 1 + k, q);
                            block[k] = started++ % 16;
                            reads[k] = rq.start(new RpcRdmaCall(m.toByteArray(), m.ddpItems(), q.writeChunks(),
                                    RpcClient.REPLY_HEADER + q.maxResults()));
                        }
                        busy += reads[k] == null ? 0 : 1;
                    }
                    if (!more && busy == 0) {
                        break;
                    }
                    if (!rq.progress()) {
                        t.advance();
                    }
                }
                client.add("forward: " + (started == right) + ", granted " + rq.granted() + ", max in flight "
                        + rq.maxInFlight());
                readsDone.add(right);
                while (!serverDone.getAsBoolean()) {
                    if (!rq.progress()) {
                        t.advance();
                    }
                }
                client.addAll(rq.backchannelLog());
                client.add("discarded " + rq.discarded() + ", broken " + rq.isBroken());
            } finally {
                done.set();
            }
        }, t -> {
            RpcRdmaConfig cfg = RpcRdmaConfig.defaults().withBackchannelCredits(4);
            RpcHosts.Server s = RpcHosts.serve(t, cfg, listening::set);
            try (rnic.verbs.Device dev = s.device()) {
                RpcRdmaResponder r = s.responder();
                try {
                    r.startBackchannel(echo(FIRST_XID, 1));
                    server.add("started before support");
                } catch (IllegalStateException e) {
                    server.add("before support: " + (e.getMessage().contains("RPCRDMA-32") ? "refused" : e));
                }
                // the same call sent anyway, as a peer that ignores the rule would: the client drops it
                byte[] early = echo(0x600, 1).message();
                r.sendRaw(RpcCreditSystemTest.cat(Backchannel.header(0x600, 4).encode(), early));
                rawSent.set();
                RpcServer rpc = new RpcServer().register(new BlockService(disk, 3).program())
                        .register(new RpcServer.Program(BIND_PROG, 1, Map.of(1, (ctx, args, res) -> {
                            int prog = args.int32();
                            args.int32();
                            if (prog == CB_PROG) {
                                r.peerSupportsBackchannel();
                            }
                            res.int32(0);
                        }), false));
                while (!r.backchannelSupported()) {
                    if (!r.serveOnce(rpc)) {
                        t.advance();
                    }
                }
                // the backchannel's XIDs are those of the client's forward READs: they collide on purpose
                List<RpcRdmaResponder.BackchannelCall> calls = new ArrayList<>();
                for (int i = 0; i < BC_XIDS; i++) {
                    calls.add(r.startBackchannel(echo(FIRST_XID + 1 + i, 100 + i)));
                }
                server.add("6 started: in flight " + r.backchannelInFlight() + ", queued " + r.backchannelQueued());
                for (int i = 0; i < calls.size(); i++) {
                    var d = RpcClient.results(calls.get(i).xid(), r.awaitBackchannel(calls.get(i), rpc, WAIT));
                    long v = d.hyper();
                    int seenXid = d.int32();
                    assertEquals(3 * (100 + i) + 1, v, "backchannel result " + i);
                    assertEquals(calls.get(i).xid(), seenXid);
                }
                bcDone.set();
                server.add("backchannel: granted " + r.backchannelGranted() + ", limit " + r.backchannelLimit()
                        + ", max in flight " + r.backchannelMaxInFlight());
                // inline only: a call that would need a Read chunk is refused before anything is sent
                try {
                    r.startBackchannel(RpcRdmaCall.of(RpcClient.message(0x900, Auth.none(), new RpcClient.Request(
                            CB_PROG, 1, CB_ECHO, new XdrEncoder().opaque(new byte[1000]))), 64));
                    server.add("long call sent");
                } catch (IllegalArgumentException e) {
                    server.add("long call: " + (e.getMessage().contains("inline only") ? "refused" : e));
                }
                // a reply the client cannot send inline: it answers ERR_CHUNK, which ends the call and frees its
                // credit (the credit value of an RDMA_ERROR is ignored: no msg_type tells its direction)
                RpcRdmaResponder.BackchannelCall big = r.startBackchannel(RpcRdmaCall.of(RpcClient.message(0x901,
                        Auth.none(), new RpcClient.Request(CB_PROG, 1, CB_BIG, new XdrEncoder())), 64));
                try {
                    r.awaitBackchannel(big, rpc, WAIT);
                    server.add("big replied");
                } catch (RpcRdmaException e) {
                    server.add("big: " + e.reason() + ", in flight " + r.backchannelInFlight() + ", granted "
                            + r.backchannelGranted());
                }
                // a backchannel call offering a Write chunk: the client answers ERR_CHUNK (RFC 8167)
                byte[] m = RpcClient.message(0x777, Auth.none(), new RpcClient.Request(CB_PROG, 1, CB_ECHO,
                        new XdrEncoder().hyper(5))).toByteArray();
                byte[] h = RpcRdmaHeader.msg(0x777, 4, List.of(), List.of(WriteChunk.of(new RdmaSegment(0x1234, 64,
                        0x1000))), null).encode();
                r.sendRaw(RpcCreditSystemTest.cat(h, m));
                byte[] err = r.receiveRaw(WAIT);
                server.add("chunk: " + java.util.HexFormat.of().formatHex(err));
                serverDone.set();
                r.serve(rpc, done);
            }
        });
        assertEquals(List.of("before support: refused", "6 started: in flight 1, queued 5",
                "backchannel: granted 2, limit 2, max in flight 2", "long call: refused",
                "big: ERR_CHUNK, in flight 0, granted 2",
                // xid 0x777, vers 1, credit 2 (the backchannel grant), RDMA_ERROR, ERR_CHUNK
                "chunk: 00000777" + "00000001" + "00000002" + "00000004" + "00000002"), server);
        List<String> want = new ArrayList<>();
        want.add("forward: true, granted 8, max in flight 6");
        for (int i = 0; i < BC_XIDS; i++) {
            want.add(String.format("xid 0x%08x replied", FIRST_XID + 1 + i));
        }
        want.add("xid 0x00000901 ERR_CHUNK: a reply of 2028 octets would need a Reply chunk");
        want.add("xid 0x00000777 ERR_CHUNK: chunks in the backchannel (RFC 8167)");
        want.add("discarded [backchannel call xid 0x00000600 while no backchannel was offered (RPCRDMA-32)],"
                + " broken false");
        assertEquals(want, client);
        System.out.println("forward READs: " + readsDone + "; backchannel XIDs that arrived while the forward call"
                + " of the same XID was in flight: " + collisions);
        assertTrue(collisions.size() >= BC_XIDS / 2, "too few backchannel calls met a forward call of their XID in"
                + " flight: " + collisions);
        assertTrue(readsDone.get(0) >= 2 * BC_XIDS, "forward READs " + readsDone);
    }
}
