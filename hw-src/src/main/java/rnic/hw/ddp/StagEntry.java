package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * One entry of the STag table inside {@link DdpTagValidator}, as stored: the {@link StagProgram} fields with the
 * length replaced by the exact end TO, {@code end = firstTo + length} in 65 bits ({@code firstTo} = 0 zero-based,
 * {@code va} VA-based). The bound check "TO + length past the bound" then is one comparison {@code to + len > end}
 * instead of a subtraction followed by a comparison, which keeps the check path to one carry chain per stage.
 */
public final class StagEntry extends HwBundle {
    public final DdpConfig cfg;
    public final Bool valid;
    public final UInt key;
    public final UInt pd;
    public final Bool qpBound;
    public final UInt qp;
    public final Bool remoteWrite;
    public final Bool remoteRead;
    public final Bool remoteAtomic;
    public final Bool zeroBased;
    /** Host address of the first octet. */
    public final UInt va;
    /** The TO one past the last octet, exact (65 bits: a VA-based region may end at 2^64). */
    public final UInt end;

    public StagEntry(DdpConfig cfg) {
        this.cfg = cfg;
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
        end = field("end", uint(65));
    }
}
