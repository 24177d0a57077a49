package rnic.model.mpa;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Golden model of the MPA transmitter of one direction (RFC 5044 §4, Appendix A): ULPDUs in, TCP segments out.
 *
 * <p>Each ULPDU becomes one FPDU: ULPDU_Length, the ULPDU, PAD to a multiple of 4 (computed on 2+L), and the CRC32c,
 * least significant octet first. With Markers on, a Marker is inserted wherever the stream reaches a multiple of 512
 * octets from {@code seqStart}: at the start of an FPDU (FPDUPTR 0, covered by that FPDU's CRC), inside it
 * (FPDUPTR = distance back to its ULPDU_Length), or right after the PAD (still this FPDU's, covered by its CRC).
 * The CRC covers every octet of the FPDU before the CRC field, Markers included (docs/requirements.md §4.1).
 *
 * <p>Segmentation policy (an optimized transmitter, Appendix A): one FPDU per TCP segment, the segment starting at
 * the FPDU's first octet (its leading Marker, if any). Only an FPDU longer than EMSS — possible because MULPDU never
 * goes below 128 — is split into EMSS-sized segments. With CRC off the CRC field carries zeros.
 */
public final class MpaFramer {
    private final MpaDirection dir;
    private final int emss;
    private long offset; // stream octets sent since seqStart (mod 2^32)

    public MpaFramer(MpaDirection dir, int emss) {
        if (emss < 8) {
            throw new IllegalArgumentException("EMSS too small: " + emss);
        }
        this.dir = dir;
        this.emss = emss;
    }

    /** The MULPDU this direction reports to DDP (MPA-02). */
    public int mulpdu() {
        return Mpa.mulpdu(emss, dir.markers());
    }

    /** Sequence number of the next octet to send. */
    public long nextSeq() {
        return (dir.seqStart() + offset) & 0xFFFF_FFFFL;
    }

    /** Frames one ULPDU (1 … 64768 octets) and returns the TCP segments that carry it. */
    public List<TcpSegment> send(byte[] ulpdu) {
        if (ulpdu.length < 1 || ulpdu.length > Mpa.MAX_ULPDU) {
            throw new IllegalArgumentException("ULPDU length must be 1.." + Mpa.MAX_ULPDU + ", got " + ulpdu.length);
        }
        long startSeq = nextSeq();
        byte[] fpdu = fpdu(ulpdu);
        List<TcpSegment> out = new ArrayList<>();
        for (int off = 0; off < fpdu.length; off += emss) {
            int len = Math.min(emss, fpdu.length - off);
            byte[] p = new byte[len];
            System.arraycopy(fpdu, off, p, 0, len);
            out.add(new TcpSegment((startSeq + off) & 0xFFFF_FFFFL, p));
        }
        return out;
    }

    /** The FPDU's octets as they go on the wire (Markers included), advancing the stream. */
    public byte[] fpdu(byte[] ulpdu) {
        int l = ulpdu.length;
        byte[] content = new byte[2 + l + Mpa.pad(l)];
        content[0] = (byte) (l >>> 8);
        content[1] = (byte) l;
        System.arraycopy(ulpdu, 0, content, 2, l);

        ByteArrayOutputStream wire = new ByteArrayOutputStream(content.length + 64);
        long headerOffset = -1;
        int i = 0;
        while (i < content.length) {
            if (atMarker()) {
                int ptr = headerOffset < 0 ? 0 : (int) Mpa.distance(headerOffset, offset);
                marker(wire, ptr);
            }
            if (headerOffset < 0) {
                headerOffset = offset;
            }
            // Markers fall only on 4-octet boundaries of the stream: copy a word at a time.
            int n = Math.min(4, content.length - i);
            wire.write(content, i, n);
            i += n;
            offset = (offset + n) & 0xFFFF_FFFFL;
        }
        if (atMarker()) {
            marker(wire, (int) Mpa.distance(headerOffset, offset)); // right after the PAD, before the CRC
        }
        byte[] covered = wire.toByteArray();
        long crc = 0;
        if (dir.crc()) {
            CRC32C c = new CRC32C();
            c.update(covered);
            crc = c.getValue();
        }
        for (int b = 0; b < 4; b++) {
            wire.write((int) (crc >>> (8 * b))); // least significant octet first (T-07)
        }
        offset = (offset + 4) & 0xFFFF_FFFFL;
        return wire.toByteArray();
    }

    private boolean atMarker() {
        return dir.markers() && (offset % Mpa.MARKER_PERIOD) == 0;
    }

    private void marker(ByteArrayOutputStream wire, int fpduPtr) {
        wire.write(0);
        wire.write(0);
        wire.write(fpduPtr >>> 8);
        wire.write(fpduPtr);
        offset = (offset + Mpa.MARKER_SIZE) & 0xFFFF_FFFFL;
    }
}
