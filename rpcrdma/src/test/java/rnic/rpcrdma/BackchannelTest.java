package rnic.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import rnic.xdr.XdrEncoder;

/**
 * The backchannel's header and direction rules (RFC 8167, RPCRDMA-32) on hand-written octets: RFC 8166's XDR gives
 * RDMA_MSG = 0, vers = 1 and an empty list as one zero word; RFC 5531 gives msg_type CALL = 0, REPLY = 1 as the word
 * after the XID.
 */
class BackchannelTest {
    static final String XID = "1a2b3c4d";

    private static Backchannel.Direction dirOf(String words) throws HeaderException {
        byte[] b = Hex.words(words);
        RpcRdmaHeader.Decoded d = RpcRdmaHeader.decode(b, 0, b.length);
        return Backchannel.direction(d.header(), b, d.payloadOffset());
    }

    /** RPCRDMA-32: a backchannel header is RDMA_MSG, vers 1, the message's XID, three empty lists. */
    @Test
    void headerIsVersionOneRdmaMsgWithTheXidAndNoChunks() {
        assertEquals(XID + "00000001" + "00000004" + "00000000" + "00000000" + "00000000" + "00000000",
                Hex.of(Backchannel.header(0x1a2b3c4d, 4).encode()));
    }

    /**
     * RPCRDMA-32: the direction comes from msg_type, never from the XID — the same XID is a call with msg_type 0 and
     * a reply with msg_type 1.
     */
    @Test
    void directionFromMsgTypeWhateverTheXid() throws HeaderException {
        String h = XID + " 00000001 00000004 00000000 00000000 00000000 00000000 ";
        assertEquals(Backchannel.Direction.CALL, dirOf(h + XID + " 00000000 00000002 40000000 00000001 00000000"));
        assertEquals(Backchannel.Direction.REPLY, dirOf(h + XID + " 00000001 00000000 00000000 00000000 00000000"));
        // no msg_type word, or one RFC 5531 does not define: the message does not tell
        assertEquals(Backchannel.Direction.UNKNOWN, dirOf(h + XID));
        assertEquals(Backchannel.Direction.UNKNOWN, dirOf(h + XID + " 00000002"));
    }

    /**
     * RPCRDMA-32: RDMA_NOMSG with a Position-Zero Read chunk carries a call; RDMA_NOMSG with a Reply chunk and an
     * RDMA_ERROR carry no msg_type: unknown, so a backchannel receiver ignores their credit.
     */
    @Test
    void directionWithoutAnInlineMessage() throws HeaderException {
        assertEquals(Backchannel.Direction.CALL, dirOf(XID + " 00000001 00000004 00000001 00000001 00000000"
                + " 00002222 00000100 00000000 20000000 00000000 00000000 00000000"));
        assertEquals(Backchannel.Direction.UNKNOWN, dirOf(XID + " 00000001 00000004 00000001 00000000 00000000"
                + " 00000001 00000001 00004444 00000400 00000000 60000000"));
        assertEquals(Backchannel.Direction.UNKNOWN, dirOf(XID + " 00000001 00000004 00000004 00000002"));
    }

    static RpcRdmaCall call(int octets, int maxReply) {
        return RpcRdmaCall.of(new XdrEncoder().int32(7).int32(0).opaque(new byte[octets - 12]), maxReply);
    }

    /**
     * RPCRDMA-32: inline only — a call that would need a Read chunk (over the reply threshold the requester's
     * buffers have), a Reply chunk (its reply over the call threshold) or Write chunks is refused with the reason.
     */
    @Test
    void callsThatWouldNeedChunksAreRefused() {
        RpcRdmaConfig cfg = RpcRdmaConfig.defaults().withThresholds(512, 256).withBackchannelCredits(2);
        Backchannel.check(call(256 - RpcRdmaHeader.MIN_LENGTH, 512 - RpcRdmaHeader.MIN_LENGTH), cfg);
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                () -> Backchannel.check(call(256 - RpcRdmaHeader.MIN_LENGTH + 4, 0), cfg));
        assertTrue(big.getMessage().contains("Read chunk") && big.getMessage().contains("inline only"),
                big.getMessage());
        IllegalArgumentException reply = assertThrows(IllegalArgumentException.class,
                () -> Backchannel.check(call(64, 512 - RpcRdmaHeader.MIN_LENGTH + 1), cfg));
        assertTrue(reply.getMessage().contains("Reply chunk"), reply.getMessage());
        IllegalArgumentException write = assertThrows(IllegalArgumentException.class,
                () -> Backchannel.check(call(64, 0).withWriteChunks(List.of(16)), cfg));
        assertTrue(write.getMessage().contains("Write chunks"), write.getMessage());
    }

    /** RPCRDMA-32: backchannel credits are their own setting (0 … 64, none by default), kept by every wither. */
    @Test
    void backchannelCreditsAreSeparate() {
        RpcRdmaConfig d = RpcRdmaConfig.defaults();
        assertEquals(0, d.backchannelCredits());
        RpcRdmaConfig b = d.withBackchannelCredits(3).withCredits(5).withThresholds(512, 512).withMaxChunk(4096)
                .withSegmentSize(1000).withRemoteInvalidation(false)
                .withOperationTimeout(java.time.Duration.ofMillis(1));
        assertEquals(3, b.backchannelCredits());
        assertEquals(5, b.credits());
        assertThrows(IllegalArgumentException.class, () -> d.withBackchannelCredits(-1));
        assertThrows(IllegalArgumentException.class, () -> d.withBackchannelCredits(65));
    }
}
