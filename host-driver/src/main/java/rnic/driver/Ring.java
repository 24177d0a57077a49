package rnic.driver;

import rnic.transport.Transport;

/**
 * A ring of fixed-size descriptor slots in device-visible host memory (send or receive queue). Indices are the
 * contract's free-running 16-bit counters; slot = index mod 2^log2Slots.
 */
public final class Ring {
    /** Largest ring: 16-bit free-running indices must tell a full ring from an empty one. */
    public static final int MAX_LOG2_SLOTS = 15;

    private final Transport transport;
    private final long address;
    private final int log2Slots;
    private final int slotSize;

    public Ring(Transport transport, long address, int log2Slots, int slotSize) {
        if (log2Slots < 0 || log2Slots > MAX_LOG2_SLOTS) {
            throw new IllegalArgumentException("ring of 2^" + log2Slots + " slots: 1 … 2^" + MAX_LOG2_SLOTS);
        }
        this.transport = transport;
        this.address = address;
        this.log2Slots = log2Slots;
        this.slotSize = slotSize;
    }

    /** Octets a ring of {@code 2^log2Slots} slots of {@code slotSize} takes. */
    public static long bytes(int log2Slots, int slotSize) {
        return (long) slotSize << log2Slots;
    }

    /** The smallest log2 of a slot count ≥ {@code depth}. */
    public static int log2For(int depth) {
        if (depth < 1) {
            throw new IllegalArgumentException("queue depth must be at least 1, got " + depth);
        }
        return 32 - Integer.numberOfLeadingZeros(depth - 1);
    }

    public long address() {
        return address;
    }

    public int log2Slots() {
        return log2Slots;
    }

    public int slots() {
        return 1 << log2Slots;
    }

    /** The slot of a free-running index. */
    public int slot(int index) {
        return index & (slots() - 1);
    }

    /** Host address of the slot of {@code index}. */
    public long slotAddress(int index) {
        return address + (long) slot(index) * slotSize;
    }

    /** Writes {@code slotSize} octets of {@code data} into the slot of {@code index}. */
    public void write(int index, byte[] data) {
        transport.write(slotAddress(index), data, 0, slotSize);
    }

    /** Reads the slot of {@code index} into {@code dst}. */
    public void read(int index, byte[] dst) {
        transport.read(slotAddress(index), dst, 0, slotSize);
    }
}
