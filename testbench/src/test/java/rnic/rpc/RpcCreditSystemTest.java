package rnic.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import rnic.oncrpc.Auth;
import rnic.oncrpc.RpcClient;
import rnic.oncrpc.RpcServer;
import rnic.rpcrdma.RdmaSegment;
import rnic.rpcrdma.ReadSegment;
import rnic.rpcrdma.RpcRdmaConfig;
import rnic.rpcrdma.RpcRdmaException;
import rnic.rpcrdma.RpcRdmaHeader;
import rnic.rpcrdma.RpcRdmaRequester;
import rnic.rpcrdma.WriteChunk;
import rnic.sim.RnicSystem;
import rnic.xdr.XdrEncoder;

/**
 * Credits and the requester's side of RFC 8166 §4.5, over the two simulated RNICs: one call until the first reply
 * told the grant, never more in flight than granted, recovery once replies return; and a responder that misbehaves
 * on purpose (it answers with crafted octets) to show what the requester discards and what ends a call.
 */
@Tag("verilator")
class RpcCreditSystemTest {
    static final Duration WAIT = Duration.ofMillis(4);

    /** RPCRDMA-05, RPCRDMA-06: credit exhaustion and recovery with a grant of 2 against a request of 6. */
    @Test
    void callsInFlightNeverExceedTheGrant() {
        RpcRig.Flag done = new RpcRig.Flag();
        RpcRig.Flag listening = new RpcRig.Flag();
        List<String> seen = new ArrayList<>();
        RpcRig.run("rpcCredits", 21, RnicSystem.builder(), t -> {
            try {
                while (!listening.getAsBoolean()) {
                    t.advance();
                }
                RpcHosts.Client c = RpcHosts.connect(t, RpcRdmaConfig.defaults().withCredits(6));
                RpcRdmaRequester rq = c.requester();
                RpcClient rpc = new RpcClient(rq, Auth.none(), 100);
                RpcClient.Pending first = rpc.start(BlockService.nullCall());
                RpcClient.Pending second = rpc.start(BlockService.nullCall());
                seen.add("before the first reply: granted " + rq.granted() + ", in flight " + rq.inFlight()
                        + ", queued " + rq.queued());
                rpc.await(first, WAIT);
                rpc.await(second, WAIT);
                seen.add("granted " + rq.granted() + ", limit " + rq.creditLimit());
                byte[] model = BlockService.pattern(64 * 1024, 2);
                List<RpcClient.Pending> ps = new ArrayList<>();
                int most = 0;
                for (int i = 0; i < 10; i++) {
                    ps.add(rpc.start(BlockService.read(i * 4096L, 4096)));
                    most = Math.max(most, rq.inFlight());
                }
                seen.add("10 started: in flight " + rq.inFlight() + ", queued " + rq.queued());
                for (int i = 0; i < 10; i++) {
                    byte[] got = BlockService.readResult(rpc.await(ps.get(i), WAIT).results());
                    assertArrayEquals(java.util.Arrays.copyOfRange(model, i * 4096, i * 4096 + 4096), got);
                    most = Math.max(most, rq.inFlight());
                }
                seen.add("done: max in flight " + rq.maxInFlight() + ", queued " + rq.queued() + ", in flight "
                        + rq.inFlight());
            } finally {
                done.set();
            }
        }, t -> {
            RpcHosts.Server s = RpcHosts.serve(t, RpcRdmaConfig.defaults().withCredits(2), listening::set);
            try (rnic.verbs.Device dev = s.device()) {
                s.responder().serve(new RpcServer().register(new BlockService(64 * 1024, 2).program()), done);
            }
        });
        assertEquals(List.of("before the first reply: granted 1, in flight 1, queued 1", "granted 2, limit 2",
                "10 started: in flight 2, queued 8", "done: max in flight 2, queued 0, in flight 0"), seen);
    }

    static byte[] nullReply(int xid) {
        return new XdrEncoder().int32(xid).int32(1).int32(0).int32(0).int32(0).int32(0).toByteArray();
    }

    static byte[] cat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    static int xidOf(byte[] m) {
        return (m[0] & 0xFF) << 24 | (m[1] & 0xFF) << 16 | (m[2] & 0xFF) << 8 | m[3] & 0xFF;
    }

