package rnic.wire;

import java.util.Optional;

/**
 * RDMAP opcodes and what the opcode table fixes for each (RFC 5040 §4.1 Fig. 4, §4.2 Fig. 5; RFC 7306 §4.1 Fig. 2–3;
 * docs/requirements.md §2.6.2, RDMAP-04). 0xC–0xE are unassigned and 0xF is reserved (RFC 6580): a segment carrying one is
 * answered with Unexpected OpCode (E-R9), as are 0x8–0xB at an endpoint without RFC 7306.
 */
public enum RdmapOpcode {
    /** 0x0: tagged, ULP payload placed at the Data Sink STag/TO, not delivered (RDMAP-05). */
    RDMA_WRITE(0x0, true, null, 0, false),
    /** 0x1: QN 1, the 28-octet Read Request header, no ULP payload (RDMAP-07, RDMAP-08). */
    RDMA_READ_REQUEST(0x1, false, DdpQueue.READ_REQUEST, Rdmap.READ_REQUEST_HEADER_SIZE, false),
    /** 0x2: tagged, to the Sink STag/TO copied from the request; completes the Read (RDMAP-11). */
    RDMA_READ_RESPONSE(0x2, true, null, 0, false),
    /** 0x3: QN 0, consumes a receive buffer (RDMAP-12). */
    SEND(0x3, false, DdpQueue.SEND, 0, false),
    /** 0x4: QN 0, Invalidate STag valid (RDMAP-13). */
    SEND_WITH_INVALIDATE(0x4, false, DdpQueue.SEND, 0, false),
    /** 0x5: QN 0, Solicited Event. */
    SEND_WITH_SE(0x5, false, DdpQueue.SEND, 0, false),
    /** 0x6: QN 0, Solicited Event, Invalidate STag valid. */
    SEND_WITH_SE_AND_INVALIDATE(0x6, false, DdpQueue.SEND, 0, false),
    /** 0x7: QN 2, Terminate header of 4 … 52 octets, no ULP payload (RDMAP-14, RDMAP-15). */
    TERMINATE(0x7, false, DdpQueue.TERMINATE, Rdmap.TERMINATE_CONTROL_SIZE, false),
    /** 0x8 (RFC 7306): QN 0, exactly 8 octets of Immediate Data (RDMAP-40). */
    IMMEDIATE_DATA(0x8, false, DdpQueue.SEND, Rdmap.IMMEDIATE_DATA_SIZE, true),
    /** 0x9 (RFC 7306): QN 0, Immediate Data with Solicited Event. */
    IMMEDIATE_DATA_WITH_SE(0x9, false, DdpQueue.SEND, Rdmap.IMMEDIATE_DATA_SIZE, true),
    /** 0xA (RFC 7306): QN 1, the 52-octet Atomic Request header (RDMAP-30, RDMAP-31). */
    ATOMIC_REQUEST(0xA, false, DdpQueue.READ_REQUEST, Rdmap.ATOMIC_REQUEST_HEADER_SIZE, true),
    /** 0xB (RFC 7306): QN 3, the 12-octet Atomic Response header (RDMAP-35, RDMAP-36). */
    ATOMIC_RESPONSE(0xB, false, DdpQueue.ATOMIC_RESPONSE, Rdmap.ATOMIC_RESPONSE_HEADER_SIZE, true);

    private final int code;
    private final boolean tagged;
    private final DdpQueue queue;
    private final int headerSize;
    private final boolean extension;

    RdmapOpcode(int code, boolean tagged, DdpQueue queue, int headerSize, boolean extension) {
        this.code = code;
        this.tagged = tagged;
        this.queue = queue;
        this.headerSize = headerSize;
        this.extension = extension;
    }

    /** The 4-bit Opcode on the wire. */
    public int code() {
        return code;
    }

    /** The RDMAP Control Field of this opcode: RV = 01b, Rsv = 0 (RDMAP-02; e.g. 0x43 for Send). */
    public int control() {
        return (Rdmap.VERSION << Rdmap.RV_SHIFT) | code;
    }

    /** The DDP T flag the opcode requires (E-R10 when a segment disagrees). */
    public boolean tagged() {
        return tagged;
    }

    /** The untagged queue the opcode travels on; empty for the two tagged opcodes (E-R10 on any other QN). */
    public Optional<DdpQueue> queue() {
        return Optional.ofNullable(queue);
    }

    /**
     * Octets of RDMAP header at DDP payload offset 0. For Read Request, Atomic Request, Atomic Response and Immediate
     * Data this is the whole DDP message; for Terminate it is the fixed part before the optional fields.
     */
    public int headerSize() {
        return headerSize;
    }

    /** Whether the message carries ULP payload after its RDMAP header (Write, Read Response, the Send family). */
    public boolean ulpPayload() {
        return this == RDMA_WRITE || this == RDMA_READ_RESPONSE || queue == DdpQueue.SEND && !extension;
    }

    /** Whether the untagged header's Invalidate STag is meaningful; for every other opcode it is ignored (T-30). */
    public boolean invalidates() {
        return this == SEND_WITH_INVALIDATE || this == SEND_WITH_SE_AND_INVALIDATE;
    }

    /** Whether the message asks for a Solicited Event at the Data Sink. */
    public boolean solicitedEvent() {
        return this == SEND_WITH_SE || this == SEND_WITH_SE_AND_INVALIDATE || this == IMMEDIATE_DATA_WITH_SE;
    }

    /** Whether the opcode is an RFC 7306 extension (0x8–0xB), unexpected at an endpoint without it (E-R9). */
    public boolean extension() {
        return extension;
    }

    /** The opcode for a 4-bit wire value, or empty for the unassigned and reserved values 0xC–0xF. */
    public static Optional<RdmapOpcode> decode(int code) {
        for (RdmapOpcode o : values()) {
            if (o.code == code) {
                return Optional.of(o);
            }
        }
        return Optional.empty();
    }
}
