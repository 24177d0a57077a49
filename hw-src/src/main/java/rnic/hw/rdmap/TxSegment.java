package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hw.ddp.DdpConfig;
import spinal.core.Bits;
import spinal.core.UInt;

/**
 * One DDP segment to send, as the transmit side describes it to the segment builder: the DDP/RDMAP header octets
 * (octet 0 in bits 7:0, {@code headerLength} of them used) followed by {@code payloadLength} octets fetched from
 * host memory at {@code address}. The header is at most {@value DdpConfig#HEADER_OCTETS} octets: an untagged DDP
 * header with an Atomic Request, or a Terminate with both copied headers.
 */
public final class TxSegment extends HwBundle {
    public final DdpConfig config;
    public final UInt qp;
    public final Bits header;
    public final UInt headerLength;
    public final UInt address;
    public final UInt payloadLength;

    public TxSegment(DdpConfig config) {
        this.config = config;
        qp = field("qp", uint(config.qpBits()));
        header = field("header", bits(8 * DdpConfig.HEADER_OCTETS));
        headerLength = field("headerLength", uint(7));
        address = field("address", uint(64));
        payloadLength = field("payloadLength", uint(16));
    }
}
