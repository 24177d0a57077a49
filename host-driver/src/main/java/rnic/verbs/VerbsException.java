package rnic.verbs;

/**
 * Base of every error the verbs API reports for a misuse or a failure. Unchecked, as pyverbs' PyverbsError is an
 * ordinary exception: every check runs before anything is written to the device, so after one of these the device,
 * its queues and its other resources are as they were and stay usable.
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public VerbsException(String message) {
        super(message);
    }

    public VerbsException(String message, Throwable cause) {
        super(message, cause);
    }
}
