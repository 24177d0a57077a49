package rnic.verbs;

import rnic.wire.CqeKind;
import rnic.wire.MpaErrorCode;
import rnic.wire.TerminateCause;

/**
 * One completion (verbs {@code ibv_wc}), filled in place by {@link CompletionQueue#poll(Completion[])} into an array
 * the caller owns, so polling allocates nothing. The work request's 64-bit id comes back as given to
 * {@link WorkRequest#withId(long)}; the raw completion entry (kind, status octet, info) and the decoded cause stay
 * available beside the mapped {@link CompletionStatus}.
 */
public final class Completion {
    /** {@link #wrId()} of a completion that belongs to no work request ({@link CompletionOpcode#QP_ERROR}). */
    public static final long NO_WR_ID = -1L;

    private long wrId;
    private CompletionStatus status = CompletionStatus.SUCCESS;
    private CompletionOpcode opcode = CompletionOpcode.SEND;
    private long byteLength;
    private long immediate;
    private boolean hasImmediate;
    private long atomicOriginal;
    private int invalidatedStag;
    private boolean hasInvalidatedStag;
    private boolean solicited;
    private int qpNumber;
    private CqeKind cqeKind;
    private int rawStatus;
    private long info;

    /** An array of {@code n} completions to poll into. */
    public static Completion[] array(int n) {
        Completion[] a = new Completion[n];
        for (int i = 0; i < n; i++) {
            a[i] = new Completion();
        }
        return a;
    }

