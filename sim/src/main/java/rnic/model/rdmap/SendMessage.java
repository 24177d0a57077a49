package rnic.model.rdmap;

import java.util.Arrays;
import rnic.wire.DdpQueue;
import rnic.wire.RdmapOpcode;

/**
 * A Send, Send with Invalidate, Send with SE or Send with SE and Invalidate (RFC 5040 §5.3, RDMAP-12, RDMAP-13):
 * untagged on QN 0, consuming one receive buffer, no RDMAP header.
 *
 * @param opcode         one of the four Send opcodes
 * @param invalidateStag the STag to invalidate at the Data Sink for the two Invalidate opcodes; 0 for the others, which
 *                       send zero and whose receiver ignores the field (RDMAP-03, T-30)
 * @param payload        the ULP payload, possibly empty
 */
public record SendMessage(RdmapOpcode opcode, int invalidateStag, byte[] payload)
        implements UlpPayloadMessage {

    public SendMessage {
        if (opcode.queue().orElse(null) != DdpQueue.SEND || !opcode.ulpPayload()) {
            throw new IllegalArgumentException(opcode + " is not a Send");
        }
        if (!opcode.invalidates() && invalidateStag != 0) {
            throw new IllegalArgumentException(opcode + " sends the Invalidate STag as zero (RDMAP-03)");
        }
        payload = payload.clone();
    }

    /** A plain Send. */
    public static SendMessage send(byte[] payload) {
        return new SendMessage(RdmapOpcode.SEND, 0, payload);
    }

    @Override
    public byte[] payload() {
        return payload.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SendMessage m && m.opcode == opcode && m.invalidateStag == invalidateStag
                && Arrays.equals(m.payload, payload);
    }

    @Override
    public int hashCode() {
        return (opcode.hashCode() * 31 + invalidateStag) * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return String.format("%s[inval=%08x, %d octets]", opcode, invalidateStag, payload.length);
    }
}