    /**
     * RPCRDMA-05 (a grant of 0 is taken as 1), RPCRDMA-16 (segment count changed), RPCRDMA-23 (result inline
     * although a Write chunk was there), RPCRDMA-24 (RDMA_ERROR ends the call; a bad reply is dropped), RPCRDMA-25
     * (ERR_VERS with any rdma_vers, trap T-47), RPCRDMA-30 (MSGP and DONE dropped), RPCRDMA-31 (regions fenced by
     * Local Invalidate when the responder did not invalidate), RPCRDMA-36 (a reply with a Read list dropped).
     */
    @Test
    void requesterDiscardsAndPermanentErrors() {
        RpcRig.Flag done = new RpcRig.Flag();
        RpcRig.Flag listening = new RpcRig.Flag();
        List<String> seen = new ArrayList<>();
        RpcRig.run("rpcDiscards", 22, RnicSystem.builder(), t -> {
            try {
                while (!listening.getAsBoolean()) {
                    t.advance();
                }
                RpcHosts.Client c = RpcHosts.connect(t, RpcRdmaConfig.defaults());
                RpcRdmaRequester rq = c.requester();
                RpcClient rpc = new RpcClient(rq, Auth.none(), 0x100);
                rpc.call(BlockService.nullCall(), WAIT);
                seen.add("granted " + rq.granted());
                seen.addAll(rq.discarded());
                RpcRdmaException e1 = assertThrows(RpcRdmaException.class,
                        () -> rpc.call(BlockService.nullCall(), WAIT));
                seen.add(e1.reason().toString());
                RpcRdmaException e2 = assertThrows(RpcRdmaException.class,
                        () -> rpc.call(BlockService.nullCall(), WAIT));
                seen.add(e2.reason().toString());
                RpcRdmaException e3 = assertThrows(RpcRdmaException.class,
                        () -> rpc.call(BlockService.read(0, 4096), WAIT));
                seen.add(e3.reason().toString());
                // the upper layer's decoder refuses the result: the RPC ends with a permanent error
                rnic.xdr.XdrException e4 = assertThrows(rnic.xdr.XdrException.class,
                        () -> BlockService.readResult(rpc.call(BlockService.read(0, 4096), WAIT).results()));
                seen.add("XDR " + (e4.getMessage().contains("RPCRDMA-23") ? "RPCRDMA-23" : e4.getMessage()));
                seen.add("local invalidates " + rq.localInvalidates() + ", broken " + rq.isBroken());
                seen.add("null " + (rpc.call(BlockService.nullCall(), WAIT).results().remaining() == 0));
            } finally {
                done.set();
            }
        }, t -> {
            RpcHosts.Server s = RpcHosts.serve(t, RpcRdmaConfig.defaults(), listening::set);
            try (rnic.verbs.Device dev = s.device()) {
                var r = s.responder();
                // call 1: everything a requester must drop, then a valid reply granting 0
                int x = xidOf(r.receiveRaw(WAIT));
                r.sendRaw(cat(RpcRdmaHeader.raw(x, 1, 8, 3).encode(), new byte[12]));              // RDMA_DONE
                r.sendRaw(cat(new RpcRdmaHeader(x, 1, 8, 2, List.of(), List.of(), null, 0, 0, 0, 4, 1024).encode(),
                        nullReply(x)));                                                             // RDMA_MSGP
                r.sendRaw(cat(RpcRdmaHeader.msg(x, 8, List.of(new ReadSegment(0, new RdmaSegment(1, 4, 0))),
                        List.of(), null).encode(), nullReply(x)));                                  // a Read list
                r.sendRaw(cat(RpcRdmaHeader.msg(x, 8, List.of(), List.of(), null).encode(), nullReply(x + 1)));
                r.sendRaw(cat(RpcRdmaHeader.msg(x + 77, 8, List.of(), List.of(), null).encode(), nullReply(x + 77)));
                r.sendRaw(java.util.Arrays.copyOf(RpcRdmaHeader.msg(x, 8, List.of(), List.of(), null).encode(), 24));
                r.sendRaw(cat(RpcRdmaHeader.msg(x, 0, List.of(), List.of(), null).encode(), nullReply(x)));
                // call 2: ERR_CHUNK; call 3: ERR_VERS carrying rdma_vers 2
                x = xidOf(r.receiveRaw(WAIT));
                r.sendRaw(RpcRdmaHeader.errChunk(x, 1, 8).encode());
                x = xidOf(r.receiveRaw(WAIT));
                r.sendRaw(RpcRdmaHeader.errVers(x, 2, 8).encode());
                // call 4: a READ with a Write chunk: the chunk returned with another segment count
                byte[] m = r.receiveRaw(WAIT);
                RpcRdmaHeader h = RpcRdmaHeader.decode(m, 0, m.length).header();
                WriteChunk w = h.writeList().get(0);
                List<RdmaSegment> more = new ArrayList<>(w.segments());
                more.add(new RdmaSegment(w.segments().get(0).handle(), 0, 0));
                r.sendRaw(cat(RpcRdmaHeader.msg(h.xid(), 8, List.of(), List.of(new WriteChunk(more)), null).encode(),
                        nullReply(h.xid())));
                // call 5: the result inline although the Write chunk was there (unused, lengths 0)
                m = r.receiveRaw(WAIT);
                h = RpcRdmaHeader.decode(m, 0, m.length).header();
                byte[] res = new XdrEncoder().int32(h.xid()).int32(1).int32(0).int32(0).int32(0).int32(0)
                        .int32(0).bool(false).int32(8).bool(false).opaque(new byte[8]).toByteArray();
                r.sendRaw(cat(RpcRdmaHeader.msg(h.xid(), 8, List.of(), List.of(h.writeList().get(0).filled(0)),
                        null).encode(), res));
                // call 6: served normally
                r.serve(new RpcServer().register(new BlockService(4096, 1).program()), done);
            }
        });
        assertEquals(List.of("granted 1",
                "RDMA_DONE (RPCRDMA-30)", "RDMA_MSGP (RPCRDMA-30)", "reply with a Read list (RPCRDMA-36)",
                "RDMA_MSG reply whose RPC XID differs from rdma_xid (RPCRDMA-03)", "reply for unknown xid 0x0000014d",
                "undecodable: message of 24 octets, under the 28 of a minimal header",
                "xid 0x00000100 granted 0 credits: taken as 1 (RPCRDMA-05)",
                "ERR_CHUNK", "ERR_VERS", "BAD_REPLY", "XDR RPCRDMA-23", "local invalidates 2, broken false",
                "null true"), seen);
    }

