package rnic.model.mpa;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import rnic.wire.MpaErrorCode;

/**
 * Golden model of the MPA receiver of one direction (RFC 5044 §4–§6, §8): TCP payload in order, cut anywhere, in;
 * ULPDUs or one error out.
 *
 * <p>FPDUs are found from ULPDU_Length (MPA-24) starting at {@code seqStart} (after the leading Marker when Markers are
 * on). Markers are removed wherever the 512-octet grid puts them, and every Marker of an FPDU is checked: its FPDUPTR
 * (RESERVED ignored, low two bits taken as zero, MPA-10) must point back at the FPDU's ULPDU_Length, or be 0 for the
 * Marker that leads it (MPA-13). A ULPDU is handed over only once its whole FPDU is in and its CRC — over the same span
 * the transmitter covers — is good (MPA-25). A CRC mismatch is {@link MpaErrorCode#CRC_ERROR}; a CRC-valid FPDU with a
 * wrong Marker is {@link MpaErrorCode#MARKER_ERROR} (MPA-42). A receiver that buffers at most {@code maxUlpdu} octets
 * of ULPDU reports an FPDU announcing a longer ULPDU_Length as {@link MpaErrorCode#CRC_ERROR} as soon as its
 * ULPDU_Length has arrived: it cannot be validated (MPA-25), and since a conforming peer keeps FPDUs within an EMSS the
 * receiver's MSS bounds, its length field is what is corrupt. After an error nothing more is delivered (MPA-44).
 */
public final class MpaDeframer {

    /** What the receiver hands to DDP. */
    public sealed interface Event permits Ulpdu, Error {
    }

    /**
     * A validated ULPDU.
     *
     * @param headerSeq sequence number of its ULPDU_Length field
     * @param data      the ULPDU (one DDP segment), Markers removed
     */
    public record Ulpdu(long headerSeq, byte[] data) implements Event {
        @Override
        public boolean equals(Object o) {
            return o instanceof Ulpdu u && u.headerSeq == headerSeq && Arrays.equals(u.data, data);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(headerSeq) * 31 + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "Ulpdu[seq=" + headerSeq + ", " + data.length + " octets]";
        }
    }

    /**
     * An MPA error: Terminate 2/0/{@code code}.
     *
     * @param code     the error
     * @param fpduSeq  sequence number of the first octet of the offending FPDU (its leading Marker, if any)
     */
    public record Error(MpaErrorCode code, long fpduSeq) implements Event {
    }

    private final MpaDirection dir;
    private final int maxUlpdu;
    private byte[] buf = new byte[4096];
    private int len;              // buffered octets
    private long base;            // stream offset (from seqStart) of buf[0]
    private int needed = -1;      // wire length of the FPDU at buf[0], once known
    private boolean failed;

    /** A receiver that accepts every 16-bit ULPDU_Length. */
    public MpaDeframer(MpaDirection dir) {
        this(dir, 65535);
    }

    /** A receiver that refuses a ULPDU_Length above {@code maxUlpdu} (its receive buffer's bound). */
    public MpaDeframer(MpaDirection dir, int maxUlpdu) {
        if (maxUlpdu < 1 || maxUlpdu > 65535) {
            throw new IllegalArgumentException("maxUlpdu must be 1 … 65535, got " + maxUlpdu);
        }
        this.dir = dir;
        this.maxUlpdu = maxUlpdu;
    }

    /** True once an error was reported; no ULPDU is delivered after it. */
    public boolean failed() {
        return failed;
    }

    /** Sequence number of the next octet expected. */
    public long nextSeq() {
        return (dir.seqStart() + base + len) & 0xFFFF_FFFFL;
    }

    /** Takes the next in-order TCP payload and returns what became deliverable. */
    public List<Event> receive(TcpSegment seg) {
        if (seg.seq() != nextSeq()) {
            throw new IllegalArgumentException("out of order: expected seq " + nextSeq() + ", got " + seg.seq());
        }
        List<Event> out = new ArrayList<>();
        if (failed) { // a dead stream: the octets are taken and dropped (MPA-44)
            base = (base + len + seg.payload().length) & 0xFFFF_FFFFL;
            len = 0;
            return out;
        }
        append(seg.payload());
        while (!failed) {
            if (needed < 0) {
                int l = ulpduLength();
                if (l < 0) {
                    break;
                }
                if (l > maxUlpdu) {
                    failed = true;
                    out.add(new Error(MpaErrorCode.CRC_ERROR, (dir.seqStart() + base) & 0xFFFF_FFFFL));
                    break;
                }
                needed = wireLength();
            }
            if (len < needed) {
                break;
            }
            out.add(parse(needed));
            consume(needed);
            needed = -1;
        }
        return out;
    }

