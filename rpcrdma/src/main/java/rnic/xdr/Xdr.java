package rnic.xdr;

/** XDR constants and arithmetic (RFC 4506 §3: "the basic block size is four bytes"). */
public final class Xdr {
    private Xdr() {
    }

    /** The XDR unit: every item is a multiple of four octets. */
    public static final int UNIT = 4;

    /** Octets of zero padding after {@code length} octets of opaque data (RFC 4506 §4.9, §4.10). */
    public static int pad(int length) {
        return (UNIT - (length & 3)) & 3;
    }

    /** {@code length} rounded up to a multiple of four. */
    public static int roundUp(int length) {
        return length + pad(length);
    }
}
