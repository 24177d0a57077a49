package rnic.verbs;

/**
 * A receive queue work request (verbs {@code ibv_recv_wr}): one buffer that takes one untagged message of the peer —
 * a Send of any kind or an Immediate Data message (RFC 5040 §5.3, RFC 7306 §6). The buffer must be a registered
 * region with LOCAL_WRITE (checked when posted), or {@link Sge#empty()} for a zero-length message.
 */
public final class RecvRequest {
    private final Sge buffer;
    private final long wrId;

    private RecvRequest(Sge buffer, long wrId) {
        this.buffer = buffer;
        this.wrId = wrId;
    }

    /** A receive into {@code buffer}. */
    public static RecvRequest of(Sge buffer) {
        if (buffer == null) {
            throw new IllegalArgumentException("receive buffer is null (use Sge.empty() for zero-length messages)");
        }
        if (buffer.length() > 0 && buffer.region() == null) {
            throw new IllegalArgumentException("a receive buffer must be a registered memory region, not " + buffer);
        }
        return new RecvRequest(buffer, 0);
    }

    /** The 64-bit id its completion reports. */
    public RecvRequest withId(long id) {
        return new RecvRequest(buffer, id);
    }

    public Sge buffer() {
        return buffer;
    }

    public long wrId() {
        return wrId;
    }

    @Override
    public String toString() {
        return "RecvRequest[id " + wrId + ", " + buffer + "]";
    }
}
