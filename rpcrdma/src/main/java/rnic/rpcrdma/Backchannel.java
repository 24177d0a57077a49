package rnic.rpcrdma;

import java.util.List;

/**
 * The rules of the backchannel (bidirectional RPC-over-RDMA, RFC 8167, RPCRDMA-32) both ends share: how a receiver
 * tells the direction of a message, what a backchannel header looks like, and which backchannel calls this
 * implementation can carry.
 *
 * <p>How it works here: the responder (server) sends backchannel CALLs to the requester (client) on the same
 * connection; the requester answers them. Each direction has its own XIDs (a backchannel XID may equal a forward one
 * in flight; the receiver tells them apart by msg_type, not by XID) and its own credits: the requester grants
 * {@link RpcRdmaConfig#backchannelCredits()} in its backchannel replies and posted that many extra receive buffers at
 * open; the responder asks for its own {@code backchannelCredits} in its backchannel calls, posted that many extra
 * receive buffers at open for their replies, and keeps at most min(asked, granted) backchannel calls in flight, one
 * until the first backchannel reply told the grant. The forward credit values are not touched by backchannel
 * messages.
 *
 * <p>Inline only: every backchannel call and reply is RDMA_MSG with three empty chunk lists. A call that would need a
 * chunk is refused before it is sent ({@link #check}); a backchannel call that arrives with chunks is answered with
 * RDMA_ERROR ERR_CHUNK, which RFC 8167 asks of a receiver that does not support chunks in the backchannel.
 *
 * <p>Support is announced by the upper layer, as RFC 8167 leaves it to the upper layer binding (NFSv4.1 does it with
 * CREATE_SESSION / BIND_CONN_TO_SESSION): the client calls {@link RpcRdmaRequester#serveBackchannel} (its receive
 * buffers are already posted) and then tells the server in a forward RPC of its protocol; the server's procedure for
 * that RPC calls {@link RpcRdmaResponder#peerSupportsBackchannel()}. Before that, the responder refuses to start a
 * backchannel call, and a requester that offered no backchannel discards a CALL it receives.
 */
public final class Backchannel {
    private Backchannel() {
    }

    /** The direction of a received message, as its msg_type (or, without one, its chunks) tells it. */
    public enum Direction {
        /** An RPC Call: forward at a responder, a backchannel call at a requester. */
        CALL,
        /** An RPC Reply: forward at a requester, a backchannel reply at a responder. */
        REPLY,
        /** Not told by the message (RDMA_ERROR, RDMA_DONE, RDMA_MSGP, RDMA_NOMSG without a Position-Zero chunk). */
        UNKNOWN
    }

    /** msg_type CALL and REPLY (RFC 5531 §9), the word after the XID of an RPC message. */
    static final int MSG_CALL = 0;
    static final int MSG_REPLY = 1;

    /**
     * The direction of a decoded message whose Payload stream starts at {@code payloadAt} of {@code message}: for
     * RDMA_MSG its msg_type (RFC 8167: a CALL arriving at the requester is a backchannel call, a REPLY arriving at
     * the responder is a backchannel reply); RDMA_NOMSG with a Position-Zero Read chunk is a call (only calls travel
     * there, RFC 8166 §3.5.3); everything else is {@link Direction#UNKNOWN} and is left to the receiver's forward
     * rules, and a backchannel receiver ignores its credit value.
     */
    public static Direction direction(RpcRdmaHeader h, byte[] message, int payloadAt) {
        Proc p = h.procedure();
        if (p == Proc.RDMA_MSG) {
            if (message.length - payloadAt < 8) {
                return Direction.UNKNOWN;
            }
            int type = Endpoint.word(message, payloadAt + 4);
            return type == MSG_CALL ? Direction.CALL : type == MSG_REPLY ? Direction.REPLY : Direction.UNKNOWN;
        }
        if (p == Proc.RDMA_NOMSG && h.readChunks().containsKey(0)) {
            return Direction.CALL;
        }
        return Direction.UNKNOWN;
    }

    /**
     * The header of a backchannel call or reply: RDMA_MSG, vers 1, the message's XID (RPCRDMA-32), three empty lists;
     * {@code credit} is what the backchannel requester asks for or what the backchannel responder grants.
     */
    public static RpcRdmaHeader header(int xid, int credit) {
        return RpcRdmaHeader.msg(xid, credit, List.of(), List.of(), null);
    }

    /**
     * Refuses a backchannel call this inline-only backchannel cannot carry: Write chunks asked for, a call that with
     * its header exceeds the reply inline threshold (the responder sends it with a send buffer and the requester
     * receives it in a receive buffer of that size), or a largest reply that with its header exceeds the call inline
     * threshold (the way back).
     *
     * @throws IllegalArgumentException naming what would need a chunk
     */
    public static void check(RpcRdmaCall call, RpcRdmaConfig config) {
        if (!call.writeChunks().isEmpty()) {
            throw new IllegalArgumentException("a backchannel call with Write chunks: this backchannel is inline only"
                    + " (RPCRDMA-32)");
        }
        int n = RpcRdmaHeader.MIN_LENGTH + call.message().length;
        if (n > config.replyThreshold()) {
            throw new IllegalArgumentException("a backchannel call of " + call.message().length + " octets ("
                    + n + " with its header) would need a Read chunk: over the inline threshold "
                    + config.replyThreshold() + " and this backchannel is inline only (RPCRDMA-32)");
        }
        if (RpcRdmaHeader.MIN_LENGTH + call.maxReply() > config.callThreshold()) {
            throw new IllegalArgumentException("backchannel replies of up to " + call.maxReply() + " octets would"
                    + " need a Reply chunk: over the inline threshold " + config.callThreshold() + " and this"
                    + " backchannel is inline only (RPCRDMA-32)");
        }
    }
}
