package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.UInt;

/**
 * One check for {@link DdpTagValidator}: an STag and Tagged Offset as they arrived in a tagged DDP header (RFC 5041
 * §4.3: Sink STag, Sink TO), a Read Request (RFC 5040 §4.4: SrcSTag, SrcTO, RDMARDSZ), an Atomic Request (RFC 7306
 * §5.2.1: Remote STag, Remote TO) or a Send with Invalidate (RFC 5040 §4.5: Invalidate STag), with the stream it came
 * on and an opaque {@code tag} the validator hands back with the result.
 */
public final class TagRequest extends HwBundle {
    public final DdpConfig cfg;
    public final int tagWidth;
    /** A {@link TagOp} code: what the access is, hence the right it needs and how its faults are reported. */
    public final UInt op;
    /** The STag: bits 31:8 index the table, bits 7:0 are the key (see {@link DdpConfig}). */
    public final UInt stag;
    /** The Tagged Offset of the first octet (ignored by {@link TagOp#INVALIDATE}). */
    public final UInt to;
    /** Octets accessed (segment length, RDMARDSZ); 0 is not checked; ignored by ATOMIC (8) and INVALIDATE. */
    public final UInt length;
    /** The Protection Domain of the stream the access arrived on. */
    public final UInt pd;
    /** The QP (DDP stream) the access arrived on. */
    public final UInt qp;
    /** Opaque to the validator: whatever the engine needs to act on the result. */
    public final Bits tag;

    public TagRequest(DdpConfig cfg, int tagWidth) {
        this.cfg = cfg;
        this.tagWidth = tagWidth;
        op = field("op", uint(2));
        stag = field("stag", uint(32));
        to = field("to", uint(64));
        length = field("length", uint(32));
        pd = field("pd", uint(cfg.pdWidth()));
        qp = field("qp", uint(cfg.qpBits()));
        tag = field("tag", bits(tagWidth));
    }
}
