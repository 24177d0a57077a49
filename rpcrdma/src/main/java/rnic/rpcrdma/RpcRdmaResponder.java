package rnic.rpcrdma;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import rnic.verbs.Access;
import rnic.verbs.Completion;
import rnic.verbs.CompletionStatus;
import rnic.verbs.DmaBuffer;
import rnic.verbs.MemoryRegion;
import rnic.verbs.QueuePair;
import rnic.verbs.RemoteBuffer;
import rnic.verbs.WorkRequest;
import rnic.xdr.DdpItem;
import rnic.xdr.Xdr;
import rnic.xdr.XdrEncoder;

/**
 * The responder (server) end of an RPC-over-RDMA v1 connection (RFC 8166) on a {@link QueuePair}.
 *
 * <p>Create it on the queue pair before accepting: it posts one receive buffer of the call inline threshold per
 * credit it grants, so the grant is backed before any reply carries it (RPCRDMA-05). It handles one call at a time:
 * <ol>
 *   <li>the header is checked as RFC 8166 §4.5 says (docs/requirements.md §5.4): under 28 octets → discarded;
 *       rdma_vers ≠ 1 → RDMA_ERROR ERR_VERS 1…1 echoing xid and vers (RPCRDMA-25); an undefined proc, a list that
 *       does not decode, RDMA_NOMSG without a Position-Zero Read chunk, an XID that differs from the RPC message's,
 *       a Position that is not a multiple of 4 or not where a DDP-eligible item is, a count that is not the chunk's
 *       length → RDMA_ERROR ERR_CHUNK (RPCRDMA-03/11/14/21/23/26); RDMA_MSGP → ERR_CHUNK, RDMA_DONE and RDMA_ERROR
 *       → discarded (RPCRDMA-24/30);</li>
 *   <li>Read chunks are pulled with RDMA Reads (at most ORD outstanding) and put back at their positions with the
 *       XDR round-up (RPCRDMA-14/15); a Position-Zero Read chunk is the whole call (RPCRDMA-20);</li>
 *   <li>the {@link Handler} (the RPC server) answers;</li>
 *   <li>each DDP-eligible result goes by RDMA Write into the next Write chunk, without padding; an empty chunk keeps
 *       it inline; unused chunks come back with every length 0 (RPCRDMA-16/17/18); the reply goes inline as
 *       RDMA_MSG if it fits the reply threshold, else by RDMA Write into the Reply chunk as RDMA_NOMSG (RPCRDMA-19/20);
 *       the Read list of a reply is always empty (RPCRDMA-36);</li>
 *   <li>the reply Send carries Send with Invalidate for one of the call's handles when remote invalidation is on.</li>
 * </ol>
 * An RDMA Read or Write that fails breaks the connection (RPCRDMA-28); the XID is remembered
 * ({@link #failedXids()}).
 *
 * <p>Backchannel (RFC 8167, RPCRDMA-32; see {@link Backchannel}): once the upper layer said the requester takes them
 * ({@link #peerSupportsBackchannel()}), {@link #startBackchannel} sends inline CALLs to the requester under their own
 * XIDs and credits; a REPLY arriving here (told by its msg_type) is matched among those calls only.
 */
public final class RpcRdmaResponder extends Endpoint {
    /** A call as the upper layer sees it: the rebuilt (unreduced) RPC message. */
    public record IncomingCall(int xid, byte[] message, List<Integer> readChunkPositions, RpcRdmaHeader header) {
    }

    /** What the upper layer answers: a reply message (with its DDP-eligible items marked), or ERR_CHUNK. */
    public record Outcome(XdrEncoder reply, String errChunk) {
        public static Outcome reply(XdrEncoder reply) {
            return new Outcome(reply, null);
        }

        /** The call broke the transport's rules the upper layer can see (a non-eligible item in a Read chunk). */
        public static Outcome errChunk(String why) {
            return new Outcome(null, why);
        }
    }

    /** The upper layer: an RPC server. */
    @FunctionalInterface
    public interface Handler {
        Outcome handle(IncomingCall call);
    }

    /** What the responder did for one received message. */
    public record Served(int xid, String outcome, int reads, long readBytes, int writes, long writeBytes,
            boolean sendWithInvalidate, String replyShape, long cycles) {
    }

