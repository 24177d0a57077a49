package rnic.model.ddp;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One DDP segment, the ULPDU of one MPA FPDU (RFC 5041 §4, MPA-01): a header, then payload (for RDMAP, its header if
 * the message has one, then ULP data; docs/requirements.md §2.1).
 *
 * @param header  tagged or untagged DDP header
 * @param payload the octets after the header
 */
public record DdpSegment(DdpHeader header, byte[] payload) {

    public DdpSegment {
        payload = payload.clone();
    }

    /** The DDP segment length: header plus payload (what MPA carries as ULPDU_Length). */
    public int length() {
        return header.size() + payload.length;
    }

    /** The segment's octets. */
    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(length());
        header.writeTo(b);
        b.put(payload);
        return b.array();
    }

    /**
     * Parses a received ULPDU; the header checks are those of {@link DdpHeader#read} (E-D0, E-D7, E-D13). Everything
     * after the header is payload.
     */
    public static DdpSegment parse(byte[] ulpdu) throws TerminateException {
        ByteBuffer b = ByteBuffer.wrap(ulpdu);
        DdpHeader header = DdpHeader.read(b);
        return new DdpSegment(header, Arrays.copyOfRange(ulpdu, b.position(), ulpdu.length));
    }

    @Override
    public byte[] payload() {
        return payload.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DdpSegment s && s.header.equals(header) && Arrays.equals(s.payload, payload);
    }

    @Override
    public int hashCode() {
        return header.hashCode() * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "DdpSegment[" + header + ", " + payload.length + " octets]";
    }
}
