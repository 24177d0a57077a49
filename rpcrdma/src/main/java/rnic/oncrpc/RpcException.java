package rnic.oncrpc;

/**
 * An RPC that did not succeed at the RPC layer (RFC 5531 §9): accepted with a status other than SUCCESS, or denied
 * (RPC_MISMATCH, AUTH_ERROR). {@link #low()}/{@link #high()} carry the supported range of PROG_MISMATCH and
 * RPC_MISMATCH.
 */
public final class RpcException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Which outcome. */
    public enum Kind {
        PROG_UNAVAIL, PROG_MISMATCH, PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR, RPC_MISMATCH, AUTH_ERROR,
        /** The reply could not be decoded as an RPC reply for this call. */
        BAD_REPLY
    }

    private final Kind kind;
    private final int low;
    private final int high;
    private final AuthStat authStat;

    public RpcException(Kind kind, int low, int high, AuthStat authStat, String message) {
        super(kind + (message.isEmpty() ? "" : ": " + message));
        this.kind = kind;
        this.low = low;
        this.high = high;
        this.authStat = authStat;
    }

    public Kind kind() {
        return kind;
    }

    public int low() {
        return low;
    }

    public int high() {
        return high;
    }

    /** For AUTH_ERROR: why. */
    public AuthStat authStat() {
        return authStat;
    }
}
