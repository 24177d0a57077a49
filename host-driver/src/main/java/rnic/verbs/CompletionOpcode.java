package rnic.verbs;

/** What a completion reports (verbs {@code ibv_wc_opcode}). */
public enum CompletionOpcode {
    /** A Send (any of the four: plain, with Invalidate, with SE, with SE and Invalidate) went out. */
    SEND,
    /** An Immediate Data message went out (see {@link WorkRequest#sendWithImmediate(long)}). */
    SEND_WITH_IMMEDIATE,
    RDMA_WRITE,
    /** The RDMA Write and the Immediate Data message after it went out. */
    RDMA_WRITE_WITH_IMMEDIATE,
    RDMA_READ,
    FETCH_ADD,
    COMPARE_SWAP,
    MASKED_FETCH_ADD,
    MASKED_COMPARE_SWAP,
    LOCAL_INVALIDATE,
    /** A Send of the peer arrived into a receive buffer. */
    RECV,
    /** An Immediate Data message of the peer consumed a receive buffer; the value is in the completion. */
    RECV_IMMEDIATE,
    /** Not a work request: the queue pair failed (Terminate sent or received, MPA error) and is in ERR. */
    QP_ERROR
}
