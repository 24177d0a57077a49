package rnic.xdr;

/** An XDR stream that cannot be decoded: too short, a bad boolean or padding, a length over its bound. */
public final class XdrException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public XdrException(String message) {
        super(message);
    }
}
