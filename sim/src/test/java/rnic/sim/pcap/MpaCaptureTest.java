package rnic.sim.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import rnic.model.mpa.Mpa;
import rnic.model.mpa.MpaDeframer;
import rnic.model.mpa.MpaDirection;
import rnic.wire.MpaStartupFrame;
import rnic.model.mpa.TcpSegment;
import rnic.wire.MpaErrorCode;

/**
 * The MPA capture builder: startup-frame bits (RFC 5044 §7.1.1), Marker grid origins, one FPDU per segment, and a
 * loop-back of the written file through the golden receiver ({@link MpaDeframer}) for every Markers setting —
 * including the one-direction settings Wireshark cannot decode.
 */
class MpaCaptureTest {
    static final TcpEndpoint I = TcpEndpoint.DEFAULT_CLIENT;

    record Written(MpaCapture.Result result, List<PcapFile.Packet> packets) {
    }

    static Written write(MpaCapture c) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        MpaCapture.Result r;
        try (PcapWriter w = new PcapWriter(bos)) {
            r = c.write(w);
        }
        List<PcapFile.Packet> ps = PcapFile.parse(bos.toByteArray()).packets;
        assertEquals(r.frames(), ps.size());
        return new Written(r, ps);
    }

    static MpaCapture traffic(MpaCapture.Markers m, boolean crc, long seed, int perDirection) {
        Random rng = new Random(seed);
        MpaCapture c = new MpaCapture().markers(m).crc(crc);
        c.i2r(Traffic.sendsAndWrites(rng, perDirection, Mpa.mulpdu(1460, m.i2r()), 0x1111));
        c.r2i(Traffic.sendsAndWrites(rng, perDirection, Mpa.mulpdu(1460, m.r2i()), 0x2222));
        return c;
    }

    @ParameterizedTest
    @EnumSource(MpaCapture.Markers.class)
    void startupFramesCarryTheSettings(MpaCapture.Markers m) throws IOException {
        for (boolean crc : new boolean[] {false, true}) {
            Written w = write(new MpaCapture().markers(m).crc(crc).isn(100, 9000).i2r(MpaCapture.send(1, new byte[8])));
            List<PcapFile.Packet> ps = w.packets();
            byte[] req = ps.get(3).payload();
            byte[] rep = ps.get(4).payload();
            assertEquals(I.port(), ps.get(3).srcPort());
            assertArrayEquals(MpaStartupFrame.REQUEST_KEY, Arrays.copyOf(req, 16));
            assertArrayEquals(MpaStartupFrame.REPLY_KEY, Arrays.copyOf(rep, 16));
            // M in the Request: the Initiator wants Markers from the Responder; M in the Reply: the other way round.
            assertEquals(m.r2i(), (req[16] & 0x80) != 0, "Request M");
            assertEquals(m.i2r(), (rep[16] & 0x80) != 0, "Reply M");
            assertEquals(crc, (req[16] & 0x40) != 0, "Request C");
            assertEquals(crc, (rep[16] & 0x40) != 0, "Reply C");
            assertEquals(1, req[17]);
            assertEquals(new MpaDirection(m.i2r(), crc, 101 + 20), w.result().i2r());
            assertEquals(new MpaDirection(m.r2i(), crc, 9001 + 20), w.result().r2i());
            assertEquals(121, ps.get(5).seq(), "first FPDU right after the Request");
        }
    }

    @Test
    void enhancedDataAndPrivateData() throws IOException {
        var e = new MpaStartupFrame.Enhanced(false, false, 16, false, false, 8);
        Written w = write(new MpaCapture().enhanced(e, e).privateData(new byte[] {1, 2, 3}, new byte[0])
                .i2r(MpaCapture.send(1, new byte[4])));
        MpaStartupFrame req = w.result().request();
        assertEquals(2, req.rev());
        assertEquals(27, w.packets().get(3).payload().length);
        assertEquals(w.result().i2r().seqStart(), w.packets().get(5).seq());
    }

    /** Each framer segment is one TCP segment with the framer's octets, in round-robin order. */
    @ParameterizedTest
    @EnumSource(MpaCapture.Markers.class)
    void oneFpduPerSegment(MpaCapture.Markers m) throws IOException {
        Written w = write(traffic(m, true, 7, 20).isn(0xFFFF_F000L, 0x0000_1234L));
        List<PcapFile.Packet> data = w.packets().subList(5, w.packets().size() - 3);
        List<MpaCapture.Fpdu> fpdus = w.result().fpdus();
        assertEquals(40, fpdus.size());
        assertEquals(40, data.size(), "no extra ACKs with interleaved traffic");
        for (int i = 0; i < 40; i++) {
            MpaCapture.Fpdu f = fpdus.get(i);
            assertEquals(i % 2 == 0 ? MpaCapture.Direction.I2R : MpaCapture.Direction.R2I, f.dir());
            assertEquals(1, f.segments().size());
            TcpSegment s = f.segments().get(0);
            PcapFile.Packet p = data.get(i);
            assertEquals(f.dir() == MpaCapture.Direction.I2R, p.srcPort() == I.port());
            assertEquals(s.seq(), p.seq());
            assertArrayEquals(s.payload(), p.payload());
            assertTrue(p.payload().length <= 1460);
            assertEquals(Frames.ACK | Frames.PSH, p.flags());
        }
    }

    /** The file, read back and fed to the golden receiver per direction, yields the ULPDUs that went in. */
    @ParameterizedTest
    @EnumSource(MpaCapture.Markers.class)
    void loopBackThroughTheDeframer(MpaCapture.Markers m) throws Exception {
        for (boolean crc : new boolean[] {false, true}) {
            MpaCapture c = traffic(m, crc, 11, 25).isn(0xFFFF_F800L, 0x8000_0000L);
            Written w = write(c);
            for (MpaCapture.Direction d : MpaCapture.Direction.values()) {
                List<byte[]> got = receive(w, d, m, crc);
                List<byte[]> sent = w.result().fpdus().stream().filter(f -> f.dir() == d)
                        .map(MpaCapture.Fpdu::ulpdu).toList();
                assertEquals(sent.size(), got.size());
                for (int i = 0; i < sent.size(); i++) {
                    assertArrayEquals(sent.get(i), got.get(i), d + " ULPDU " + i);
                }
            }
        }
    }

    /** A corrupted CRC octet is caught by the golden receiver as an MPA CRC error. */
    @Test
    void tamperedCrcIsACrcError() throws Exception {
        MpaCapture c = traffic(MpaCapture.Markers.BOTH, true, 3, 10).tamper((d, i, p) -> {
            if (d == MpaCapture.Direction.R2I && i == 4) {
                p[p.length - 1] ^= 0x01;
            }
            return p;
        });
        Written w = write(c);
        List<MpaDeframer.Event> ev = events(w, MpaCapture.Direction.R2I, true, true);
        assertEquals(5, ev.size());
        for (int i = 0; i < 4; i++) {
            assertInstanceOf(MpaDeframer.Ulpdu.class, ev.get(i));
        }
        MpaDeframer.Error e = assertInstanceOf(MpaDeframer.Error.class, ev.get(4));
        assertEquals(MpaErrorCode.CRC_ERROR, e.code());
        // the Result still records the segment as framed
        assertEquals(w.result().segments(MpaCapture.Direction.R2I).get(4).seq(), e.fpduSeq());
    }

    static List<byte[]> receive(Written w, MpaCapture.Direction d, MpaCapture.Markers m, boolean crc)
            throws Exception {
        List<byte[]> out = new ArrayList<>();
        for (MpaDeframer.Event e : events(w, d, d == MpaCapture.Direction.I2R ? m.i2r() : m.r2i(), crc)) {
            out.add(assertInstanceOf(MpaDeframer.Ulpdu.class, e, e.toString()).data());
        }
        return out;
    }

    /** Decodes the startup frame of direction {@code d} from the file, then deframes the rest of its stream. */
    static List<MpaDeframer.Event> events(Written w, MpaCapture.Direction d, boolean markers, boolean crc)
            throws Exception {
        boolean fromInitiator = d == MpaCapture.Direction.I2R;
        List<PcapFile.Packet> dataSegs = w.packets().stream()
                .filter(p -> (p.srcPort() == I.port()) == fromInitiator && p.payload().length > 0).toList();
        PcapFile.Packet first = dataSegs.get(0);
        ByteBuffer b = ByteBuffer.wrap(first.payload());
        MpaStartupFrame f = MpaStartupFrame.decode(b, !fromInitiator, true);
        assertEquals(!fromInitiator, f.reply());
        assertEquals(markers, fromInitiator ? w.result().reply().markers() : w.result().request().markers());
        assertEquals(0, b.remaining(), "the startup frame has a segment of its own");
        long seqStart = (first.seq() + first.payload().length) & 0xFFFF_FFFFL;
        MpaDeframer rx = new MpaDeframer(new MpaDirection(markers, crc, seqStart));
        List<MpaDeframer.Event> out = new ArrayList<>();
        for (PcapFile.Packet p : dataSegs.subList(1, dataSegs.size())) {
            if (rx.failed()) {
                break; // nothing is delivered after an MPA error (MPA-44)
            }
            out.addAll(rx.receive(new TcpSegment(p.seq(), p.payload())));
        }
        return out;
    }
}
