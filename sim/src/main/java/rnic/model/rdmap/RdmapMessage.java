package rnic.model.rdmap;

import java.nio.ByteBuffer;
import java.util.List;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.wire.Ddp;
import rnic.wire.RdmapOpcode;

/**
 * One RDMA Message, carried as one DDP Message (RFC 5040 §3.1, §4; RFC 7306 §4; RDMAP-01, RDMAP-04). The messages
 * with an RDMAP header are that header: {@link ReadRequest}, {@link Terminate}, {@link AtomicRequest},
 * {@link AtomicResponse} and {@link ImmediateData}; the {@link UlpPayloadMessage}s {@link TaggedMessage} (RDMA Write,
 * Read Response) and {@link SendMessage} carry ULP payload. {@link RdmapDecoder} turns received segments back into
 * messages.
 */
public sealed interface RdmapMessage
        permits UlpPayloadMessage, ReadRequest, Terminate, ImmediateData, AtomicRequest, AtomicResponse {

    /** The opcode. */
    RdmapOpcode opcode();

    /** Octets of DDP payload: the RDMAP header, if any, then ULP payload. */
    int ddpPayloadLength();

    /** Writes the DDP payload at the buffer's position. */
    void writeTo(ByteBuffer b);

    /** The DDP payload. */
    default byte[] ddpPayload() {
        ByteBuffer b = ByteBuffer.allocate(ddpPayloadLength());
        writeTo(b);
        return b.array();
    }

    /** The Invalidate STag, RsvdULP[8:39] of the untagged header; 0 unless the opcode invalidates (RDMAP-03). */
    default int invalidateStag() {
        return 0;
    }

    /**
     * The message as DDP segments of at most {@code mulpdu} octets. An untagged message goes to its opcode's queue
     * with that queue's next MSN and RsvdULP = Control Field and Invalidate STag.
     */
    default List<DdpSegment> segments(DdpSegmenter ddp, int mulpdu) {
        long rsvdUlp = (long) opcode().control() << 32 | (invalidateStag() & Ddp.U32_MASK);
        return ddp.untagged(rsvdUlp, opcode().queue().orElseThrow().qn(), ddpPayload(), mulpdu);
    }
}
