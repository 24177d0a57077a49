package rnic.hw.crc;

import java.math.BigInteger;
import spinal.lib.com.eth.CrcKind;

/**
 * The linear algebra of a CRC, computed in Java at elaboration time.
 *
 * <p>Without its initial value and final XOR, a CRC register update is linear over GF(2) in (state, data). So the
 * register after {@code k} octets is {@code A_k·state ⊕ B_k·data}, where {@code A_k} is the state transition of
 * {@code k} zero octets and {@code B_k} the contribution of the data from a zero state. This class computes those
 * matrices column by column by running the bitwise reference algorithm on unit vectors; the hardware turns each row
 * into one XOR of a fixed set of state and data bits.
 *
 * <p>The CRC is described by spinal.lib's {@link CrcKind}. Supported: polynomial widths 8…63 with input and output
 * reflection either both on (CRC-32C, CRC-32) or both off. In the reflected form the register holds the CRC bit-reversed
 * relative to the polynomial, octets are consumed least significant bit first, and the final value is
 * {@code register ^ finalXor} — exactly what {@code java.util.zip.CRC32C.getValue()} returns.
 */
public final class CrcMatrix {
    /** CRC-32C (Castagnoli), the MPA CRC of RFC 5044 §4.4 (the iSCSI digest of RFC 3720 §12.1). */
    public static final CrcKind CRC32C = new CrcKind(
            scala.math.BigInt.apply(0x1EDC6F41L), 32, scala.math.BigInt.apply(0xFFFFFFFFL), true, true,
            scala.math.BigInt.apply(0xFFFFFFFFL));

    private final int width;
    private final long mask;
    private final boolean reflected;
    private final long poly;
    private final long init;
    private final long finalXor;

    public CrcMatrix(CrcKind kind) {
        if (kind.inputReflected() != kind.outputReflected()) {
            throw new IllegalArgumentException("CRCs with different input and output reflection are not supported");
        }
        width = kind.polynomialWidth();
        if (width < 8 || width > 63) {
            throw new IllegalArgumentException("polynomial width must be 8..63, got " + width);
        }
        mask = (1L << width) - 1;
        reflected = kind.inputReflected();
        long p = kind.polynomial().longValue() & mask;
        poly = reflected ? Long.reverse(p) >>> (64 - width) : p;
        init = kind.initValue().longValue() & mask;
        finalXor = kind.finalXor().longValue() & mask;
    }

    /** Width of the CRC register in bits. */
    public int width() {
        return width;
    }

    /** Register value before the first octet. */
    public long init() {
        return init;
    }

    /** The CRC value for a register value after the last octet. */
    public long finish(long register) {
        return (register ^ finalXor) & mask;
    }

    /** The bitwise reference: the register after consuming {@code len} octets of {@code data}. */
    public long update(long register, byte[] data, int off, int len) {
        long crc = register;
        for (int i = off; i < off + len; i++) {
            int b = data[i] & 0xFF;
            if (reflected) {
                crc ^= b;
                for (int bit = 0; bit < 8; bit++) {
                    crc = (crc & 1) != 0 ? (crc >>> 1) ^ poly : crc >>> 1;
                }
            } else {
                crc ^= (long) b << (width - 8);
                for (int bit = 0; bit < 8; bit++) {
                    long msb = (crc >>> (width - 1)) & 1;
                    crc = ((crc << 1) & mask) ^ (msb != 0 ? poly : 0);
                }
            }
        }
        return crc & mask;
    }

    /** The CRC value of a whole message. */
    public long compute(byte[] data) {
        return finish(update(init, data, 0, data.length));
    }

    /**
     * {@code A_k} as rows: bit {@code j} of {@code rows[i]} is set when register bit {@code j} feeds bit {@code i} of
     * the register after {@code octets} zero octets.
     */
    public long[] stateRows(int octets) {
        long[] rows = new long[width];
        byte[] zeros = new byte[octets];
        for (int j = 0; j < width; j++) {
            long col = update(1L << j, zeros, 0, octets);
            for (int i = 0; i < width; i++) {
                if (((col >>> i) & 1) != 0) {
                    rows[i] |= 1L << j;
                }
            }
        }
        return rows;
    }

    /**
     * {@code B_k} as rows: bit {@code d} of {@code rows[i]} is set when data bit {@code d} feeds register bit {@code i}
     * after {@code octets} octets from a zero register. Data bit {@code d} is bit {@code d % 8} of octet {@code d / 8},
     * octet 0 consumed first (octet 0 is {@code tdata[7:0]} on a bus).
     */
    public BigInteger[] dataRows(int octets) {
        BigInteger[] rows = new BigInteger[width];
        java.util.Arrays.fill(rows, BigInteger.ZERO);
        byte[] data = new byte[octets];
        for (int d = 0; d < octets * 8; d++) {
            data[d / 8] = (byte) (1 << (d % 8));
            long col = update(0, data, 0, octets);
            data[d / 8] = 0;
            for (int i = 0; i < width; i++) {
                if (((col >>> i) & 1) != 0) {
                    rows[i] = rows[i].setBit(d);
                }
            }
        }
        return rows;
    }
}
