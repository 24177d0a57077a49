package rnic.rpcrdma;

/**
 * One entry of a Read list (RFC 8166 {@code xdr_read_chunk}, RPCRDMA-13/14): the XDR position of the item in the
 * unreduced Payload stream and one segment. Segments with the same position form one Read chunk; position 0 with
 * RDMA_NOMSG is a Position-Zero Read chunk (the whole Call, RPCRDMA-20).
 */
public record ReadSegment(int position, RdmaSegment target) {
    @Override
    public String toString() {
        return "P=" + Integer.toUnsignedString(position) + target;
    }
}
