package rnic.model.mpa;

import java.io.ByteArrayOutputStream;
import java.util.HexFormat;

/** Test helpers for byte dumps. */
final class Hex {
    private Hex() {
    }

    /** Octets from hex text; anything that is not a hex digit is ignored. */
    static byte[] of(String s) {
        return HexFormat.of().parseHex(s.replaceAll("[^0-9a-fA-F]", ""));
    }

    /** Octets from a dump whose lines are "offset: octets". */
    static byte[] dump(String dump) {
        StringBuilder sb = new StringBuilder();
        for (String line : dump.strip().split("\n")) {
            sb.append(line.substring(line.indexOf(':') + 1));
        }
        return of(sb.toString());
    }

    static byte[] cat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    static String show(byte[] b) {
        return HexFormat.ofDelimiter(" ").formatHex(b);
    }
}
