package rnic.transport.serial;

import java.io.IOException;

/** The host link failed: the board did not answer in time, or it restarted ({@link BoardResetException}). */
public class HostLinkException extends IOException {
    private static final long serialVersionUID = 1L;

    /** With a message saying what was being done. */
    public HostLinkException(String message) {
        super(message);
    }
}
