package rnic.rpcrdma;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import rnic.transport.Transport;
import rnic.verbs.Access;
import rnic.verbs.Completion;
import rnic.verbs.CompletionOpcode;
import rnic.verbs.CompletionQueue;
import rnic.verbs.CompletionStatus;
import rnic.verbs.Device;
import rnic.verbs.DmaBuffer;
import rnic.verbs.MemoryRegion;
import rnic.verbs.ProtectionDomain;
import rnic.verbs.QueueFullException;
import rnic.verbs.QueuePair;
import rnic.verbs.RecvRequest;
import rnic.verbs.WorkRequest;

/**
 * What both ends of an RPC-over-RDMA connection do with the verbs: receive buffers of the inline threshold (posted
 * at construction, so before the connection exists and before any credit is granted, RPCRDMA-05), registered send
 * buffers, and one pump that takes completions off both CQs — received messages are copied out and their buffer is
 * posted again at once, send-side completions are kept by work request id until asked for.
 */
abstract class Endpoint implements AutoCloseable {
    /** A received message, copied out of its receive buffer. */
    record Received(byte[] data, int invalidatedStag, boolean hasInvalidatedStag, long cycle) {
    }

    final QueuePair qp;
    final Device dev;
    final ProtectionDomain pd;
    final Transport transport;
    final RpcRdmaConfig config;
    private final CompletionQueue scq;
    private final CompletionQueue rcq;
    private final int recvSize;
    private final int recvCount;
    private final DmaBuffer recvBuf;
    private final MemoryRegion recvMr;
    private final int sendSize;
    private final DmaBuffer sendBuf;
    private final MemoryRegion sendMr;
    private final boolean[] sendBusy;
    private final Map<Long, Integer> sendSlotOf = new HashMap<>();
    private final Completion[] out = Completion.array(16);
    final ArrayDeque<Received> inbox = new ArrayDeque<>();
    private final Map<Long, Completion> done = new HashMap<>();
    private long nextWrId = 1;
    private boolean broken;
    private String brokenWhy = "";
    private long sends;
    private int maxSend;

    Endpoint(QueuePair qp, RpcRdmaConfig config, int recvSize, int recvCount, int sendSize, int sendCount) {
        if (qp == null || config == null) {
            throw new IllegalArgumentException("queue pair and config are needed");
        }
        if (qp.recvQueueDepth() < recvCount) {
            throw new IllegalArgumentException("the queue pair's receive queue (" + qp.recvQueueDepth()
                    + ") cannot hold the " + recvCount + " receive buffers of " + config.credits() + " credits");
        }
        this.qp = qp;
        this.config = config;
        this.pd = qp.protectionDomain();
        this.dev = pd.device();
        this.transport = dev.transport();
        this.scq = qp.sendCompletionQueue();
        this.rcq = qp.recvCompletionQueue();
        this.recvSize = recvSize;
        this.recvCount = recvCount;
        this.recvBuf = dev.allocate(recvSize * recvCount);
        this.recvMr = pd.registerMemory(recvBuf, EnumSet.of(Access.LOCAL_WRITE));
        this.sendSize = sendSize;
        this.sendBuf = dev.allocate(sendSize * sendCount);
        this.sendMr = pd.registerMemory(sendBuf, EnumSet.of(Access.LOCAL_WRITE));
        this.sendBusy = new boolean[sendCount];
        List<RecvRequest> rrs = new ArrayList<>();
        for (int i = 0; i < recvCount; i++) {
            rrs.add(RecvRequest.of(recvMr.sge((long) i * recvSize, recvSize)).withId(i));
        }
        qp.postRecv(rrs);
    }

    /** The big-endian 32-bit word at octet {@code i} of {@code b}. */
    static int word(byte[] b, int i) {
        return (b[i] & 0xFF) << 24 | (b[i + 1] & 0xFF) << 16 | (b[i + 2] & 0xFF) << 8 | b[i + 3] & 0xFF;
    }

    /** Receive buffers this end keeps posted. */
    int receiveBuffers() {
        return recvCount;
    }

    long sends() {
        return sends;
    }

    /** The longest Send this end posted, in octets (never over its inline threshold, RPCRDMA-08). */
    public int maxSendOctets() {
        return maxSend;
    }

    boolean broken() {
        return broken;
    }

    String brokenWhy() {
        return brokenWhy;
    }

    void markBroken(String why) {
        if (!broken) {
            broken = true;
            brokenWhy = why;
        }
    }

