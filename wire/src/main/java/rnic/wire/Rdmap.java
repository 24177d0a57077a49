package rnic.wire;

/**
 * RDMAP constants (RFC 5040 §4, RFC 7306 §4–§6, docs/requirements.md §2.6–§2.7): the RDMAP Control Field and the sizes of the
 * RDMAP headers carried at the start of the DDP payload. Shared by the hardware, the models and the driver.
 *
 * <pre>
 *  RDMAP Control Field (DDP RsvdULP octet 0):  RV (0xC0) | Rsv (0x30) | Opcode (0x0F)
 *  Terminate octet 2 (HdrCt):                  M (0x80) | D (0x40) | R (0x20) | reserved (0x1F)
 * </pre>
 */
public final class Rdmap {
    /** RDMAP Version, RV = 01b (RDMAP-02, T-32). */
    public static final int VERSION = 1;
    /** Position of RV in the Control Field. */
    public static final int RV_SHIFT = 6;
    /** Opcode bits of the Control Field. */
    public static final int OPCODE_MASK = 0x0F;

    /** RDMA Read Request header: SinkSTag, SinkTO, RDMARDSZ, SrcSTag, SrcTO (§2.7.1, RDMAP-08). */
    public static final int READ_REQUEST_HEADER_SIZE = 28;
    /** Terminate Control (Layer, EType, Error Code, HdrCt) and its reserved bits (§2.7.2, RDMAP-15). */
    public static final int TERMINATE_CONTROL_SIZE = 4;
    /** The DDP Segment Length field of a Terminate, present when D=1 (RDMAP-16). */
    public static final int TERMINATE_SEGMENT_LENGTH_SIZE = 2;
    /** Atomic Request header (§2.7.3, RDMAP-31). */
    public static final int ATOMIC_REQUEST_HEADER_SIZE = 52;
    /** Atomic Response header (§2.7.4, RDMAP-36; 12 octets, not 32: T-24). */
    public static final int ATOMIC_RESPONSE_HEADER_SIZE = 12;
    /** Immediate Data (§2.7.5, RDMAP-40). */
    public static final int IMMEDIATE_DATA_SIZE = 8;

    /** Terminate HdrCt M: the DDP Segment Length is valid. */
    public static final int TERMINATE_M = 0x80;
    /** Terminate HdrCt D: DDP Segment Length and Terminated DDP Header present. */
    public static final int TERMINATE_D = 0x40;
    /** Terminate HdrCt R: Terminated RDMA Header present. */
    public static final int TERMINATE_R = 0x20;

    private Rdmap() {
    }
}
