package rnic.model;

/**
 * Byte-addressed host memory as the golden models see it: 64-bit addresses (unsigned), any length, no alignment.
 * The simulated memory behind the engines' memory port ({@code rnic.sim.HostMemory}) implements it, so a model and the
 * RTL can be run against copies of the same contents and compared.
 */
public interface MemoryView {
    /** The {@code length} octets from {@code address} (never-written octets read as 0). */
    byte[] read(long address, int length);

    /** Stores {@code data} from {@code address}. */
    void write(long address, byte[] data);

    /** The 64-bit little-endian value at {@code address} (the host byte order this project assumes, T-26). */
    default long readLong(long address) {
        byte[] b = read(address, Long.BYTES);
        long v = 0;
        for (int i = Long.BYTES - 1; i >= 0; i--) {
            v = v << 8 | (b[i] & 0xFF);
        }
        return v;
    }

    /** Stores {@code value} little-endian at {@code address}. */
    default void writeLong(long address, long value) {
        byte[] b = new byte[Long.BYTES];
        for (int i = 0; i < Long.BYTES; i++) {
            b[i] = (byte) (value >>> 8 * i);
        }
        write(address, b);
    }
}
