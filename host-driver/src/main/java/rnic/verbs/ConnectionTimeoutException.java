package rnic.verbs;

/**
 * No complete MPA Request or Reply within the startup timeout, counted in device cycles (MPA-38, MPA-39); the TCP
 * connection was closed.
 */
public final class ConnectionTimeoutException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    public ConnectionTimeoutException(String message) {
        super(null, message);
    }
}
