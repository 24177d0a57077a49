package rnic.verbs;

/** Posting more work requests than the queue's depth holds (completions must be polled first). */
public final class QueueFullException extends VerbsException {
    private static final long serialVersionUID = 1L;

    public QueueFullException(String message) {
        super(message);
    }
}
