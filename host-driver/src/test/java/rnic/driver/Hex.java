package rnic.driver;

/** Byte vectors written as in docs/requirements.md (hex octets separated by spaces, "0010:" offsets ignored). */
public final class Hex {
    private Hex() {
    }

    public static byte[] parse(String text) {
        String[] tokens = text.trim().split("\\s+");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (String t : tokens) {
            if (t.endsWith(":") || t.isEmpty()) {
                continue;
            }
            out.write(Integer.parseInt(t, 16));
        }
        return out.toByteArray();
    }

    public static String format(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < b.length; i++) {
            s.append(i == 0 ? "" : i % 16 == 0 ? "\n" : " ").append(String.format("%02x", b[i] & 0xFF));
        }
        return s.toString();
    }
}
