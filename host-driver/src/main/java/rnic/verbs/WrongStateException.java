package rnic.verbs;

import rnic.wire.QpState;

/** An operation the queue pair's current state does not allow (e.g. posting a send before RTS, connecting twice). */
public final class WrongStateException extends VerbsException {
    private static final long serialVersionUID = 1L;
    private final QpState state;

    public WrongStateException(QpState state, String message) {
        super(message);
        this.state = state;
    }

    /** The state the queue pair was in. */
    public QpState state() {
        return state;
    }
}
