package rnic.model.ddp;

import java.nio.ByteBuffer;
import rnic.wire.Ddp;

/**
 * The Tagged Buffer DDP header (RFC 5041 §4.2, docs/requirements.md §2.5.2, DDP-10 … DDP-12).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  (MPA ULPDU_Length)           |T|L| Rsvd  | DV|    RsvdULP    |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                              STag                             |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                                                               |
 * +                            TO (64)                            +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * Drawn as RFC 5041 draws it, after MPA's ULPDU_Length, so the header starts at bit 16 of a word.
 *
 * @param last    L flag
 * @param rsvdUlp the 8-bit RsvdULP (the RDMAP Control Field), the same in every segment of a message
 * @param stag    Data Sink STag
 * @param to      Tagged Offset of this segment's first payload octet (64-bit unsigned)
 */
public record DdpTaggedHeader(boolean last, int rsvdUlp, int stag, long to) implements DdpHeader {

    public DdpTaggedHeader {
        if (rsvdUlp < 0 || rsvdUlp > 0xFF) {
            throw new IllegalArgumentException("tagged RsvdULP is 8 bits: " + rsvdUlp);
        }
    }

    @Override
    public int rsvdUlpFirstOctet() {
        return rsvdUlp;
    }

    @Override
    public int size() {
        return Ddp.TAGGED_HEADER_SIZE;
    }

    @Override
    public void writeTo(ByteBuffer b) {
        b.put((byte) Ddp.control(true, last)).put((byte) rsvdUlp).putInt(stag).putLong(to);
    }

    /** Reads a header whose Control octet {@link DdpHeader#read} has checked. */
    static DdpTaggedHeader read(ByteBuffer b) {
        boolean last = (b.get() & Ddp.L_FLAG) != 0;
        return new DdpTaggedHeader(last, b.get() & 0xFF, b.getInt(), b.getLong());
    }

    @Override
    public String toString() {
        return String.format("Tagged[L=%d ulp=%02x stag=%08x to=%016x]", last ? 1 : 0, rsvdUlp, stag, to);
    }
}
