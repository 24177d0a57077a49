package rnic.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The transport header octet for octet against the worked encodings of docs/requirements.md §5.3 (computed there
 * from RFC 8166's XDR, outside this code), and the decoder's verdicts on bad headers (§5.4).
 */
class RpcRdmaHeaderTest {
    static final int XID = 0x1a2b3c4d;

    private static void same(String words, RpcRdmaHeader h) throws HeaderException {
        byte[] want = Hex.words(words);
        assertEquals(Hex.of(want), Hex.of(h.encode()));
        RpcRdmaHeader.Decoded d = RpcRdmaHeader.decode(want, 0, want.length);
        assertEquals(h.toString(), d.header().toString());
        assertEquals(want.length, d.payloadOffset());
    }

    /** RPCRDMA-01, RPCRDMA-02, RPCRDMA-09, RPCRDMA-10: example 1, RDMA_MSG without chunks, 28 octets. */
    @Test
    void example1MsgWithoutChunks() throws HeaderException {
        same("1a2b3c4d 00000001 00000020 00000000 00000000 00000000 00000000",
                RpcRdmaHeader.msg(XID, 32, List.of(), List.of(), null));
        assertEquals(RpcRdmaHeader.MIN_LENGTH, RpcRdmaHeader.msg(XID, 32, List.of(), List.of(), null).encodedLength());
    }

    /** RPCRDMA-12, RPCRDMA-13, RPCRDMA-14: example 2, one Read chunk at Position 0x64. */
    @Test
    void example2ReadChunk() throws HeaderException {
        same("1a2b3c4d 00000001 00000020 00000000 00000001 00000064 00001111 00002000 00000000 10000000 00000000"
                + " 00000000 00000000", RpcRdmaHeader.msg(XID, 32, List.of(new ReadSegment(0x64,
                        new RdmaSegment(0x1111, 0x2000, 0x10000000L))), List.of(), null));
    }

    /** RPCRDMA-11, RPCRDMA-20: example 3, a Long Call as RDMA_NOMSG with a two-segment Position-Zero Read chunk. */
    @Test
    void example3PositionZeroReadChunk() throws HeaderException {
        RpcRdmaHeader h = RpcRdmaHeader.nomsg(XID, 32, List.of(
                new ReadSegment(0, new RdmaSegment(0x2222, 0x1800, 0x20000000L)),
                new ReadSegment(0, new RdmaSegment(0x2223, 0x400, 0x30000000L))), List.of(), null);
        same("1a2b3c4d 00000001 00000020 00000001 00000001 00000000 00002222 00001800 00000000 20000000"
                + " 00000001 00000000 00002223 00000400 00000000 30000000 00000000 00000000 00000000", h);
        assertEquals(1, h.readChunks().size());
        assertEquals(2, h.readChunks().get(0).size());
    }

    /** RPCRDMA-12, RPCRDMA-13, RPCRDMA-16, RPCRDMA-19: example 4, a Write list and a Reply chunk. */
    @Test
    void example4WriteListAndReplyChunk() throws HeaderException {
        same("1a2b3c4d 00000001 00000020 00000000 00000000 00000001 00000002 00003333 00001000 00000000 40000000"
                + " 00003334 00000f00 00000000 50000000 00000000 00000001 00000001 00004444 00004000 00000000"
                + " 60000000", RpcRdmaHeader.msg(XID, 32, List.of(), List.of(WriteChunk.of(
                        new RdmaSegment(0x3333, 0x1000, 0x40000000L), new RdmaSegment(0x3334, 0xf00, 0x50000000L))),
                        WriteChunk.of(new RdmaSegment(0x4444, 0x4000, 0x60000000L))));
    }

    /** RPCRDMA-24, RPCRDMA-25: example 5, ERR_VERS echoing vers 2, range 1 … 1 (trap T-47). */
    @Test
    void example5ErrVers() {
        assertEquals(Hex.of(Hex.words("1a2b3c4d 00000002 00000020 00000004 00000001 00000001 00000001")),
                Hex.of(RpcRdmaHeader.errVers(XID, 2, 32).encode()));
    }

    /** RPCRDMA-26: example 6, ERR_CHUNK, 20 octets — decoded although under 28 (the exception RFC 8166 needs). */
    @Test
    void example6ErrChunk() throws HeaderException {
        same("1a2b3c4d 00000001 00000020 00000004 00000002", RpcRdmaHeader.errChunk(XID, 1, 32));
    }

    /** RPCRDMA-13: 64-bit offsets and 32-bit handles keep every bit; many segments. */
    @Test
    void manySegmentsAndWideFields() throws HeaderException {
        List<RdmaSegment> segs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            segs.add(new RdmaSegment(0xFFFF_0000 | i, i * 3 + 1, 0xFEDC_BA98_7654_3210L + i));
        }
        RpcRdmaHeader h = RpcRdmaHeader.msg(7, 1, List.of(), List.of(new WriteChunk(segs), WriteChunk.of()),
                new WriteChunk(segs.subList(0, 3)));
        byte[] b = h.encode();
        assertEquals(16 + 4 + (4 + 4 + 40 * 16) + (4 + 4) + 4 + 4 + (4 + 3 * 16), b.length);
        RpcRdmaHeader back = RpcRdmaHeader.decode(b, 0, b.length).header();
        assertEquals(h.writeList(), back.writeList());
        assertEquals(h.replyChunk(), back.replyChunk());
        assertTrue(back.writeList().get(1).isEmpty(), "an empty Write chunk (count 0) survives (RPCRDMA-18)");
    }

    /** RPCRDMA-16: a returned Write chunk keeps its segment count, filled in order, unused lengths 0. */
    @Test
    void filledChunkKeepsCountAndOrder() {
        WriteChunk w = WriteChunk.of(new RdmaSegment(1, 100, 0), new RdmaSegment(2, 100, 1000),
                new RdmaSegment(3, 100, 2000));
        assertEquals(List.of(100, 50, 0), w.filled(150).segments().stream().map(RdmaSegment::length).toList());
        assertEquals(List.of(0, 0, 0), w.filled(0).segments().stream().map(RdmaSegment::length).toList());
        assertThrows(IllegalArgumentException.class, () -> w.filled(301));
    }

    private static HeaderException.Kind kind(String words) {
        byte[] b = Hex.words(words);
        return assertThrows(HeaderException.class, () -> RpcRdmaHeader.decode(b, 0, b.length)).kind();
    }

    /** RPCRDMA-24: under 28 octets (and not an ERR_CHUNK) is discarded before parsing. */
    @Test
    void shortMessagesAreShort() {
        assertEquals(HeaderException.Kind.SHORT, kind("1a2b3c4d 00000001 00000020 00000000 00000000 00000000"));
        assertEquals(HeaderException.Kind.SHORT, kind("1a2b3c4d 00000001 00000020"));
        assertEquals(HeaderException.Kind.SHORT, kind("1a2b3c4d 00000001 00000020 00000004 00000001"),
                "an ERR_VERS must have its range");
    }

    /** RPCRDMA-04, RPCRDMA-25: vers 2 is a version error carrying xid and vers for the ERR_VERS reply. */
    @Test
    void otherVersionIsVersionError() {
        byte[] b = Hex.words("1a2b3c4d 00000002 00000020 00000000 00000000 00000000 00000000");
        HeaderException e = assertThrows(HeaderException.class, () -> RpcRdmaHeader.decode(b, 0, b.length));
        assertEquals(HeaderException.Kind.VERSION, e.kind());
        assertEquals(XID, e.xid());
        assertEquals(2, e.vers());
    }

    /** RPCRDMA-09, RPCRDMA-26: undefined procs, undefined errors, lists that do not decode are XDR errors. */
    @Test
    void badBodiesAreXdrErrors() {
        assertEquals(HeaderException.Kind.XDR, kind("1a2b3c4d 00000001 00000020 00000005 00000000 00000000 00000000"));
        assertEquals(HeaderException.Kind.XDR, kind("1a2b3c4d 00000001 00000020 00000004 00000003 00000000 00000000"));
        // Read list entry cut off
        assertEquals(HeaderException.Kind.XDR, kind("1a2b3c4d 00000001 00000020 00000000 00000001 00000000 00000001"));
        // a "follows" word of 2 is not an XDR boolean
        assertEquals(HeaderException.Kind.XDR, kind("1a2b3c4d 00000001 00000020 00000000 00000002 00000000 00000000"));
        // a Write chunk claiming 2^28 segments
        assertEquals(HeaderException.Kind.XDR, kind("1a2b3c4d 00000001 00000020 00000000 00000000 00000001 10000000"
                + " 00000000 00000000"));
        // a segment length over 2^31 - 1
        assertEquals(HeaderException.Kind.XDR, kind("1a2b3c4d 00000001 00000020 00000000 00000000 00000001 00000001"
                + " 00000001 80000000 00000000 00000000 00000000 00000000"));
    }

    /** RPCRDMA-30: RDMA_MSGP (align, thresh, lists) and RDMA_DONE decode, so receivers can answer them as told. */
    @Test
    void deprecatedProceduresDecode() throws HeaderException {
        byte[] msgp = Hex.words("1a2b3c4d 00000001 00000020 00000002 00000004 00000400 00000000 00000000 00000000");
        RpcRdmaHeader h = RpcRdmaHeader.decode(msgp, 0, msgp.length).header();
        assertEquals(Proc.RDMA_MSGP, h.procedure());
        assertEquals(0x400, h.thresh());
        assertArrayEquals(msgp, new RpcRdmaHeader(XID, 1, 32, 2, List.of(), List.of(), null, 0, 0, 0, 4, 0x400)
                .encode());
        byte[] done = Hex.words("1a2b3c4d 00000001 00000020 00000003 00000000 00000000 00000000");
        assertEquals(Proc.RDMA_DONE, RpcRdmaHeader.decode(done, 0, done.length).header().procedure());
        assertNull(Proc.of(5));
    }
}
