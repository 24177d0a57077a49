package rnic.verbs;

/**
 * Access rights of a memory region (verbs IBV_ACCESS_*, RFC 5040 §8.1). Local read is always allowed. As in verbs, a
 * region with a remote write or atomic right must also be locally writable.
 */
public enum Access {
    /** The device may write the region for this side: receive buffers, Read sinks, Atomic results. */
    LOCAL_WRITE,
    /**
     * The peer may RDMA Write into it; also needed by the sink of this side's RDMA Reads, since the Read Response is a
     * tagged placement to the sink's STag (RFC 5040 §4.5; the core's tag validator checks it).
     */
    REMOTE_WRITE,
    /** The peer may RDMA Read from it. */
    REMOTE_READ,
    /** The peer may run Atomics on it (RFC 7306 defines no such right; this project adds it, Appendix B item 7). */
    REMOTE_ATOMIC
}
