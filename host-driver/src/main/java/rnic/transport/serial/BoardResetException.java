package rnic.transport.serial;

/**
 * The board restarted while the link was up (its frames carry another session number): everything the host had in
 * flight is lost and the device's state is gone. {@link HostLink#connect} starts a new link.
 */
public final class BoardResetException extends HostLinkException {
    private static final long serialVersionUID = 1L;

    /** {@code before} and {@code after} are the board's session numbers. */
    public BoardResetException(int before, int after) {
        super(String.format("the board restarted (session %02x, now %02x): reconnect and set the device up again",
                before, after));
    }
}