    private final DmaBuffer readStage;
    private final MemoryRegion readStageMr;
    private final DmaBuffer writeStage;
    private final MemoryRegion writeStageMr;
    private final List<Served> served = new ArrayList<>();
    private final List<Integer> failedXids = new ArrayList<>();

    /**
     * A backchannel call this responder made to the requester (RPCRDMA-32). Its XID is of the backchannel's own
     * space: it may equal the XID of a forward call in flight.
     */
    public final class BackchannelCall {
        private final int xid;
        private final RpcRdmaCall call;
        private boolean sent;
        private boolean cancelled;
        private RpcRdmaReply reply;
        private RpcRdmaException error;

        private BackchannelCall(RpcRdmaCall call) {
            this.xid = call.xid();
            this.call = call;
        }

        public int xid() {
            return xid;
        }

        /** Whether its reply (or an error) arrived. */
        public boolean isDone() {
            return reply != null || error != null;
        }

        /** Whether it left (false while it waits for a backchannel credit). */
        public boolean isSent() {
            return sent;
        }
    }

    private boolean peerBackchannel;
    private final Map<Integer, BackchannelCall> bcPending = new java.util.LinkedHashMap<>();
    private final java.util.ArrayDeque<BackchannelCall> bcQueue = new java.util.ArrayDeque<>();
    private int bcGranted = 1;
    private boolean bcSawReply;
    private int bcInFlight;
    private int bcMaxInFlight;

