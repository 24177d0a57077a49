package rnic.verbs;

/**
 * The core did not do what the register contract says (a state change not taken, the STag block busy for ever, an
 * unexpected register value): a hardware or simulation fault, not a misuse.
 */
public final class DeviceException extends VerbsException {
    private static final long serialVersionUID = 1L;

    public DeviceException(String message) {
        super(message);
    }
}
