package rnic.rpcrdma;

/**
 * An RDMA segment (RFC 8166 §4.1.2 {@code xdr_rdma_segment}, RPCRDMA-13): handle = the STag of the registered memory,
 * length in octets, offset = the 64-bit tagged offset (for this project's VA-based regions, the address).
 *
 * <pre>
 *   +--------+--------+--------+--------+   16 octets on the wire
 *   | handle | length |   offset (hi,lo) |
 *   +--------+--------+--------+--------+
 * </pre>
 */
public record RdmaSegment(int handle, int length, long offset) {
    public RdmaSegment {
        if (length < 0) {
            throw new IllegalArgumentException("segment length " + Integer.toUnsignedString(length)
                    + " over 2^31 - 1 is not supported");
        }
    }

    /** The same segment with another length (a responder returning what it wrote, RPCRDMA-16). */
    public RdmaSegment withLength(int n) {
        return new RdmaSegment(handle, n, offset);
    }

    @Override
    public String toString() {
        return String.format("[H=0x%08x L=%d O=0x%x]", handle, length, offset);
    }
}
