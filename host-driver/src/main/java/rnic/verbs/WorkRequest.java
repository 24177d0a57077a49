package rnic.verbs;

/**
 * A send queue work request (verbs {@code ibv_send_wr}), made by one factory per operation that validates its
 * operands; options are {@code withX} copies. Local buffers are checked against their memory regions when posted.
 *
 * <p>Operations that are not one RDMAP message are composed by the driver (RFC 7306 §6, docs/requirements.md §2.7.3):
 * <ul>
 *   <li>{@link #rdmaWriteWithImmediate}: an RDMA Write followed by an Immediate Data message, two send queue slots,
 *       one completion (the Write's slot is unsignaled and hidden). The peer gets one RECV_IMMEDIATE completion,
 *       consuming one receive buffer, after the Write's data was placed (RFC 7306 §7 "Write → Imm").
 *   <li>{@link #sendWithImmediate}: <b>one Immediate Data message only</b> (RDMAP opcode 0x8, 8 octets, no payload).
 *       The peer consumes one receive buffer (which stays empty) and gets one RECV_IMMEDIATE completion carrying the
 *       value, byteLength 0 — the receive-side effect of a zero-payload verbs Send with Immediate. A Send followed by
 *       Immediate Data would consume two receive buffers and produce two receive completions for one work request,
 *       which no verbs user expects; an application that wants payload and value posts {@link #send} and then
 *       {@link #sendWithImmediate}.
 *   <li>The unmasked atomics are the masked ones with neutral masks: FetchAdd with Add Mask 0, CmpSwap with Compare
 *       and Swap Masks all ones; FetchAdd sends Compare Data 0 and Compare Mask all ones (§2.7.3).
 * </ul>
 *
 * <p>Defaults: signaled, no fence, not inline, id 0.
 */
public final class WorkRequest {

    /** The operation, with the completion opcode it reports. */
    public enum Operation {
        RDMA_WRITE(CompletionOpcode.RDMA_WRITE),
        RDMA_WRITE_WITH_IMMEDIATE(CompletionOpcode.RDMA_WRITE_WITH_IMMEDIATE),
        RDMA_READ(CompletionOpcode.RDMA_READ),
        SEND(CompletionOpcode.SEND),
        SEND_WITH_INVALIDATE(CompletionOpcode.SEND),
        SEND_WITH_SOLICITED_EVENT(CompletionOpcode.SEND),
        SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE(CompletionOpcode.SEND),
        SEND_WITH_IMMEDIATE(CompletionOpcode.SEND_WITH_IMMEDIATE),
        FETCH_ADD(CompletionOpcode.FETCH_ADD),
        COMPARE_SWAP(CompletionOpcode.COMPARE_SWAP),
        MASKED_FETCH_ADD(CompletionOpcode.MASKED_FETCH_ADD),
        MASKED_COMPARE_SWAP(CompletionOpcode.MASKED_COMPARE_SWAP),
        LOCAL_INVALIDATE(CompletionOpcode.LOCAL_INVALIDATE);

        private final CompletionOpcode completion;

        Operation(CompletionOpcode completion) {
            this.completion = completion;
        }

        /** The opcode its completion reports. */
        public CompletionOpcode completionOpcode() {
            return completion;
        }

        /** Whether it sends a local buffer's octets (so inline data applies). */
        public boolean carriesPayload() {
            return this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMMEDIATE || this == SEND
                    || this == SEND_WITH_INVALIDATE || this == SEND_WITH_SOLICITED_EVENT
                    || this == SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE;
        }

        /** Whether it is an Atomic (ORD-limited, 8-octet result buffer). */
        public boolean atomic() {
            return this == FETCH_ADD || this == COMPARE_SWAP || this == MASKED_FETCH_ADD
                    || this == MASKED_COMPARE_SWAP;
        }

        /** Send queue slots it takes. */
        public int slots() {
            return this == RDMA_WRITE_WITH_IMMEDIATE ? 2 : 1;
        }
    }

    /** Octets of an Atomic's operand and result. */
    public static final int ATOMIC_SIZE = 8;

