package rnic.cm;

import rnic.wire.WqeOpcode;

/**
 * The zero-length message an RFC 6581 Initiator sends as its first FPDU in the peer-to-peer model, so that the
 * Responder, which may send nothing before it has received a valid FPDU (MPA-36), can send first (RFC 6581 §5, §9.2;
 * flags B, C, D of the enhanced data, MPA-50). The driver posts it through the normal send queue.
 */
public enum RtrForm {
    /** B: a zero-length Send (consumes a receive buffer at the Responder, which the driver posts itself). */
    SEND(WqeOpcode.SEND),
    /** C: a zero-length RDMA Write (needs nothing at the Responder). */
    RDMA_WRITE(WqeOpcode.RDMA_WRITE),
    /** D: a zero-length RDMA Read (needs one IRD slot at the Responder and ORD ≥ 1 at the Initiator). */
    RDMA_READ(WqeOpcode.RDMA_READ);

    private final WqeOpcode opcode;

    RtrForm(WqeOpcode opcode) {
        this.opcode = opcode;
    }

    /** The send queue opcode of the message. */
    public WqeOpcode wqeOpcode() {
        return opcode;
    }

    /** The form of an opcode, or null. */
    public static RtrForm of(WqeOpcode op) {
        for (RtrForm f : values()) {
            if (f.opcode == op) {
                return f;
            }
        }
        return null;
    }
}
