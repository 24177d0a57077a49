package rnic.rpcrdma;

import java.util.List;

/**
 * A Write chunk or the Reply chunk (RFC 8166 {@code xdr_write_chunk}): a counted array of segments. An
 * <em>empty</em> chunk has no segment (it forces the result inline, RPCRDMA-18).
 */
public record WriteChunk(List<RdmaSegment> segments) {
    public WriteChunk {
        segments = List.copyOf(segments);
    }

    public static WriteChunk of(RdmaSegment... s) {
        return new WriteChunk(List.of(s));
    }

    /** Sum of the segment lengths. */
    public long length() {
        long n = 0;
        for (RdmaSegment s : segments) {
            n += s.length();
        }
        return n;
    }

    public boolean isEmpty() {
        return segments.isEmpty();
    }

    /**
     * The chunk as a responder returns it after writing {@code written} octets (RPCRDMA-16): the same segment count,
     * segments filled in array order, each length rewritten to what was written there, the rest 0.
     */
    public WriteChunk filled(long written) {
        RdmaSegment[] out = new RdmaSegment[segments.size()];
        long left = written;
        for (int i = 0; i < out.length; i++) {
            RdmaSegment s = segments.get(i);
            int n = (int) Math.min(left, s.length());
            out[i] = s.withLength(n);
            left -= n;
        }
        if (left > 0) {
            throw new IllegalArgumentException(written + " octets do not fit a chunk of " + length());
        }
        return new WriteChunk(List.of(out));
    }
}
