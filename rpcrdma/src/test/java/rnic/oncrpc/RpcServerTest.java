package rnic.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import rnic.rpcrdma.RpcRdmaResponder;
import rnic.xdr.XdrEncoder;

/**
 * The ONC RPC server's dispatch and every accept/reject outcome (RFC 5531 §9), against reply octets written out by
 * hand from RFC 5531's XDR: xid, REPLY (1), MSG_ACCEPTED (0) + verifier AUTH_NONE (0, 0) + accept_stat [+ body], or
 * MSG_DENIED (1) + reject_stat + body.
 */
class RpcServerTest {
    static final int PROG = 0x20000001;
    static final int XID = 0x01020304;

    static RpcServer server() {
        return new RpcServer()
                .register(new RpcServer.Program(PROG, 2, Map.of(
                        0, (c, a, r) -> { },
                        1, (c, a, r) -> r.int32(a.int32() + 1),
                        2, (c, a, r) -> r.ddpOpaque(a.ddpOpaque(100)),
                        3, (c, a, r) -> {
                            throw new IllegalStateException("boom");
                        }), false))
                .register(new RpcServer.Program(PROG, 4, Map.of(0, (c, a, r) -> r.int32(c.sys().uid())), true));
    }

    static byte[] call(int rpcvers, int prog, int vers, int proc, Auth cred, XdrEncoder args) {
        XdrEncoder e = new XdrEncoder().int32(XID).int32(0).int32(rpcvers).int32(prog).int32(vers).int32(proc);
        e.int32(cred.flavor()).opaque(cred.body()).int32(0).int32(0);
        return e.append(args).toByteArray();
    }

    static String reply(byte[] call, List<Integer> readChunks) {
        RpcRdmaResponder.Outcome o = server().handle(new RpcRdmaResponder.IncomingCall(XID, call, readChunks, null));
        assertNotNull(o.reply(), "an RPC reply, not a transport error: " + o.errChunk());
        return HexFormat.of().formatHex(o.reply().toByteArray());
    }

    static final String ACCEPTED = "01020304" + "00000001" + "00000000" + "00000000" + "00000000";

    /** RPCRDMA-01: the RPC message the transport carries starts with the XID; dispatch by program/version/procedure. */
    @Test
    void successWithResults() {
        assertEquals(ACCEPTED + "00000000" + "0000002b",
                reply(call(2, PROG, 2, 1, Auth.none(), new XdrEncoder().int32(0x2a)), List.of()));
    }

    @Test
    void rpcVersionMismatchIsDenied() {
        assertEquals("01020304" + "00000001" + "00000001" + "00000000" + "00000002" + "00000002",
                reply(call(3, PROG, 2, 0, Auth.none(), new XdrEncoder()), List.of()));
    }

    @Test
    void unknownProgramVersionProcedure() {
        assertEquals(ACCEPTED + "00000001", reply(call(2, PROG + 1, 2, 0, Auth.none(), new XdrEncoder()), List.of()));
        assertEquals(ACCEPTED + "00000002" + "00000002" + "00000004",
                reply(call(2, PROG, 3, 0, Auth.none(), new XdrEncoder()), List.of()), "PROG_MISMATCH 2 … 4");
        assertEquals(ACCEPTED + "00000003", reply(call(2, PROG, 2, 9, Auth.none(), new XdrEncoder()), List.of()));
    }

    /** RPCRDMA-27: a valid transport header with arguments that do not parse gets GARBAGE_ARGS. */
    @Test
    void garbageArgumentsAndSystemError() {
        assertEquals(ACCEPTED + "00000004", reply(call(2, PROG, 2, 1, Auth.none(), new XdrEncoder()), List.of()));
        byte[] cut = java.util.Arrays.copyOf(call(2, PROG, 2, 0, Auth.none(), new XdrEncoder()), 20);
        assertEquals(ACCEPTED + "00000004", reply(cut, List.of()), "a call header cut short");
        assertEquals(ACCEPTED + "00000005", reply(call(2, PROG, 2, 3, Auth.none(), new XdrEncoder()), List.of()));
    }

    /**
     * AUTH_SYS decoded and handed to the procedure; bad credentials and too weak ones are AUTH_ERROR. RPCRDMA-33:
     * RPCSEC_GSS is refused, so no GSS-protected item is ever reduced.
     */
    @Test
    void authentication() {
        Auth sys = Auth.sys(new Auth.Sys(7, "host", 1234, 100, List.of(1, 2)));
        assertEquals("00000007" + "00000004" + "686f7374" + "000004d2" + "00000064" + "00000002" + "00000001"
                + "00000002", HexFormat.of().formatHex(sys.body()), "authsys_parms (RFC 5531 Appendix A)");
        assertEquals(ACCEPTED + "00000000" + "000004d2", reply(call(2, PROG, 4, 0, sys, new XdrEncoder()), List.of()));
        String denied = "01020304" + "00000001" + "00000001" + "00000001";
        assertEquals(denied + "00000005", reply(call(2, PROG, 4, 0, Auth.none(), new XdrEncoder()), List.of()),
                "AUTH_TOOWEAK");
        assertEquals(denied + "00000001", reply(call(2, PROG, 2, 0, new Auth(Auth.AUTH_SYS, new byte[] {0, 0, 0, 1}),
                new XdrEncoder()), List.of()), "AUTH_BADCRED: a body that is no authsys_parms");
        assertEquals(denied + "00000001", reply(call(2, PROG, 2, 0, new Auth(Auth.RPCSEC_GSS, new byte[0]),
                new XdrEncoder()), List.of()), "AUTH_BADCRED: RPCSEC_GSS is not offered (RPCRDMA-33)");
    }

    /** RPCRDMA-22, RPCRDMA-23: a Read chunk must sit where the procedure reads a DDP-eligible item. */
    @Test
    void readChunkAtANonEligibleItemIsErrChunk() {
        byte[] ok = call(2, PROG, 2, 2, Auth.none(), new XdrEncoder().ddpOpaque(new byte[] {1, 2, 3}));
        int eligibleAt = ok.length - 4; // the data of the 3-octet opaque: its last unit, after the count word
        assertEquals(ACCEPTED + "00000000" + "00000003" + "01020300", reply(ok, List.of(eligibleAt)));
        byte[] wrong = call(2, PROG, 2, 1, Auth.none(), new XdrEncoder().int32(5));
        RpcRdmaResponder.Outcome o = server().handle(new RpcRdmaResponder.IncomingCall(XID, wrong,
                List.of(wrong.length - 4), null));
        assertNull(o.reply());
        assertNotNull(o.errChunk());
    }

    /** RPCRDMA-35: the netids and the NFS/RDMA port (the demo's service listens on 20049). */
    @Test
    void registryValues() {
        assertEquals("rdma", Rpc.NETID_RDMA);
        assertEquals("rdma6", Rpc.NETID_RDMA6);
        assertEquals(20049, Rpc.NFS_RDMA_PORT);
    }
}
