package rnic.model;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.HexFormat;

/** Test helpers for the byte dumps the model tests compare against. */
public final class Hex {
    private Hex() {
    }

    /** Octets from hex text; anything that is not a hex digit is ignored. */
    public static byte[] of(String s) {
        return HexFormat.of().parseHex(s.replaceAll("[^0-9a-fA-F]", ""));
    }

    /** Octets from a dump whose lines are "offset: octets". */
    public static byte[] dump(String dump) {
        StringBuilder sb = new StringBuilder();
        for (String line : dump.strip().split("\n")) {
            sb.append(line.substring(line.indexOf(':') + 1));
        }
        return of(sb.toString());
    }

    /** The ULPDU of an FPDU dump (docs/requirements.md §2.10): the octets after ULPDU_Length, as many as it says. */
    public static byte[] ulpdu(String fpduDump) {
        byte[] fpdu = dump(fpduDump);
        int l = (fpdu[0] & 0xFF) << 8 | fpdu[1] & 0xFF;
        return Arrays.copyOfRange(fpdu, 2, 2 + l);
    }

    /** The parts one after the other. */
    public static byte[] cat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    /** Space-separated hex, for assertion messages and string comparisons. */
    public static String show(byte[] b) {
        return HexFormat.ofDelimiter(" ").formatHex(b);
    }
}
