package rnic.wire;

import java.util.Optional;

/**
 * The untagged DDP queues RDMAP uses (RFC 5040 §3.1, RFC 7306 §10.2 registry "RDMAP DDP Untagged Queue Numbers",
 * docs/requirements.md §2.8.1, RDMAP-01). Every other QN is invalid on an RDMAP stream (E-D8).
 */
public enum DdpQueue {
    /** QN 0: Send, Send with Invalidate, Send with SE, Send with SE and Invalidate, Immediate Data (with SE). */
    SEND(0),
    /** QN 1: RDMA Read Request and Atomic Request; one MSN sequence and the IRD slots shared by both (RDMAP-30). */
    READ_REQUEST(1),
    /** QN 2: Terminate, the only message on this queue, so always MSN 1 (T-21). */
    TERMINATE(2),
    /** QN 3: Atomic Response (RFC 7306), its MSN counting Atomic Responses only (T-23). */
    ATOMIC_RESPONSE(3);

    private final int qn;

    DdpQueue(int qn) {
        this.qn = qn;
    }

    /** The Queue Number on the wire. */
    public int qn() {
        return qn;
    }

    /** The queue for a wire QN (32-bit unsigned), if RDMAP defines one. */
    public static Optional<DdpQueue> decode(long qn) {
        for (DdpQueue q : values()) {
            if (q.qn == qn) {
                return Optional.of(q);
            }
        }
        return Optional.empty();
    }
}
