package rnic.oncrpc;

import java.time.Duration;
import java.util.List;
import rnic.rpcrdma.RpcRdmaCall;
import rnic.rpcrdma.RpcRdmaReply;
import rnic.rpcrdma.RpcRdmaRequester;
import rnic.xdr.XdrDecoder;
import rnic.xdr.XdrEncoder;
import rnic.xdr.XdrException;

/**
 * An ONC RPC client (RFC 5531) over an RPC-over-RDMA requester: builds the call header (fresh XID, rpcvers 2,
 * program, version, procedure, credential, AUTH_NONE verifier), hands the call to the transport, matches the reply by
 * XID and turns every non-SUCCESS outcome into an {@link RpcException}.
 *
 * <pre>{@code
 * RpcClient client = new RpcClient(requester, Auth.none(), 0x1000);
 * RpcClient.Result r = client.call(new RpcClient.Request(PROG, 1, 1, args).maxReply(64), Duration.ofMillis(2));
 * int status = r.results().int32();
 * }</pre>
 */
public final class RpcClient {
    /**
     * A call to make: program, version, procedure, the encoded arguments (DDP-eligible items marked), the Write chunk
     * capacities for the DDP-eligible results, and the largest reply (results plus 24 octets of reply header).
     */
    public record Request(int program, int version, int procedure, XdrEncoder args, List<Integer> writeChunks,
            int maxResults) {
        public Request(int program, int version, int procedure, XdrEncoder args) {
            this(program, version, procedure, args, List.of(), 0);
        }

        public Request writeChunks(Integer... capacities) {
            return new Request(program, version, procedure, args, List.of(capacities), maxResults);
        }

        /** The largest results (without the reply header), for the Reply chunk decision (RPCRDMA-19). */
        public Request maxResults(int n) {
            return new Request(program, version, procedure, args, writeChunks, n);
        }
    }

    /** A call on its way. */
    public record Pending(int xid, RpcRdmaRequester.Call transport) {
    }

    /** A successful call: the decoder stands at the procedure's results. */
    public record Result(int xid, XdrDecoder results, RpcRdmaReply reply, RpcRdmaRequester.Call transport) {
    }

    /** Octets of an accepted reply before the results: xid, REPLY, MSG_ACCEPTED, verifier (8), accept_stat. */
    public static final int REPLY_HEADER = 24;

    private final RpcRdmaRequester requester;
    private final Auth credential;
    private int nextXid;

    public RpcClient(RpcRdmaRequester requester, Auth credential, int firstXid) {
        this.requester = requester;
        this.credential = credential;
        this.nextXid = firstXid;
    }

    public RpcRdmaRequester requester() {
        return requester;
    }

    /** Encodes the call message of {@code r} with XID {@code xid} (for tests that alter it before sending). */
    public XdrEncoder message(int xid, Request r) {
        return message(xid, credential, r);
    }

    /**
     * The call message of {@code r} with XID {@code xid} and {@code credential} (also what a responder sends as a
     * backchannel call, RPCRDMA-32).
     */
    public static XdrEncoder message(int xid, Auth credential, Request r) {
        XdrEncoder e = new XdrEncoder(64 + r.args().length());
        e.int32(xid).int32(Rpc.CALL).int32(Rpc.RPC_VERSION).int32(r.program()).int32(r.version())
                .int32(r.procedure());
        credential.encode(e);
        Auth.none().encode(e);
        return e.append(r.args());
    }

    /** Starts a call (queued by the transport while no credit is free). */
    public Pending start(Request r) {
        int xid = nextXid++;
        XdrEncoder m = message(xid, r);
        RpcRdmaCall c = new RpcRdmaCall(m.toByteArray(), m.ddpItems(), r.writeChunks(),
                REPLY_HEADER + r.maxResults());
        return new Pending(xid, requester.start(c));
    }

    /**
     * Waits for the reply of {@code p}.
     *
     * @throws RpcException                      for a reply other than SUCCESS
     * @throws rnic.rpcrdma.RpcRdmaException     for a transport error or a timeout
     */
    public Result await(Pending p, Duration timeout) {
        RpcRdmaReply reply = requester.await(p.transport(), timeout);
        return new Result(p.xid(), results(p.xid(), reply), reply, p.transport());
    }

    /**
     * The results of a reply to call {@code xid} (a forward reply, or a backchannel reply at a responder,
     * RPCRDMA-32): the decoder stands at the procedure's results.
     *
     * @throws RpcException for a reply other than SUCCESS, or one that is not a REPLY to {@code xid}
     */
    public static XdrDecoder results(int expectedXid, RpcRdmaReply reply) {
        XdrDecoder d = reply.decoder();
        try {
            int xid = d.int32();
            int type = d.int32();
            if (xid != expectedXid || type != Rpc.REPLY) {
                throw new RpcException(RpcException.Kind.BAD_REPLY, 0, 0, null, "xid/type " + xid + "/" + type);
            }
            int stat = d.int32();
            if (stat == Rpc.MSG_DENIED) {
                int why = d.int32();
                if (why == Rpc.RPC_MISMATCH) {
                    int lo = d.int32();
                    throw new RpcException(RpcException.Kind.RPC_MISMATCH, lo, d.int32(), null, "");
                }
                AuthStat a = AuthStat.of(d.int32());
                throw new RpcException(RpcException.Kind.AUTH_ERROR, 0, 0, a, String.valueOf(a));
            }
            if (stat != Rpc.MSG_ACCEPTED) {
                throw new RpcException(RpcException.Kind.BAD_REPLY, 0, 0, null, "reply_stat " + stat);
            }
            Auth.decode(d);
            AcceptStat a = AcceptStat.of(d.int32());
            if (a == null) {
                throw new RpcException(RpcException.Kind.BAD_REPLY, 0, 0, null, "unknown accept_stat");
            }
            switch (a) {
                case SUCCESS -> {
                    return d;
                }
                case PROG_MISMATCH -> {
                    int lo = d.int32();
                    throw new RpcException(RpcException.Kind.PROG_MISMATCH, lo, d.int32(), null, "");
                }
                default -> throw new RpcException(RpcException.Kind.valueOf(a.name()), 0, 0, null, "");
            }
        } catch (XdrException e) {
            throw new RpcException(RpcException.Kind.BAD_REPLY, 0, 0, null, e.getMessage());
        }
    }

    /** {@link #start} then {@link #await}. */
    public Result call(Request r, Duration timeout) {
        return await(start(r), timeout);
    }
}
