package rnic.cm;

import rnic.verbs.VerbsException;
import rnic.wire.MpaErrorCode;

/**
 * A connection could not be set up (RFC 5044 §7.1, RFC 6581; the error table of docs/requirements.md): TCP refused,
 * a timeout, a reject, or an MPA failure. The queue pair stays in INIT; what happened to the TCP connection is in
 * the message (closed for a malformed frame or a timeout, E-M4; Terminate and
 * close after a failed enhanced negotiation at the Initiator, E-M5…E-M7; open after a reject).
 */
public class ConnectionException extends VerbsException {
    private static final long serialVersionUID = 1L;
    private final MpaErrorCode code;

    public ConnectionException(MpaErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    /** The MPA error code (Terminate Layer 2, EType 0) of the failure, or null when it has none (timeout, reject). */
    public MpaErrorCode code() {
        return code;
    }
}
