package rnic.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeSet;
import rnic.model.MemoryView;

/**
 * Simulated host memory behind the engines' memory port: the whole 64-bit address space, sparse (4 KiB pages created
 * on first write; never-written octets read as 0), addresses unsigned and wrapping at 2^64 as the port's 64-bit
 * arithmetic does.
 *
 * <p>The golden models use it through {@link MemoryView} ({@link #read}, {@link #write}): those accesses are the test
 * bench's own and are not reported. What the design does through its AXI port ({@link Axi4MemorySlave}) goes through
 * {@link #readByPort} / {@link #writeByPort}, which first tell every {@link AccessListener}, so a test can assert that
 * no octet outside a registered region is read or written (DDP-31, DDP-35: no access outside the
 * registered range).
 */
public final class HostMemory implements MemoryView {
    /** Page size of the sparse store. */
    public static final int PAGE = 4096;
    private static final long PAGE_MASK = PAGE - 1;

    /** Told of every octet range the design reads or writes through the port, before the access happens. */
    @FunctionalInterface
    public interface AccessListener {
        /**
         * @param address first octet (unsigned)
         * @param length  octets, at least 1; the range may wrap past 2^64 - 1 to 0
         * @param isWrite true for a write (strobed octets only), false for a read
         */
        void access(long address, int length, boolean isWrite);
    }

    private final Map<Long, byte[]> pages = new HashMap<>();
    private final List<AccessListener> listeners = new ArrayList<>();

    /** Adds a listener for the design's accesses. */
    public HostMemory onAccess(AccessListener listener) {
        listeners.add(listener);
        return this;
    }

    @Override
    public byte[] read(long address, int length) {
        byte[] out = new byte[length];
        int done = 0;
        while (done < length) {
            long a = address + done;
            int off = (int) (a & PAGE_MASK);
            int n = Math.min(length - done, PAGE - off);
            byte[] page = pages.get(a & ~PAGE_MASK);
            if (page != null) {
                System.arraycopy(page, off, out, done, n);
            }
            done += n;
        }
        return out;
    }

    @Override
    public void write(long address, byte[] data) {
        write(address, data, 0, data.length);
    }

    /** Stores {@code data[off, off+length)} from {@code address}. */
    public void write(long address, byte[] data, int off, int length) {
        int done = 0;
        while (done < length) {
            long a = address + done;
            int po = (int) (a & PAGE_MASK);
            int n = Math.min(length - done, PAGE - po);
            byte[] page = pages.computeIfAbsent(a & ~PAGE_MASK, k -> new byte[PAGE]);
            System.arraycopy(data, off + done, page, po, n);
            done += n;
        }
    }

    /** A read by the design: the listeners are told, then the octets are returned. */
    public byte[] readByPort(long address, int length) {
        notify(address, length, false);
        return read(address, length);
    }

    /** A write by the design: the listeners are told, then the octets are stored. */
    public void writeByPort(long address, byte[] data, int off, int length) {
        notify(address, length, true);
        write(address, data, off, length);
    }

    /** Tells the listeners of an access without performing it (a request the memory refused, e.g. with SLVERR). */
    public void notifyAccess(long address, int length, boolean isWrite) {
        notify(address, length, isWrite);
    }

    private void notify(long address, int length, boolean isWrite) {
        if (length <= 0) {
            throw new IllegalArgumentException("access of " + length + " octets at " + hex(address));
        }
        for (AccessListener l : listeners) {
            l.access(address, length, isWrite);
        }
    }

    /** An independent copy of the contents (listeners are not copied). */
    public HostMemory copy() {
        HostMemory c = new HostMemory();
        for (Map.Entry<Long, byte[]> e : pages.entrySet()) {
            c.pages.put(e.getKey(), e.getValue().clone());
        }
        return c;
    }

    /** Copies {@code length} octets from {@code address} here to {@code to} at {@code toAddress}. */
    public void copyTo(long address, HostMemory to, long toAddress, int length) {
        to.write(toAddress, read(address, length));
    }

    /**
     * The lowest address (unsigned order) whose octet differs between this memory and {@code other}, or empty when
     * the two hold the same contents everywhere (a page of zeros equals a page never written).
     */
    public OptionalLong firstDifference(HostMemory other) {
        TreeSet<Long> bases = new TreeSet<>(Long::compareUnsigned);
        bases.addAll(pages.keySet());
        bases.addAll(other.pages.keySet());
        byte[] zero = new byte[PAGE];
        for (long base : bases) {
            byte[] a = pages.getOrDefault(base, zero);
            byte[] b = other.pages.getOrDefault(base, zero);
            int i = java.util.Arrays.mismatch(a, b);
            if (i >= 0) {
                return OptionalLong.of(base + i);
            }
        }
        return OptionalLong.empty();
    }

    /** Fails with the first differing address and the octets around it unless {@code expected} holds the same. */
    public void assertSameAs(HostMemory expected, String what) {
        OptionalLong d = firstDifference(expected);
        if (d.isPresent()) {
            long at = d.getAsLong();
            long from = at - 8;
            java.util.HexFormat hex = java.util.HexFormat.ofDelimiter(" ");
            throw new AssertionError(what + ": memory differs at " + hex(at) + ": expected ["
                    + hex.formatHex(expected.read(from, 24)) + "] got [" + hex.formatHex(read(from, 24)) + "] (from "
                    + hex(from) + ")");
        }
    }

    /** Pages holding written data. */
    public int pageCount() {
        return pages.size();
    }

    /** {@code 0x…} of an unsigned 64-bit address. */
    public static String hex(long address) {
        return "0x" + Long.toHexString(address);
    }
}
