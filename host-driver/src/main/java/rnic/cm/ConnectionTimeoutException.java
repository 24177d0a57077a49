package rnic.cm;

/**
 * No TCP connection or no complete MPA Request or Reply within the startup timeout, a {@link java.time.Duration} of
 * device time (MPA-38, MPA-39); the TCP connection was closed. Also what a blocking wait of the connection manager
 * throws when its time is up.
 */
public final class ConnectionTimeoutException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    public ConnectionTimeoutException(String message) {
        super(null, message);
    }
}
