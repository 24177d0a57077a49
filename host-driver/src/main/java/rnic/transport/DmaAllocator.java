package rnic.transport;

import java.util.Map;
import java.util.TreeMap;

/**
 * Hands out regions of a device-visible memory window for a driver's rings and buffers (the allocate/free half of
 * {@link Transport}: a simulation's host memory, a board's memory): first fit, every region starting on a granule
 * boundary (4 KiB {@link #PAGE}s by default, or a coarser requested alignment) and rounded up to whole granules, so
 * no two regions share a granule; freed regions merge with free neighbours. Unknown addresses and exhaustion fail with
 * a message saying what was asked and what is left.
 */
public final class DmaAllocator {
    /** Granularity: 4 KiB pages. */
    public static final long PAGE = 4096;

    private final long base;
    private final long size;
    private final long granule;
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private final TreeMap<Long, Long> used = new TreeMap<>();
    private long inUse;

    /**
     * @param base first address of the window (page aligned)
     * @param size octets in the window (a multiple of the page size)
     */
    public DmaAllocator(long base, long size) {
        this(base, size, PAGE);
    }

    /**
     * A window handed out in {@code granule}-octet units (a power of two): a small board memory uses fine granules.
     *
     * @param base first address of the window (granule aligned)
     * @param size octets in the window (a multiple of the granule)
     */
    public DmaAllocator(long base, long size, long granule) {
        if (granule <= 0 || Long.bitCount(granule) != 1 || base % granule != 0 || size % granule != 0 || size <= 0
                || base + size < base) {
            throw new IllegalArgumentException(String.format("window 0x%x + 0x%x must be aligned to its granule %d "
                    + "(a power of two) and not wrap", base, size, granule));
        }
        this.base = base;
        this.size = size;
        this.granule = granule;
        free.put(base, size);
    }

    /**
     * A region of at least {@code length} octets (rounded up to granules) aligned to {@code max(alignment, granule)}.
     *
     * @param alignment a power of two
     * @throws IllegalStateException when no free block can take it
     */
    public long allocate(long length, int alignment) {
        if (length <= 0) {
            throw new IllegalArgumentException("allocation of " + length + " octets");
        }
        if (alignment <= 0 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two, got " + alignment);
        }
        long align = Math.max(granule, alignment);
        long len = (length + granule - 1) / granule * granule;
        for (Map.Entry<Long, Long> e : free.entrySet()) {
            long start = e.getKey();
            long end = start + e.getValue();
            long at = (start + align - 1) / align * align;
            if (at + len <= end && at >= start) {
                free.remove(start);
                if (at > start) {
                    free.put(start, at - start);
                }
                if (at + len < end) {
                    free.put(at + len, end - at - len);
                }
                used.put(at, len);
                inUse += len;
                return at;
            }
        }
        long largest = free.values().stream().mapToLong(Long::longValue).max().orElse(0);
        throw new IllegalStateException(String.format("host memory window exhausted: %d octets aligned to %d asked, "
                + "%d of %d octets free, largest free block %d (window 0x%x)", length, align, size - inUse, size,
                largest, base));
    }

    /** Returns the region at {@code address}; any other address is refused. */
    public void free(long address) {
        Long len = used.remove(address);
        if (len == null) {
            throw new IllegalArgumentException(String.format("0x%x is not the start of an allocated region", address));
        }
        inUse -= len;
        long start = address;
        long end = address + len;
        Map.Entry<Long, Long> before = free.floorEntry(start);
        if (before != null && before.getKey() + before.getValue() == start) {
            start = before.getKey();
            free.remove(start);
        }
        Long after = free.remove(end);
        if (after != null) {
            end += after;
        }
        free.put(start, end - start);
    }

    /** Octets of the region at {@code address} (as rounded), or -1 when none starts there. */
    public long sizeOf(long address) {
        return used.getOrDefault(address, -1L);
    }

    /** Whether {@code [address, address+length)} lies inside one allocated region. */
    public boolean contains(long address, long length) {
        Map.Entry<Long, Long> e = used.floorEntry(address);
        return e != null && address + length <= e.getKey() + e.getValue();
    }

    /** Octets allocated (whole granules). */
    public long inUse() {
        return inUse;
    }

    /** Regions allocated. */
    public int regions() {
        return used.size();
    }

    /** First address of the window. */
    public long base() {
        return base;
    }

    /** Octets in the window. */
    public long size() {
        return size;
    }

    /** The unit regions are rounded to. */
    public long granule() {
        return granule;
    }
}
