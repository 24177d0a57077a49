package rnic.model.rdmap;

import java.nio.ByteBuffer;
import rnic.wire.Ddp;
import rnic.wire.Rdmap;
import rnic.wire.RdmapOpcode;

/**
 * An RDMA Read Request, whose DDP message is exactly its 28-octet header (RFC 5040 §4.4, §5.2.1; docs/requirements.md §2.7.1;
 * RDMAP-07, RDMAP-08). The same layout is the Terminated RDMA Header of a Terminate (RDMAP-16).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                     Data Sink STag (SinkSTag)                 |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                 Data Sink Tagged Offset (SinkTO, 64)          |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                 RDMA Read Message Size (RDMARDSZ)             |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                    Data Source STag (SrcSTag)                 |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                Data Source Tagged Offset (SrcTO, 64)          |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * @param sinkStag   Data Sink STag, copied into the Read Response
 * @param sinkTo     Data Sink Tagged Offset, copied into the Read Response
 * @param readSize   RDMARDSZ, 0 … 2^32−1 octets
 * @param sourceStag Data Source STag, checked only when RDMARDSZ &gt; 0 (RDMAP-09)
 * @param sourceTo   Data Source Tagged Offset
 */
public record ReadRequest(int sinkStag, long sinkTo, long readSize, int sourceStag, long sourceTo)
        implements RdmapMessage {

    public ReadRequest {
        if ((readSize & ~Ddp.U32_MASK) != 0) {
            throw new IllegalArgumentException("RDMARDSZ is 32-bit unsigned: " + readSize);
        }
    }

    /**
     * The Terminated RDMA Header of a Read that fails after {@code sent} octets of its response went out: both TOs
     * advanced and the size reduced by {@code sent}, the STags unchanged (RDMAP-16, T-22).
     */
    public ReadRequest advancedBy(long sent) {
        if (sent < 0 || sent > readSize) {
            throw new IllegalArgumentException(sent + " octets sent of a " + readSize + "-octet Read");
        }
        return new ReadRequest(sinkStag, sinkTo + sent, readSize - sent, sourceStag, sourceTo + sent);
    }

    @Override
    public RdmapOpcode opcode() {
        return RdmapOpcode.RDMA_READ_REQUEST;
    }

    @Override
    public int ddpPayloadLength() {
        return Rdmap.READ_REQUEST_HEADER_SIZE;
    }

    @Override
    public void writeTo(ByteBuffer b) {
        b.putInt(sinkStag).putLong(sinkTo).putInt((int) readSize).putInt(sourceStag).putLong(sourceTo);
    }

    /** Reads the 28 octets at the buffer's position. */
    static ReadRequest read(ByteBuffer b) {
        return new ReadRequest(b.getInt(), b.getLong(), b.getInt() & Ddp.U32_MASK, b.getInt(), b.getLong());
    }

    @Override
    public String toString() {
        return String.format("ReadRequest[sink=%08x/%016x size=%d src=%08x/%016x]", sinkStag, sinkTo, readSize,
                sourceStag, sourceTo);
    }
}
