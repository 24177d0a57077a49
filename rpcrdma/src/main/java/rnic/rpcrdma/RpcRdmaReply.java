package rnic.rpcrdma;

import java.util.List;
import rnic.xdr.XdrDecoder;

/**
 * A reply as the requester received it: the transport header, the (reduced) RPC reply message — inline, or from the
 * Reply chunk for a Long Reply — and what each Write chunk brought back, for the upper layer's decoder
 * ({@link #decoder()}), plus what the transport did for it.
 *
 * @param remoteInvalidated the responder's Send with Invalidate fenced one of the call's regions
 * @param localInvalidates  Local Invalidates this side posted for the call's other regions (RPCRDMA-31)
 */
public record RpcRdmaReply(RpcRdmaHeader header, byte[] message, List<XdrDecoder.Chunk> chunks,
        boolean viaReplyChunk, boolean remoteInvalidated, int localInvalidates) {
    public RpcRdmaReply {
        chunks = List.copyOf(chunks);
    }

    /** A decoder over the reply message that takes DDP-eligible results from their Write chunks. */
    public XdrDecoder decoder() {
        return new XdrDecoder(message).withChunks(chunks);
    }
}
