package rnic.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import rnic.xdr.XdrDecoder;
import rnic.xdr.XdrEncoder;

/**
 * How a responder puts Read chunks back into the Payload stream (RFC 8166 §3.4.5), against streams written by the
 * XDR encoder (the unreduced form the requester started from).
 */
class RebuildTest {
    static byte[] data(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 13);
        }
        return b;
    }

    /** The reduced stream: the unreduced one without the item's data and padding. */
    static byte[] reduce(byte[] full, int pos, int paddedLength) {
        byte[] r = new byte[full.length - paddedLength];
        System.arraycopy(full, 0, r, 0, pos);
        System.arraycopy(full, pos + paddedLength, r, pos, full.length - pos - paddedLength);
        return r;
    }

    /** RPCRDMA-14, RPCRDMA-15: a 5-octet opaque in a Read chunk without its padding comes back with the round-up. */
    @Test
    void fiveOctetItemGetsItsRoundUp() {
        XdrEncoder e = new XdrEncoder().int32(0x11).ddpOpaque(data(5, 1)).int32(0x22);
        byte[] full = e.toByteArray();
        int pos = e.ddpItems().get(0).position();
        assertEquals(8, pos);
        byte[] out = RpcRdmaResponder.rebuild(reduce(full, pos, 8), List.of(pos), List.of(data(5, 1)));
        assertEquals(Hex.of(full), Hex.of(out));
    }

    /** RPCRDMA-15: the requester MAY include the padding: chunk length = item + pad (RFC 8166 §3.4.5.2). */
    @Test
    void paddingIncludedInTheChunkIsAccepted() {
        XdrEncoder e = new XdrEncoder().int32(0x11).ddpOpaque(data(5, 1)).int32(0x22);
        byte[] full = e.toByteArray();
        byte[] withPad = java.util.Arrays.copyOf(data(5, 1), 8);
        assertEquals(Hex.of(full), Hex.of(RpcRdmaResponder.rebuild(reduce(full, 8, 8), List.of(8),
                List.of(withPad))));
    }

    /** RPCRDMA-14: two chunks at two positions, unaligned lengths, zero-length item left inline. */
    @Test
    void twoChunksInOrder() {
        XdrEncoder e = new XdrEncoder().ddpOpaque(data(7, 2)).int32(9).ddpOpaque(new byte[0]).ddpOpaque(data(1030, 3))
                .string("tail");
        byte[] full = e.toByteArray();
        int p1 = e.ddpItems().get(0).position();
        int p3 = e.ddpItems().get(2).position();
        byte[] r = reduce(full, p3, 1032);
        r = reduce(r, p1, 8);
        byte[] out = RpcRdmaResponder.rebuild(r, List.of(p1, p3), List.of(data(7, 2), data(1030, 3)));
        assertEquals(Hex.of(full), Hex.of(out));
        XdrDecoder d = new XdrDecoder(out);
        assertEquals(7, d.ddpOpaque(2000).length);
    }

    /** RPCRDMA-21: the count word left inline must equal the chunk's length. */
    @Test
    void countMismatchIsRefused() {
        XdrEncoder e = new XdrEncoder().int32(1).ddpOpaque(data(12, 4));
        byte[] full = e.toByteArray();
        assertThrows(IllegalArgumentException.class, () -> RpcRdmaResponder.rebuild(reduce(full, 8, 12),
                List.of(8), List.of(data(11, 4))));
    }

    /** RPCRDMA-14: a Position beyond the stream, at 0 in an RDMA_MSG, or repeated is refused. */
    @Test
    void badPositionsAreRefused() {
        byte[] r = new XdrEncoder().int32(1).int32(4).toByteArray();
        assertThrows(IllegalArgumentException.class, () -> RpcRdmaResponder.rebuild(r, List.of(64),
                List.of(data(4, 1))));
        assertThrows(IllegalArgumentException.class, () -> RpcRdmaResponder.rebuild(r, List.of(0),
                List.of(data(4, 1))));
        assertThrows(IllegalArgumentException.class, () -> RpcRdmaResponder.rebuild(r, List.of(8, 8),
                List.of(data(4, 1), data(4, 1))));
    }
}
