package rnic.model;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A sparse byte-addressed memory for model tests: 4 KiB pages created on first write, never-written octets read as 0.
 * Two memories compare page by page, so a test can build the memory it expects independently and compare everything,
 * including octets that must have stayed untouched.
 */
public final class TestMemory implements MemoryView {
    private static final int PAGE_BITS = 12;
    private static final int PAGE = 1 << PAGE_BITS;

    private final Map<Long, byte[]> pages = new HashMap<>();

    @Override
    public byte[] read(long address, int length) {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            long a = address + i;
            byte[] page = pages.get(a >>> PAGE_BITS);
            out[i] = page == null ? 0 : page[(int) (a & (PAGE - 1))];
        }
        return out;
    }

    @Override
    public void write(long address, byte[] data) {
        for (int i = 0; i < data.length; i++) {
            long a = address + i;
            pages.computeIfAbsent(a >>> PAGE_BITS, k -> new byte[PAGE])[(int) (a & (PAGE - 1))] = data[i];
        }
    }

    /** The first address at which the two memories differ, or empty when they hold the same octets everywhere. */
    public OptionalLong firstDifference(TestMemory other) {
        Set<Long> keys = new HashSet<>(pages.keySet());
        keys.addAll(other.pages.keySet());
        long first = -1;
        boolean found = false;
        for (long k : keys) {
            byte[] a = pages.getOrDefault(k, new byte[PAGE]);
            byte[] b = other.pages.getOrDefault(k, new byte[PAGE]);
            for (int i = 0; i < PAGE; i++) {
                if (a[i] != b[i]) {
                    long address = k << PAGE_BITS | i;
                    if (!found || Long.compareUnsigned(address, first) < 0) {
                        first = address;
                        found = true;
                    }
                    break;
                }
            }
        }
        return found ? OptionalLong.of(first) : OptionalLong.empty();
    }
}
