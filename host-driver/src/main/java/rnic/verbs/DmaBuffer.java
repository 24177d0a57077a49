package rnic.verbs;

import java.util.ArrayList;
import java.util.List;
import rnic.driver.Le;
import rnic.transport.Transport;

/**
 * A block of device-visible host memory (the transport's DMA window), for data buffers the application registers as
 * memory regions and for the driver's own rings. Accesses go through the transport; numbers are little-endian, the
 * host's byte order. Closing it deregisters the memory regions on it first.
 */
public final class DmaBuffer implements AutoCloseable {
    private final Device device;
    private final long address;
    private final int size;
    private final byte[] scratch = new byte[8];
    final List<MemoryRegion> regions = new ArrayList<>();
    private boolean closed;

    DmaBuffer(Device device, long address, int size) {
        this.device = device;
        this.address = address;
        this.size = size;
    }

    private Transport transport() {
        return device.transport();
    }

    /** The device address of octet 0. */
    public long address() {
        return address;
    }

    public int size() {
        return size;
    }

    public Device device() {
        return device;
    }

    public boolean isClosed() {
        return closed;
    }

    void check(long offset, long length) {
        if (closed) {
            throw new ResourceClosedException("DMA buffer at 0x" + Long.toHexString(address) + " is closed");
        }
        if (offset < 0 || length < 0 || offset + length > size) {
            throw new IndexOutOfBoundsException("octets " + offset + " … " + (offset + length) + " outside the "
                    + size + "-octet buffer");
        }
    }

    public void put(long offset, byte[] src, int srcOffset, int length) {
        check(offset, length);
        transport().write(address + offset, src, srcOffset, length);
    }

    public void put(long offset, byte[] src) {
        put(offset, src, 0, src.length);
    }

    public void get(long offset, byte[] dst, int dstOffset, int length) {
        check(offset, length);
        transport().read(address + offset, dst, dstOffset, length);
    }

    public byte[] get(long offset, int length) {
        byte[] b = new byte[length];
        get(offset, b, 0, length);
        return b;
    }

    public void putLong(long offset, long value) {
        Le.putLong(scratch, 0, value);
        put(offset, scratch, 0, 8);
    }

    public long getLong(long offset) {
        get(offset, scratch, 0, 8);
        return Le.getLong(scratch, 0);
    }

    public void putInt(long offset, int value) {
        Le.putInt(scratch, 0, value);
        put(offset, scratch, 0, 4);
    }

    public int getInt(long offset) {
        get(offset, scratch, 0, 4);
        return Le.getInt(scratch, 0);
    }

    /** Writes {@code length} copies of {@code value} from {@code offset}. */
    public void fill(long offset, int length, byte value) {
        check(offset, length);
        byte[] chunk = new byte[Math.min(length, 4096)];
        java.util.Arrays.fill(chunk, value);
        for (int done = 0; done < length; done += chunk.length) {
            transport().write(address + offset + done, chunk, 0, Math.min(chunk.length, length - done));
        }
    }

    /** Deregisters the memory regions on the buffer, then returns the memory. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        for (MemoryRegion mr : List.copyOf(regions)) {
            mr.close();
        }
        closed = true;
        transport().free(address);
        device.forget(this);
    }

    @Override
    public String toString() {
        return "DmaBuffer[0x" + Long.toHexString(address) + "+" + size + (closed ? ", closed" : "") + "]";
    }
}
