package rnic.sim;

import java.math.BigInteger;
import spinal.sim.Signal;
import spinal.sim.SimRaw;

/**
 * A direct handle on one signal of a Verilator model, resolved once so that each access is a single JNI call.
 *
 * <p>Writes remember the last value and skip the call when it is unchanged. Values up to 64 bits travel as
 * {@code long} (taken as unsigned); wider ones as little-endian octet arrays (octet 0 = bits 7:0, as on an AXI-Stream
 * {@code tdata}) or {@link BigInteger}. Only use it inside {@link Tb} callbacks: the model must be driven from the
 * thread that created it. Every write that reaches the model is noted in its {@link Tb}'s {@link Tb.Writes}, so the
 * testbench knows whether any input changed in a half cycle.
 */
public final class SimSignal {
    private final SimRaw raw;
    private final NativeModel model;
    private final Signal signal;
    private final int id;
    private final String name;
    private final int width;
    private final long mask;
    private final byte[] scratch;
    private final Tb.Writes writes;
    private long lastLong;
    private boolean lastValid;

    SimSignal(SimRaw raw, NativeModel model, Signal signal, String name, Tb.Writes writes) {
        this.raw = raw;
        this.model = model;
        this.writes = writes;
        this.signal = signal;
        this.id = signal.id();
        this.name = name;
        this.width = signal.dataType().width();
        this.mask = width >= 64 ? -1L : (1L << width) - 1;
        this.scratch = width > 64 ? new byte[(width + 31) / 32 * 4 + 1] : null;
    }

    public String name() {
        return name;
    }

    public int width() {
        return width;
    }

    /** Reads a signal of at most 64 bits (a 64-bit value comes back as the signed long with the same bits). */
    public long get() {
        if (width > 64) {
            throw new IllegalStateException(name + " has " + width + " bits: use getOctets() or getBig()");
        }
        return model != null ? model.jni.getU64_mem(model.handle, id, 0) : raw.getBigInt(signal).longValue();
    }

    /** Reads a one-bit signal. */
    public boolean getBool() {
        return get() != 0;
    }

    /** Writes a signal of at most 64 bits; {@code value} is taken as unsigned and must fit the width. */
    public void set(long value) {
        if (lastValid && value == lastLong) {
            return;
        }
        if (width > 64 || (width < 64 && (value & ~mask) != 0)) {
            throw new IllegalArgumentException(String.format("0x%x does not fit %s", value, this));
        }
        writes.pending = true;
        if (model != null) {
            model.jni.setU64_mem(model.handle, id, value, 0);
        } else {
            raw.setBigInt(signal, scala.math.BigInt.apply(new BigInteger(Long.toUnsignedString(value))));
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
        if (width <= 64) {
            return new BigInteger(Long.toUnsignedString(get()));
        }
        return raw.getBigInt(signal).bigInteger();
    }

    /** Writes any width from a non-negative integer. */
    public void setBig(BigInteger value) {
        if (value.signum() < 0 || value.bitLength() > width) {
            throw new IllegalArgumentException(value.toString(16) + " does not fit " + this);
        }
        if (width <= 64) {
            set(value.longValue());
        } else {
            lastValid = false;
            writes.pending = true;
            raw.setBigInt(signal, scala.math.BigInt.apply(value));
        }
    }

    /** Writes the signal from little-endian octets ({@code octets[off]} into bits 7:0); missing octets are zero. */
    public void setOctets(byte[] octets, int off, int len) {
        if (len * 8 > ((width + 7) & ~7)) {
            throw new IllegalArgumentException(len + " octets do not fit " + this);
        }
        if (width <= 64) {
            long v = 0;
            for (int i = len - 1; i >= 0; i--) {
                v = (v << 8) | (octets[off + i] & 0xFF);
            }
            set(v);
            return;
        }
        lastValid = false;
        writes.pending = true;
        if (model == null) {
            byte[] be = new byte[len + 1];
            for (int i = 0; i < len; i++) {
                be[len - i] = octets[off + i];
            }
            raw.setBigInt(signal, scala.math.BigInt.apply(new BigInteger(be)));
            return;
        }
        // setAU8 takes big-endian octets: the last array element lands in bits 7:0.
        int n = scratch.length - 1;
        for (int i = 0; i < n; i++) {
            scratch[n - 1 - i] = i < len ? octets[off + i] : 0;
        }
        model.jni.setAU8_mem(model.handle, id, scratch, n, 0);
    }

    /** Reads the signal as {@code ceil(width/8)} little-endian octets. */
    public byte[] getOctets() {
        int n = (width + 7) / 8;
        byte[] out = new byte[n];
        if (width <= 64) {
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
