package rnic.verbs;

/** The device has no free queue pair, completion queue, STag, protection domain number or DMA memory left. */
public final class ResourceExhaustedException extends VerbsException {
    private static final long serialVersionUID = 1L;

    public ResourceExhaustedException(String message) {
        super(message);
    }
}
