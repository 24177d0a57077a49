package rnic.sim.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The pcap file format (pcap-savefile(5)): global header, record headers, Ethernet framing. */
class PcapWriterTest {
    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replaceAll("\\s", ""));
    }

    @Test
    void globalHeaderBytes() throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (PcapWriter w = new PcapWriter(bos)) {
            assertEquals(0, w.packets());
        }
        // magic a1b2c3d4, version 2.4, thiszone 0, sigfigs 0, snaplen 65535, LINKTYPE_ETHERNET — little-endian
        assertArrayEquals(hex("d4c3b2a1 0200 0400 00000000 00000000 ffff0000 01000000"), bos.toByteArray());
        assertArrayEquals(bos.toByteArray(), PcapWriter.globalHeader());
    }

    @Test
    void recordHeaderAndFrame() throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        byte[] frame = new byte[70];
        Arrays.fill(frame, (byte) 0x5a);
        try (PcapWriter w = new PcapWriter(bos)) {
            w.writeRecord(1_700_000_000_123_456L, frame);
            assertEquals(1, w.packets());
        }
        byte[] out = bos.toByteArray();
        assertEquals(24 + 16 + 70, out.length);
        // ts_sec 1700000000 = 0x6553f100, ts_usec 123456 = 0x0001e240, incl_len = orig_len = 70
        assertArrayEquals(hex("00f15365 40e20100 46000000 46000000"), Arrays.copyOfRange(out, 24, 40));
        assertArrayEquals(frame, Arrays.copyOfRange(out, 40, out.length));
    }

    @Test
    void ethernetFrameIsPaddedToSixtyOctets() throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        byte[] dst = hex("020000000002");
        byte[] src = hex("020000000001");
        try (PcapWriter w = new PcapWriter(bos)) {
            byte[] f = w.writeEthernet(0, dst, src, 0x0800, hex("0102030405"));
            assertEquals(60, f.length);
            assertArrayEquals(hex("020000000002 020000000001 0800 0102030405"), Arrays.copyOf(f, 19));
            assertArrayEquals(new byte[41], Arrays.copyOfRange(f, 19, 60));
            byte[] big = w.writeEthernet(0, dst, src, 0x0800, new byte[1500]);
            assertEquals(1514, big.length);
        }
        PcapFile p = PcapFile.parse(bos.toByteArray());
        assertEquals(2, p.packets.size());
        assertEquals(60, p.packets.get(0).frame().length);
    }

    @Test
    void rejectsFramesBeyondSnaplenAndWritesAfterClose() throws IOException {
        PcapWriter w = new PcapWriter(new ByteArrayOutputStream());
        assertThrows(IllegalArgumentException.class, () -> w.writeRecord(0, new byte[65536]));
        w.close();
        assertThrows(IOException.class, () -> w.writeRecord(0, new byte[60]));
    }
}
