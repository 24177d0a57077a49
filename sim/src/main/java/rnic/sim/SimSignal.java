package rnic.sim;

import java.math.BigInteger;
import spinal.sim.Signal;
import spinal.sim.SimRaw;

/**
 * A direct handle on one signal of a Verilator model, resolved once so that each access is a single JNI call.
 *
 * <p>Writes remember the last value and skip the call when it is unchanged. Values up to 63 bits travel as
 * {@code long}; wider ones as little-endian octet arrays (octet 0 = bits 7:0, as on an AXI-Stream {@code tdata}).
 * Only use it inside {@link Tb} callbacks: the model must be driven from the thread that created it.
 */
public final class SimSignal {
    private final SimRaw raw;
    private final Signal signal;
    private final String name;
    private final int width;
    private long lastLong = Long.MIN_VALUE;
    private boolean lastValid;

    SimSignal(SimRaw raw, Signal signal, String name) {
        this.raw = raw;
        this.signal = signal;
        this.name = name;
        this.width = signal.dataType().width();
    }

    public String name() {
        return name;
    }

    public int width() {
        return width;
    }

    /** Reads a signal of at most 63 bits. */
    public long get() {
        return raw.getLong(signal);
    }

    /** Reads a one-bit signal. */
    public boolean getBool() {
        return raw.getLong(signal) != 0;
    }

    /** Writes a signal of at most 64 bits ({@code value} taken as unsigned). */
    public void set(long value) {
        if (lastValid && value == lastLong) {
            return;
        }
        if (value < 0) {
            raw.setBigInt(signal, scala.math.BigInt.apply(new BigInteger(Long.toUnsignedString(value))));
        } else {
            raw.setLong(signal, value);
        }
        lastLong = value;
        lastValid = true;
    }

    /** Writes a one-bit signal. */
    public void set(boolean value) {
        set(value ? 1L : 0L);
    }

    /** Reads any width as a non-negative integer. */
    public BigInteger getBig() {
        return raw.getBigInt(signal).bigInteger();
    }

    /** Writes any width from a non-negative integer. */
    public void setBig(BigInteger value) {
        lastValid = false;
        if (width < 64) {
            set(value.longValueExact());
        } else {
            raw.setBigInt(signal, scala.math.BigInt.apply(value));
        }
    }

    /** Writes the signal from little-endian octets ({@code octets[0]} into bits 7:0); missing octets are zero. */
    public void setOctets(byte[] octets, int off, int len) {
        if (width <= 63) {
            long v = 0;
            for (int i = len - 1; i >= 0; i--) {
                v = (v << 8) | (octets[off + i] & 0xFF);
            }
            set(v);
            return;
        }
        byte[] be = new byte[len + 1]; // leading zero keeps BigInteger non-negative
        for (int i = 0; i < len; i++) {
            be[len - i] = octets[off + i];
        }
        setBig(new BigInteger(be));
    }

    /** Reads the signal as {@code width/8} little-endian octets. */
    public byte[] getOctets() {
        int n = (width + 7) / 8;
        byte[] out = new byte[n];
        if (width <= 63) {
            long v = get();
            for (int i = 0; i < n; i++) {
                out[i] = (byte) (v >>> (8 * i));
            }
            return out;
        }
        byte[] be = getBig().toByteArray();
        for (int i = 0; i < n && i < be.length; i++) {
            out[i] = be[be.length - 1 - i];
        }
        return out;
    }

    @Override
    public String toString() {
        return name + "[" + width + "]";
    }
}
