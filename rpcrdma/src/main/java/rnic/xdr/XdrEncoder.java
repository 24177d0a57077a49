package rnic.xdr;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Writes an XDR stream (RFC 4506): every integer big-endian in a 4-octet unit, hypers in 8, opaque data and strings
 * followed by zero padding to the next unit. {@link #ddpOpaque(byte[])} writes a variable-length opaque like
 * {@link #opaque(byte[])} and records it as a {@link DdpItem}: the upper layer binding says which items may be moved
 * by RDMA instead of inline (RFC 8166 §3.4.2, RPCRDMA-22); the stream itself stays unreduced.
 */
public final class XdrEncoder {
    private byte[] buf;
    private int len;
    private final List<DdpItem> ddp = new ArrayList<>();

    public XdrEncoder() {
        this(256);
    }

    public XdrEncoder(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    private void ensure(int more) {
        if (len + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
        }
    }

    /** A signed 32-bit integer (RFC 4506 §4.1). */
    public XdrEncoder int32(int v) {
        ensure(4);
        buf[len] = (byte) (v >>> 24);
        buf[len + 1] = (byte) (v >>> 16);
        buf[len + 2] = (byte) (v >>> 8);
        buf[len + 3] = (byte) v;
        len += 4;
        return this;
    }

    /** An unsigned 32-bit integer (§4.2) given as 0 … 2^32 − 1. */
    public XdrEncoder uint32(long v) {
        if (v < 0 || v > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("unsigned int out of range: " + v);
        }
        return int32((int) v);
    }

    /** A (unsigned) hyper integer (§4.5): 8 octets, most significant first. */
    public XdrEncoder hyper(long v) {
        int32((int) (v >>> 32));
        return int32((int) v);
    }

    /** A boolean (§4.4): 0 or 1. */
    public XdrEncoder bool(boolean v) {
        return int32(v ? 1 : 0);
    }

    /** Fixed-length opaque data (§4.9): the octets, then zero padding. */
    public XdrEncoder opaqueFixed(byte[] data) {
        return raw(data, 0, data.length);
    }

    private XdrEncoder raw(byte[] data, int off, int n) {
        int p = Xdr.pad(n);
        ensure(n + p);
        System.arraycopy(data, off, buf, len, n);
        len += n;
        for (int i = 0; i < p; i++) {
            buf[len++] = 0;
        }
        return this;
    }

    /** Variable-length opaque data (§4.10): length word, octets, zero padding. */
    public XdrEncoder opaque(byte[] data) {
        return opaque(data, 0, data.length);
    }

    /** Variable-length opaque data from a slice. */
    public XdrEncoder opaque(byte[] data, int off, int n) {
        int32(n);
        return raw(data, off, n);
    }

    /** A DDP-eligible variable-length opaque: encoded as {@link #opaque(byte[])} and recorded as a {@link DdpItem}. */
    public XdrEncoder ddpOpaque(byte[] data) {
        int32(data.length);
        ddp.add(new DdpItem(len, data.length));
        return raw(data, 0, data.length);
    }

    /** A string (§4.11): ASCII/UTF-8 octets as a variable-length opaque. */
    public XdrEncoder string(String s) {
        return opaque(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Appends another encoder's stream (its DDP items move with it). */
    public XdrEncoder append(XdrEncoder other) {
        int base = len;
        raw(other.buf, 0, other.len);
        for (DdpItem d : other.ddp) {
            ddp.add(new DdpItem(base + d.position(), d.length()));
        }
        return this;
    }

    /** Octets written so far (always a multiple of four). */
    public int length() {
        return len;
    }

    /** A copy of the stream. */
    public byte[] toByteArray() {
        return Arrays.copyOf(buf, len);
    }

    /** The DDP-eligible items in stream order. */
    public List<DdpItem> ddpItems() {
        return List.copyOf(ddp);
    }
}
