package rnic.rpcrdma;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import rnic.verbs.Access;
import rnic.verbs.Completion;
import rnic.verbs.CompletionStatus;
import rnic.verbs.DmaBuffer;
import rnic.verbs.MemoryRegion;
import rnic.verbs.QueuePair;
import rnic.verbs.WorkRequest;
import rnic.xdr.DdpItem;
import rnic.xdr.Xdr;
import rnic.xdr.XdrDecoder;

/**
 * The requester (client) end of an RPC-over-RDMA v1 connection (RFC 8166) on a connected {@link QueuePair}.
 *
 * <p>Create it on a queue pair in INIT, before connecting: its receive buffers (one per credit it requests, each of
 * the reply inline threshold) are posted first, so every reply it may get has a buffer (RPCRDMA-05). Then:
 * <pre>{@code
 * RpcRdmaRequester rq = RpcRdmaRequester.open(qp, RpcRdmaConfig.defaults());
 * ... connect qp ...
 * RpcRdmaRequester.Call c = rq.start(RpcRdmaCall.of(message, 4096));
 * RpcRdmaReply r = rq.await(c, Duration.ofMillis(2));
 * }</pre>
 *
 * <p>How a call travels: inline as RDMA_MSG when header plus message fit the call threshold (RPCRDMA-07/08); else its
 * DDP-eligible items go in Read chunks at their XDR positions, without their padding (RPCRDMA-14/15); if it still does
 * not fit, the whole message goes in a Position-Zero Read chunk as RDMA_NOMSG (a Long Call, RPCRDMA-20). Write chunks
 * are offered as the call asks; a Reply chunk whenever the largest reply does not fit the reply threshold
 * (RPCRDMA-19). Every chunk is a fresh region bound to the connection (RPCRDMA-31), registered for the call only.
 *
 * <p>Credits: at most min(requested, granted) calls are in flight, one until the first reply told the grant
 * (RPCRDMA-05/06); further calls wait in a queue and go out as replies come back. A grant of 0 counts as 1.
 *
 * <p>Replies: the header is checked as RFC 8166 §4.5 says a requester must — short, bad or deprecated messages,
 * unknown XIDs and replies with a Read list are discarded silently (RPCRDMA-24/30/36, {@link #discarded()}); an
 * RDMA_ERROR ends its call with {@link RpcRdmaException} (RPCRDMA-24/25/26); Write and Reply chunks must come back
 * with their segment counts and within their lengths (RPCRDMA-16). Before a reply is handed over, every region of
 * the call is fenced: the one the responder's Send with Invalidate named is already invalid, the others get a Local
 * Invalidate (RPCRDMA-31); if that fails the connection is closed (RPCRDMA-29).
 *
 * <p>Backchannel (RFC 8167, RPCRDMA-32; see {@link Backchannel}): after {@link #serveBackchannel}, a CALL from the
 * responder (told by its msg_type, whatever its XID) goes to the registered handler and is answered inline with the
 * backchannel grant; one with chunks gets ERR_CHUNK; without a backchannel offered it is discarded.
 */
public final class RpcRdmaRequester extends Endpoint {
    /** A call's state at the requester. */
    public enum State {
        QUEUED, SENT, DONE, FAILED, CANCELLED
    }

    /** A call in progress. */
    public final class Call {
        private final int xid;
        private final RpcRdmaCall call;
        private final byte[] raw;
        private State state = State.QUEUED;
        private final List<MemoryRegion> regions = new ArrayList<>();
        private final List<DmaBuffer> buffers = new ArrayList<>();
        private final List<WriteChunk> offeredWrites = new ArrayList<>();
        private final List<MemoryRegion> writeRegions = new ArrayList<>();
        private WriteChunk offeredReply;
        private MemoryRegion replyRegion;
        private RpcRdmaHeader sentHeader;
        private RpcRdmaReply reply;
        private RpcRdmaException error;
        private final long startCycle;
        private long sentCycle;
        private long doneCycle;
        private String shape = "";

