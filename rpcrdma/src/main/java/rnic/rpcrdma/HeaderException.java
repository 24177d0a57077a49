package rnic.rpcrdma;

/**
 * A transport header that could not be decoded, with what the receiver must do about it (docs/requirements.md §5.4).
 */
public final class HeaderException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why decoding stopped. */
    public enum Kind {
        /** Shorter than 28 octets: silently discarded before any parsing (RPCRDMA-24, RFC 8166 §4.5). */
        SHORT,
        /** rdma_vers is not 1: a responder answers ERR_VERS (RPCRDMA-25). */
        VERSION,
        /** Anything else (bad proc, bad list encoding, …) with vers 1: a responder answers ERR_CHUNK (RPCRDMA-26). */
        XDR
    }

    private final Kind kind;
    private final int xid;
    private final int vers;
    private final int credit;

    public HeaderException(Kind kind, int xid, int vers, int credit, String message) {
        super(message);
        this.kind = kind;
        this.xid = xid;
        this.vers = vers;
        this.credit = credit;
    }

    public Kind kind() {
        return kind;
    }

    /** The failing message's rdma_xid (0 when it was too short to have one). */
    public int xid() {
        return xid;
    }

    /** The failing message's rdma_vers, which an RDMA_ERROR echoes (RPCRDMA-24, trap T-47). */
    public int vers() {
        return vers;
    }

    public int credit() {
        return credit;
    }
}
