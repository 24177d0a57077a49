package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hw.ddp.DdpConfig;
import spinal.core.Bits;
import spinal.core.Data;

/**
 * Elaboration-time builder of a header octet vector (octet 0 in bits 7:0, {@value DdpConfig#HEADER_OCTETS} octets):
 * fields are put big-endian at their octet offset (RFC 5040/5041 wire order, docs/requirements.md §2.5–§2.7); octets never
 * put are 0. Not hardware itself: {@link #bits()} concatenates what was put.
 */
final class HeaderOctets {
    private final List<Bits> octets = new ArrayList<>();

    HeaderOctets() {
        for (int i = 0; i < DdpConfig.HEADER_OCTETS; i++) {
            octets.add(B(0, 8));
        }
    }

    /** Puts {@code value} (a multiple of 8 bits wide, most significant octet first on the wire) at {@code offset}. */
    HeaderOctets put(int offset, Data value) {
        Bits b = value.asBits();
        int size = b.getBitsWidth() / 8;
        if (size * 8 != b.getBitsWidth() || offset + size > DdpConfig.HEADER_OCTETS) {
            throw new IllegalArgumentException("field of " + b.getBitsWidth() + " bits at octet " + offset);
        }
        for (int i = 0; i < size; i++) {
            int hi = 8 * (size - i) - 1;
            octets.set(offset + i, range(b, hi, hi - 7));
        }
        return this;
    }

    /** Puts the octets of {@code vector} (octet 0 in bits 7:0) from {@code offset} on, in their order. */
    HeaderOctets putOctets(int offset, Bits vector) {
        int size = vector.getBitsWidth() / 8;
        if (size * 8 != vector.getBitsWidth() || offset + size > DdpConfig.HEADER_OCTETS) {
            throw new IllegalArgumentException("vector of " + vector.getBitsWidth() + " bits at octet " + offset);
        }
        for (int i = 0; i < size; i++) {
            octets.set(offset + i, range(vector, 8 * i + 7, 8 * i));
        }
        return this;
    }

    /** Puts a constant octet at {@code offset}. */
    HeaderOctets put(int offset, int octet) {
        octets.set(offset, B(octet & 0xFF, 8));
        return this;
    }

    /** The vector. */
    Bits bits() {
        return catLsbFirst(octets);
    }
}
