package rnic.sim.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import rnic.sim.pcap.TcpConnectionCapture.Side;

/** The TCP connection writer: handshake, seq/ack bookkeeping (RFC 9293 §3.4), flags, IP IDs, close, window. */
class TcpConnectionCaptureTest {
    static final int SYN = Frames.SYN;
    static final int ACK = Frames.ACK;
    static final int PSH = Frames.PSH;
    static final int FIN = Frames.FIN;

    static List<PcapFile.Packet> capture(long clientIsn, long serverIsn, Body body) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (PcapWriter w = new PcapWriter(bos)) {
            TcpConnectionCapture c = new TcpConnectionCapture(w, clientIsn, serverIsn);
            body.run(c);
        }
        return PcapFile.parse(bos.toByteArray()).packets;
    }

    interface Body {
        void run(TcpConnectionCapture c) throws IOException;
    }

    static void expect(PcapFile.Packet p, TcpEndpoint from, TcpEndpoint to, int flags, long seq, long ack, int len) {
        assertEquals(0x0800, p.etherType());
        assertArrayEquals(to.mac(), java.util.Arrays.copyOfRange(p.frame(), 0, 6));
        assertArrayEquals(from.mac(), java.util.Arrays.copyOfRange(p.frame(), 6, 12));
        assertArrayEquals(from.ip(), p.srcIp());
        assertArrayEquals(to.ip(), p.dstIp());
        assertEquals(from.port(), p.srcPort());
        assertEquals(to.port(), p.dstPort());
        assertEquals(flags, p.flags(), "flags");
        assertEquals(seq, p.seq(), "seq");
        assertEquals(ack, p.ack(), "ack");
        assertEquals(len, p.payload().length, "payload length");
        assertEquals(0x4000, p.ipFlagsFragment());
        assertEquals(0xFFFF, PcapFile.onesComplementSum(java.util.Arrays.copyOfRange(p.frame(), 14, 34)));
        byte[] seg = p.tcpSegment();
        assertEquals(0xFFFF, PcapFile.onesComplementSum(PcapFile.pseudoHeader(p.srcIp(), p.dstIp(), seg.length), seg));
    }

    @Test
    void handshakeDataAndClose() throws IOException {
        TcpEndpoint c = TcpEndpoint.DEFAULT_CLIENT;
        TcpEndpoint s = TcpEndpoint.DEFAULT_SERVER;
        long[] seen = new long[4];
        List<PcapFile.Packet> ps = capture(1000, 5000, t -> {
            assertEquals(1000, t.nextSeq(Side.CLIENT));
            t.open();
            seen[0] = t.nextSeq(Side.CLIENT);
            seen[1] = t.nextSeq(Side.SERVER);
            assertEquals(1001, t.send(Side.CLIENT, new byte[100]));
            assertEquals(5001, t.send(Side.SERVER, new byte[7]));
            assertEquals(1101, t.send(Side.CLIENT, new byte[3]));
            seen[2] = t.nextSeq(Side.CLIENT);
            seen[3] = t.nextSeq(Side.SERVER);
            t.close();
            assertEquals(TcpConnectionCapture.State.CLOSED, t.state());
        });
        assertEquals(1001, seen[0]);
        assertEquals(5001, seen[1]);
        assertEquals(1104, seen[2]);
        assertEquals(5008, seen[3]);
        assertEquals(9, ps.size());
        expect(ps.get(0), c, s, SYN, 1000, 0, 0);
        expect(ps.get(1), s, c, SYN | ACK, 5000, 1001, 0);
        expect(ps.get(2), c, s, ACK, 1001, 5001, 0);
        expect(ps.get(3), c, s, ACK | PSH, 1001, 5001, 100);
        expect(ps.get(4), s, c, ACK | PSH, 5001, 1101, 7);
        expect(ps.get(5), c, s, ACK | PSH, 1101, 5008, 3);
        expect(ps.get(6), c, s, FIN | ACK, 1104, 5008, 0);
        expect(ps.get(7), s, c, FIN | ACK, 5008, 1105, 0);
        expect(ps.get(8), c, s, ACK, 1105, 5009, 0);
        // SYNs carry MSS 1460
        assertEquals(24, ps.get(0).tcpHeaderLength());
        assertArrayEquals(Frames.mssOption(1460), java.util.Arrays.copyOfRange(ps.get(0).tcpSegment(), 20, 24));
        assertEquals(20, ps.get(3).tcpHeaderLength());
        // IP IDs count up per sender; timestamps rise
        int[] clientIds = ps.stream().filter(p -> p.srcPort() == c.port()).mapToInt(PcapFile.Packet::ipId).toArray();
        for (int i = 1; i < clientIds.length; i++) {
            assertEquals(clientIds[i - 1] + 1, clientIds[i]);
        }
        for (int i = 1; i < ps.size(); i++) {
            assertTrue(ps.get(i).tsMicros() > ps.get(i - 1).tsMicros());
        }
    }

    @Test
    void sequenceNumbersWrap() throws IOException {
        List<PcapFile.Packet> ps = capture(0xFFFF_FFF0L, 0xFFFF_FFFFL, t -> {
            t.open();
            assertEquals(0xFFFF_FFF1L, t.nextSeq(Side.CLIENT));
            assertEquals(0L, t.nextSeq(Side.SERVER));
            t.send(Side.CLIENT, new byte[40]);
            assertEquals(0x19L, t.nextSeq(Side.CLIENT));
            t.close(Side.SERVER);
        });
        expect(ps.get(1), TcpEndpoint.DEFAULT_SERVER, TcpEndpoint.DEFAULT_CLIENT, SYN | ACK, 0xFFFF_FFFFL,
                0xFFFF_FFF1L, 0);
        expect(ps.get(3), TcpEndpoint.DEFAULT_CLIENT, TcpEndpoint.DEFAULT_SERVER, ACK | PSH, 0xFFFF_FFF1L, 0, 40);
        expect(ps.get(4), TcpEndpoint.DEFAULT_SERVER, TcpEndpoint.DEFAULT_CLIENT, FIN | ACK, 0, 0x19, 0);
        expect(ps.get(5), TcpEndpoint.DEFAULT_CLIENT, TcpEndpoint.DEFAULT_SERVER, FIN | ACK, 0x19, 1, 0);
        expect(ps.get(6), TcpEndpoint.DEFAULT_SERVER, TcpEndpoint.DEFAULT_CLIENT, ACK, 1, 0x1A, 0);
    }

    /** One-way data beyond the 65535-octet window gets a pure ACK from the receiver first. */
    @Test
    void pureAckBeforeTheWindowFills() throws IOException {
        List<PcapFile.Packet> ps = capture(0, 0, t -> {
            t.open();
            for (int i = 0; i < 100; i++) {
                t.send(Side.CLIENT, new byte[1460]);
            }
        });
        long outstanding = 0;
        int acks = 0;
        for (PcapFile.Packet p : ps.subList(3, ps.size())) {
            if (p.srcPort() == TcpEndpoint.DEFAULT_CLIENT.port()) {
                outstanding += p.payload().length;
                assertTrue(outstanding <= TcpConnectionCapture.WINDOW, "window overrun");
            } else {
                assertEquals(ACK, p.flags());
                assertEquals(0, p.payload().length);
                outstanding = 0;
                acks++;
            }
        }
        assertEquals(2, acks); // 44 × 1460 = 64240 fit, the 45th does not: ACKs before segments 45 and 89
    }

    @Test
    void misuseIsRejected() throws IOException {
        capture(0, 0, t -> {
            assertThrows(IllegalStateException.class, () -> t.send(Side.CLIENT, new byte[1]));
            t.open();
            assertThrows(IllegalStateException.class, t::open);
            assertThrows(IllegalArgumentException.class, () -> t.send(Side.CLIENT, new byte[0]));
            assertThrows(IllegalArgumentException.class,
                    () -> t.send(Side.CLIENT, new byte[TcpConnectionCapture.MAX_PAYLOAD + 1]));
            t.close();
            assertThrows(IllegalStateException.class, () -> t.send(Side.SERVER, new byte[1]));
        });
    }
}
