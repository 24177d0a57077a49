package rnic.sim.pcap;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * One end of a captured TCP connection: MAC address, IPv4 address and TCP port. These values only go into the capture
 * file; nothing is sent on a network.
 *
 * @param mac  6-octet MAC address
 * @param ip   4-octet IPv4 address
 * @param port TCP port (0…65535)
 */
public record TcpEndpoint(byte[] mac, byte[] ip, int port) {
    /** Default active opener (MPA Initiator): 02:00:00:00:00:01, 10.0.0.1:49152. */
    public static final TcpEndpoint DEFAULT_CLIENT = of("02:00:00:00:00:01", "10.0.0.1", 49152);
    /**
     * Default passive opener (MPA Responder): 02:00:00:00:00:02, 10.0.0.2:20049 (IANA "nfsrdma", NFS over RDMA).
     * Not 4420: Wireshark hands TCP port 4420 to its NVMe/TCP dissector, which then claims the MPA stream.
     */
    public static final TcpEndpoint DEFAULT_SERVER = of("02:00:00:00:00:02", "10.0.0.2", 20049);

    public TcpEndpoint {
        if (mac == null || mac.length != 6) {
            throw new IllegalArgumentException("MAC address must be 6 octets");
        }
        if (ip == null || ip.length != 4) {
            throw new IllegalArgumentException("IPv4 address must be 4 octets");
        }
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        mac = mac.clone();
        ip = ip.clone();
    }

    /**
     * Parses {@code "aa:bb:cc:dd:ee:ff"} and a dotted-quad {@code "a.b.c.d"} (no name lookup).
     */
    public static TcpEndpoint of(String mac, String ipv4, int port) {
        String[] m = mac.split("[:-]");
        if (m.length != 6) {
            throw new IllegalArgumentException("bad MAC address: " + mac);
        }
        byte[] macBytes = new byte[6];
        for (int i = 0; i < 6; i++) {
            macBytes[i] = (byte) Integer.parseInt(m[i], 16);
        }
        String[] q = ipv4.split("\\.");
        if (q.length != 4) {
            throw new IllegalArgumentException("bad IPv4 address: " + ipv4);
        }
        byte[] ipBytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            int v = Integer.parseInt(q[i]);
            if (v < 0 || v > 255) {
                throw new IllegalArgumentException("bad IPv4 address: " + ipv4);
            }
            ipBytes[i] = (byte) v;
        }
        return new TcpEndpoint(macBytes, ipBytes, port);
    }

    @Override
    public byte[] mac() {
        return mac.clone();
    }

    @Override
    public byte[] ip() {
        return ip.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TcpEndpoint e && Arrays.equals(e.mac, mac) && Arrays.equals(e.ip, ip) && e.port == port;
    }

    @Override
    public int hashCode() {
        return (Arrays.hashCode(mac) * 31 + Arrays.hashCode(ip)) * 31 + port;
    }

    @Override
    public String toString() {
        return HexFormat.ofDelimiter(":").formatHex(mac) + " " + (ip[0] & 0xFF) + "." + (ip[1] & 0xFF) + "."
                + (ip[2] & 0xFF) + "." + (ip[3] & 0xFF) + ":" + port;
    }
}
