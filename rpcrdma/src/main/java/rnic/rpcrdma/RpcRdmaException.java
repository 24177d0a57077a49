package rnic.rpcrdma;

/**
 * A call that ended at the transport: an RDMA_ERROR from the responder (RPCRDMA-24: a permanent error for that
 * XID), a reply that broke the chunk rules (RPCRDMA-16, RPCRDMA-23), an RDMA operation that failed, or a timeout.
 */
public class RpcRdmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What ended the call. */
    public enum Reason {
        /** RDMA_ERROR ERR_VERS (RPCRDMA-25). */
        ERR_VERS,
        /** RDMA_ERROR ERR_CHUNK (RPCRDMA-26). */
        ERR_CHUNK,
        /** The reply's chunks broke RFC 8166's rules: a permanent error for the RPC (RPCRDMA-16, RPCRDMA-23). */
        BAD_REPLY,
        /** An RDMA operation or the connection failed (RPCRDMA-28, RPCRDMA-29). */
        CONNECTION,
        /** No reply in time. */
        TIMEOUT
    }

    private final Reason reason;
    private final int xid;

    public RpcRdmaException(Reason reason, int xid, String message) {
        super(String.format("xid 0x%08x: %s: %s", xid, reason, message));
        this.reason = reason;
        this.xid = xid;
    }

    public Reason reason() {
        return reason;
    }

    public int xid() {
        return xid;
    }
}
