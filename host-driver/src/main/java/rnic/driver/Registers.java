package rnic.driver;

import rnic.transport.Transport;

/**
 * The one place that turns register names of {@link RnicRegs} into bus accesses: block address arithmetic for the
 * repeated QP and CQ blocks and field extraction. Everything that touches a register lives in {@code rnic.driver}, so
 * replacing the hand-written {@link RnicRegs} by the generated one changes nothing else.
 */
public final class Registers {
    private final Transport transport;

    public Registers(Transport transport) {
        this.transport = transport;
    }

    public Transport transport() {
        return transport;
    }

    public int read(int offset) {
        return transport.read32(offset);
    }

    public void write(int offset, int value) {
        transport.write32(offset, value);
    }

    /** Byte address of register {@code reg} (an offset within the block) of QP {@code qp}. */
    public static int qp(int qp, int reg) {
        return RnicRegs.QP_BASE + qp * RnicRegs.QP_STRIDE + reg;
    }

    /** Byte address of register {@code reg} (an offset within the block) of CQ {@code cq}. */
    public static int cq(int cq, int reg) {
        return RnicRegs.CQ_BASE + cq * RnicRegs.CQ_STRIDE + reg;
    }

    /** A field of a register value; {@code mask} is in place (as the generated constants are). */
    public static int field(int value, int shift, int mask) {
        return (value & mask) >>> shift;
    }

    /** {@code value} placed into a field. */
    public static int place(int value, int shift, int mask) {
        return (value << shift) & mask;
    }

    /** A one-bit field set or clear. */
    public static int flag(boolean on, int mask) {
        return on ? mask : 0;
    }

    /**
     * Whether a TYPE register holds the 4-character tag {@code tag}. The contract fixes the characters, not their
     * order in the word, so both byte orders are accepted.
     */
    public static boolean typeIs(int value, String tag) {
        int be = 0;
        int le = 0;
        for (int i = 0; i < 4; i++) {
            int c = tag.charAt(i) & 0xFF;
            be |= c << (8 * (3 - i));
            le |= c << (8 * i);
        }
        return value == be || value == le;
    }

    /** A TYPE register value as text, for messages. */
    public static String typeText(int value) {
        StringBuilder s = new StringBuilder();
        for (int i = 3; i >= 0; i--) {
            int c = (value >>> (8 * i)) & 0xFF;
            s.append(c >= 0x20 && c < 0x7F ? (char) c : '.');
        }
        return s + String.format(" (0x%08x)", value);
    }
}
