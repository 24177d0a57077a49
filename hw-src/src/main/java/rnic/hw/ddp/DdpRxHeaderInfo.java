package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.UInt;

/**
 * The head of one received DDP segment, as {@link DdpRxHeader} captures it: the first
 * {@value DdpConfig#HEADER_OCTETS} octets (octet {@code i} in bits {@code 8i+7 … 8i}; octets at or past the segment's
 * length read as 0), its length and its QP. That covers every DDP and RDMAP header the receive side parses: the
 * 18-octet untagged DDP header plus the longest RDMAP header, the 52-octet Atomic Request (docs/requirements.md §2.7.3).
 */
public final class DdpRxHeaderInfo extends HwBundle {
    public final int qpBits;
    public final UInt qp;
    public final UInt length;
    public final Bits octets;

    public DdpRxHeaderInfo(int qpBits) {
        this.qpBits = qpBits;
        qp = field("qp", uint(qpBits));
        length = field("length", uint(16));
        octets = field("octets", bits(8 * DdpConfig.HEADER_OCTETS));
    }

    /** The big-endian field of {@code size} octets at {@code offset} of a captured head (bits of an octet vector). */
    public static Bits beField(Bits octets, int offset, int size) {
        Bits[] parts = new Bits[size];
        for (int i = 0; i < size; i++) {
            parts[i] = range(octets, 8 * (offset + i) + 7, 8 * (offset + i));
        }
        return cat(parts);
    }
}
