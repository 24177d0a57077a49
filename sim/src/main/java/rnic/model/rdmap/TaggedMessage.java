package rnic.model.rdmap;

import java.util.Arrays;
import java.util.List;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.wire.RdmapOpcode;

/**
 * A tagged RDMA Message: RDMA Write (RFC 5040 §5.1, RDMAP-05) or RDMA Read Response (§5.2.2, RDMAP-11). Its payload is
 * placed at the Data Sink STag from the Tagged Offset on; there is no RDMAP header.
 *
 * @param opcode   {@link RdmapOpcode#RDMA_WRITE} or {@link RdmapOpcode#RDMA_READ_RESPONSE}
 * @param sinkStag Data Sink STag
 * @param sinkTo   Data Sink Tagged Offset of the first payload octet
 * @param payload  the ULP payload
 */
public record TaggedMessage(RdmapOpcode opcode, int sinkStag, long sinkTo, byte[] payload)
        implements UlpPayloadMessage {

    public TaggedMessage {
        if (!opcode.tagged()) {
            throw new IllegalArgumentException(opcode + " is not a tagged message");
        }
        payload = payload.clone();
    }

    /** An RDMA Write. */
    public static TaggedMessage write(int sinkStag, long sinkTo, byte[] payload) {
        return new TaggedMessage(RdmapOpcode.RDMA_WRITE, sinkStag, sinkTo, payload);
    }

    /**
     * The Read Response to {@code request}: its Sink STag and TO copied without interpretation (RDMAP-08, T-31), and
     * exactly RDMARDSZ octets of {@code data} (none for a zero-length Read, RDMAP-09).
     */
    public static TaggedMessage readResponse(ReadRequest request, byte[] data) {
        if (data.length != request.readSize()) {
            throw new IllegalArgumentException("a Read Response carries RDMARDSZ = " + request.readSize()
                    + " octets, not " + data.length);
        }
        return new TaggedMessage(RdmapOpcode.RDMA_READ_RESPONSE, request.sinkStag(), request.sinkTo(), data);
    }

    @Override
    public byte[] payload() {
        return payload.clone();
    }

    @Override
    public List<DdpSegment> segments(DdpSegmenter ddp, int mulpdu) {
        return ddp.tagged(opcode.control(), sinkStag, sinkTo, payload, mulpdu);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TaggedMessage m && m.opcode == opcode && m.sinkStag == sinkStag && m.sinkTo == sinkTo
                && Arrays.equals(m.payload, payload);
    }

    @Override
    public int hashCode() {
        return (opcode.hashCode() * 31 + sinkStag) * 31 + Long.hashCode(sinkTo) * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return String.format("%s[stag=%08x to=%016x, %d octets]", opcode, sinkStag, sinkTo, payload.length);
    }
}
