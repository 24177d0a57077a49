package rnic.sim;

import java.util.Map;
import java.util.TreeMap;

/**
 * Hands out regions of a simulated host memory window for a driver's rings and buffers (the allocate/free half of
 * {@code rnic.transport.Transport}): first fit, every region starting on a {@link #PAGE} boundary (or a coarser
 * requested alignment) and rounded up to whole pages, so no two regions share a page and a region's rings never cross
 * into another's; freed regions merge with free neighbours. Unknown addresses and exhaustion fail with a message
 * saying what was asked and what is left.
 */
public final class DmaAllocator {
    /** Granularity: 4 KiB pages. */
    public static final long PAGE = 4096;

    private final long base;
    private final long size;
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private final TreeMap<Long, Long> used = new TreeMap<>();
    private long inUse;

    /**
     * @param base first address of the window (page aligned)
     * @param size octets in the window (a multiple of the page size)
     */
    public DmaAllocator(long base, long size) {
        if (base % PAGE != 0 || size % PAGE != 0 || size <= 0 || base + size < base) {
            throw new IllegalArgumentException(String.format("window 0x%x + 0x%x must be page aligned and not wrap",
                    base, size));
        }
        this.base = base;
        this.size = size;
        free.put(base, size);
    }

    /**
     * A region of at least {@code length} octets (rounded up to pages) aligned to {@code max(alignment, PAGE)}.
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
        long align = Math.max(PAGE, alignment);
        long len = (length + PAGE - 1) / PAGE * PAGE;
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

    /** Octets allocated (whole pages). */
    public long inUse() {
        return inUse;
    }

    /** Regions allocated. */
    public int regions() {
        return used.size();
    }

    public long base() {
        return base;
    }

    public long size() {
        return size;
    }
}
