package rnic.transport.serial;

import java.io.ByteArrayOutputStream;

/**
 * Consistent Overhead Byte Stuffing (Cheshire and Baker, 1999): turns any octet string into one without zeros, at most
 * one octet longer per 254, so a 0x00 can delimit frames on the serial line and a receiver resynchronises at the next
 * delimiter after any damage. The firmware's {@code hl_cobs_encode} / {@code hl_cobs_decode} do the same.
 */
public final class Cobs {
    private Cobs() {
    }

    /** The encoding of {@code data[offset, offset + length)}, without the delimiter. */
    public static byte[] encode(byte[] data, int offset, int length) {
        byte[] out = new byte[length + length / 254 + 1];
        int codeAt = 0;
        int o = 1;
        int code = 1;
        for (int i = 0; i < length; i++) {
            byte b = data[offset + i];
            if (b != 0) {
                out[o++] = b;
                code++;
            }
            if (b == 0 || code == 0xFF) {
                out[codeAt] = (byte) code;
                code = 1;
                codeAt = o;
                // A block that fills up at the very end opens no new one.
                if (b == 0 || i + 1 < length) {
                    o++;
                }
            }
        }
        if (codeAt < o) {
            out[codeAt] = (byte) code;
        }
        return java.util.Arrays.copyOf(out, o);
    }

    /** The octets {@code encoded[offset, offset + length)} stand for, or null when that is not a valid encoding. */
    public static byte[] decode(byte[] encoded, int offset, int length) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(length);
        int i = 0;
        while (i < length) {
            int code = encoded[offset + i++] & 0xFF;
            if (code == 0 || i + code - 1 > length) {
                return null;
            }
            for (int k = 1; k < code; k++) {
                byte b = encoded[offset + i++];
                if (b == 0) {
                    return null;
                }
                out.write(b);
            }
            if (code != 0xFF && i < length) {
                out.write(0);
            }
        }
        return out.toByteArray();
    }
}
