package rnic.model.mpa;

import java.util.HexFormat;

/**
 * TCP payload octets with the sequence number of the first one.
 *
 * @param seq     32-bit sequence number of {@code payload[0]}
 * @param payload the octets
 */
public record TcpSegment(long seq, byte[] payload) {
    public TcpSegment {
        if (seq < 0 || seq > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("seq must be 32-bit, got " + seq);
        }
    }

    /** Sequence number just after the last octet. */
    public long end() {
        return (seq + payload.length) & 0xFFFF_FFFFL;
    }

    @Override
    public String toString() {
        return "TcpSegment[seq=" + seq + ", " + payload.length + " octets: "
                + HexFormat.of().formatHex(payload, 0, Math.min(16, payload.length)) + "…]";
    }
}
