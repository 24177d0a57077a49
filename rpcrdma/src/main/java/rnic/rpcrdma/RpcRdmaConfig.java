package rnic.rpcrdma;

import java.time.Duration;

/**
 * Settings of one RPC-over-RDMA connection end.
 *
 * @param callThreshold       the call inline threshold: the largest Send a requester sends and a responder receives
 *                            (RPCRDMA-07: 1024 by default, both sides assume it, never advertised, never changed)
 * @param replyThreshold      the reply inline threshold (RFC 8166 keeps call and reply apart, RPCRDMA-07)
 * @param credits             requester: the credit value it requests; responder: the credits it grants and the
 *                            receive buffers it posts before granting them (RPCRDMA-05)
 * @param maxChunk            the largest chunk (octets) either side moves by RDMA for one call or reply
 * @param segmentSize         the largest segment a requester puts in a chunk: longer chunks get several segments
 * @param remoteInvalidation  responder: reply with Send with Invalidate naming one of the call's handles (the
 *                            requester binds every chunk region to the connection, which is what allows it, RDMAP-26)
 * @param operationTimeout    how long a responder waits for its own RDMA Reads, Writes and Sends to complete
 * @param backchannelCredits  the backchannel (RFC 8167, RPCRDMA-32), counted apart from {@code credits}: requester
 *                            (client): the backchannel calls it grants and the extra receive buffers it posts for
 *                            them at open; responder (server): the backchannel calls it asks for and the extra
 *                            receive buffers it posts at open for their replies. 0 (the default): no backchannel
 */
public record RpcRdmaConfig(int callThreshold, int replyThreshold, int credits, int maxChunk, int segmentSize,
        boolean remoteInvalidation, Duration operationTimeout, int backchannelCredits) {

    /** RPCRDMA-07: without a discovery mechanism both ends assume 1024 octets. */
    public static final int DEFAULT_INLINE_THRESHOLD = 1024;

    public RpcRdmaConfig {
        if (callThreshold < RpcRdmaHeader.MIN_LENGTH + 28 || replyThreshold < RpcRdmaHeader.MIN_LENGTH + 28) {
            throw new IllegalArgumentException("inline thresholds under 56 octets cannot carry a header and an RPC"
                    + " message: " + callThreshold + "/" + replyThreshold);
        }
        if (callThreshold > 4096 || replyThreshold > 4096) {
            throw new IllegalArgumentException("inline thresholds over 4096 octets are not supported");
        }
        if (credits < 1 || credits > 64) {
            throw new IllegalArgumentException("credits are 1 … 64, got " + credits);
        }
        if (maxChunk < 4 || segmentSize < 1) {
            throw new IllegalArgumentException("maxChunk " + maxChunk + ", segmentSize " + segmentSize);
        }
        if (operationTimeout == null || operationTimeout.isNegative() || operationTimeout.isZero()) {
            throw new IllegalArgumentException("operation timeout must be positive");
        }
        if (backchannelCredits < 0 || backchannelCredits > 64) {
            throw new IllegalArgumentException("backchannel credits are 0 … 64, got " + backchannelCredits);
        }
    }

    /** Without a backchannel. */
    public RpcRdmaConfig(int callThreshold, int replyThreshold, int credits, int maxChunk, int segmentSize,
            boolean remoteInvalidation, Duration operationTimeout) {
        this(callThreshold, replyThreshold, credits, maxChunk, segmentSize, remoteInvalidation, operationTimeout, 0);
    }

    /** 1024/1024, 8 credits, 64 KiB chunks in one segment, remote invalidation on, 4 ms per operation. */
    public static RpcRdmaConfig defaults() {
        return new RpcRdmaConfig(DEFAULT_INLINE_THRESHOLD, DEFAULT_INLINE_THRESHOLD, 8, 64 * 1024, 64 * 1024, true,
                Duration.ofMillis(4));
    }

    public RpcRdmaConfig withThresholds(int call, int reply) {
        return new RpcRdmaConfig(call, reply, credits, maxChunk, segmentSize, remoteInvalidation, operationTimeout,
                backchannelCredits);
    }

    public RpcRdmaConfig withCredits(int n) {
        return new RpcRdmaConfig(callThreshold, replyThreshold, n, maxChunk, segmentSize, remoteInvalidation,
                operationTimeout, backchannelCredits);
    }

    public RpcRdmaConfig withMaxChunk(int n) {
        return new RpcRdmaConfig(callThreshold, replyThreshold, credits, n, segmentSize, remoteInvalidation,
                operationTimeout, backchannelCredits);
    }

    public RpcRdmaConfig withSegmentSize(int n) {
        return new RpcRdmaConfig(callThreshold, replyThreshold, credits, maxChunk, n, remoteInvalidation,
                operationTimeout, backchannelCredits);
    }

    public RpcRdmaConfig withRemoteInvalidation(boolean on) {
        return new RpcRdmaConfig(callThreshold, replyThreshold, credits, maxChunk, segmentSize, on,
                operationTimeout, backchannelCredits);
    }

    public RpcRdmaConfig withOperationTimeout(Duration d) {
        return new RpcRdmaConfig(callThreshold, replyThreshold, credits, maxChunk, segmentSize, remoteInvalidation,
                d, backchannelCredits);
    }

    /** The backchannel's credits (RPCRDMA-32): its receive buffers are posted at open, apart from the forward ones. */
    public RpcRdmaConfig withBackchannelCredits(int n) {
        return new RpcRdmaConfig(callThreshold, replyThreshold, credits, maxChunk, segmentSize, remoteInvalidation,
                operationTimeout, n);
    }
}
