package rnic.model.ddp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import rnic.model.mpa.Mpa;
import rnic.wire.Ddp;

/**
 * Golden model of the DDP sender of one stream (RFC 5041 §4–§5.2): a ULP message in, its DDP segments out, in the
 * order they are handed to the LLP.
 *
 * <p>Every segment is at most MULPDU octets, header included (DDP-17), and as full as MULPDU allows (MPA-21); only the
 * last one has L=1 (DDP-07). A tagged message's segments carry TO = initial TO + offset of their first payload octet
 * (DDP-12), an untagged message's carry MO = that offset (DDP-16) and the message's MSN (DDP-15). A zero-length
 * message is one segment (DDP-19). MSNs are counted per QN from {@link Ddp#FIRST_MSN}, one per message, mod 2^32.
 * MULPDU is a parameter of each message, so a change applies to the next message and never re-segments one already
 * posted (DDP-01).
 */
public final class DdpSegmenter {
    private final long firstMsn;
    private final Map<Long, Long> nextMsn = new HashMap<>();

    /** A stream whose MSNs start at 1 (DDP-15). */
    public DdpSegmenter() {
        this(Ddp.FIRST_MSN);
    }

    /**
     * A stream whose counters start at {@code firstMsn} on every QN, to follow hardware whose counters were preloaded
     * (the DDP-15 wrap test).
     */
    public DdpSegmenter(long firstMsn) {
        if ((firstMsn & ~Ddp.U32_MASK) != 0) {
            throw new IllegalArgumentException("MSN is 32-bit unsigned: " + firstMsn);
        }
        this.firstMsn = firstMsn;
    }

    /** The MSN the next message on {@code qn} gets. */
    public long nextMsn(long qn) {
        return nextMsn.getOrDefault(qn, firstMsn);
    }

    /** Segments a tagged message placed at {@code stag}/{@code to}. */
    public List<DdpSegment> tagged(int rsvdUlp, int stag, long to, byte[] payload, int mulpdu) {
        return split(payload, mulpdu, Ddp.TAGGED_HEADER_SIZE,
                (offset, last) -> new DdpTaggedHeader(last, rsvdUlp, stag, to + offset));
    }

    /** Segments an untagged message for queue {@code qn}, giving it the queue's next MSN. */
    public List<DdpSegment> untagged(long rsvdUlp, long qn, byte[] payload, int mulpdu) {
        long msn = nextMsn(qn);
        List<DdpSegment> segments = split(payload, mulpdu, Ddp.UNTAGGED_HEADER_SIZE,
                (offset, last) -> new DdpUntaggedHeader(last, rsvdUlp, qn, msn, offset));
        nextMsn.put(qn, Ddp.nextMsn(msn));
        return segments;
    }

    /** The header of the segment whose payload starts at {@code offset} in the message. */
    private interface HeaderAt {
        DdpHeader at(long offset, boolean last);
    }

    private static List<DdpSegment> split(byte[] payload, int mulpdu, int headerSize, HeaderAt header) {
        if (mulpdu <= headerSize || mulpdu > Mpa.MAX_ULPDU) {
            throw new IllegalArgumentException("MULPDU " + mulpdu + " must exceed the " + headerSize
                    + "-octet header and stay within " + Mpa.MAX_ULPDU + " (MPA-03)");
        }
        int room = mulpdu - headerSize;
        List<DdpSegment> out = new ArrayList<>();
        int offset = 0;
        do {
            int n = Math.min(room, payload.length - offset);
            boolean last = offset + n == payload.length;
            out.add(new DdpSegment(header.at(offset, last), Arrays.copyOfRange(payload, offset, offset + n)));
            offset += n;
        } while (offset < payload.length);
        return out;
    }
}