    long newWrId() {
        return nextWrId++;
    }

    /** Takes every ready completion off both CQs; returns whether there was any. */
    boolean pump() {
        boolean any = false;
        int n = rcq.poll(out);
        for (int i = 0; i < n; i++) {
            any = true;
            Completion c = out[i];
            if (c.status() != CompletionStatus.SUCCESS || c.isQpError()) {
                if (c.status() != CompletionStatus.FLUSH_ERROR || !broken) {
                    markBroken("receive " + c);
                }
                continue;
            }
            int slot = (int) c.wrId();
            long at = (long) slot * recvSize;
            byte[] data = recvBuf.get(at, (int) c.byteLength());
            inbox.add(new Received(data, c.invalidatedStag(), c.hasInvalidatedStag(), dev.cycles()));
            // the buffer goes back at once: the receive resources behind the credits stay posted (RPCRDMA-05)
            qp.postRecv(RecvRequest.of(recvMr.sge(at, recvSize)).withId(slot));
        }
        n = scq.poll(out);
        for (int i = 0; i < n; i++) {
            any = true;
            Completion c = out[i];
            if (c.isQpError() || c.opcode() == CompletionOpcode.QP_ERROR) {
                markBroken("queue pair error " + c);
                continue;
            }
            Integer slot = sendSlotOf.remove(c.wrId());
            if (slot != null) {
                sendBusy[slot] = false;
            }
            if (c.status() != CompletionStatus.SUCCESS && c.status() != CompletionStatus.FLUSH_ERROR) {
                markBroken(c.opcode() + " " + c.status());
            }
            done.put(c.wrId(), c.copy());
        }
        return any;
    }

    /** Pumps once and lets the device run if nothing happened. */
    void step() {
        if (!pump()) {
            transport.advance();
        }
    }

    /** The completion of work request {@code id}, once it arrived (removed from the store). */
    Completion completion(long id) {
        return done.remove(id);
    }

    /** Waits for the completion of {@code id}; null after {@code deadline} (device ns) or when the QP broke. */
    Completion await(long id, long deadline) {
        while (true) {
            Completion c = done.remove(id);
            if (c != null) {
                return c;
            }
            if (broken || dev.nanoTime() > deadline) {
                return null;
            }
            step();
        }
    }

    long deadline() {
        return dev.nanoTime() + config.operationTimeout().toNanos();
    }

    /** Posts {@code wr} (with a fresh id, signaled), waiting while the send queue is full. */
    long post(WorkRequest wr) {
        long id = newWrId();
        WorkRequest w = wr.withId(id);
        long end = deadline();
        while (true) {
            try {
                qp.postSend(w);
                return id;
            } catch (QueueFullException e) {
                if (dev.nanoTime() > end) {
                    throw e;
                }
                step();
            }
        }
    }

    /**
     * Sends {@code header} followed by {@code payload} as one Send (with Invalidate of {@code invalidate} when it is
     * not 0) from a registered send buffer; returns the work request id.
     */
    long send(byte[] header, byte[] payload, int payloadOff, int payloadLen, int invalidate) {
        int n = header.length + payloadLen;
        if (n > sendSize) {
            throw new IllegalStateException("a Send of " + n + " octets is over the inline threshold " + sendSize);
        }
        int slot = freeSendSlot();
        long at = (long) slot * sendSize;
        sendBuf.put(at, header);
        if (payloadLen > 0) {
            sendBuf.put(at + header.length, payload, payloadOff, payloadLen);
        }
        WorkRequest wr = invalidate != 0 ? WorkRequest.sendWithInvalidate(sendMr.sge(at, n), invalidate)
                : WorkRequest.send(sendMr.sge(at, n));
        sendBusy[slot] = true;
        maxSend = Math.max(maxSend, n);
        long id = post(wr);
        sendSlotOf.put(id, slot);
        sends++;
        return id;
    }

    private int freeSendSlot() {
        long end = deadline();
        while (true) {
            for (int i = 0; i < sendBusy.length; i++) {
                if (!sendBusy[i]) {
                    return i;
                }
            }
            if (broken || dev.nanoTime() > end) {
                throw new RpcRdmaException(RpcRdmaException.Reason.CONNECTION, 0, "no send buffer came back: "
                        + brokenWhy);
            }
            step();
        }
    }

    @Override
    public void close() {
        recvMr.close();
        sendMr.close();
    }
}
