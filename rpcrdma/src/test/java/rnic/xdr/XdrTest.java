package rnic.xdr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * XDR (RFC 4506) against hand-written encodings: big-endian units, hypers, opaque and string padding (§4.9–4.11),
 * and the decoder's strictness. Also RPCRDMA-21 and RPCRDMA-23 as the decoder enforces them for DDP-eligible items.
 */
class XdrTest {
    static String hex(XdrEncoder e) {
        return HexFormat.of().formatHex(e.toByteArray());
    }

    /** RPCRDMA-02 (trap T-36): XDR is big-endian, four octets a unit. */
    @Test
    void integersAreBigEndian() {
        assertEquals("1a2b3c4dfffffffe", hex(new XdrEncoder().int32(0x1a2b3c4d).int32(-2)));
        assertEquals("0123456789abcdef", hex(new XdrEncoder().hyper(0x0123456789abcdefL)));
        assertEquals("0000000100000000", hex(new XdrEncoder().bool(true).bool(false)));
        assertEquals("ffffffff", hex(new XdrEncoder().uint32(0xFFFFFFFFL)));
        assertThrows(IllegalArgumentException.class, () -> new XdrEncoder().uint32(-1));
    }

    /** RPCRDMA-15, RPCRDMA-21: opaque data is padded with zeros to the unit; the length word counts the data only. */
    @Test
    void opaquePadding() {
        assertEquals("00000000", hex(new XdrEncoder().opaque(new byte[0])));
        assertEquals("00000001aa000000", hex(new XdrEncoder().opaque(new byte[] {(byte) 0xaa})));
        assertEquals("000000050102030405000000", hex(new XdrEncoder().opaque(new byte[] {1, 2, 3, 4, 5})));
        assertEquals(12, new XdrEncoder().opaque(new byte[5]).length());
        assertEquals("0000000361626300", hex(new XdrEncoder().string("abc")));
        assertEquals("0102030000000000", hex(new XdrEncoder().opaqueFixed(new byte[] {1, 2, 3}).int32(0)));
        for (int n = 0; n < 9; n++) {
            assertEquals((4 - n % 4) % 4, Xdr.pad(n));
        }
    }

    /** The decoder reads back what the encoder wrote, and refuses bad streams. */
    @Test
    void decoderRoundTripAndStrictness() {
        XdrEncoder e = new XdrEncoder().int32(-5).hyper(-1L).bool(true).opaque(new byte[] {9, 8, 7}).string("xyz");
        XdrDecoder d = new XdrDecoder(e.toByteArray());
        assertEquals(-5, d.int32());
        assertEquals(-1L, d.hyper());
        assertEquals(true, d.bool());
        assertArrayEquals(new byte[] {9, 8, 7}, d.opaque(3));
        assertEquals("xyz", d.string(10));
        assertEquals(0, d.remaining());
        assertThrows(XdrException.class, d::int32);
        assertThrows(XdrException.class, () -> new XdrDecoder(HexFormat.of().parseHex("00000002")).bool());
        assertThrows(XdrException.class, () -> new XdrDecoder(HexFormat.of().parseHex("00000001aa000100")).opaque(4),
                "non-zero padding");
        assertThrows(XdrException.class, () -> new XdrDecoder(HexFormat.of().parseHex("00000009aa000000")).opaque(8),
                "over the bound");
    }

    /** RPCRDMA-14: DDP items are recorded at the octet where their data starts, a multiple of 4. */
    @Test
    void ddpItemsRecordPositions() {
        XdrEncoder e = new XdrEncoder().int32(1).ddpOpaque(new byte[5]).ddpOpaque(new byte[0]);
        assertEquals(List.of(new DdpItem(8, 5), new DdpItem(20, 0)), e.ddpItems());
        XdrEncoder outer = new XdrEncoder().int32(7).int32(8).append(e);
        assertEquals(List.of(new DdpItem(16, 5), new DdpItem(28, 0)), outer.ddpItems());
        assertThrows(IllegalArgumentException.class, () -> new DdpItem(6, 1));
    }

    /** RPCRDMA-21: an item's data from its Write chunk must match the inline count. */
    @Test
    void chunkDataMustMatchTheCount() {
        byte[] reduced = new XdrEncoder().int32(4).toByteArray();
        XdrDecoder ok = new XdrDecoder(reduced).withChunks(List.of(new XdrDecoder.Chunk(new byte[] {1, 2, 3, 4},
                true)));
        assertArrayEquals(new byte[] {1, 2, 3, 4}, ok.ddpOpaque(10));
        XdrDecoder bad = new XdrDecoder(reduced).withChunks(List.of(new XdrDecoder.Chunk(new byte[3], true)));
        assertThrows(XdrException.class, () -> bad.ddpOpaque(10));
    }

    /** RPCRDMA-18, RPCRDMA-23: an empty chunk means inline; an available chunk left unused with the data inline is refused. */
    @Test
    void unusedChunkWithInlineDataIsAViolation() {
        byte[] inline = new XdrEncoder().opaque(new byte[] {5, 6}).toByteArray();
        XdrDecoder empty = new XdrDecoder(inline).withChunks(List.of(new XdrDecoder.Chunk(null, false)));
        assertArrayEquals(new byte[] {5, 6}, empty.ddpOpaque(10));
        XdrDecoder unused = new XdrDecoder(inline).withChunks(List.of(new XdrDecoder.Chunk(null, true)));
        assertThrows(XdrException.class, () -> unused.ddpOpaque(10));
    }
}
