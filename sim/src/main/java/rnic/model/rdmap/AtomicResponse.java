package rnic.model.rdmap;

import java.nio.ByteBuffer;
import rnic.wire.Rdmap;
import rnic.wire.RdmapOpcode;

/**
 * An Atomic Response, whose DDP message is exactly its 12-octet header (RFC 7306 §5.2.2 Fig. 6, App. A.2;
 * docs/requirements.md §2.7.4; RDMAP-35, RDMAP-36; 12 octets, not the "32 bytes" of RFC 7306 §4: T-24). It travels untagged on
 * QN 3 (T-23).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                 Original Request Identifier                   |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |             Original Remote Data Value (64, big-endian)       |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * @param originalRequestId the Request Identifier of the Atomic Request answered
 * @param originalValue     the 64-bit value the target held before the operation
 */
public record AtomicResponse(int originalRequestId, long originalValue) implements RdmapMessage {

    @Override
    public RdmapOpcode opcode() {
        return RdmapOpcode.ATOMIC_RESPONSE;
    }

    @Override
    public int ddpPayloadLength() {
        return Rdmap.ATOMIC_RESPONSE_HEADER_SIZE;
    }

    @Override
    public void writeTo(ByteBuffer b) {
        b.putInt(originalRequestId).putLong(originalValue);
    }

    /** Reads the 12 octets at the buffer's position. */
    static AtomicResponse read(ByteBuffer b) {
        return new AtomicResponse(b.getInt(), b.getLong());
    }

    @Override
    public String toString() {
        return String.format("AtomicResponse[id=%08x original=%016x]", originalRequestId, originalValue);
    }
}
