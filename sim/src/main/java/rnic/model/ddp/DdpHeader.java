package rnic.model.ddp;

import java.nio.ByteBuffer;
import rnic.wire.Ddp;
import rnic.wire.TerminateCause;

/**
 * A DDP header (RFC 5041 §4, docs/requirements.md §2.5): {@link DdpTaggedHeader} (T=1, 14 octets) or {@link DdpUntaggedHeader}
 * (T=0, 18 octets). A sender writes Rsvd = 0 and DV = 01b; a receiver ignores Rsvd (DDP-08) and checks DV (DDP-09).
 */
public sealed interface DdpHeader permits DdpTaggedHeader, DdpUntaggedHeader {

    /** L: the last segment of its message (DDP-07). */
    boolean last();

    /** The first octet of RsvdULP, where RDMAP keeps its Control Field (RFC 5040 §4.1). */
    int rsvdUlpFirstOctet();

    /** Encoded octets: {@link Ddp#TAGGED_HEADER_SIZE} or {@link Ddp#UNTAGGED_HEADER_SIZE}. */
    int size();

    /** Writes the header at the buffer's position. */
    void writeTo(ByteBuffer b);

    /**
     * Reads the header at the buffer's position. The T flag of the first octet decides the layout (T-19); then
     * <ul>
     * <li>fewer octets than that header are {@link TerminateCause#DDP_LOCAL_CATASTROPHIC}: docs/requirements.md §2.2 calls it an
     * invalid header without naming a code, and E-D0 is the one DDP row sent without a Terminated DDP Header, which
     * cannot be echoed whole here;</li>
     * <li>DV ≠ 01b is {@link TerminateCause#DDP_TAGGED_INVALID_VERSION} or
     * {@link TerminateCause#DDP_UNTAGGED_INVALID_VERSION} (DDP-09, E-D7, E-D13).</li>
     * </ul>
     * The buffer's position is left after the header only when it is valid.
     */
    static DdpHeader read(ByteBuffer b) throws TerminateException {
        if (!b.hasRemaining()) {
            throw new TerminateException(TerminateCause.DDP_LOCAL_CATASTROPHIC, "empty DDP segment");
        }
        int control = b.get(b.position()) & 0xFF;
        boolean tagged = (control & Ddp.T_FLAG) != 0;
        int size = Ddp.headerSize(control);
        if (b.remaining() < size) {
            throw new TerminateException(TerminateCause.DDP_LOCAL_CATASTROPHIC, b.remaining()
                    + " octets cannot hold a " + size + "-octet " + (tagged ? "tagged" : "untagged") + " header");
        }
        int dv = control & Ddp.DV_MASK;
        if (dv != Ddp.VERSION) {
            throw new TerminateException(tagged ? TerminateCause.DDP_TAGGED_INVALID_VERSION
                    : TerminateCause.DDP_UNTAGGED_INVALID_VERSION, "DV " + dv);
        }
        return tagged ? DdpTaggedHeader.read(b) : DdpUntaggedHeader.read(b);
    }
}
