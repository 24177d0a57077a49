package rnic.sim.pcap;

import java.nio.ByteBuffer;

/**
 * Builders for the Ethernet II, IPv4 and TCP headers of a capture, with the Internet checksum.
 *
 * <ul>
 * <li>IPv4 (RFC 791 §3.1): version 4, IHL 5 (no options), DSCP/ECN 0, total length, identification, flags DF (no
 * fragments), TTL, protocol, header checksum over the 20 octets (RFC 1071), source, destination.</li>
 * <li>TCP (RFC 9293 §3.1): ports, sequence and acknowledgment numbers, data offset, flags, window, checksum over the
 * pseudo-header (source, destination, zero, protocol 6, TCP length) and the segment, urgent pointer 0, options padded
 * to a multiple of 4 octets.</li>
 * </ul>
 */
public final class Frames {
    /** IP protocol number of TCP. */
    public static final int PROTO_TCP = 6;
    public static final int IPV4_HEADER_SIZE = 20;
    public static final int TCP_HEADER_SIZE = 20;
    public static final int ETHERNET_HEADER_SIZE = 14;

    /** TCP flag bits (the low octet of the flags field). */
    public static final int FIN = 0x01;
    public static final int SYN = 0x02;
    public static final int RST = 0x04;
    public static final int PSH = 0x08;
    public static final int ACK = 0x10;
    public static final int URG = 0x20;

    private Frames() {
    }

    /**
     * The Internet checksum (RFC 1071): the one's complement of the one's-complement sum of the 16-bit big-endian
     * words of {@code data[off, off+len)}, an odd last octet padded with a zero octet.
     */
    public static int checksum(byte[] data, int off, int len) {
        return ~fold(sum(0, data, off, len)) & 0xFFFF;
    }

    /** Adds the 16-bit words of {@code data[off, off+len)} to {@code acc} (no folding). */
    static long sum(long acc, byte[] data, int off, int len) {
        int i = off;
        int end = off + len;
        for (; i + 1 < end; i += 2) {
            acc += ((data[i] & 0xFF) << 8) | (data[i + 1] & 0xFF);
        }
        if (i < end) {
            acc += (data[i] & 0xFF) << 8;
        }
        return acc;
    }

    static int fold(long acc) {
        while ((acc >>> 16) != 0) {
            acc = (acc & 0xFFFF) + (acc >>> 16);
        }
        return (int) acc;
    }

    /** An Ethernet II frame, zero-padded to {@link PcapWriter#MIN_ETHERNET_FRAME} octets. */
    public static byte[] ethernet(byte[] dst, byte[] src, int etherType, byte[] payload) {
        requireLength("destination MAC", dst, 6);
        requireLength("source MAC", src, 6);
        int len = Math.max(PcapWriter.MIN_ETHERNET_FRAME, ETHERNET_HEADER_SIZE + payload.length);
        ByteBuffer b = ByteBuffer.allocate(len);
        b.put(dst).put(src).putShort((short) etherType).put(payload);
        return b.array();
    }

    /**
     * An IPv4 packet: the 20-octet header (DF set, no options, correct header checksum) followed by {@code payload}.
     *
     * @param id identification field (16 bits)
     */
    public static byte[] ipv4(byte[] src, byte[] dst, int protocol, int id, int ttl, byte[] payload) {
        requireLength("source address", src, 4);
        requireLength("destination address", dst, 4);
        int total = IPV4_HEADER_SIZE + payload.length;
        if (total > 0xFFFF) {
            throw new IllegalArgumentException("IPv4 total length " + total + " over 65535");
        }
        ByteBuffer b = ByteBuffer.allocate(total);
        b.put((byte) 0x45);             // version 4, IHL 5
        b.put((byte) 0);                // DSCP, ECN
        b.putShort((short) total);
        b.putShort((short) id);
        b.putShort((short) 0x4000);     // flags: DF; fragment offset 0
        b.put((byte) ttl);
        b.put((byte) protocol);
        b.putShort((short) 0);          // checksum, filled below
        b.put(src).put(dst);
        byte[] p = b.array();
        int c = checksum(p, 0, IPV4_HEADER_SIZE);
        p[10] = (byte) (c >>> 8);
        p[11] = (byte) c;
        System.arraycopy(payload, 0, p, IPV4_HEADER_SIZE, payload.length);
        return p;
    }

    /**
     * A TCP segment (header, options, payload) with its checksum computed over the IPv4 pseudo-header.
     *
     * @param options TCP options, zero-padded here to a multiple of 4 octets (at most 40)
     */
    public static byte[] tcp(byte[] srcIp, byte[] dstIp, int srcPort, int dstPort, long seq, long ack, int flags,
            int window, byte[] options, byte[] payload) {
        int optLen = (options.length + 3) & ~3;
        if (optLen > 40) {
            throw new IllegalArgumentException("TCP options over 40 octets: " + options.length);
        }
        int hdr = TCP_HEADER_SIZE + optLen;
        ByteBuffer b = ByteBuffer.allocate(hdr + payload.length);
        b.putShort((short) srcPort);
        b.putShort((short) dstPort);
        b.putInt((int) seq);
        b.putInt((int) ack);
        b.putShort((short) (((hdr / 4) << 12) | (flags & 0x1FF)));
        b.putShort((short) window);
        b.putShort((short) 0);          // checksum, filled below
        b.putShort((short) 0);          // urgent pointer
        b.put(options);
        b.position(hdr);
        b.put(payload);
        byte[] s = b.array();
        int c = tcpChecksum(srcIp, dstIp, s);
        s[16] = (byte) (c >>> 8);
        s[17] = (byte) c;
        return s;
    }

    /**
     * The TCP checksum of {@code segment} (its checksum field taken as is): the Internet checksum over the pseudo-header
     * (source address, destination address, zero, protocol 6, TCP length) followed by the segment. Over a segment
     * whose checksum field is already filled in, this is 0 when the checksum is right.
     */
    public static int tcpChecksum(byte[] srcIp, byte[] dstIp, byte[] segment) {
        requireLength("source address", srcIp, 4);
        requireLength("destination address", dstIp, 4);
        long acc = sum(0, srcIp, 0, 4);
        acc = sum(acc, dstIp, 0, 4);
        acc += PROTO_TCP;
        acc += segment.length;
        acc = sum(acc, segment, 0, segment.length);
        return ~fold(acc) & 0xFFFF;
    }

    /** The MSS option (kind 2, length 4). */
    public static byte[] mssOption(int mss) {
        return new byte[] {2, 4, (byte) (mss >>> 8), (byte) mss};
    }

    private static void requireLength(String what, byte[] b, int n) {
        if (b == null || b.length != n) {
            throw new IllegalArgumentException(what + " must be " + n + " octets");
        }
    }
}
