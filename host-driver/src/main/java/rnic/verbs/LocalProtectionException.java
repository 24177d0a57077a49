package rnic.verbs;

/**
 * A local buffer of a work request that the driver refuses before posting. The core does not check local accesses
 * (it reads and writes the host addresses it is given), so the driver checks every local buffer against its memory
 * region in software: registered, same device and protection domain, still valid, inside the region, with the
 * access right the operation needs.
 */
public final class LocalProtectionException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** What is wrong with the buffer. */
    public enum Reason {
        /** The buffer is not in a registered memory region (or the region was deregistered). */
        NOT_REGISTERED,
        /** The memory region belongs to another device. */
        WRONG_DEVICE,
        /** The memory region belongs to another protection domain than the queue pair. */
        WRONG_PD,
        /** The memory region's STag was invalidated (locally or by the peer) and not registered again. */
        INVALIDATED,
        /** The range reaches past the memory region. */
        OUT_OF_RANGE,
        /** The memory region lacks an access right the operation needs. */
        MISSING_ACCESS
    }

    private final Reason reason;

    public LocalProtectionException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
