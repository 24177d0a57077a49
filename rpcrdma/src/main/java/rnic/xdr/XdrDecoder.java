package rnic.xdr;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * Reads an XDR stream (RFC 4506). Strict: a read past the end, a boolean other than 0 or 1, a non-zero pad octet or a
 * length over the caller's bound is an {@link XdrException}.
 *
 * <p>DDP-eligible opaques ({@link #ddpOpaque(int)}): the length word is always inline. When the transport delivered
 * the item's data in a chunk ({@link #withChunks}), the data comes from the next chunk and the inline length must equal
 * the chunk's octet count (RPCRDMA-21: "the byte count in the Payload must equal the sum of the segment lengths");
 * otherwise the data is inline. The decoder records where each such item's data started
 * ({@link #ddpPositions()}), so a responder can check that every Read chunk it received held a DDP-eligible item
 * (RPCRDMA-23).
 */
public final class XdrDecoder {
    /** What one Write chunk returned for the next DDP-eligible item: its data, or null when the chunk was unused. */
    public record Chunk(byte[] data, boolean provided) {
    }

    private final byte[] buf;
    private final int end;
    private int pos;
    private final Deque<Chunk> chunks = new ArrayDeque<>();
    private final List<Integer> ddpPositions = new ArrayList<>();
    private final int base;

    public XdrDecoder(byte[] data) {
        this(data, 0, data.length);
    }

    public XdrDecoder(byte[] data, int offset, int length) {
        if (offset < 0 || length < 0 || offset + length > data.length) {
            throw new IllegalArgumentException("slice " + offset + "+" + length + " of " + data.length);
        }
        this.buf = data;
        this.pos = offset;
        this.base = offset;
        this.end = offset + length;
    }

    /** Data of DDP-eligible items that arrived in Write chunks, one entry per chunk in Write-list order. */
    public XdrDecoder withChunks(List<Chunk> list) {
        chunks.addAll(list);
        return this;
    }

    private void need(int n) {
        if (n < 0 || end - pos < n) {
            throw new XdrException("XDR stream ends: " + n + " octets wanted at " + (pos - base) + ", "
                    + (end - pos) + " left");
        }
    }

    public int int32() {
        need(4);
        int v = (buf[pos] & 0xFF) << 24 | (buf[pos + 1] & 0xFF) << 16 | (buf[pos + 2] & 0xFF) << 8
                | buf[pos + 3] & 0xFF;
        pos += 4;
        return v;
    }

    public long uint32() {
        return int32() & 0xFFFF_FFFFL;
    }

    public long hyper() {
        long hi = uint32();
        return hi << 32 | uint32();
    }

    public boolean bool() {
        int v = int32();
        if (v != 0 && v != 1) {
            throw new XdrException("boolean " + v + " at " + (pos - base - 4));
        }
        return v == 1;
    }

    /** Fixed-length opaque of {@code n} octets plus padding. */
    public byte[] opaqueFixed(int n) {
        need(Xdr.roundUp(n));
        byte[] out = Arrays.copyOfRange(buf, pos, pos + n);
        pos += n;
        skipPad(n);
        return out;
    }

    private void skipPad(int n) {
        for (int i = 0; i < Xdr.pad(n); i++) {
            if (buf[pos++] != 0) {
                throw new XdrException("non-zero XDR pad octet at " + (pos - base - 1));
            }
        }
    }

    private int length(int max) {
        long n = uint32();
        if (n > max) {
            throw new XdrException("length " + n + " over the bound " + max);
        }
        return (int) n;
    }

    /** Variable-length opaque of at most {@code max} octets. */
    public byte[] opaque(int max) {
        return opaqueFixed(length(max));
    }

    /** A string of at most {@code max} octets. */
    public String string(int max) {
        return new String(opaque(max), StandardCharsets.UTF_8);
    }

    /** A DDP-eligible variable-length opaque: from the next Write chunk if one was delivered, else inline. */
    public byte[] ddpOpaque(int max) {
        int n = length(max);
        Chunk c = chunks.pollFirst();
        if (c != null && c.data() != null) {
            if (c.data().length != n) {
                throw new XdrException("opaque length " + n + " but its chunk holds " + c.data().length
                        + " octets (RPCRDMA-21)");
            }
            return c.data().clone();
        }
        if (c != null && c.provided() && n > 0) {
            throw new XdrException("a DDP-eligible item of " + n + " octets came inline although a Write chunk was"
                    + " available for it (RPCRDMA-23)");
        }
        ddpPositions.add(pos - base);
        return opaqueFixed(n);
    }

    /** Where the data of each inline DDP-eligible item started, relative to the start of the stream. */
    public List<Integer> ddpPositions() {
        return List.copyOf(ddpPositions);
    }

    /** Write chunks no item took. */
    public int unusedChunks() {
        return chunks.size();
    }

    /** Octets read so far. */
    public int position() {
        return pos - base;
    }

    public int remaining() {
        return end - pos;
    }
}
