package rnic.verbs;

/**
 * A queue pair whose queues could fill its completion queue: the core never overwrites an unconsumed entry, it
 * drops one that meets the queue full and marks the queue in error ({@link CompletionQueue#overflowed()}), so an
 * undersized completion queue would lose completions. The completion queue
 * must hold the depth of every queue attached to it plus one error entry per queue pair (RFC 6581 §4.4.2 makes the
 * same accounting point).
 */
public final class CompletionQueueOverflowException extends VerbsException {
    private static final long serialVersionUID = 1L;

    public CompletionQueueOverflowException(String message) {
        super(message);
    }
}
