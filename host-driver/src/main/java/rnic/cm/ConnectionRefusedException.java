package rnic.cm;

/**
 * Nothing listens at the remote address and port: the TCP open was refused (a reset answered the SYN). No MPA frame
 * was exchanged; the queue pair stays in INIT.
 */
public final class ConnectionRefusedException extends ConnectionException {
    private static final long serialVersionUID = 1L;

    public ConnectionRefusedException(String message) {
        super(null, message);
    }
}