    private final Operation operation;
    private final Sge local;
    private final RemoteBuffer remote;
    private final long immediate;
    private final boolean solicitedEvent;
    private final int invalidateStag;
    private final long data;
    private final long mask;
    private final long compare;
    private final long compareMask;
    private final long wrId;
    private final boolean signaled;
    private final boolean fence;
    private final boolean inline;

    private WorkRequest(Operation operation, Sge local, RemoteBuffer remote, long immediate, boolean solicitedEvent,
            int invalidateStag, long data, long mask, long compare, long compareMask, long wrId, boolean signaled,
            boolean fence, boolean inline) {
        this.operation = operation;
        this.local = local;
        this.remote = remote;
        this.immediate = immediate;
        this.solicitedEvent = solicitedEvent;
        this.invalidateStag = invalidateStag;
        this.data = data;
        this.mask = mask;
        this.compare = compare;
        this.compareMask = compareMask;
        this.wrId = wrId;
        this.signaled = signaled;
        this.fence = fence;
        this.inline = inline;
    }

    private static WorkRequest of(Operation op, Sge local, RemoteBuffer remote) {
        return new WorkRequest(op, local, remote, 0, false, 0, 0, 0, 0, 0, 0, true, false, false);
    }

    private static Sge payload(Sge local, String what) {
        if (local == null) {
            throw new IllegalArgumentException(what + ": local buffer is null (use Sge.empty() for no payload)");
        }
        return local;
    }

    private static RemoteBuffer target(RemoteBuffer remote, String what) {
        if (remote == null) {
            throw new IllegalArgumentException(what + ": remote buffer is null");
        }
        return remote;
    }

    // ---- RDMA Write / Read -----------------------------------------------------------------------------------

    /** RDMA Write of {@code local} to the peer's {@code remote} (RFC 5040 §4.3; tagged, no completion at the peer). */
    public static WorkRequest rdmaWrite(Sge local, RemoteBuffer remote) {
        return of(Operation.RDMA_WRITE, payload(local, "RDMA Write"), target(remote, "RDMA Write"));
    }

    /**
     * RDMA Write, then an Immediate Data message with {@code immediate} (RFC 7306 §6): the peer's one completion
     * (RECV_IMMEDIATE, consuming a receive buffer) comes after the Write's data was placed.
     */
    public static WorkRequest rdmaWriteWithImmediate(Sge local, RemoteBuffer remote, long immediate) {
        return rdmaWriteWithImmediate(local, remote, immediate, false);
    }

    /** {@link #rdmaWriteWithImmediate(Sge, RemoteBuffer, long)}, the Immediate Data with SE when asked. */
    public static WorkRequest rdmaWriteWithImmediate(Sge local, RemoteBuffer remote, long immediate,
            boolean solicitedEvent) {
        return new WorkRequest(Operation.RDMA_WRITE_WITH_IMMEDIATE, payload(local, "RDMA Write with Immediate"),
                target(remote, "RDMA Write with Immediate"), immediate, solicitedEvent, 0, 0, 0, 0, 0, 0, true,
                false, false);
    }

    /**
     * RDMA Read of {@code sink.length()} octets from the peer's {@code remote} into {@code sink} (RFC 5040 §4.4).
     * The sink must be a registered region with LOCAL_WRITE and REMOTE_WRITE: the Read Response is placed through its
     * STag like an inbound Write. Limited by the connection's ORD.
     */
    public static WorkRequest rdmaRead(Sge sink, RemoteBuffer remote) {
        if (sink == null) {
            throw new IllegalArgumentException("RDMA Read: sink is null");
        }
        if (sink.length() > 0 && sink.region() == null) {
            throw new IllegalArgumentException("RDMA Read: the sink must be a registered memory region (its STag "
                    + "goes in the Read Request), not " + sink);
        }
        return of(Operation.RDMA_READ, sink, target(remote, "RDMA Read"));
    }

    // ---- Send family ---------------------------------------------------------------------------------------------

