package rnic.verbs;

/**
 * A local buffer of a work request (verbs' scatter/gather element): a range of a registered memory region, or, for
 * inline data only, an unregistered DMA buffer range or a plain byte array, or nothing (a zero-length message).
 * Where it is checked: when the request is posted (see {@link LocalProtectionException}).
 */
public final class Sge {
    private static final Sge EMPTY = new Sge(null, null, null, 0, 0);

    private final MemoryRegion region;
    private final DmaBuffer buffer;
    private final byte[] bytes;
    private final long offset;
    private final int length;

    private Sge(MemoryRegion region, DmaBuffer buffer, byte[] bytes, long offset, int length) {
        this.region = region;
        this.buffer = buffer;
        this.bytes = bytes;
        this.offset = offset;
        this.length = length;
    }

    /** {@code length} octets at {@code offset} within {@code region}. */
    public static Sge of(MemoryRegion region, long offset, int length) {
        if (region == null) {
            throw new IllegalArgumentException("memory region is null");
        }
        requireRange(offset, length);
        return new Sge(region, null, null, offset, length);
    }

    /** An unregistered range of a DMA buffer: usable as inline data only. */
    public static Sge unregistered(DmaBuffer buffer, long offset, int length) {
        if (buffer == null) {
            throw new IllegalArgumentException("buffer is null");
        }
        requireRange(offset, length);
        return new Sge(null, buffer, null, offset, length);
    }

    /** Octets of the Java heap: usable as inline data only (copied when posted). */
    public static Sge bytes(byte[] data) {
        if (data == null) {
            throw new IllegalArgumentException("data is null");
        }
        return new Sge(null, null, data, 0, data.length);
    }

    /** No buffer: a zero-length message (or a zero-capacity receive). */
    public static Sge empty() {
        return EMPTY;
    }

    private static void requireRange(long offset, int length) {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("negative offset or length: " + offset + ", " + length);
        }
    }

    /** The memory region, or null when the buffer is not registered. */
    public MemoryRegion region() {
        return region;
    }

    DmaBuffer buffer() {
        return buffer;
    }

    byte[] heapBytes() {
        return bytes;
    }

    /** Offset within the region or buffer. */
    public long offset() {
        return offset;
    }

    public int length() {
        return length;
    }

    /** Whether it names registered memory (or nothing at all). */
    public boolean registered() {
        return region != null || length == 0 && buffer == null && bytes == null;
    }

    /** Device address of the first octet (0 for heap bytes and the empty element). */
    long address() {
        if (region != null) {
            return region.address() + offset;
        }
        if (buffer != null) {
            return buffer.address() + offset;
        }
        return 0;
    }

    @Override
    public String toString() {
        if (region != null) {
            return "Sge[" + region + " +" + offset + ", " + length + "]";
        }
        if (buffer != null) {
            return "Sge[unregistered " + buffer + " +" + offset + ", " + length + "]";
        }
        return bytes != null ? "Sge[" + length + " heap octets]" : "Sge[empty]";
    }
}