        private Call(int xid, RpcRdmaCall call, byte[] raw) {
            this.xid = xid;
            this.call = call;
            this.raw = raw;
            this.startCycle = dev.cycles();
        }

        public int xid() {
            return xid;
        }

        public State state() {
            return state;
        }

        public boolean isDone() {
            return state == State.DONE || state == State.FAILED;
        }

        /** The transport header this side sent (null while queued). */
        public RpcRdmaHeader sentHeader() {
            return sentHeader;
        }

        /** How the call travelled: "inline", "read chunks", "PZRC", plus the chunks offered for the reply. */
        public String shape() {
            return shape;
        }

        /** Cycles from {@link #start} to the reply (0 while pending). */
        public long cycles() {
            return doneCycle == 0 ? 0 : doneCycle - startCycle;
        }

        /** Cycles the call waited for a credit. */
        public long queuedCycles() {
            return sentCycle - startCycle;
        }
    }

    private final Map<Integer, Call> pending = new LinkedHashMap<>();
    private final ArrayDeque<Call> queue = new ArrayDeque<>();
    private final List<String> discarded = new ArrayList<>();
    private int granted = 1;
    private boolean sawReply;
    private int inFlight;
    private int maxInFlight;
    private long localInvalidates;
    private long remoteInvalidates;
    private RpcRdmaResponder.Handler backchannel;
    private final List<String> backchannelLog = new ArrayList<>();

    private RpcRdmaRequester(QueuePair qp, RpcRdmaConfig config) {
        // the backchannel's receive buffers are posted with the forward ones, before any grant (RPCRDMA-32)
        super(qp, config, config.replyThreshold(), config.credits() + config.backchannelCredits(),
                config.callThreshold(), config.credits() + 1);
    }

    /**
     * Offers the backchannel (RFC 8167, RPCRDMA-32): from now on backchannel CALLs from the responder are dispatched
     * to {@code handler} (an {@link rnic.oncrpc.RpcServer}) and answered inline, granting
     * {@link RpcRdmaConfig#backchannelCredits()}. The receive buffers were posted at open; the upper layer tells the
     * server afterwards (see {@link Backchannel}).
     *
     * @throws IllegalStateException when the configuration has no backchannel credits (no buffers were posted)
     */
    public RpcRdmaRequester serveBackchannel(RpcRdmaResponder.Handler handler) {
        if (handler == null) {
            throw new IllegalArgumentException("a backchannel needs a handler");
        }
        if (config.backchannelCredits() == 0) {
            throw new IllegalStateException("no receive buffers were posted for backchannel calls: open the requester"
                    + " with RpcRdmaConfig.withBackchannelCredits(n > 0) (RPCRDMA-32)");
        }
        backchannel = handler;
        return this;
    }

    /** One line per backchannel call received: its xid and what this side answered. */
    public List<String> backchannelLog() {
        return List.copyOf(backchannelLog);
    }

    /** Posts the receive buffers on {@code qp} (INIT or later, before connecting) and returns the requester. */
    public static RpcRdmaRequester open(QueuePair qp, RpcRdmaConfig config) {
        return new RpcRdmaRequester(qp, config);
    }

    /** The last credit value a valid reply granted (1 before the first reply, RPCRDMA-06). */
    public int granted() {
        return granted;
    }

    /** Calls sent whose reply has not arrived. */
    public int inFlight() {
        return inFlight;
    }

    /** The most calls ever in flight at once. */
    public int maxInFlight() {
        return maxInFlight;
    }

    /** Calls waiting for a credit. */
    public int queued() {
        return queue.size();
    }

    /** How many calls may be in flight now: min(requested, granted) (RPCRDMA-05). */
    public int creditLimit() {
        return Math.min(config.credits(), granted);
    }

    /** Why each silently discarded message was discarded, in arrival order. */
    public List<String> discarded() {
        return List.copyOf(discarded);
    }

    public long localInvalidates() {
        return localInvalidates;
    }

    public long remoteInvalidates() {
        return remoteInvalidates;
    }

    /** Whether the connection failed (an RDMA operation, a fence that could not be done). */
    public boolean isBroken() {
        return broken();
    }

