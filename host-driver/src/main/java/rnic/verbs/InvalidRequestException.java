package rnic.verbs;

/**
 * A work request the queue pair cannot carry as given: inline data longer than the queue pair's inline area, a Read
 * or Atomic on a connection whose ORD is 0 (the request would wait forever).
 */
public final class InvalidRequestException extends VerbsException {
    private static final long serialVersionUID = 1L;

    public InvalidRequestException(String message) {
        super(message);
    }
}
