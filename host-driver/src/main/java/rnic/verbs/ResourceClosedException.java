package rnic.verbs;

/** Use of a device, protection domain, memory region, queue, buffer or request that was closed. */
public final class ResourceClosedException extends VerbsException {
    private static final long serialVersionUID = 1L;

    public ResourceClosedException(String message) {
        super(message);
    }
}