    /**
     * Starts a call: sent at once if a credit is free, else queued until one is (RPCRDMA-05, RPCRDMA-06).
     *
     * @throws IllegalArgumentException for a call this configuration cannot carry (see {@link #check}); nothing is
     *                                  registered or sent then
     */
    public Call start(RpcRdmaCall call) {
        check(call, config);
        return enqueue(new Call(call.xid(), call, null));
    }

    /**
     * Refuses, before anything is registered, a call that cannot travel under {@code config}: DDP items outside the
     * message, overlapping or out of order, an item, a Write chunk, the largest reply or the whole message (a Long
     * Call) over {@link RpcRdmaConfig#maxChunk()}.
     */
    static void check(RpcRdmaCall call, RpcRdmaConfig config) {
        int end = 0;
        for (DdpItem d : call.ddpItems()) {
            if (d.position() < end + 4 || d.position() + d.paddedLength() > call.message().length) {
                throw new IllegalArgumentException(d + " is not inside the message after its count word and the"
                        + " previous item");
            }
            if (d.length() > config.maxChunk()) {
                throw new IllegalArgumentException(d + " is over maxChunk " + config.maxChunk());
            }
            end = d.position() + d.paddedLength();
        }
        long offered = 0;
        for (int w : call.writeChunks()) {
            if (w > config.maxChunk()) {
                throw new IllegalArgumentException("a Write chunk of " + w + " octets is over maxChunk "
                        + config.maxChunk());
            }
            offered += w;
        }
        if (Xdr.roundUp((int) Math.max(0, call.maxReply() - offered)) > config.maxChunk()) {
            throw new IllegalArgumentException("replies of up to " + call.maxReply() + " octets would need a Reply"
                    + " chunk over maxChunk " + config.maxChunk());
        }
        long reduced = call.message().length;
        for (DdpItem d : call.ddpItems()) {
            reduced -= d.length() == 0 ? 0 : d.paddedLength();
        }
        // a call that stays over the threshold once reduced travels whole in a Position-Zero Read chunk
        if (call.message().length > config.maxChunk() && reduced + RpcRdmaHeader.MIN_LENGTH > config.callThreshold()) {
            throw new IllegalArgumentException("a call of " + call.message().length + " octets may need a"
                    + " Position-Zero Read chunk over maxChunk " + config.maxChunk());
        }
    }

    /**
     * Sends {@code message} octet for octet as one Send, taking a credit like a call; whatever comes back for
     * {@code xid} completes the returned call unchecked: its {@link RpcRdmaReply#message()} is the received message
     * octet for octet (header included) and its header is null. For testing responders
     * with headers this requester would never build.
     */
    public Call sendRaw(int xid, byte[] message) {
        if (message.length > config.callThreshold()) {
            throw new IllegalArgumentException("raw message over the call inline threshold (RPCRDMA-08)");
        }
        return enqueue(new Call(xid, null, message.clone()));
    }

    private Call enqueue(Call c) {
        if (broken()) {
            throw new RpcRdmaException(RpcRdmaException.Reason.CONNECTION, c.xid, brokenWhy());
        }
        if (pending.containsKey(c.xid)) {
            throw new IllegalArgumentException(String.format("xid 0x%08x is already in flight", c.xid));
        }
        pending.put(c.xid, c);
        queue.add(c);
        sendQueued();
        return c;
    }

    private void sendQueued() {
        while (!queue.isEmpty() && inFlight < creditLimit() && !broken()) {
            Call c = queue.poll();
            try {
                transmit(c);
            } catch (RuntimeException e) {
                fail(c, new RpcRdmaException(RpcRdmaException.Reason.CONNECTION, c.xid, e.toString()));
                continue;
            }
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
        }
    }