    void reset(long wrId, CompletionStatus status, CompletionOpcode opcode, int qpNumber) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.qpNumber = qpNumber;
        byteLength = 0;
        immediate = 0;
        hasImmediate = false;
        atomicOriginal = 0;
        invalidatedStag = 0;
        hasInvalidatedStag = false;
        solicited = false;
        cqeKind = null;
        rawStatus = 0;
        info = 0;
    }

    void raw(CqeKind kind, int status, long info) {
        this.cqeKind = kind;
        this.rawStatus = status;
        this.info = info;
    }

    void byteLength(long n) {
        byteLength = n;
    }

    void immediate(long value) {
        immediate = value;
        hasImmediate = true;
    }

    void atomicOriginal(long value) {
        atomicOriginal = value;
    }

    void invalidatedStag(int stag) {
        invalidatedStag = stag;
        hasInvalidatedStag = true;
    }

    void solicited(boolean se) {
        solicited = se;
    }

    /**
     * A copy of this completion that polling will not overwrite (the arrays given to {@code poll} are reused; keep a
     * copy only where a completion must outlive the next poll — this allocates).
     */
    public Completion copy() {
        Completion c = new Completion();
        c.copyFrom(this);
        return c;
    }

    /** Copies every field of {@code o}. */
    void copyFrom(Completion o) {
        wrId = o.wrId;
        status = o.status;
        opcode = o.opcode;
        byteLength = o.byteLength;
        immediate = o.immediate;
        hasImmediate = o.hasImmediate;
        atomicOriginal = o.atomicOriginal;
        invalidatedStag = o.invalidatedStag;
        hasInvalidatedStag = o.hasInvalidatedStag;
        solicited = o.solicited;
        qpNumber = o.qpNumber;
        cqeKind = o.cqeKind;
        rawStatus = o.rawStatus;
        info = o.info;
    }

    /** The work request's id, or {@link #NO_WR_ID} for a {@link CompletionOpcode#QP_ERROR}. */
    public long wrId() {
        return wrId;
    }

    public CompletionStatus status() {
        return status;
    }

    public CompletionOpcode opcode() {
        return opcode;
    }

    /** Whether this reports the queue pair's failure rather than a work request. */
    public boolean isQpError() {
        return opcode == CompletionOpcode.QP_ERROR;
    }

    /**
     * Octets: received into the buffer (RECV), read (RDMA_READ), sent (SEND, RDMA_WRITE, …), 8 for Atomics; 0 for
     * Immediate Data, which carries no payload.
     */
    public long byteLength() {
        return byteLength;
    }

    /** Whether {@link #immediate()} holds a value (RECV_IMMEDIATE). */
    public boolean hasImmediate() {
        return hasImmediate;
    }

    /** The 64-bit Immediate Data of a RECV_IMMEDIATE. */
    public long immediate() {
        return immediate;
    }

    /** The target's value before an Atomic (it was also stored in the request's result buffer). */
    public long atomicOriginal() {
        return atomicOriginal;
    }

    /** Whether the peer's Send with Invalidate, or a Local Invalidate, invalidated {@link #invalidatedStag()} here. */
    public boolean hasInvalidatedStag() {
        return hasInvalidatedStag;
    }

    public int invalidatedStag() {
        return invalidatedStag;
    }

    /** Whether the received message asked for a Solicited Event (Send with SE, Immediate Data with SE). */
    public boolean solicited() {
        return solicited;
    }

    public int qpNumber() {
        return qpNumber;
    }

    /** The completion entry's kind, or null for a completion the driver made (flush) or an unknown kind. */
    public CqeKind cqeKind() {
        return cqeKind;
    }

    /** The completion entry's status octet. */
    public int rawStatus() {
        return rawStatus;
    }

    /** The completion entry's info field. */
    public long info() {
        return info;
    }

    /**
     * The cause of the Terminate: for TERMINATE_SENT the exact cause; for TERMINATE_RECEIVED the first cause of the
     * docs/requirements.md §3 tables with the Terminate's Layer/EType/Code (several share a code, T-16). Null otherwise.
     */
    public TerminateCause terminateCause() {
        if (cqeKind == CqeKind.TERMINATE_SENT) {
            return CompletionStatus.cause(rawStatus);
        }
        if (cqeKind == CqeKind.TERMINATE_RECEIVED) {
            int le = terminateLayerEtype();
            int code = terminateErrorCode();
            for (TerminateCause c : TerminateCause.values()) {
                if (c.layerEtype() == le && c.code() == code) {
                    return c;
                }
            }
        }
        return null;
    }

    /** Terminate octet 0, {@code Layer << 4 | EType}, of a TERMINATE_RECEIVED or TERMINATE_SENT; else -1. */
    public int terminateLayerEtype() {
        if (cqeKind == CqeKind.TERMINATE_RECEIVED) {
            return CompletionStatus.terminateOctet(info, 0);
        }
        TerminateCause c = cqeKind == CqeKind.TERMINATE_SENT ? CompletionStatus.cause(rawStatus) : null;
        return c == null ? -1 : c.layerEtype();
    }

    /** Terminate octet 1, the Error Code, of a TERMINATE_RECEIVED or TERMINATE_SENT; else -1. */
    public int terminateErrorCode() {
        if (cqeKind == CqeKind.TERMINATE_RECEIVED) {
            return CompletionStatus.terminateOctet(info, 1);
        }
        TerminateCause c = cqeKind == CqeKind.TERMINATE_SENT ? CompletionStatus.cause(rawStatus) : null;
        return c == null ? -1 : c.code();
    }

    /** Terminate octet 2 (HdrCt: M 0x80, D 0x40, R 0x20) of a TERMINATE_RECEIVED; else -1. */
    public int terminateHdrCt() {
        return cqeKind == CqeKind.TERMINATE_RECEIVED ? CompletionStatus.terminateOctet(info, 2) : -1;
    }

    /** The MPA error: of an MPA_ERROR entry, or of a received Terminate with Layer LLP; else null. */
    public MpaErrorCode mpaError() {
        int code = -1;
        if (cqeKind == CqeKind.MPA_ERROR) {
            code = rawStatus;
        } else if (cqeKind == CqeKind.TERMINATE_RECEIVED
                && terminateLayerEtype() == (MpaErrorCode.LAYER << 4 | MpaErrorCode.ETYPE)) {
            code = terminateErrorCode();
        }
        for (MpaErrorCode c : MpaErrorCode.values()) {
            if (c.code() == code) {
                return c;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("Completion[qp ").append(qpNumber).append(' ').append(opcode).append(' ')
                .append(status);
        if (wrId != NO_WR_ID) {
            s.append(", wrId ").append(wrId);
        }
        s.append(", ").append(byteLength).append(" octets");
        if (hasImmediate) {
            s.append(String.format(", imm 0x%x", immediate));
        }
        if (opcode == CompletionOpcode.FETCH_ADD || opcode == CompletionOpcode.COMPARE_SWAP
                || opcode == CompletionOpcode.MASKED_FETCH_ADD || opcode == CompletionOpcode.MASKED_COMPARE_SWAP) {
            s.append(String.format(", original 0x%x", atomicOriginal));
        }
        if (hasInvalidatedStag) {
            s.append(String.format(", invalidated 0x%08x", invalidatedStag));
        }
        if (solicited) {
            s.append(", SE");
        }
        TerminateCause c = terminateCause();
        if (c != null) {
            s.append(", ").append(c);
        } else if (cqeKind == CqeKind.TERMINATE_RECEIVED) {
            s.append(String.format(", Terminate %02x/%02x", terminateLayerEtype(), terminateErrorCode()));
        }
        MpaErrorCode m = mpaError();
        if (m != null) {
            s.append(", ").append(m);
        }
        return s.append(']').toString();
    }
}