    /** Send of {@code local} into the peer's next receive buffer (RFC 5040 §4.6). */
    public static WorkRequest send(Sge local) {
        return of(Operation.SEND, payload(local, "Send"), null);
    }

    /**
     * Send with Invalidate: the peer invalidates {@code stag} before completing the receive (RFC 5040 §4.6,
     * RDMAP-13); the STag must be bound to this connection at the peer (RDMAP-26).
     */
    public static WorkRequest sendWithInvalidate(Sge local, int stag) {
        WorkRequest w = of(Operation.SEND_WITH_INVALIDATE, payload(local, "Send with Invalidate"), null);
        return w.withInvalidate(stag);
    }

    /** Send with Solicited Event (RFC 5040 §4.6). */
    public static WorkRequest sendWithSolicitedEvent(Sge local) {
        return of(Operation.SEND_WITH_SOLICITED_EVENT, payload(local, "Send with SE"), null);
    }

    /** Send with Solicited Event and Invalidate. */
    public static WorkRequest sendWithSolicitedEventAndInvalidate(Sge local, int stag) {
        WorkRequest w = of(Operation.SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE,
                payload(local, "Send with SE and Invalidate"), null);
        return w.withInvalidate(stag);
    }

    /**
     * One Immediate Data message carrying {@code immediate} and no payload (RFC 7306 §6, RDMAP-40): the peer consumes
     * one receive buffer and gets one RECV_IMMEDIATE completion with the value (see the class comment for why).
     */
    public static WorkRequest sendWithImmediate(long immediate) {
        return sendWithImmediate(immediate, false);
    }

    /** {@link #sendWithImmediate(long)}, as Immediate Data with Solicited Event when asked. */
    public static WorkRequest sendWithImmediate(long immediate, boolean solicitedEvent) {
        return new WorkRequest(Operation.SEND_WITH_IMMEDIATE, Sge.empty(), null, immediate, solicitedEvent, 0, 0, 0,
                0, 0, 0, true, false, false);
    }

    private WorkRequest withInvalidate(int stag) {
        return new WorkRequest(operation, local, remote, immediate, solicitedEvent, stag, data, mask, compare,
                compareMask, wrId, signaled, fence, inline);
    }

    // ---- Atomics (RFC 7306 §5) -------------------------------------------------------------------------------------

    private static WorkRequest atomic(Operation op, Sge result, RemoteBuffer target, long data, long mask,
            long compare, long compareMask) {
        String what = op.name();
        if (result == null || result.length() != ATOMIC_SIZE) {
            throw new IllegalArgumentException(what + ": the result buffer must be " + ATOMIC_SIZE
                    + " octets, got " + (result == null ? "null" : result.length()));
        }
        if (result.region() == null) {
            throw new IllegalArgumentException(what + ": the result buffer must be a registered memory region");
        }
        target(target, what);
        if ((target.address() & (ATOMIC_SIZE - 1)) != 0) {
            throw new IllegalArgumentException(what + String.format(": remote TO 0x%x is not 64-bit aligned "
                    + "(RFC 7306 §5.1, E-R16)", target.address()));
        }
        return new WorkRequest(op, result, target, 0, false, 0, data, mask, compare, compareMask, 0, true, false,
                false);
    }

    /**
     * FetchAdd: the peer adds {@code add} to the 64-bit value at {@code target}; the original value lands in
     * {@code result}.
     */
    public static WorkRequest fetchAdd(Sge result, RemoteBuffer target, long add) {
        return atomic(Operation.FETCH_ADD, result, target, add, 0, 0, -1L);
    }

    /**
     * CmpSwap: if the value at {@code target} equals {@code compare} it becomes {@code swap}; the original value lands
     * in {@code result}.
     */
    public static WorkRequest compareSwap(Sge result, RemoteBuffer target, long compare, long swap) {
        return atomic(Operation.COMPARE_SWAP, result, target, swap, -1L, compare, -1L);
    }

