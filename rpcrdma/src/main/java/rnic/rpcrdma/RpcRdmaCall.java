package rnic.rpcrdma;

import java.util.List;
import rnic.xdr.DdpItem;
import rnic.xdr.XdrEncoder;

/**
 * One RPC Call as the requester hands it to the transport: the unreduced RPC message (starting with its XID,
 * RPCRDMA-01), the DDP-eligible items the upper layer binding marked in it, the Write chunks to offer for the
 * DDP-eligible results (one capacity per result, 0 = an empty chunk that forces the result inline, RPCRDMA-18) and
 * the largest possible reply, from which the transport decides whether a Reply chunk is needed (RPCRDMA-19).
 */
public record RpcRdmaCall(byte[] message, List<DdpItem> ddpItems, List<Integer> writeChunks, int maxReply) {
    public RpcRdmaCall {
        if (message == null || message.length < 4 || (message.length & 3) != 0) {
            throw new IllegalArgumentException("an RPC message is a whole number of XDR units starting with its XID");
        }
        ddpItems = List.copyOf(ddpItems);
        writeChunks = List.copyOf(writeChunks);
        for (int w : writeChunks) {
            if (w < 0) {
                throw new IllegalArgumentException("write chunk capacity " + w);
            }
        }
        if (maxReply < 0) {
            throw new IllegalArgumentException("maxReply " + maxReply);
        }
    }

    /** A call from an encoder: its stream and DDP items; no Write chunks; replies up to {@code maxReply}. */
    public static RpcRdmaCall of(XdrEncoder message, int maxReply) {
        return new RpcRdmaCall(message.toByteArray(), message.ddpItems(), List.of(), maxReply);
    }

    public RpcRdmaCall withWriteChunks(List<Integer> capacities) {
        return new RpcRdmaCall(message, ddpItems, capacities, maxReply);
    }

    /** The XID: the message's first word. */
    public int xid() {
        return (message[0] & 0xFF) << 24 | (message[1] & 0xFF) << 16 | (message[2] & 0xFF) << 8 | message[3] & 0xFF;
    }
}
