package rnic.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import rnic.xdr.DdpItem;
import rnic.xdr.XdrEncoder;

/** Misuse of the transport's API is refused with a clear exception before anything is registered or sent. */
class CallCheckTest {
    static final RpcRdmaConfig CFG = RpcRdmaConfig.defaults().withMaxChunk(4096);

    static RpcRdmaCall call(int dataLength) {
        return RpcRdmaCall.of(new XdrEncoder().int32(1).int32(0).ddpOpaque(new byte[dataLength]), 100);
    }

    /** RPCRDMA-07: 1024 by default in both directions; thresholds too small or too large are refused. */
    @Test
    void configDefaultsAndBounds() {
        RpcRdmaConfig d = RpcRdmaConfig.defaults();
        assertEquals(1024, d.callThreshold());
        assertEquals(1024, d.replyThreshold());
        assertThrows(IllegalArgumentException.class, () -> d.withThresholds(40, 1024));
        assertThrows(IllegalArgumentException.class, () -> d.withThresholds(1024, 8192));
        assertThrows(IllegalArgumentException.class, () -> d.withCredits(0));
        assertThrows(IllegalArgumentException.class, () -> d.withOperationTimeout(Duration.ZERO));
        assertEquals(2048, d.withThresholds(2048, 512).callThreshold());
    }

    @Test
    void callsOverTheChunkLimitsAreRefused() {
        RpcRdmaRequester.check(call(4096), CFG);
        assertThrows(IllegalArgumentException.class, () -> RpcRdmaRequester.check(call(4097), CFG));
        assertThrows(IllegalArgumentException.class, () -> RpcRdmaRequester.check(call(8).withWriteChunks(
                List.of(5000)), CFG));
        assertThrows(IllegalArgumentException.class, () -> RpcRdmaRequester.check(RpcRdmaCall.of(new XdrEncoder()
                .int32(1), 5000), CFG));
        assertThrows(IllegalArgumentException.class, () -> RpcRdmaRequester.check(RpcRdmaCall.of(new XdrEncoder()
                .int32(1).opaque(new byte[5000]), 0), CFG), "a Long Call over maxChunk");
    }

    @Test
    void ddpItemsMustLieInsideTheMessage() {
        byte[] m = new XdrEncoder().int32(1).int32(4).int32(0).toByteArray();
        RpcRdmaRequester.check(new RpcRdmaCall(m, List.of(new DdpItem(8, 4)), List.of(), 0), CFG);
        assertThrows(IllegalArgumentException.class, () -> RpcRdmaRequester.check(new RpcRdmaCall(m,
                List.of(new DdpItem(8, 8)), List.of(), 0), CFG));
        assertThrows(IllegalArgumentException.class, () -> RpcRdmaRequester.check(new RpcRdmaCall(m,
                List.of(new DdpItem(0, 4)), List.of(), 0), CFG), "no room for the count word");
        assertThrows(IllegalArgumentException.class, () -> new RpcRdmaCall(new byte[6], List.of(), List.of(), 0));
    }
}