    /** Pumps completions, handles replies, sends queued calls; returns whether anything happened. */
    public boolean progress() {
        boolean any = pump();
        // only what had arrived: fencing a call pumps in more, and a peer that keeps sending (backchannel calls
        // included) must not keep this loop from returning to the caller's wait
        for (int n = inbox.size(); n > 0 && !inbox.isEmpty(); n--) {
            any = true;
            onMessage(inbox.poll());
        }
        if (broken()) {
            for (Call c : List.copyOf(pending.values())) {
                if (!c.isDone() && c.state != State.CANCELLED) {
                    fail(c, new RpcRdmaException(RpcRdmaException.Reason.CONNECTION, c.xid, brokenWhy()));
                }
            }
        }
        sendQueued();
        return any;
    }

    /**
     * Waits for the reply of {@code c}. On timeout the call is cancelled: its regions are fenced at once
     * (RPCRDMA-31), a late reply is discarded but still returns its credit.
     *
     * @throws RpcRdmaException for an RDMA_ERROR, a reply that broke the chunk rules, a failed connection, a timeout
     */
    public RpcRdmaReply await(Call c, Duration timeout) {
        long end = dev.nanoTime() + timeout.toNanos();
        while (!c.isDone()) {
            if (dev.nanoTime() > end) {
                cancel(c);
                throw new RpcRdmaException(RpcRdmaException.Reason.TIMEOUT, c.xid, "no reply in " + timeout);
            }
            if (!progress()) {
                transport.advance();
            }
        }
        if (c.error != null) {
            throw c.error;
        }
        return c.reply;
    }

    private void cancel(Call c) {
        if (c.state == State.QUEUED) {
            queue.remove(c);
            pending.remove(c.xid);
        }
        c.state = State.CANCELLED;
        fence(c, 0);
    }

    // ---- sending ---------------------------------------------------------------------------------------------------

