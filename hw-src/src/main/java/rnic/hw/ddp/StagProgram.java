package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * A write of one STag table entry by the host for {@link DdpTagValidator}: registration of a memory region or window
 * ({@code valid} set) or deregistration ({@code valid} clear), RFC 5040 §8.1 and DDP-34.
 *
 * <p>The region must lie inside the 64-bit address space, {@code va + length ≤ 2^64}, as the golden model's
 * {@code StagTable.Region} requires: the host checks that, the validator does not. (A VA-based region that does not
 * fit is still never granted an octet at or past 2^64, since the end TO is kept exactly in 65 bits; the addresses of
 * a zero-based one would wrap.)
 */
public final class StagProgram extends HwBundle {
    public final DdpConfig cfg;
    /** The table index, STag bits 31:8. */
    public final UInt index;
    /** The STag is valid after this write. */
    public final Bool valid;
    /** The key, STag bits 7:0, that a remote STag must carry to use the entry. */
    public final UInt key;
    /** The Protection Domain the region belongs to. */
    public final UInt pd;
    /** The region is bound to {@code qp}; otherwise every QP of the PD may use it (DDP-33). */
    public final Bool qpBound;
    /** The QP it is bound to, when {@code qpBound}. */
    public final UInt qp;
    /** Target of RDMA Writes and sink of Read Responses. */
    public final Bool remoteWrite;
    /** Source of RDMA Read Requests. */
    public final Bool remoteRead;
    /** Target of Atomic Requests (this project's right, RFC 7306 defines none: Appendix B item 7). */
    public final Bool remoteAtomic;
    /** TOs count from 0 at {@code va}; otherwise the TO is the host address itself (VA-based). */
    public final Bool zeroBased;
    /** Host address of the region's first octet. */
    public final UInt va;
    /** Octets in the region. */
    public final UInt length;

    public StagProgram(DdpConfig cfg) {
        this.cfg = cfg;
        index = field("index", uint(cfg.stagIndexBits()));
        valid = field("valid", bool());
        key = field("key", uint(DdpConfig.KEY_BITS));
        pd = field("pd", uint(cfg.pdWidth()));
        qpBound = field("qpBound", bool());
        qp = field("qp", uint(cfg.qpBits()));
        remoteWrite = field("remoteWrite", bool());
        remoteRead = field("remoteRead", bool());
        remoteAtomic = field("remoteAtomic", bool());
        zeroBased = field("zeroBased", bool());
        va = field("va", uint(64));
        length = field("length", uint(64));
    }
}
