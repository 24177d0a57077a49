package rnic.model.rdmap;

import java.nio.ByteBuffer;
import rnic.wire.Rdmap;
import rnic.wire.RdmapOpcode;

/**
 * Immediate Data or Immediate Data with SE (RFC 7306 §6, docs/requirements.md §2.7.5, RDMAP-40): exactly 8 opaque octets,
 * untagged on QN 0, consuming one receive buffer like a Send.
 *
 * @param opcode {@link RdmapOpcode#IMMEDIATE_DATA} or {@link RdmapOpcode#IMMEDIATE_DATA_WITH_SE}
 * @param data   the 64 bits handed to the ULP as they are
 */
public record ImmediateData(RdmapOpcode opcode, long data) implements RdmapMessage {

    public ImmediateData {
        if (opcode != RdmapOpcode.IMMEDIATE_DATA && opcode != RdmapOpcode.IMMEDIATE_DATA_WITH_SE) {
            throw new IllegalArgumentException(opcode + " is not Immediate Data");
        }
    }

    @Override
    public int ddpPayloadLength() {
        return Rdmap.IMMEDIATE_DATA_SIZE;
    }

    @Override
    public void writeTo(ByteBuffer b) {
        b.putLong(data);
    }

    @Override
    public String toString() {
        return String.format("%s[%016x]", opcode, data);
    }
}