    private boolean markerAt(long off) {
        return dir.markers() && (off & 0xFFFF_FFFFL) % Mpa.MARKER_PERIOD == 0;
    }

    /** ULPDU_Length of the FPDU at the head of the buffer, or -1 while it has not arrived. */
    private int ulpduLength() {
        int lead = markerAt(base) ? Mpa.MARKER_SIZE : 0;
        if (len < lead + 2) {
            return -1;
        }
        return ((buf[lead] & 0xFF) << 8) | (buf[lead + 1] & 0xFF);
    }

    /** Wire length of the FPDU at the head of the buffer, or -1 while its ULPDU_Length has not arrived. */
    private int wireLength() {
        long off = base;
        int lead = markerAt(off) ? Mpa.MARKER_SIZE : 0;
        if (len < lead + 2) {
            return -1;
        }
        int l = ((buf[lead] & 0xFF) << 8) | (buf[lead + 1] & 0xFF);
        off += lead;
        int remaining = 2 + l + Mpa.pad(l);
        while (remaining > 0) {
            if (markerAt(off)) {
                off += Mpa.MARKER_SIZE;
            }
            int step = Math.min(4, remaining);
            off += step;
            remaining -= step;
        }
        if (markerAt(off)) {
            off += Mpa.MARKER_SIZE;
        }
        return (int) (off + 4 - base);
    }

    private Event parse(int wireLen) {
        long fpduSeq = (dir.seqStart() + base) & 0xFFFF_FFFFL;
        byte[] ulpduWithHeader = new byte[wireLen];
        int content = 0;
        boolean markerBad = false;
        int pos = 0;
        long off = base;
        long header = -1;
        if (markerAt(off)) {
            markerBad |= fpduPtr(pos) != 0;
            pos += Mpa.MARKER_SIZE;
            off += Mpa.MARKER_SIZE;
        }
        header = off;
        int coveredEnd = wireLen - 4;
        while (pos < coveredEnd) {
            if (markerAt(off)) {
                markerBad |= fpduPtr(pos) != Mpa.distance(header, off);
                pos += Mpa.MARKER_SIZE;
                off += Mpa.MARKER_SIZE;
                continue;
            }
            int step = Math.min(4, coveredEnd - pos);
            System.arraycopy(buf, pos, ulpduWithHeader, content, step);
            content += step;
            pos += step;
            off += step;
        }
        if (dir.crc()) {
            CRC32C c = new CRC32C();
            c.update(buf, 0, coveredEnd);
            long wire = (buf[coveredEnd] & 0xFFL) | (buf[coveredEnd + 1] & 0xFFL) << 8
                    | (buf[coveredEnd + 2] & 0xFFL) << 16 | (buf[coveredEnd + 3] & 0xFFL) << 24;
            if (wire != c.getValue()) {
                failed = true;
                return new Error(MpaErrorCode.CRC_ERROR, fpduSeq);
            }
        }
        if (markerBad) {
            failed = true;
            return new Error(MpaErrorCode.MARKER_ERROR, fpduSeq);
        }
        int l = ((ulpduWithHeader[0] & 0xFF) << 8) | (ulpduWithHeader[1] & 0xFF);
        return new Ulpdu((dir.seqStart() + header) & 0xFFFF_FFFFL, Arrays.copyOfRange(ulpduWithHeader, 2, 2 + l));
    }

    /** FPDUPTR of the Marker at buffer position {@code pos}, low two bits cleared (MPA-10). */
    private int fpduPtr(int pos) {
        return (((buf[pos + 2] & 0xFF) << 8) | (buf[pos + 3] & 0xFF)) & 0xFFFC;
    }

    private void append(byte[] p) {
        if (len + p.length > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + p.length));
        }
        System.arraycopy(p, 0, buf, len, p.length);
        len += p.length;
    }

    private void consume(int n) {
        System.arraycopy(buf, n, buf, 0, len - n);
        len -= n;
        base = (base + n) & 0xFFFF_FFFFL;
    }
}