    /** Masked FetchAdd: fields ending at the set bits of {@code addMask} add without carry between them (§2.9). */
    public static WorkRequest maskedFetchAdd(Sge result, RemoteBuffer target, long add, long addMask) {
        return atomic(Operation.MASKED_FETCH_ADD, result, target, add, addMask, 0, -1L);
    }

    /**
     * Masked CmpSwap: when {@code (value ^ compare) & compareMask == 0} the bits of {@code swapMask} take those of
     * {@code swap} (§2.9).
     */
    public static WorkRequest maskedCompareSwap(Sge result, RemoteBuffer target, long compare, long compareMask,
            long swap, long swapMask) {
        return atomic(Operation.MASKED_COMPARE_SWAP, result, target, swap, swapMask, compare, compareMask);
    }

    // ---- Local invalidate ----------------------------------------------------------------------------------------

    /**
     * Invalidates this side's {@code stag} once every earlier request of the queue pair completed; the region is then
     * refused to the peer until registered again ({@link MemoryRegion#reregister()}).
     */
    public static WorkRequest localInvalidate(int stag) {
        WorkRequest w = of(Operation.LOCAL_INVALIDATE, Sge.empty(), null);
        return w.withInvalidate(stag);
    }

    // ---- Options ---------------------------------------------------------------------------------------------------

    /** Whether a successful completion is reported (errors and flushes always are). */
    public WorkRequest withSignaled(boolean on) {
        return new WorkRequest(operation, local, remote, immediate, solicitedEvent, invalidateStag, data, mask,
                compare, compareMask, wrId, on, fence, inline);
    }

    /** Starts only after every earlier request of the queue pair completed (verbs IBV_SEND_FENCE). */
    public WorkRequest withFence() {
        return new WorkRequest(operation, local, remote, immediate, solicitedEvent, invalidateStag, data, mask,
                compare, compareMask, wrId, signaled, true, inline);
    }

    /**
     * Copies the payload into the driver's inline area when posted, so the buffer is free when
     * {@link QueuePair#postSend} returns and need not be registered (Writes and Sends only).
     */
    public WorkRequest withInline() {
        if (!operation.carriesPayload()) {
            throw new IllegalArgumentException(operation + " carries no payload to inline");
        }
        return new WorkRequest(operation, local, remote, immediate, solicitedEvent, invalidateStag, data, mask,
                compare, compareMask, wrId, signaled, fence, true);
    }

    /** The 64-bit id its completion reports (the core sees only the send queue slot; the driver maps it back). */
    public WorkRequest withId(long id) {
        return new WorkRequest(operation, local, remote, immediate, solicitedEvent, invalidateStag, data, mask,
                compare, compareMask, id, signaled, fence, inline);
    }

    // ---- Accessors -------------------------------------------------------------------------------------------------

    public Operation operation() {
        return operation;
    }

    /** The local buffer: payload, Read sink or Atomic result (empty for Immediate Data and Local Invalidate). */
    public Sge local() {
        return local;
    }

    /** The peer's buffer, or null for the Send family and Local Invalidate. */
    public RemoteBuffer remote() {
        return remote;
    }

    public long immediate() {
        return immediate;
    }

    /** Whether the Immediate Data goes with Solicited Event. */
    public boolean solicitedEvent() {
        return solicitedEvent;
    }

    /** The STag a Send with Invalidate or a Local Invalidate names. */
    public int invalidateStag() {
        return invalidateStag;
    }

    /** Add Data or Swap Data. */
    public long data() {
        return data;
    }

    /** Add Mask or Swap Mask. */
    public long mask() {
        return mask;
    }

    public long compare() {
        return compare;
    }

    public long compareMask() {
        return compareMask;
    }

    public long wrId() {
        return wrId;
    }

    public boolean signaled() {
        return signaled;
    }

    public boolean fence() {
        return fence;
    }

    public boolean inline() {
        return inline;
    }

    @Override
    public String toString() {
        return "WorkRequest[" + operation + ", id " + wrId + ", " + local + (remote != null ? ", " + remote : "")
                + (signaled ? "" : ", unsignaled") + (fence ? ", fence" : "") + (inline ? ", inline" : "") + "]";
    }
}
