package rnic.wire;

/**
 * DDP header constants (RFC 5041 §4, docs/requirements.md §2.5): the DDP Control octet and the two header sizes. Shared by the
 * hardware (elaboration constants), the models and the driver.
 *
 * <pre>
 *  DDP Control (segment octet 0):  T (0x80) | L (0x40) | Rsvd (0x3C) | DV (0x03)
 *  Tagged header   (14 octets):    Control | RsvdULP (8) | STag (32) | TO (64)
 *  Untagged header (18 octets):    Control | RsvdULP (40) | QN (32) | MSN (32) | MO (32)
 * </pre>
 */
public final class Ddp {
    /** DDP Version, DV = 01b (DDP-09, T-32). */
    public static final int VERSION = 1;
    /** Tagged flag in the DDP Control octet (DDP-06). */
    public static final int T_FLAG = 0x80;
    /** Last flag in the DDP Control octet (DDP-07). */
    public static final int L_FLAG = 0x40;
    /** DV field in the DDP Control octet. The four bits between L and DV are reserved (DDP-08). */
    public static final int DV_MASK = 0x03;
    /** Tagged Buffer header octets (§2.5.2, DDP-10). */
    public static final int TAGGED_HEADER_SIZE = 14;
    /** Untagged Buffer header octets (§2.5.3, DDP-13). */
    public static final int UNTAGGED_HEADER_SIZE = 18;
    /** The MSN of the first message on every untagged queue (DDP-15, T-14). */
    public static final long FIRST_MSN = 1;
    /** MSN, MO and QN are 32-bit unsigned fields. */
    public static final long U32_MASK = 0xFFFF_FFFFL;

    private Ddp() {
    }

    /** The DDP Control octet a sender writes: T, L, Rsvd = 0, DV = 01b. */
    public static int control(boolean tagged, boolean last) {
        return (tagged ? T_FLAG : 0) | (last ? L_FLAG : 0) | VERSION;
    }

    /** The MSN after {@code msn}: one more, mod 2^32, 0xFFFFFFFF wrapping to 0 (DDP-15). */
    public static long nextMsn(long msn) {
        return (msn + 1) & U32_MASK;
    }

    /** The header size implied by the T flag of a DDP Control octet (T-19). */
    public static int headerSize(int control) {
        return (control & T_FLAG) != 0 ? TAGGED_HEADER_SIZE : UNTAGGED_HEADER_SIZE;
    }
}
