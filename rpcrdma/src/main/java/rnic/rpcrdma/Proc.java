package rnic.rpcrdma;

/** {@code rdma_proc} (RFC 8166 §4.1.2, RPCRDMA-09). */
public enum Proc {
    /** An RPC message follows the chunk lists in the same Send (RPCRDMA-10). */
    RDMA_MSG(0),
    /** No RPC message in the Send: it is in a Position-Zero Read chunk or the Reply chunk (RPCRDMA-11). */
    RDMA_NOMSG(1),
    /** Deprecated padded message: never sent; a responder answers ERR_CHUNK, a requester discards (RPCRDMA-30). */
    RDMA_MSGP(2),
    /** Deprecated: never sent, silently discarded (RPCRDMA-30). */
    RDMA_DONE(3),
    /** A header error report (RPCRDMA-24 … 26). */
    RDMA_ERROR(4);

    private final int code;

    Proc(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The procedure of {@code code}, or null for a value RFC 8166 does not define. */
    public static Proc of(int code) {
        for (Proc p : values()) {
            if (p.code == code) {
                return p;
            }
        }
        return null;
    }
}
