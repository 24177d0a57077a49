package rnic.sim.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import rnic.model.mpa.Mpa;
import rnic.model.mpa.MpaDeframer;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.sim.tcp.TcpChannel;
import rnic.sim.tcp.TcpEnd;

/**
 * An MPA connection over a {@link TcpChannel}, with the golden MPA models standing in for the two cores: the hosts
 * exchange the Request (a, the Initiator) and the Reply (b) as stream octets, hand over at the exact octet after them
 * (MPA-26), then each "core" frames its ULPDUs with {@link MpaFramer} (one FPDU per tcpTx segment, CRC on, no Markers)
 * and deframes what arrives with {@link MpaDeframer}. The Responder sends no FPDU before it received one (MPA-36).
 */
final class MpaOverChannel {
    final TcpChannel ch;
    final byte[] request = startupFrame(false, "req".getBytes());
    final byte[] reply = startupFrame(true, "reply!".getBytes());
    final List<byte[]> i2r;
    final List<byte[]> r2i;
    final List<byte[]> gotI2r = new ArrayList<>();
    final List<byte[]> gotR2i = new ArrayList<>();
    private final Side ini = new Side();
    private final Side res = new Side();
    private int phase;

    /** One end's core: framer, deframer, what it still has to send. */
    private static final class Side {
        MpaFramer framer;
        MpaDeframer deframer;
        int next;
        final byte[] buf = new byte[4096];
        final List<TcpSegment> pending = new ArrayList<>();
    }

    /**
     * An MPA Request or Reply (RFC 5044 §7.1.1): the 16-octet key, flags M=0 C=1, Rev 1, PD_Length, private data —
     * written out here, independent of the codec classes.
     */
    static byte[] startupFrame(boolean reply, byte[] privateData) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(20 + privateData.length);
        b.put((reply ? "MPA ID Rep Frame" : "MPA ID Req Frame").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        b.put((byte) 0x40).put((byte) 1).putShort((short) privateData.length).put(privateData);
        return b.array();
    }

    MpaOverChannel(TcpChannel ch, Random rng, int perDirection, int emss) {
        this.ch = ch;
        this.i2r = Traffic.sendsAndWrites(rng, perDirection, Mpa.mulpdu(emss, false), 0x1111);
        this.r2i = Traffic.sendsAndWrites(rng, perDirection, Mpa.mulpdu(emss, false), 0x2222);
        this.emss = emss;
    }

    private final int emss;
    private final byte[] startup = new byte[600];
    private int startupGot;

    boolean done() {
        return gotI2r.size() == i2r.size() && gotR2i.size() == r2i.size();
    }

    /** One step of both hosts and cores (call once per channel tick). */
    void step() {
        TcpEnd a = ch.a();
        TcpEnd b = ch.b();
        switch (phase) {
            case 0 -> {
                a.send(request);
                phase = 1;
            }
            case 1 -> { // b's host reads exactly the Request, replies, hands over
                startupGot += b.receive(startup, startupGot, request.length - startupGot);
                if (startupGot == request.length) {
                    b.send(reply);
                    b.handOver();
                    res.framer = new MpaFramer(new MpaDirection(false, true, b.handOverSendSequence()), emss);
                    res.deframer = new MpaDeframer(new MpaDirection(false, true, b.handOverReceiveSequence()));
                    startupGot = 0;
                    phase = 2;
                }
            }
            case 2 -> { // a's host reads exactly the Reply and hands over
                startupGot += a.receive(startup, startupGot, reply.length - startupGot);
                if (startupGot == reply.length) {
                    a.handOver();
                    ini.framer = new MpaFramer(new MpaDirection(false, true, a.handOverSendSequence()), emss);
                    ini.deframer = new MpaDeframer(new MpaDirection(false, true, a.handOverReceiveSequence()));
                    phase = 3;
                }
            }
            default -> {
                core(a, ini, i2r, true, gotR2i);
                core(b, res, r2i, !gotI2r.isEmpty(), gotI2r);
            }
        }
    }

    private void core(TcpEnd e, Side s, List<byte[]> toSend, boolean maySend, List<byte[]> got) {
        if (maySend) {
            if (s.pending.isEmpty() && s.next < toSend.size()) {
                s.pending.addAll(s.framer.send(toSend.get(s.next++)));
            }
            while (!s.pending.isEmpty() && e.coreCanSend()) {
                e.coreSend(s.pending.remove(0).payload());
            }
        }
        int n = e.corePeek(s.buf, 0, s.buf.length);
        if (n > 0) {
            long seq = e.coreReceiveSequence();
            e.coreConsume(n);
            byte[] p = java.util.Arrays.copyOf(s.buf, n);
            for (MpaDeframer.Event ev : s.deframer.receive(new TcpSegment(seq, p))) {
                if (ev instanceof MpaDeframer.Ulpdu u) {
                    got.add(u.data());
                } else {
                    throw new AssertionError(e.name() + ": MPA error " + ev);
                }
            }
        }
    }

    /** The ULPDUs arrived as sent. */
    void check() {
        assertEquals(i2r.size(), gotI2r.size());
        assertEquals(r2i.size(), gotR2i.size());
        for (int i = 0; i < i2r.size(); i++) {
            org.junit.jupiter.api.Assertions.assertArrayEquals(i2r.get(i), gotI2r.get(i), "I->R ULPDU " + i);
        }
        for (int i = 0; i < r2i.size(); i++) {
            org.junit.jupiter.api.Assertions.assertArrayEquals(r2i.get(i), gotR2i.get(i), "R->I ULPDU " + i);
        }
    }
}
