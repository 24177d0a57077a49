package rnic.sim.pcap;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A minimal classic-pcap reader for the tests, with Ethernet/IPv4/TCP field access written separately from main. */
final class PcapFile {
    /** One record. */
    record Packet(long tsMicros, byte[] frame) {
        int etherType() {
            return u16(frame, 12);
        }

        int ipOff() {
            return 14;
        }

        int ipHeaderLength() {
            return (frame[ipOff()] & 0x0F) * 4;
        }

        int ipTotalLength() {
            return u16(frame, ipOff() + 2);
        }

        int ipId() {
            return u16(frame, ipOff() + 4);
        }

        int ipFlagsFragment() {
            return u16(frame, ipOff() + 6);
        }

        byte[] srcIp() {
            return Arrays.copyOfRange(frame, ipOff() + 12, ipOff() + 16);
        }

        byte[] dstIp() {
            return Arrays.copyOfRange(frame, ipOff() + 16, ipOff() + 20);
        }

        int tcpOff() {
            return ipOff() + ipHeaderLength();
        }

        int srcPort() {
            return u16(frame, tcpOff());
        }

        int dstPort() {
            return u16(frame, tcpOff() + 2);
        }

        long seq() {
            return u32(frame, tcpOff() + 4);
        }

        long ack() {
            return u32(frame, tcpOff() + 8);
        }

        int tcpHeaderLength() {
            return ((frame[tcpOff() + 12] & 0xFF) >>> 4) * 4;
        }

        int flags() {
            return frame[tcpOff() + 13] & 0xFF;
        }

        int window() {
            return u16(frame, tcpOff() + 14);
        }

        /** The TCP segment (header and payload) as the IPv4 total length delimits it. */
        byte[] tcpSegment() {
            return Arrays.copyOfRange(frame, tcpOff(), ipOff() + ipTotalLength());
        }

        byte[] payload() {
            return Arrays.copyOfRange(frame, tcpOff() + tcpHeaderLength(), ipOff() + ipTotalLength());
        }
    }

    final byte[] globalHeader;
    final List<Packet> packets;

    private PcapFile(byte[] globalHeader, List<Packet> packets) {
        this.globalHeader = globalHeader;
        this.packets = packets;
    }

    static PcapFile read(Path file) throws IOException {
        return parse(Files.readAllBytes(file));
    }

    static PcapFile parse(byte[] data) {
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        byte[] gh = new byte[24];
        b.get(gh);
        if (ByteBuffer.wrap(gh).order(ByteOrder.LITTLE_ENDIAN).getInt() != 0xa1b2c3d4) {
            throw new IllegalArgumentException("not a little-endian microsecond pcap");
        }
        List<Packet> ps = new ArrayList<>();
        while (b.remaining() > 0) {
            long sec = b.getInt() & 0xFFFF_FFFFL;
            long usec = b.getInt() & 0xFFFF_FFFFL;
            int incl = b.getInt();
            int orig = b.getInt();
            if (incl != orig) {
                throw new IllegalArgumentException("truncated record");
            }
            byte[] f = new byte[incl];
            b.get(f);
            ps.add(new Packet(sec * 1_000_000 + usec, f));
        }
        return new PcapFile(gh, ps);
    }

    static int u16(byte[] b, int off) {
        return ((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF);
    }

    static long u32(byte[] b, int off) {
        return ((long) u16(b, off) << 16) | u16(b, off + 2);
    }

    /**
     * One's-complement sum of 16-bit words, written independently of {@link Frames}: add each word, fold the carry
     * back in immediately.
     */
    static int onesComplementSum(byte[]... parts) {
        byte[] all = new byte[Arrays.stream(parts).mapToInt(p -> p.length).sum()];
        int pos = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, pos, p.length);
            pos += p.length;
        }
        if ((all.length & 1) != 0) {
            all = Arrays.copyOf(all, all.length + 1);
        }
        int s = 0;
        for (int i = 0; i < all.length; i += 2) {
            s += u16(all, i);
            if (s > 0xFFFF) {
                s = (s & 0xFFFF) + 1;
            }
        }
        return s;
    }

    /** The IPv4 pseudo-header for TCP. */
    static byte[] pseudoHeader(byte[] src, byte[] dst, int tcpLength) {
        return ByteBuffer.allocate(12).put(src).put(dst).put((byte) 0).put((byte) 6).putShort((short) tcpLength)
                .array();
    }
}
