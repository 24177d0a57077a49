package rnic.transport.serial;

/**
 * The board restarted while the link was up (its frames carry another session number): everything the host had in
 * flight is lost and the device's state is gone. {@link HostLink#connect} starts a new link.
 */
public final class BoardResetException extends HostLinkException {
    private static final long serialVersionUID = 1L;
    private final int before;
    private final int after;

    /** {@code before} and {@code after} are the board's session numbers. */
    public BoardResetException(int before, int after) {
        super(String.format("the board restarted (session %02x, now %02x): reconnect and set the device up again",
                before, after));
        this.before = before;
        this.after = after;
    }

    /** The board's session number the link was up with. */
    public int before() {
        return before;
    }

    /** The session number the restarted board's frames carry. */
    public int after() {
        return after;
    }
}
