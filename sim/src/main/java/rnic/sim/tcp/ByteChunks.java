package rnic.sim.tcp;

import java.util.ArrayDeque;

/**
 * A FIFO of octets that remembers where each added chunk ends: a sender's writes (host sends, core segments) or the
 * segments a receiver got. Not thread-safe.
 */
final class ByteChunks {
    private final ArrayDeque<byte[]> chunks = new ArrayDeque<>();
    private int headOff;
    private int size;

    /** Appends a copy of {@code data[off, off+len)} as one chunk (nothing for {@code len == 0}). */
    void add(byte[] data, int off, int len) {
        if (len == 0) {
            return;
        }
        byte[] c = new byte[len];
        System.arraycopy(data, off, c, 0, len);
        chunks.add(c);
        size += len;
    }

    /** Appends {@code chunk} itself (the caller gives up the array). */
    void addOwned(byte[] chunk) {
        if (chunk.length > 0) {
            chunks.add(chunk);
            size += chunk.length;
        }
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Octets left in the first chunk (0 when empty). */
    int untilBoundary() {
        byte[] h = chunks.peekFirst();
        return h == null ? 0 : h.length - headOff;
    }

    /** Copies up to {@code len} octets from the front into {@code dst} without removing them; returns how many. */
    int peek(byte[] dst, int off, int len) {
        int done = 0;
        int ho = headOff;
        for (byte[] c : chunks) {
            if (done == len) {
                break;
            }
            int n = Math.min(len - done, c.length - ho);
            System.arraycopy(c, ho, dst, off + done, n);
            done += n;
            ho = 0;
        }
        return done;
    }

    /** Removes {@code n} octets from the front. */
    void drop(int n) {
        if (n < 0 || n > size) {
            throw new IllegalArgumentException("drop " + n + " of " + size);
        }
        size -= n;
        while (n > 0) {
            byte[] h = chunks.peekFirst();
            int left = h.length - headOff;
            if (n >= left) {
                chunks.pollFirst();
                headOff = 0;
                n -= left;
            } else {
                headOff += n;
                n = 0;
            }
        }
    }

    /** Removes and returns {@code n} octets from the front. */
    byte[] take(int n) {
        byte[] out = new byte[n];
        int got = peek(out, 0, n);
        if (got != n) {
            throw new IllegalArgumentException("take " + n + " of " + size);
        }
        drop(n);
        return out;
    }
}
