package rnic.model.ddp;

import rnic.wire.TerminateCause;

/**
 * A received segment or message that fails validation. Its {@link TerminateCause} decides the Terminate the stream
 * sends (DDP-31, DDP-32, RDMAP-17, docs/requirements.md §3.2–§3.3).
 */
public final class TerminateException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient TerminateCause terminateCause;

    /**
     * @param cause  the error
     * @param detail what was wrong, for the log
     */
    public TerminateException(TerminateCause cause, String detail) {
        super(cause + ": " + detail);
        this.terminateCause = cause;
    }

    /** The error, with its Layer/EType/Code and HdrCt bits. */
    public TerminateCause cause() {
        return terminateCause;
    }
}