    private MemoryRegion region(Call c, int size, boolean remoteRead) {
        DmaBuffer b = dev.allocate(Math.max(4, size));
        c.buffers.add(b);
        MemoryRegion mr = pd.registerMemory(b, 0, Math.max(4, size),
                remoteRead ? EnumSet.of(Access.REMOTE_READ) : EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE),
                qp);
        c.regions.add(mr);
        return mr;
    }

    private List<RdmaSegment> segments(MemoryRegion mr, int length) {
        List<RdmaSegment> s = new ArrayList<>();
        int off = 0;
        do {
            int n = Math.min(config.segmentSize(), length - off);
            s.add(new RdmaSegment(mr.rkey(), n, mr.address() + off));
            off += n;
        } while (off < length);
        return s;
    }

    private void transmit(Call c) {
        c.sentCycle = dev.cycles();
        c.state = State.SENT;
        if (c.raw != null) {
            c.shape = "raw";
            send(c.raw, new byte[0], 0, 0, 0);
            return;
        }
        byte[] msg = c.call.message();
        for (int cap : c.call.writeChunks()) {
            if (cap == 0) {
                c.offeredWrites.add(new WriteChunk(List.of()));
                c.writeRegions.add(null);
                continue;
            }
            if (cap > config.maxChunk()) {
                throw new IllegalArgumentException("write chunk of " + cap + " over maxChunk " + config.maxChunk());
            }
            MemoryRegion mr = region(c, cap, false);
            c.offeredWrites.add(new WriteChunk(segments(mr, cap)));
            c.writeRegions.add(mr);
        }
        // a Reply chunk whenever the largest reply with its header would not fit the reply threshold (RPCRDMA-19)
        RpcRdmaHeader probe = RpcRdmaHeader.msg(c.xid, config.credits(), List.of(), c.offeredWrites,
                WriteChunk.of(new RdmaSegment(0, 0, 0)));
        // the largest reply as it travels: DDP-eligible results offered a Write chunk leave it (RPCRDMA-19)
        long offeredBytes = 0;
        for (int cap : c.call.writeChunks()) {
            offeredBytes += cap;
        }
        int replyRoom = Xdr.roundUp((int) Math.max(0, c.call.maxReply() - offeredBytes));
        if (probe.encodedLength() + replyRoom > config.replyThreshold()) {
            if (replyRoom > config.maxChunk()) {
                throw new IllegalArgumentException("replies up to " + replyRoom + " octets need a Reply chunk over"
                        + " maxChunk " + config.maxChunk());
            }
            c.replyRegion = region(c, replyRoom, false);
            c.offeredReply = new WriteChunk(segments(c.replyRegion, replyRoom));
        }
        RpcRdmaHeader inline = RpcRdmaHeader.msg(c.xid, config.credits(), List.of(), c.offeredWrites, c.offeredReply);
        String reply = (c.offeredWrites.isEmpty() ? "" : " + " + c.offeredWrites.size() + " write chunk(s)")
                + (c.offeredReply == null ? "" : " + reply chunk");
        if (inline.encodedLength() + msg.length <= config.callThreshold()) {
            c.shape = "inline" + reply;
            c.sentHeader = inline;
            send(inline.encode(), msg, 0, msg.length, 0);
            return;
        }
        // reduce: the DDP-eligible items leave the stream with their padding (RPCRDMA-15), one Read chunk each
        List<ReadSegment> reads = new ArrayList<>();
        byte[] reduced = new byte[msg.length];
        int rl = 0;
        int cursor = 0;
        for (DdpItem d : c.call.ddpItems()) {
            if (d.length() == 0) {
                continue;
            }
            System.arraycopy(msg, cursor, reduced, rl, d.position() - cursor);
            rl += d.position() - cursor;
            cursor = d.position() + d.paddedLength();
            if (d.length() > config.maxChunk()) {
                throw new IllegalArgumentException("item of " + d.length() + " over maxChunk " + config.maxChunk());
            }
            MemoryRegion mr = region(c, d.length(), true);
            mr.buffer().put(0, msg, d.position(), d.length());
            for (RdmaSegment s : segments(mr, d.length())) {
                reads.add(new ReadSegment(d.position(), s));
            }
        }
        System.arraycopy(msg, cursor, reduced, rl, msg.length - cursor);
        rl += msg.length - cursor;
        RpcRdmaHeader h = RpcRdmaHeader.msg(c.xid, config.credits(), reads, c.offeredWrites, c.offeredReply);
        if (!reads.isEmpty() && h.encodedLength() + rl <= config.callThreshold()) {
            c.shape = "read chunk(s) x" + h.readChunks().size() + reply;
            c.sentHeader = h;
            send(h.encode(), reduced, 0, rl, 0);
            return;
        }
        // a Long Call: the whole message in a Position-Zero Read chunk, RDMA_NOMSG (RPCRDMA-20). The regions made
        // for the Read chunks above are not named anywhere: drop them now.
        for (ReadSegment r : reads) {
            dropRegion(c, r.target().handle());
        }
        if (msg.length > config.maxChunk()) {
            throw new IllegalArgumentException("call of " + msg.length + " octets over maxChunk " + config.maxChunk());
        }
        MemoryRegion mr = region(c, msg.length, true);
        mr.buffer().put(0, msg);
        List<ReadSegment> pz = new ArrayList<>();
        for (RdmaSegment s : segments(mr, msg.length)) {
            pz.add(new ReadSegment(0, s));
        }
        RpcRdmaHeader n = RpcRdmaHeader.nomsg(c.xid, config.credits(), pz, c.offeredWrites, c.offeredReply);
        if (n.encodedLength() > config.callThreshold()) {
            throw new IllegalArgumentException("even the chunk lists of this call exceed the call threshold");
        }
        c.shape = "PZRC" + reply;
        c.sentHeader = n;
        send(n.encode(), new byte[0], 0, 0, 0);
    }

    private void dropRegion(Call c, int handle) {
        for (int i = 0; i < c.regions.size(); i++) {
            MemoryRegion mr = c.regions.get(i);
            if (mr.rkey() == handle) {
                c.regions.remove(i);
                mr.close();
                return;
            }
        }
    }

    // ---- receiving -------------------------------------------------------------------------------------------------

    private void discard(String why) {
        discarded.add(why);
    }

    private void onMessage(Received m) {
        byte[] b = m.data();
        RpcRdmaHeader.Decoded decoded = null;
        HeaderException undecodable = null;
        try {
            decoded = RpcRdmaHeader.decode(b, 0, b.length);
        } catch (HeaderException e) {
            undecodable = e;
        }
        if (decoded != null && Backchannel.direction(decoded.header(), b, decoded.payloadOffset())
                == Backchannel.Direction.CALL) {
            backchannelCall(decoded.header(), b, decoded.payloadOffset());
            return;
        }
        Call raw = b.length >= 4 ? pending.get(word(b, 0)) : null;
        if (raw != null && raw.raw != null && raw.state == State.SENT) {
            // a raw call takes whatever comes back for its xid, octet for octet, unchecked
            inFlight--;
            raw.doneCycle = dev.cycles();
            raw.reply = new RpcRdmaReply(null, b, List.of(), false, m.hasInvalidatedStag(), 0);
            complete(raw);
            return;
        }
        if (undecodable != null) {
            HeaderException e = undecodable;
            // ERR_VERS echoes the failing vers (RPCRDMA-24, trap T-47): accept it whatever its rdma_vers
            if (e.kind() == HeaderException.Kind.VERSION && b.length >= 28 && word(b, 12) == 4
                    && word(b, 16) == RpcRdmaHeader.ERR_VERS) {
                Call c = pending.get(e.xid());
                if (c != null) {
                    replied(c, m);
                    fail(c, new RpcRdmaException(RpcRdmaException.Reason.ERR_VERS, c.xid, String.format(
                            "the responder supports versions %d … %d", word(b, 20), word(b, 24))));
                    return;
                }
            }
            discard("undecodable: " + e.getMessage());
            return;
        }
        RpcRdmaHeader h = decoded.header();
        int payloadAt = decoded.payloadOffset();
        Proc p = h.procedure();
        Call c = pending.get(h.xid());
        if (p == Proc.RDMA_MSGP || p == Proc.RDMA_DONE) {
            discard(p + " (RPCRDMA-30)");
            return;
        }
        if (c == null || c.state == State.QUEUED) {
            discard(String.format("reply for unknown xid 0x%08x", h.xid()));
            return;
        }
        if (p == Proc.RDMA_ERROR) {
            replied(c, m);
            fail(c, new RpcRdmaException(h.err() == RpcRdmaHeader.ERR_VERS ? RpcRdmaException.Reason.ERR_VERS
                    : RpcRdmaException.Reason.ERR_CHUNK, c.xid, "RDMA_ERROR from the responder"));
            return;
        }
        if (!h.readList().isEmpty()) {
            discard("reply with a Read list (RPCRDMA-36)");
            return;
        }
        if (p == Proc.RDMA_MSG && (b.length - payloadAt < 4 || word(b, payloadAt) != h.xid())) {
            discard("RDMA_MSG reply whose RPC XID differs from rdma_xid (RPCRDMA-03)");
            return;
        }
        if (c.state == State.CANCELLED) {
            replied(c, m);
            pending.remove(c.xid);
            discard(String.format("late reply for cancelled xid 0x%08x", c.xid));
            return;
        }
        replied(c, m);
        try {
            List<XdrDecoder.Chunk> chunks = returnedWrites(c, h);
            byte[] message;
            boolean viaReply = false;
            if (p == Proc.RDMA_NOMSG) {
                if (h.replyChunk() == null || c.offeredReply == null) {
                    throw bad(c, "RDMA_NOMSG reply without the Reply chunk");
                }
                int n = (int) checkReturned(c, c.offeredReply, h.replyChunk(), "Reply chunk");
                message = c.replyRegion.buffer().get(0, n);
                viaReply = true;
                if (n < 4 || word(message, 0) != c.xid) {
                    throw bad(c, "the Reply chunk does not start with the call's XID");
                }
            } else {
                message = java.util.Arrays.copyOfRange(b, payloadAt, b.length);
            }
            int li = fence(c, m.hasInvalidatedStag() ? m.invalidatedStag() : 0);
            c.reply = new RpcRdmaReply(h, message, chunks, viaReply, m.hasInvalidatedStag(), li);
            complete(c);
        } catch (RpcRdmaException e) {
            fence(c, m.hasInvalidatedStag() ? m.invalidatedStag() : 0);
            fail(c, e);
        }
    }

    /**
     * A CALL arriving here is a backchannel call (RFC 8167: the direction comes from msg_type; its XID belongs to the
     * other direction's space and is never looked up among this side's calls).
     * Its credit value is the responder's request; the forward grant is not touched.
     */
    private void backchannelCall(RpcRdmaHeader h, byte[] b, int payloadAt) {
        if (backchannel == null) {
            // RPCRDMA-32: no backchannel was offered, so the peer must not call; nothing to answer it with
            discard(String.format("backchannel call xid 0x%08x while no backchannel was offered (RPCRDMA-32)",
                    h.xid()));
            return;
        }
        if (h.hasChunks()) {
            backchannelErrChunk(h.xid(), "chunks in the backchannel (RFC 8167)");
            return;
        }
        if (word(b, payloadAt) != h.xid()) {
            backchannelErrChunk(h.xid(), "the RPC XID differs (RPCRDMA-03)");
            return;
        }
        byte[] message = java.util.Arrays.copyOfRange(b, payloadAt, b.length);
        RpcRdmaResponder.Outcome o = backchannel.handle(new RpcRdmaResponder.IncomingCall(h.xid(), message,
                List.of(), h));
        byte[] reply = o.reply() == null ? null : o.reply().toByteArray();
        RpcRdmaHeader out = Backchannel.header(h.xid(), config.backchannelCredits());
        if (o.errChunk() != null || reply.length + out.encodedLength() > config.callThreshold()) {
            // an inline-only backchannel has no Reply chunk for a long reply
            backchannelErrChunk(h.xid(), o.errChunk() != null ? o.errChunk()
                    : "a reply of " + reply.length + " octets would need a Reply chunk");
            return;
        }
        backchannelSend(out.encode(), reply);
        backchannelLog.add(String.format("xid 0x%08x replied", h.xid()));
    }

    /** RDMA_ERROR ERR_CHUNK for backchannel call {@code xid}, granting the backchannel credits. */
    private void backchannelErrChunk(int xid, String why) {
        backchannelSend(RpcRdmaHeader.errChunk(xid, RpcRdmaHeader.VERSION, config.backchannelCredits()).encode(),
                new byte[0]);
        backchannelLog.add(String.format("xid 0x%08x ERR_CHUNK: %s", xid, why));
    }

    /** A backchannel reply or error; a Send that cannot be posted breaks the connection instead of the caller. */
    private void backchannelSend(byte[] header, byte[] payload) {
        try {
            send(header, payload, 0, payload.length, 0);
        } catch (RuntimeException e) {
            markBroken("a backchannel reply could not be sent: " + e.getMessage());
        }
    }

    /** A valid reply arrived for {@code c}: it frees a credit and tells the grant (RPCRDMA-05). */
    private void replied(Call c, Received m) {
        RpcRdmaHeader h = null;
        try {
            h = RpcRdmaHeader.decode(m.data(), 0, m.data().length).header();
        } catch (HeaderException e) {
            // an ERR_VERS with another vers: its credit word is at the same place
        }
        int credit = h != null ? h.credit() : word(m.data(), 8);
        // a grant of 0 is a protocol error the requester survives: count it as 1 (RPCRDMA-05)
        granted = credit <= 0 ? 1 : credit;
        if (credit == 0) {
            discard(String.format("xid 0x%08x granted 0 credits: taken as 1 (RPCRDMA-05)", c.xid));
        }
        sawReply = true;
        inFlight--;
        c.doneCycle = dev.cycles();
    }

    private RpcRdmaException bad(Call c, String why) {
        return new RpcRdmaException(RpcRdmaException.Reason.BAD_REPLY, c.xid, why);
    }

    private long checkReturned(Call c, WriteChunk offered, WriteChunk got, String what) {
        if (got.segments().size() != offered.segments().size()) {
            throw bad(c, what + " came back with " + got.segments().size() + " segments, " + offered.segments().size()
                    + " offered (RPCRDMA-16)");
        }
        long total = 0;
        boolean ended = false;
        for (int i = 0; i < got.segments().size(); i++) {
            RdmaSegment o = offered.segments().get(i);
            RdmaSegment g = got.segments().get(i);
            if (g.handle() != o.handle() || g.offset() != o.offset() || g.length() > o.length()) {
                throw bad(c, what + " segment " + i + " " + g + " does not match the offered " + o);
            }
            if (ended && g.length() > 0) {
                throw bad(c, what + " filled out of array order (RPCRDMA-16)");
            }
            ended = g.length() < o.length();
            total += g.length();
        }
        return total;
    }

    private List<XdrDecoder.Chunk> returnedWrites(Call c, RpcRdmaHeader h) {
        if (h.writeList().size() != c.offeredWrites.size()) {
            throw bad(c, "Write list of " + h.writeList().size() + " chunks, " + c.offeredWrites.size() + " offered");
        }
        List<XdrDecoder.Chunk> out = new ArrayList<>();
        for (int i = 0; i < h.writeList().size(); i++) {
            WriteChunk offered = c.offeredWrites.get(i);
            long n = checkReturned(c, offered, h.writeList().get(i), "Write chunk " + i);
            if (offered.isEmpty()) {
                out.add(new XdrDecoder.Chunk(null, false));
            } else if (n == 0) {
                out.add(new XdrDecoder.Chunk(null, true));
            } else {
                out.add(new XdrDecoder.Chunk(c.writeRegions.get(i).buffer().get(0, (int) n), true));
            }
        }
        return out;
    }

    /**
     * Fences every region of {@code c} (RPCRDMA-31): {@code remote} (0: none) was invalidated by the responder's Send
     * with Invalidate; the others get a Local Invalidate, waited for. Returns how many were posted. A fence that fails
     * closes the connection (RPCRDMA-29).
     */
    private int fence(Call c, int remote) {
        int posted = 0;
        boolean remoteOurs = remote == 0;
        List<Long> ids = new ArrayList<>();
        for (MemoryRegion mr : c.regions) {
            if (remote != 0 && mr.rkey() == remote) {
                remoteOurs = true;
                remoteInvalidates++;
                continue;
            }
            if (!broken() && mr.isValid()) {
                ids.add(post(WorkRequest.localInvalidate(mr.lkey())));
                posted++;
                localInvalidates++;
            }
        }
        long end = deadline();
        for (long id : ids) {
            Completion done = await(id, end);
            if (done == null || done.status() != CompletionStatus.SUCCESS) {
                markBroken("a Local Invalidate did not complete: the connection is closed to fence the memory"
                        + " (RPCRDMA-29)");
            }
        }
        if (!remoteOurs) {
            markBroken(String.format("the responder invalidated 0x%08x, not a handle of xid 0x%08x", remote, c.xid));
        }
        if (broken() && qp.state() != rnic.wire.QpState.ERR) {
            // RPCRDMA-29: memory that cannot be fenced is fenced by closing the connection
            try {
                qp.modify(rnic.wire.QpState.ERR);
            } catch (RuntimeException e) {
                markBroken("could not move the queue pair to ERR: " + e);
            }
        }
        for (MemoryRegion mr : c.regions) {
            mr.close();
        }
        for (DmaBuffer b : c.buffers) {
            b.close();
        }
        c.regions.clear();
        c.buffers.clear();
        return posted;
    }

    private void complete(Call c) {
        c.state = State.DONE;
        pending.remove(c.xid);
        if (c.raw != null) {
            fence(c, 0);
        }
    }

    private void fail(Call c, RpcRdmaException e) {
        if (c.state == State.SENT && !pending.containsKey(c.xid)) {
            return;
        }
        c.error = e;
        if (c.state != State.CANCELLED) {
            c.state = State.FAILED;
        }
        if (c.doneCycle == 0) {
            c.doneCycle = dev.cycles();
        }
        pending.remove(c.xid);
        if (!c.regions.isEmpty()) {
            fence(c, 0);
        }
    }

    /** Whether a valid reply has told the real grant yet (RPCRDMA-06). */
    public boolean sawReply() {
        return sawReply;
    }
}
