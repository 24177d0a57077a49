package rnic.xdr;

/**
 * A DDP-eligible opaque item inside an encoded XDR stream (RFC 8166 §3.4.2): its data starts at octet
 * {@code position} of the unreduced stream (after the item's length word, which stays inline, RPCRDMA-21) and is
 * {@code length} octets long, followed by {@link Xdr#pad(int)} octets of XDR padding.
 */
public record DdpItem(int position, int length) {
    public DdpItem {
        if (position < 0 || length < 0 || (position & 3) != 0) {
            throw new IllegalArgumentException("position " + position + " (multiple of 4) and length " + length);
        }
    }

    /** The octets the item takes in the unreduced stream: data plus padding. */
    public int paddedLength() {
        return length + Xdr.pad(length);
    }
}
