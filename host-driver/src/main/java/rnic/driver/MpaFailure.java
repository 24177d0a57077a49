package rnic.driver;

import rnic.wire.MpaErrorCode;
import rnic.wire.MpaStartupFrame;

/**
 * Why an MPA startup (RFC 5044 §7.1, RFC 6581) did not reach Full Operation, with what was done about the TCP
 * connection (docs/requirements.md §3.1): the verbs layer turns it into its own exception.
 */
public final class MpaFailure extends Exception {
    private static final long serialVersionUID = 1L;

    /** The kind of failure. */
    public enum Kind {
        /** No (complete) frame within the startup timeout (MPA-38, MPA-39); TCP closed. */
        TIMEOUT,
        /** The peer closed TCP before sending anything (E-M1). */
        TCP_CLOSED,
        /** A malformed Request or Reply (E-M4, MPA-28, MPA-31, MPA-32, MPA-51); TCP closed, no Terminate. */
        INVALID_FRAME,
        /** The Responder answered with R=1 (MPA-35); TCP left open. */
        REJECTED,
        /**
         * Enhanced negotiation failed (RFC 6581 §9): an Initiator sent a Terminate with the code and closed TCP
         * (E-M5…E-M7); a Responder sent a Reply with R=1 and left TCP open (MPA-49).
         */
        NEGOTIATION
    }

    private final Kind kind;
    private final MpaErrorCode code;
    private final transient MpaStartupFrame peerFrame;

    public MpaFailure(Kind kind, MpaErrorCode code, MpaStartupFrame peerFrame, String message) {
        super(message);
        this.kind = kind;
        this.code = code;
        this.peerFrame = peerFrame;
    }

    public Kind kind() {
        return kind;
    }

    /** The MPA error code (Layer 2, EType 0) of the failure, or null for a timeout or a reject. */
    public MpaErrorCode code() {
        return code;
    }

    /** The peer's frame when one was received and understood (the Reply of a reject), else null. */
    public MpaStartupFrame peerFrame() {
        return peerFrame;
    }
}
