package rnic.model.rdmap;

import rnic.model.ddp.TerminateException;
import rnic.wire.Rdmap;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * The RDMAP Control Field, the first RsvdULP octet of every DDP segment (RFC 5040 §4.1, docs/requirements.md §2.6.1, RDMAP-02).
 *
 * <pre>
 *  0 1 2 3 4 5 6 7
 * +-+-+-+-+-+-+-+-+
 * |RV |Rsv|Opcode |
 * +-+-+-+-+-+-+-+-+
 * </pre>
 *
 * A sender writes RV = 01b and Rsv = 0; a receiver ignores Rsv.
 *
 * @param opcode the message's opcode
 */
public record RdmapControl(RdmapOpcode opcode) {

    /** The octet on the wire, e.g. 0x43 for Send. */
    public int encode() {
        return opcode.control();
    }

    /**
     * Parses a received Control Field. RV ≠ 01b is {@link TerminateCause#INVALID_RDMAP_VERSION} (E-R8; RDMAC's 00b
     * too: this endpoint is a non-permissive IETF one, T-32); an opcode that is unassigned, or an RFC 7306 opcode when
     * {@code extensions} is off, is {@link TerminateCause#UNEXPECTED_OPCODE} (E-R9).
     */
    public static RdmapControl parse(int octet, boolean extensions) throws TerminateException {
        int rv = (octet & 0xFF) >>> Rdmap.RV_SHIFT;
        if (rv != Rdmap.VERSION) {
            throw new TerminateException(TerminateCause.INVALID_RDMAP_VERSION, "RV " + rv);
        }
        int code = octet & Rdmap.OPCODE_MASK;
        RdmapOpcode opcode = RdmapOpcode.decode(code).filter(o -> extensions || !o.extension())
                .orElseThrow(() -> new TerminateException(TerminateCause.UNEXPECTED_OPCODE, "opcode 0x"
                        + Integer.toHexString(code) + (extensions ? "" : " (RFC 7306 not supported)")));
        return new RdmapControl(opcode);
    }
}
