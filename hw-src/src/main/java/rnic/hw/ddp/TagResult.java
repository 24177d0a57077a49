package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.UInt;

/**
 * The verdict of {@link DdpTagValidator} on one {@link TagRequest}, in request order: the request's tag, a
 * {@link TagFault} code, and the host address the access starts at.
 */
public final class TagResult extends HwBundle {
    public final int tagWidth;
    /** The request's tag, unchanged. */
    public final Bits tag;
    /** A {@link TagFault} code; map it to a Terminate with {@link TagFault#cause}. */
    public final UInt fault;
    /**
     * The host address of the request's TO: {@code va + to} in a zero-based buffer, {@code to} in a VA-based one.
     * Meaningful when {@code fault} is NONE for a PLACE or READ of at least one octet, or an ATOMIC; otherwise it is
     * whatever the table entry at the STag's index gives, and must be ignored.
     */
    public final UInt address;

    public TagResult(int tagWidth) {
        this.tagWidth = tagWidth;
        tag = field("tag", bits(tagWidth));
        fault = field("fault", uint(3));
        address = field("address", uint(64));
    }
}
