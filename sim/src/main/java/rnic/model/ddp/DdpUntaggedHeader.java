package rnic.model.ddp;

import java.nio.ByteBuffer;
import rnic.wire.Ddp;

/**
 * The Untagged Buffer DDP header (RFC 5041 §4.3, docs/requirements.md §2.5.3, DDP-13 … DDP-16).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  (MPA ULPDU_Length)           |T|L| Rsvd  | DV|  RsvdULP[0:7] |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                         RsvdULP[8:39]                         |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                               QN                              |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                              MSN                              |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                               MO                              |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * Drawn as RFC 5041 draws it, after MPA's ULPDU_Length, so the header starts at bit 16 of a word.
 *
 * @param last    L flag
 * @param rsvdUlp the 40-bit RsvdULP: RDMAP Control Field in the top octet, Invalidate STag below (RFC 5040 §4.1)
 * @param qn      Queue Number (32-bit unsigned)
 * @param msn     Message Sequence Number (32-bit unsigned), the same in every segment of a message
 * @param mo      Message Offset of this segment's first payload octet (32-bit unsigned)
 */
public record DdpUntaggedHeader(boolean last, long rsvdUlp, long qn, long msn, long mo) implements DdpHeader {

    /** RsvdULP is 40 bits. */
    public static final long RSVD_ULP_MASK = 0xFF_FFFF_FFFFL;

    public DdpUntaggedHeader {
        if ((rsvdUlp & ~RSVD_ULP_MASK) != 0) {
            throw new IllegalArgumentException("untagged RsvdULP is 40 bits: " + Long.toHexString(rsvdUlp));
        }
        if ((qn & ~Ddp.U32_MASK) != 0 || (msn & ~Ddp.U32_MASK) != 0 || (mo & ~Ddp.U32_MASK) != 0) {
            throw new IllegalArgumentException("QN, MSN and MO are 32-bit unsigned: " + qn + ", " + msn + ", " + mo);
        }
    }

    @Override
    public int rsvdUlpFirstOctet() {
        return (int) (rsvdUlp >>> 32);
    }

    @Override
    public int size() {
        return Ddp.UNTAGGED_HEADER_SIZE;
    }

    @Override
    public void writeTo(ByteBuffer b) {
        b.put((byte) Ddp.control(false, last)).put((byte) (rsvdUlp >>> 32)).putInt((int) rsvdUlp)
                .putInt((int) qn).putInt((int) msn).putInt((int) mo);
    }

    /** Reads a header whose Control octet {@link DdpHeader#read} has checked. */
    static DdpUntaggedHeader read(ByteBuffer b) {
        boolean last = (b.get() & Ddp.L_FLAG) != 0;
        long rsvdUlp = (b.get() & 0xFFL) << 32 | (b.getInt() & Ddp.U32_MASK);
        return new DdpUntaggedHeader(last, rsvdUlp, b.getInt() & Ddp.U32_MASK, b.getInt() & Ddp.U32_MASK,
                b.getInt() & Ddp.U32_MASK);
    }

    @Override
    public String toString() {
        return String.format("Untagged[L=%d ulp=%010x qn=%d msn=%d mo=%d]", last ? 1 : 0, rsvdUlp, qn, msn, mo);
    }
}
