package rnic.oncrpc;

/** RFC 5531 constants (§9 and §8.2). */
public final class Rpc {
    private Rpc() {
    }

    /** The RPC protocol version this implementation speaks (rpcvers). */
    public static final int RPC_VERSION = 2;
    /** msg_type CALL. */
    public static final int CALL = 0;
    /** msg_type REPLY. */
    public static final int REPLY = 1;
    /** reply_stat MSG_ACCEPTED. */
    public static final int MSG_ACCEPTED = 0;
    /** reply_stat MSG_DENIED. */
    public static final int MSG_DENIED = 1;
    /** reject_stat RPC_MISMATCH. */
    public static final int RPC_MISMATCH = 0;
    /** reject_stat AUTH_ERROR. */
    public static final int AUTH_ERROR = 1;
    /** The longest opaque_auth body (RFC 5531 §8.2: opaque body&lt;400&gt;). */
    public static final int MAX_AUTH_BYTES = 400;
    /** Netid of RPC-over-RDMA on IPv4 (RFC 8166 §9, RPCRDMA-35). */
    public static final String NETID_RDMA = "rdma";
    /** Netid of RPC-over-RDMA on IPv6 (RPCRDMA-35). */
    public static final String NETID_RDMA6 = "rdma6";
    /** The port IANA gave NFS over RDMA (RPCRDMA-35); the demo's service listens there. */
    public static final int NFS_RDMA_PORT = 20049;
}