    /**
     * RPCRDMA-29, RPCRDMA-31 (requester half): the reply to one call comes with a Send with Invalidate of a handle
     * that belongs to another call still in flight. The requester cannot tell that its memory is fenced as it should
     * be, so it closes the connection: its queue pair goes to ERR and the other call ends with a connection error.
     */
    @Test
    void aFenceThatCannotBeTrustedClosesTheConnection() {
        RpcRig.Flag done = new RpcRig.Flag();
        RpcRig.Flag listening = new RpcRig.Flag();
        List<String> seen = new ArrayList<>();
        RpcRig.run("rpcFence", 23, RnicSystem.builder(), t -> {
            try {
                while (!listening.getAsBoolean()) {
                    t.advance();
                }
                RpcHosts.Client c = RpcHosts.connect(t, RpcRdmaConfig.defaults());
                RpcRdmaRequester rq = c.requester();
                RpcClient rpc = new RpcClient(rq, Auth.none(), 0x200);
                rpc.call(BlockService.nullCall(), WAIT);
                RpcClient.Pending a = rpc.start(BlockService.read(0, 4096));
                RpcClient.Pending b = rpc.start(BlockService.read(4096, 4096));
                try {
                    rpc.await(a, WAIT);
                    seen.add("a returned");
                } catch (RpcRdmaException e) {
                    seen.add("a " + e.reason());
                }
                RpcRdmaException eb = assertThrows(RpcRdmaException.class, () -> rpc.await(b, WAIT));
                seen.add("b " + eb.reason());
                seen.add("broken " + rq.isBroken() + ", QP " + c.qp().state());
            } finally {
                done.set();
            }
        }, t -> {
            RpcHosts.Server s = RpcHosts.serve(t, RpcRdmaConfig.defaults(), listening::set);
            try (rnic.verbs.Device dev = s.device()) {
                var r = s.responder();
                byte[] m = r.receiveRaw(WAIT);
                int x = xidOf(m);
                r.sendRaw(cat(RpcRdmaHeader.msg(x, 8, List.of(), List.of(), null).encode(), nullReply(x)));
                byte[] ma = r.receiveRaw(WAIT);
                byte[] mb = r.receiveRaw(WAIT);
                RpcRdmaHeader ha = RpcRdmaHeader.decode(ma, 0, ma.length).header();
                RpcRdmaHeader hb = RpcRdmaHeader.decode(mb, 0, mb.length).header();
                // a's reply, with its Write chunk returned unused, invalidating b's Write chunk
                byte[] res = new XdrEncoder().int32(ha.xid()).int32(1).int32(0).int32(0).int32(0).int32(0)
                        .int32(BlockService.NFS3ERR_IO).bool(false).toByteArray();
                r.sendRaw(cat(RpcRdmaHeader.msg(ha.xid(), 8, List.of(), List.of(ha.writeList().get(0).filled(0)),
                        null).encode(), res), hb.writeList().get(0).segments().get(0).handle());
                while (!done.getAsBoolean()) {
                    t.advance();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals(List.of("a returned", "b CONNECTION", "broken true, QP ERR"), seen);
    }
}
