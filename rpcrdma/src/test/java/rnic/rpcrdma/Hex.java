package rnic.rpcrdma;

import java.util.HexFormat;

/** Hex words as written in docs/requirements.md §5.3 ("1a2b3c4d 00000001 …"), separators ignored. */
final class Hex {
    private Hex() {
    }

    static byte[] words(String s) {
        return HexFormat.of().parseHex(s.replaceAll("[^0-9a-fA-F]", ""));
    }

    static String of(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
