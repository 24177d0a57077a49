package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.Bool;

/**
 * What {@link RdmapAtomicUnit} computed for one {@link AtomicRequest}: the value to write back, whether to write it,
 * and the original value for the Atomic Response (RFC 7306 §5.2.2).
 */
public final class AtomicResult extends HwBundle {
    public final int tagWidth;
    /** The request's tag, unchanged. */
    public final Bits tag;
    /** The Original Remote Data Value, for the Atomic Response. */
    public final Bits originalValue;
    /** The value memory holds after the operation ({@code originalValue} when nothing is written). */
    public final Bits newValue;
    /** Write {@code newValue} back: a FetchAdd, or a CmpSwap whose compare matched; never for a misaligned target. */
    public final Bool writeEnable;
    /**
     * The target is not 64-bit aligned: no write, no Atomic Response; the engine sends Terminate Layer 0 (RDMAP) /
     * EType 0x2 (Remote Operation Error) / Error Code 0x07 (Catastrophic error, localized to RDMAP Stream) instead.
     */
    public final Bool misaligned;

    public AtomicResult(int tagWidth) {
        this.tagWidth = tagWidth;
        tag = field("tag", bits(tagWidth));
        originalValue = field("originalValue", bits(64));
        newValue = field("newValue", bits(64));
        writeEnable = field("writeEnable", bool());
        misaligned = field("misaligned", bool());
    }
}