    private RpcRdmaResponder(QueuePair qp, RpcRdmaConfig config) {
        // the receive buffers for backchannel replies are posted with the forward ones, before any backchannel
        // call asks for a grant (RPCRDMA-32)
        super(qp, config, config.callThreshold(), config.credits() + config.backchannelCredits(),
                config.replyThreshold(), config.credits() + 1);
        readStage = dev.allocate(config.maxChunk());
        readStageMr = pd.registerMemory(readStage, 0, config.maxChunk(),
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE), qp);
        writeStage = dev.allocate(config.maxChunk());
        writeStageMr = pd.registerMemory(writeStage, EnumSet.of(Access.LOCAL_WRITE));
    }

    /** Posts the receive buffers behind the grant on {@code qp} (before accepting) and returns the responder. */
    public static RpcRdmaResponder open(QueuePair qp, RpcRdmaConfig config) {
        return new RpcRdmaResponder(qp, config);
    }

    /** The credit value every reply grants: the receive buffers posted (RPCRDMA-05). */
    public int grant() {
        return config.credits();
    }

    public List<Served> served() {
        return List.copyOf(served);
    }

    /** XIDs whose RDMA operations failed (RPCRDMA-28). */
    public List<Integer> failedXids() {
        return List.copyOf(failedXids);
    }

    public boolean isBroken() {
        return broken();
    }

    /** Handles every message that has arrived (forward calls, backchannel replies); returns whether there was one. */
    public boolean serveOnce(Handler handler) {
        pump();
        boolean any = false;
        // only what had arrived: serving a call pumps in more, and a peer that keeps calling must not keep this
        // loop (and a caller waiting for a backchannel reply) from returning
        for (int n = inbox.size(); n > 0 && !inbox.isEmpty() && !broken(); n--) {
            any = true;
            onMessage(inbox.poll(), handler);
        }
        sendBackchannelQueued();
        if (broken()) {
            for (BackchannelCall c : List.copyOf(bcPending.values())) {
                bcFail(c, new RpcRdmaException(RpcRdmaException.Reason.CONNECTION, c.xid, brokenWhy()));
            }
        }
        return any;
    }

    // ---- the backchannel (RFC 8167, RPCRDMA-32) ----------------------------------------------------------------

    /**
     * The upper layer learned that the requester supports backchannel calls (see {@link Backchannel}): from now on
     * {@link #startBackchannel} may send them.
     *
     * @throws IllegalStateException when this responder posted no receive buffers for backchannel replies
     */
    public void peerSupportsBackchannel() {
        if (config.backchannelCredits() == 0) {
            throw new IllegalStateException("no receive buffers were posted for backchannel replies: open the"
                    + " responder with RpcRdmaConfig.withBackchannelCredits(n > 0) (RPCRDMA-32)");
        }
        peerBackchannel = true;
    }

    /** Whether the peer said it takes backchannel calls. */
    public boolean backchannelSupported() {
        return peerBackchannel;
    }

    /**
     * Starts a backchannel call to the requester: sent inline at once if a backchannel credit is free, else queued
     * until a backchannel reply frees one. The call's XID is its message's first word (the caller's own XID space).
     *
     * @throws IllegalStateException    before the peer said it supports the backchannel (RPCRDMA-32)
     * @throws IllegalArgumentException for a call that would need a chunk ({@link Backchannel#check}) or an XID
     *                                  already in flight in the backchannel
     */
    public BackchannelCall startBackchannel(RpcRdmaCall call) {
        if (!peerBackchannel) {
            throw new IllegalStateException("the requester has not said it supports backchannel calls: no call may"
                    + " be sent before that (RPCRDMA-32)");
        }
        Backchannel.check(call, config);
        if (broken()) {
            throw new RpcRdmaException(RpcRdmaException.Reason.CONNECTION, call.xid(), brokenWhy());
        }
        if (bcPending.containsKey(call.xid())) {
            throw new IllegalArgumentException(String.format("backchannel xid 0x%08x is already in flight",
                    call.xid()));
        }
        BackchannelCall c = new BackchannelCall(call);
        bcPending.put(c.xid, c);
        bcQueue.add(c);
        sendBackchannelQueued();
        return c;
    }

    /**
     * Waits for the reply of backchannel call {@code c}, serving forward calls with {@code handler} meanwhile.
     *
     * @throws RpcRdmaException RDMA_ERROR from the requester, a reply with chunks (none were offered), a failed
     *                          connection, or no reply in {@code timeout}
     */
    public RpcRdmaReply awaitBackchannel(BackchannelCall c, Handler handler, Duration timeout) {
        long end = dev.nanoTime() + timeout.toNanos();
        while (!c.isDone()) {
            if (dev.nanoTime() > end) {
                if (c.sent) {
                    // it keeps its credit until its late reply comes back and is dropped
                    c.cancelled = true;
                } else {
                    bcQueue.remove(c);
                    bcPending.remove(c.xid);
                }
                throw new RpcRdmaException(RpcRdmaException.Reason.TIMEOUT, c.xid, "no backchannel reply in "
                        + timeout);
            }
            if (!serveOnce(handler)) {
                transport.advance();
            }
        }
        if (c.error != null) {
            throw c.error;
        }
        return c.reply;
    }

    /** The last backchannel credit value a backchannel reply granted (1 before the first one). */
    public int backchannelGranted() {
        return bcGranted;
    }

    /** Whether a backchannel reply has told the grant yet. */
    public boolean backchannelSawReply() {
        return bcSawReply;
    }

    /** How many backchannel calls may be in flight now: min(asked, granted). */
    public int backchannelLimit() {
        return Math.min(config.backchannelCredits(), bcGranted);
    }

    public int backchannelInFlight() {
        return bcInFlight;
    }

    public int backchannelMaxInFlight() {
        return bcMaxInFlight;
    }

    public int backchannelQueued() {
        return bcQueue.size();
    }

    private void sendBackchannelQueued() {
        while (!bcQueue.isEmpty() && bcInFlight < backchannelLimit() && !broken()) {
            BackchannelCall c = bcQueue.poll();
            byte[] m = c.call.message();
            // the credit word asks for this side's backchannel buffers, apart from the forward grant (RPCRDMA-32)
            try {
                send(Backchannel.header(c.xid, config.backchannelCredits()).encode(), m, 0, m.length, 0);
            } catch (RuntimeException e) {
                // no send buffer came back: the call ends here, the forward service goes on as far as it can
                bcFail(c, new RpcRdmaException(RpcRdmaException.Reason.CONNECTION, c.xid, e.getMessage()));
                continue;
            }
            c.sent = true;
            bcInFlight++;
            bcMaxInFlight = Math.max(bcMaxInFlight, bcInFlight);
        }
    }

    private void bcFail(BackchannelCall c, RpcRdmaException e) {
        c.error = e;
        bcPending.remove(c.xid);
        bcQueue.remove(c);
    }

    /** A REPLY arrived: a backchannel reply (RFC 8167); matched among backchannel calls only. */
    private void backchannelReply(Work w, RpcRdmaHeader h, byte[] b, int payloadAt) {
        BackchannelCall c = bcPending.get(h.xid());
        if (c == null || !c.sent) {
            // a reply's XID is looked up among backchannel calls only: a forward call's XID means nothing here
            w.record(String.format("discarded: backchannel reply for unknown xid 0x%08x", h.xid()), "");
            return;
        }
        if (word(b, payloadAt) != h.xid()) {
            w.record("discarded: backchannel reply whose RPC XID differs from rdma_xid (RPCRDMA-32)", "");
            return;
        }
        bcInFlight--;
        bcSawReply = true;
        // a grant of 0 is taken as 1, as in the forward direction (RPCRDMA-05)
        bcGranted = Math.max(1, h.credit());
        bcPending.remove(c.xid);
        if (c.cancelled) {
            w.record(String.format("discarded: late backchannel reply for cancelled xid 0x%08x", c.xid), "");
            return;
        }
        if (h.hasChunks()) {
            c.error = new RpcRdmaException(RpcRdmaException.Reason.BAD_REPLY, c.xid, "a backchannel reply with chunks,"
                    + " none were offered (RPCRDMA-32)");
            w.record("backchannel reply with chunks", "");
            return;
        }
        c.reply = new RpcRdmaReply(h, java.util.Arrays.copyOfRange(b, payloadAt, b.length), List.of(), false, false, 0);
        w.record("backchannel reply", "RDMA_MSG inline");
        sendBackchannelQueued();
    }

    /** An RDMA_ERROR for a backchannel call ends it; its credit is ignored (no msg_type tells its direction). */
    private void backchannelError(Work w, RpcRdmaHeader h) {
        BackchannelCall c = bcPending.get(h.xid());
        bcInFlight--;
        bcFail(c, new RpcRdmaException(h.err() == RpcRdmaHeader.ERR_VERS ? RpcRdmaException.Reason.ERR_VERS
                : RpcRdmaException.Reason.ERR_CHUNK, c.xid, "RDMA_ERROR from the requester for a backchannel call"));
        w.record("backchannel RDMA_ERROR", "");
    }

    /** Serves until {@code stop} says so or the connection breaks. */
    public void serve(Handler handler, BooleanSupplier stop) {
        while (!stop.getAsBoolean() && !broken()) {
            if (!serveOnce(handler)) {
                transport.advance();
            }
        }
    }

    /** The next received message as octets, unhandled (for tests that play a misbehaving responder). */
    public byte[] receiveRaw(Duration timeout) {
        long end = dev.nanoTime() + timeout.toNanos();
        while (inbox.isEmpty()) {
            if (dev.nanoTime() > end || broken()) {
                return null;
            }
            step();
        }
        return inbox.poll().data();
    }

    /** Sends {@code message} octet for octet and waits for its completion (tests of requesters). */
    public void sendRaw(byte[] message) {
        sendRaw(message, 0);
    }

    /** {@link #sendRaw(byte[])} as a Send with Invalidate of {@code stag} (0: a plain Send). */
    public void sendRaw(byte[] message, int stag) {
        awaitSend(send(message, new byte[0], 0, 0, stag));
    }

    private void awaitSend(long id) {
        Completion c = await(id, deadline());
        if (c == null || c.status() != CompletionStatus.SUCCESS) {
            markBroken("the reply Send did not complete (RPCRDMA-29: the connection is closed)");
        }
    }

    // ---- one message ---------------------------------------------------------------------------------------------

    private final class Work {
        final long t0 = dev.cycles();
        int xid;
        int reads;
        long readBytes;
        int writes;
        long writeBytes;
        boolean inv;

        void record(String outcome, String shape) {
            served.add(new Served(xid, outcome, reads, readBytes, writes, writeBytes, inv, shape, dev.cycles() - t0));
        }
    }

    private void onMessage(Received m, Handler handler) {
        byte[] b = m.data();
        Work w = new Work();
        RpcRdmaHeader h;
        int payloadAt;
        try {
            RpcRdmaHeader.Decoded d = RpcRdmaHeader.decode(b, 0, b.length);
            h = d.header();
            payloadAt = d.payloadOffset();
        } catch (HeaderException e) {
            w.xid = e.xid();
            switch (e.kind()) {
                case SHORT -> w.record("discarded: " + e.getMessage(), "");
                case VERSION -> error(w, RpcRdmaHeader.errVers(e.xid(), e.vers(), grant()), e.getMessage());
                default -> error(w, RpcRdmaHeader.errChunk(e.xid(), e.vers(), grant()), e.getMessage());
            }
            return;
        }
        w.xid = h.xid();
        if (Backchannel.direction(h, b, payloadAt) == Backchannel.Direction.REPLY) {
            backchannelReply(w, h, b, payloadAt);
            return;
        }
        BackchannelCall bc = bcPending.get(h.xid());
        if (h.procedure() == Proc.RDMA_ERROR && bc != null && bc.sent) {
            backchannelError(w, h);
            return;
        }
        switch (h.procedure()) {
            case RDMA_ERROR -> w.record("discarded: a responder discards RDMA_ERROR (RPCRDMA-24)", "");
            case RDMA_DONE -> w.record("discarded: RDMA_DONE (RPCRDMA-30)", "");
            case RDMA_MSGP -> error(w, RpcRdmaHeader.errChunk(h.xid(), h.vers(), grant()), "RDMA_MSGP (RPCRDMA-30)");
            default -> call(w, h, b, payloadAt, handler);
        }
    }

    private void error(Work w, RpcRdmaHeader err, String why) {
        awaitSend(send(err.encode(), new byte[0], 0, 0, 0));
        w.record((err.err() == RpcRdmaHeader.ERR_VERS ? "ERR_VERS: " : "ERR_CHUNK: ") + why, "RDMA_ERROR");
    }

    private void call(Work w, RpcRdmaHeader h, byte[] b, int payloadAt, Handler handler) {
        Map<Integer, List<RdmaSegment>> chunks = h.readChunks();
        long total = 0;
        for (Map.Entry<Integer, List<RdmaSegment>> e : chunks.entrySet()) {
            if ((e.getKey() & 3) != 0) {
                error(w, RpcRdmaHeader.errChunk(h.xid(), h.vers(), grant()), "Read chunk Position "
                        + Integer.toUnsignedString(e.getKey()) + " is not a multiple of 4 (RPCRDMA-14)");
                return;
            }
            for (RdmaSegment s : e.getValue()) {
                total += s.length();
            }
        }
        boolean nomsg = h.procedure() == Proc.RDMA_NOMSG;
        if (nomsg && !chunks.containsKey(0)) {
            error(w, RpcRdmaHeader.errChunk(h.xid(), h.vers(), grant()), "RDMA_NOMSG call without a Position-Zero"
                    + " Read chunk (RPCRDMA-11)");
            return;
        }
        if (!nomsg && (b.length - payloadAt < 4 || word(b, payloadAt) != h.xid())) {
            error(w, RpcRdmaHeader.errChunk(h.xid(), h.vers(), grant()), "the RPC message's XID differs from"
                    + " rdma_xid (RPCRDMA-03)");
            return;
        }
        if (total > config.maxChunk()) {
            error(w, RpcRdmaHeader.errChunk(h.xid(), h.vers(), grant()), "Read chunks of " + total
                    + " octets over this responder's " + config.maxChunk());
            return;
        }
        // pull every Read chunk into the staging region, chunk after chunk
        List<byte[]> data = new ArrayList<>();
        if (!pull(w, chunks, data)) {
            failedXids.add(h.xid());
            w.record("connection failed during RDMA Read (RPCRDMA-28)", "");
            return;
        }
        byte[] payload;
        List<Integer> positions = new ArrayList<>(chunks.keySet());
        int k = 0;
        if (nomsg) {
            payload = data.get(positions.indexOf(0));
            if ((payload.length & 3) != 0 || payload.length < 4 || word(payload, 0) != h.xid()) {
                error(w, RpcRdmaHeader.errChunk(h.xid(), h.vers(), grant()), "the Position-Zero Read chunk is not a"
                        + " padded RPC message with the header's XID (RPCRDMA-20, RPCRDMA-03)");
                return;
            }
        } else {
            payload = java.util.Arrays.copyOfRange(b, payloadAt, b.length);
        }
        List<Integer> others = new ArrayList<>();
        List<byte[]> otherData = new ArrayList<>();
        for (int i = 0; i < positions.size(); i++) {
            if (positions.get(i) != 0 || !nomsg) {
                others.add(positions.get(i));
                otherData.add(data.get(i));
            }
        }
        byte[] rebuilt;
        try {
            rebuilt = rebuild(payload, others, otherData);
        } catch (IllegalArgumentException e) {
            error(w, RpcRdmaHeader.errChunk(h.xid(), h.vers(), grant()), e.getMessage());
            return;
        }
        Outcome o = handler.handle(new IncomingCall(h.xid(), rebuilt, List.copyOf(others), h));
        if (o.errChunk() != null) {
            error(w, RpcRdmaHeader.errChunk(h.xid(), h.vers(), grant()), o.errChunk());
            return;
        }
        reply(w, h, o.reply(), (nomsg ? "PZRC" : chunks.isEmpty() ? "inline" : "read chunk(s)"));
    }

    /**
     * The unreduced message: each Read chunk's data put back at its Position (RPCRDMA-14) after the count word the
     * payload kept for it, which must equal the chunk's length (RPCRDMA-21), followed by the XDR round-up unless the
     * requester included it (RPCRDMA-15).
     */
    static byte[] rebuild(byte[] payload, List<Integer> positions, List<byte[]> data) {
        XdrEncoder out = new XdrEncoder(payload.length + 64);
        int cursor = 0;
        int last = -1;
        for (int i = 0; i < positions.size(); i++) {
            int p = positions.get(i);
            byte[] d = data.get(i);
            if (p <= last) {
                throw new IllegalArgumentException("Read chunk Positions out of order or repeated (RPCRDMA-14)");
            }
            last = p;
            int take = p - out.length();
            if (p < 4 || take < 0 || cursor + take > payload.length) {
                throw new IllegalArgumentException("Read chunk Position " + p + " is outside the Payload stream");
            }
            out.opaqueFixed(java.util.Arrays.copyOfRange(payload, cursor, cursor + take));
            cursor += take;
            byte[] sofar = out.toByteArray();
            int count = word(sofar, sofar.length - 4);
            if (count == d.length) {
                out.opaqueFixed(d);
            } else if (d.length == Xdr.roundUp(count) && count >= 0) {
                out.opaqueFixed(java.util.Arrays.copyOf(d, count));
            } else {
                throw new IllegalArgumentException("the count word before Position " + p + " says " + count
                        + " octets, the Read chunk holds " + d.length + " (RPCRDMA-21)");
            }
        }
        out.opaqueFixed(java.util.Arrays.copyOfRange(payload, cursor, payload.length));
        return out.toByteArray();
    }

    private boolean pull(Work w, Map<Integer, List<RdmaSegment>> chunks, List<byte[]> data) {
        int at = 0;
        List<long[]> spans = new ArrayList<>();
        List<Long> outstanding = new ArrayList<>();
        int ord = Math.max(1, qp.ord());
        long end = deadline();
        for (List<RdmaSegment> segs : chunks.values()) {
            int start = at;
            for (RdmaSegment s : segs) {
                if (s.length() == 0) {
                    continue;
                }
                while (outstanding.size() >= ord) {
                    Completion c = await(outstanding.remove(0), end);
                    if (c == null || c.status() != CompletionStatus.SUCCESS) {
                        markBroken("RDMA Read failed: " + c);
                        return false;
                    }
                }
                outstanding.add(post(WorkRequest.rdmaRead(readStageMr.sge(at, s.length()),
                        new RemoteBuffer(s.handle(), s.offset()))));
                w.reads++;
                w.readBytes += s.length();
                at += s.length();
            }
            spans.add(new long[] {start, at - start});
        }
        for (long id : outstanding) {
            Completion c = await(id, end);
            if (c == null || c.status() != CompletionStatus.SUCCESS) {
                markBroken("RDMA Read failed: " + c);
                return false;
            }
        }
        for (long[] s : spans) {
            data.add(readStage.get(s[0], (int) s[1]));
        }
        return true;
    }

    private void reply(Work w, RpcRdmaHeader call, XdrEncoder enc, String callShape) {
        byte[] r = enc.toByteArray();
        List<WriteChunk> offered = call.writeList();
        List<WriteChunk> returned = new ArrayList<>();
        XdrEncoder reduced = new XdrEncoder(r.length);
        int cursor = 0;
        int stage = 0;
        int next = 0;
        List<long[]> writes = new ArrayList<>(); // stage offset, length, chunk index
        for (DdpItem d : enc.ddpItems()) {
            if (next >= offered.size()) {
                break;
            }
            WriteChunk wc = offered.get(next++);
            if (wc.isEmpty()) {
                returned.add(wc); // an empty chunk forces the result inline (RPCRDMA-18)
                continue;
            }
            if (d.length() > wc.length()) {
                error(w, RpcRdmaHeader.errChunk(call.xid(), call.vers(), grant()), "a result of " + d.length()
                        + " octets does not fit its Write chunk of " + wc.length());
                return;
            }
            // the item leaves the reply with its padding; no pad octet goes into the chunk (RPCRDMA-17)
            reduced.opaqueFixed(java.util.Arrays.copyOfRange(r, cursor, d.position()));
            cursor = d.position() + d.paddedLength();
            writeStage.put(stage, r, d.position(), d.length());
            writes.add(new long[] {stage, d.length(), returned.size()});
            returned.add(wc.filled(d.length()));
            stage += d.length();
        }
        while (returned.size() < offered.size()) {
            returned.add(offered.get(returned.size()).filled(0)); // unused: every length 0 (RPCRDMA-16)
        }
        reduced.opaqueFixed(java.util.Arrays.copyOfRange(r, cursor, r.length));
        byte[] msg = reduced.toByteArray();
        RpcRdmaHeader inline = RpcRdmaHeader.msg(call.xid(), grant(), List.of(), returned, null);
        boolean viaReply = inline.encodedLength() + msg.length > config.replyThreshold();
        RpcRdmaHeader out = inline;
        if (viaReply) {
            WriteChunk rc = call.replyChunk();
            if (rc == null || rc.length() < msg.length || stage + msg.length > config.maxChunk()) {
                error(w, RpcRdmaHeader.errChunk(call.xid(), call.vers(), grant()), "a reply of " + msg.length
                        + " octets needs a Reply chunk " + (rc == null ? "and the call had none" : "of that size"));
                return;
            }
            writeStage.put(stage, msg);
            writes.add(new long[] {stage, msg.length, -1});
            out = RpcRdmaHeader.nomsg(call.xid(), grant(), List.of(), returned, rc.filled(msg.length));
        }
        for (long[] x : writes) {
            WriteChunk target = x[2] < 0 ? call.replyChunk() : offered.get((int) x[2]);
            long src = x[0];
            long left = x[1];
            for (RdmaSegment s : target.segments()) {
                if (left == 0) {
                    break;
                }
                int n = (int) Math.min(left, s.length());
                post(WorkRequest.rdmaWrite(writeStageMr.sge(src, n), new RemoteBuffer(s.handle(), s.offset()))
                        .withSignaled(false));
                w.writes++;
                w.writeBytes += n;
                src += n;
                left -= n;
            }
        }
        int invalidate = config.remoteInvalidation() ? firstHandle(call) : 0;
        w.inv = invalidate != 0;
        // RDMAP orders the Send after the Writes: the data is placed before the reply arrives
        if (viaReply) {
            awaitSend(send(out.encode(), new byte[0], 0, 0, invalidate));
        } else {
            awaitSend(send(out.encode(), msg, 0, msg.length, invalidate));
        }
        if (broken()) {
            failedXids.add(call.xid());
        }
        w.record(broken() ? "connection failed (RPCRDMA-28)" : "replied", callShape + " -> "
                + (viaReply ? "RDMA_NOMSG, reply chunk" : "RDMA_MSG inline")
                + (w.writes > (viaReply ? 1 : 0) ? ", write chunk" : ""));
    }

    /** The handle a Send with Invalidate names: the call's first segment, Read list first. */
    private static int firstHandle(RpcRdmaHeader h) {
        for (ReadSegment r : h.readList()) {
            return r.target().handle();
        }
        for (WriteChunk w : h.writeList()) {
            for (RdmaSegment s : w.segments()) {
                return s.handle();
            }
        }
        if (h.replyChunk() != null) {
            for (RdmaSegment s : h.replyChunk().segments()) {
                return s.handle();
            }
        }
        return 0;
    }

    @Override
    public void close() {
        readStageMr.close();
        writeStageMr.close();
        super.close();
    }
}
