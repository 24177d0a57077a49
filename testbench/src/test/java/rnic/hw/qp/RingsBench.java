package rnic.hw.qp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;
import rnic.hw.rdmap.RdmapRxControl;
import rnic.hw.rdmap.RxEventKind;
import rnic.sim.Agent;
import rnic.sim.Axi4MemorySlave;
import rnic.sim.Fields;
import rnic.sim.HostMemory;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimSignal;
import rnic.sim.StreamSink;
import rnic.sim.StreamSource;
import rnic.sim.Tb;
import rnic.wire.Cqe;
import rnic.wire.CqeKind;
import rnic.wire.QpState;
import rnic.wire.RdmapOpcode;
import rnic.wire.RqWqe;
import rnic.wire.SqWqe;
import rnic.wire.WqeOpcode;

/**
 * A testbench around {@link QpRings} alone: host memory ({@link HostMemory} behind an {@link Axi4MemorySlave}), the
 * host's registers (driven here), the engine's side played by the bench (sinks on {@code requests}, {@code recv},
 * {@code stagInvalidate}; sources on {@code events}, {@code mpaErrors}; a driver of {@code stagInvalidateDone}), and
 * an independent model of the rings written from the issue-5 contract and the {@code rnic.wire} layouts:
 *
 * <ul>
 *   <li>the host posts elements into its rings in host memory (octets built here from {@link SqWqe}/{@link RqWqe}
 *       offsets) and rings the doorbell; every {@code WorkRequest}, receive post and invalidation the rings hand out
 *       is compared field by field with the next posted element of its QP (per-QP ring order);</li>
 *   <li>the bench's engine completes requests per QP in submission order after random delays (RDMAP-23) and consumes
 *       posted buffers with incoming Sends; every completion the rings accept adds the entry the model expects on a CQ,
 *       and the host polls its CQs by the owner phase bit and decodes each entry octet by octet ({@link Cqe});</li>
 *   <li>checked as they happen: fence and local-invalidate ordering (nothing fenced starts before every earlier
 *       request of its QP has completed; nothing starts while an invalidation is pending), the engine's receive queue
 *       never over-filled (credits), no CQE written over an entry the host has not released (cqCons), no work handed
 *       out for a QP after it went to ERR beyond the one already shown;</li>
 *   <li>at the end: every scoreboard empty, every posted element handed out, sqCons/rqCons/cqProd as the model
 *       says.</li>
 * </ul>
 */
final class RingsBench {
    /** A send queue element as the host writes it. */
    record Wqe(int opcode, int flags, int aop, long length, long localAddress, int localStag, int remoteStag,
            long localTo, long remoteTo, int invalidateStag, long data, long mask, long compareData,
            long compareMask) {
        byte[] bytes(Random fill) {
            ByteBuffer b = ByteBuffer.allocate(SqWqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
            // Reserved octets hold garbage: the rings must ignore them.
            for (int i = 0; i < SqWqe.SIZE; i++) {
                b.put(i, (byte) fill.nextInt(256));
            }
            b.put(SqWqe.OPCODE, (byte) opcode).put(SqWqe.FLAGS, (byte) flags).put(SqWqe.AOP, (byte) aop);
            b.putInt(SqWqe.LENGTH, (int) length).putLong(SqWqe.LOCAL_ADDRESS, localAddress);
            b.putInt(SqWqe.LOCAL_STAG, localStag).putInt(SqWqe.REMOTE_STAG, remoteStag);
            b.putLong(SqWqe.LOCAL_TO, localTo).putLong(SqWqe.REMOTE_TO, remoteTo);
            b.putInt(SqWqe.INVALIDATE_STAG, invalidateStag).putLong(SqWqe.DATA, data).putLong(SqWqe.MASK, mask);
            b.putLong(SqWqe.COMPARE_DATA, compareData).putLong(SqWqe.COMPARE_MASK, compareMask);
            return b.array();
        }

        boolean signaled() {
            return (flags & SqWqe.FLAG_SIGNALED) != 0;
        }

        boolean fence() {
            return (flags & SqWqe.FLAG_FENCE) != 0;
        }

        boolean known() {
            for (WqeOpcode o : WqeOpcode.values()) {
                if (o.code() == opcode) {
                    return true;
                }
            }
            return false;
        }

        boolean localInvalidate() {
            return opcode == WqeOpcode.LOCAL_INVALIDATE_CODE;
        }

        /** Random fields for {@code op} (any octet value for an unknown opcode). */
        static Wqe random(Random r, int opcode, boolean signaled, boolean fence) {
            int flags = (signaled ? SqWqe.FLAG_SIGNALED : 0) | (fence ? SqWqe.FLAG_FENCE : 0) | (r.nextInt(64) << 2);
            return new Wqe(opcode, flags, r.nextInt(256), r.nextInt() & 0xFFFFFFFFL, r.nextLong(), r.nextInt(),
                    r.nextInt(), r.nextLong(), r.nextLong(), r.nextInt(), r.nextLong(), r.nextLong(), r.nextLong(),
                    r.nextLong());
        }

        /** The engine's work request for this element at ring index {@code index} of QP {@code qp}. */
        Wr request(int qp, int index) {
            long wrId = (signaled() ? 1L << 31 : 0) | index;
            return new Wr(qp, opcode & 0xF, wrId, localAddress, length, localStag & 0xFFFFFFFFL, localTo,
                    remoteStag & 0xFFFFFFFFL, remoteTo, invalidateStag & 0xFFFFFFFFL, data, mask, compareData,
                    compareMask, aop & 0xF);
        }
    }

    /** A work request as the rings hand it to the engine. */
    record Wr(int qp, int opcode, long wrId, long localAddress, long length, long localStag, long localTo,
            long remoteStag, long remoteTo, long invalidateStag, long data, long mask, long compareData,
            long compareMask, int aop) {
    }

    /** A receive buffer as handed to the engine. */
    record Post(int qp, long address, long capacity, long wrId) {
    }

    /** An engine event. */
    record Event(int kind, int qp, long wrId, long length, long info, int cause, int opcode, long stag) {
    }

    /** An MPA error report. */
    record MpaError(int qp, int code, long seq) {
    }

    /** A QP error request of the rings. */
    record QpErr(int qp, int state, int kind, int status) {
    }

    /** A completion entry as decoded from host memory. */
    record Entry(int cq, long wrId, long length, long info, long stag, int qp, int kind, int status, int opcode) {
        @Override
        public String toString() {
            return String.format("CQ%d qp%d %s wrId %x len %d info %x stag %x status %x opcode %x", cq, qp,
                    kind <= 8 ? CqeKind.of(kind) : "kind" + kind, wrId, length, info, stag, status, opcode);
        }
    }

    /** A posted element and its ring index. */
    record Posted(int index, Wqe wqe, long address, long capacity) {
    }

    /** A request in the bench's engine, awaiting its completion. */
    record InEngine(Wr wr, long due, Event completion) {
    }

    /** Per-QP model. */
    final class Qp {
        final int n;
        long sqBase;
        long rqBase;
        int sqLog;
        int rqLog;
        int sqCq;
        int rqCq;
        QpState state = QpState.RESET;
        int sqProd;
        int rqProd;
        int sqCons;
        int rqCons;
        boolean dead;
        int afterDead;
        int stale;
        int staleRecv;
        /** Handed out and not yet completed (as far as the rings know). */
        int outstanding;
        /** Receive posts handed to the engine minus receive completions the rings took. */
        int postsOut;
        int incoming;
        /** Ring indices whose slot reads fail (SLVERR). */
        final java.util.Set<Integer> faultySq = new java.util.HashSet<>();
        final java.util.Set<Integer> faultyRq = new java.util.HashSet<>();
        final ArrayDeque<Posted> sq = new ArrayDeque<>();
        final ArrayDeque<Posted> rq = new ArrayDeque<>();
        final ArrayDeque<InEngine> inEngine = new ArrayDeque<>();
        final ArrayDeque<Post> hwRq = new ArrayDeque<>();
        final Scoreboard<Entry> sqEntries;
        final Scoreboard<Entry> rqEntries;
        long requests;
        long posts;
        /** Its requests stay in the bench's engine (a peer that does not answer) until this is cleared. */
        boolean held;

        Qp(int n) {
            this.n = n;
            sqEntries = tb.add(new Scoreboard<>("QP " + n + " send completions, seed " + tb.seed()));
            rqEntries = tb.add(new Scoreboard<>("QP " + n + " receive completions, seed " + tb.seed()));
        }

        boolean alive() {
            return !dead && state != QpState.RESET && state != QpState.ERR;
        }

        int sqSlot(long index) {
            return (int) (index & ((1L << Math.min(sqLog, 15)) - 1));
        }

        int rqSlot(long index) {
            return (int) (index & ((1L << Math.min(rqLog, 15)) - 1));
        }
    }

    /** Per-CQ model: the host's consumer side. */
    final class Cq {
        final int n;
        long base;
        int log;
        int cons;
        int published;
        boolean phase = true;
        boolean consume = true;
        long written;
        long read;
        /** Overflow marks seen (rising edges of cqOverflow); after the first, entries of this CQ may be missing. */
        int overflows;
        /** Expected entries of this CQ the core dropped (skipped or discarded by the scoreboards). */
        long dropped;
        boolean flagged;

        Cq(int n) {
            this.n = n;
        }

        int slots() {
            return 1 << log;
        }
    }

    final Tb<QpRings> tb;
    final QpRingsConfig cfg;
    final Random rnd;
    final HostMemory memory = new HostMemory();
    final Axi4MemorySlave slave;
    final List<Qp> qps = new ArrayList<>();
    final List<Cq> cqs = new ArrayList<>();
    final Scoreboard<QpErr> qpErrors;
    final StreamSource<Event> events;
    final StreamSource<MpaError> mpaErrors;
    final StreamSink<Wr> requestSink;
    final StreamSink<Post> recvSink;
    final StreamSink<Long> invalidateSink;
    private final ArrayDeque<Runnable> hostActions = new ArrayDeque<>();
    /** Actions of the register block due at a later cycle: {cycle, action}. */
    private final List<Object[]> delayed = new ArrayList<>();
    /** Cycles the register block takes to apply a qpError: 0 … this. */
    int registerDelay = 3;
    private final ArrayDeque<QpErr> expectedErrors = new ArrayDeque<>();
    /** Delay of the bench's engine from a request to its completion: [min, max] cycles. */
    int completionMin = 1;
    int completionMax = 20;
    /** Whether the engine completes requests by itself. */
    boolean autoComplete = true;
    /** Invalidations the STag table finds (else STATUS_INVALIDATE_FAILED). */
    java.util.function.IntPredicate invalidateFinds = stag -> true;
    private Posted invalidating;
    /** A request was already shown (waiting for the engine) when the invalidation was taken: it may still come. */
    private boolean shownBeforeInvalidate;
    private final SimSignal requestsValid;
    private final SimSignal memoryErrorSignal;
    private int invalidatingQp = -1;
    private long invalidateDue = -1;
    private boolean invalidateFound;
    private long nextAlloc = 0x10_0000_0000L;
    /** Cycle of the last WorkRequest taken; of the first. */
    long firstRequestCycle = -1;
    long lastRequestCycle = -1;
    final List<Long> requestCycles = new ArrayList<>();
    final List<Integer> requestQps = new ArrayList<>();
    /** Cycle from which the last doorbell was visible to the rings. */
    long doorbellCycle = -1;
    /** Cycle the last receive post was taken. */
    long lastPostCycle = -1;
    final List<Long> entryCycles = new ArrayList<>();

    // signals
    private final SimSignal[] state;
    private final SimSignal[] sqBase;
    private final SimSignal[] sqSize;
    private final SimSignal[] sqProd;
    private final SimSignal[] sqCq;
    private final SimSignal[] rqBase;
    private final SimSignal[] rqSize;
    private final SimSignal[] rqProd;
    private final SimSignal[] rqCq;
    private final SimSignal[] clear;
    private final SimSignal[] sqCons;
    private final SimSignal[] rqCons;
    private final SimSignal[] cqBase;
    private final SimSignal[] cqSize;
    private final SimSignal[] cqCons;
    private final SimSignal[] cqProd;
    private final SimSignal[] cqOverflow;
    private final boolean[] clearNow;

    /** Pacing of the engine-side streams and the memory. */
    record Pacing(Pacer requests, Pacer recv, Pacer invalidate, Pacer events, Pacer mpa, boolean slowMemory) {
        static Pacing full() {
            return new Pacing(Pacer.always(), Pacer.always(), Pacer.always(), Pacer.always(), Pacer.always(), false);
        }

        static Pacing random(Random r) {
            return new Pacing(Pacer.randomMix(r), Pacer.randomMix(r), Pacer.randomMix(r), Pacer.randomMix(r),
                    Pacer.randomMix(r), true);
        }
    }

    RingsBench(Tb<QpRings> tb, Pacing pacing) {
        this.tb = tb;
        this.cfg = tb.dut().config;
        this.rnd = tb.random();
        QpRings.Io io = tb.dut().io;
        int n = cfg.qpCount();
        int m = cfg.cqCount();
        slave = Axi4MemorySlave.on(tb, io.axi, memory);
        if (pacing.slowMemory()) {
            slave.withReadLatency(1 + rnd.nextInt(8)).withWriteLatency(1 + rnd.nextInt(4)).withPacing(
                    Pacer.random(rnd, 0.6), Pacer.random(rnd, 0.6), Pacer.random(rnd, 0.6), Pacer.random(rnd, 0.6),
                    Pacer.random(rnd, 0.6));
        }
        memory.onAccess(this::checkWrite);
        state = new SimSignal[n];
        sqBase = new SimSignal[n];
        sqSize = new SimSignal[n];
        sqProd = new SimSignal[n];
        sqCq = new SimSignal[n];
        rqBase = new SimSignal[n];
        rqSize = new SimSignal[n];
        rqProd = new SimSignal[n];
        rqCq = new SimSignal[n];
        clear = new SimSignal[n];
        sqCons = new SimSignal[n];
        rqCons = new SimSignal[n];
        clearNow = new boolean[n];
        for (int q = 0; q < n; q++) {
            state[q] = tb.signal(io.state.apply(q));
            sqBase[q] = tb.signal(io.sqBase.apply(q));
            sqSize[q] = tb.signal(io.sqSize.apply(q));
            sqProd[q] = tb.signal(io.sqProd.apply(q));
            sqCq[q] = tb.signal(io.sqCq.apply(q));
            rqBase[q] = tb.signal(io.rqBase.apply(q));
            rqSize[q] = tb.signal(io.rqSize.apply(q));
            rqProd[q] = tb.signal(io.rqProd.apply(q));
            rqCq[q] = tb.signal(io.rqCq.apply(q));
            clear[q] = tb.signal(io.clear.apply(q));
            sqCons[q] = tb.signal(io.sqCons.apply(q));
            rqCons[q] = tb.signal(io.rqCons.apply(q));
            for (SimSignal s : new SimSignal[] {state[q], sqBase[q], sqSize[q], sqProd[q], sqCq[q], rqBase[q],
                rqSize[q], rqProd[q], rqCq[q], clear[q]}) {
                s.set(0);
            }
            qps.add(new Qp(q));
        }
        cqBase = new SimSignal[m];
        cqSize = new SimSignal[m];
        cqCons = new SimSignal[m];
        cqProd = new SimSignal[m];
        cqOverflow = new SimSignal[m];
        for (int c = 0; c < m; c++) {
            cqBase[c] = tb.signal(io.cqBase.apply(c));
            cqSize[c] = tb.signal(io.cqSize.apply(c));
            cqCons[c] = tb.signal(io.cqCons.apply(c));
            cqProd[c] = tb.signal(io.cqProd.apply(c));
            cqOverflow[c] = tb.signal(io.cqOverflow.apply(c));
            cqBase[c].set(0);
            cqSize[c].set(0);
            cqCons[c].set(0);
            cqs.add(new Cq(c));
        }
        qpErrors = tb.add(new Scoreboard<>("qpError, seed " + tb.seed()));

        // The host: register writes and the register block's reaction to qpError, applied after a clock edge.
        tb.add(new Agent() {
            @Override
            public void drive() {
                for (int q = 0; q < n; q++) {
                    if (clearNow[q]) {
                        clearNow[q] = false;
                        clear[q].set(false);
                    }
                }
                for (java.util.Iterator<Object[]> it = delayed.iterator(); it.hasNext();) {
                    Object[] d = it.next();
                    if ((long) d[0] <= tb.cycle()) {
                        it.remove();
                        hostActions.add((Runnable) d[1]);
                    }
                }
                while (!hostActions.isEmpty()) {
                    hostActions.poll().run();
                }
                pollCqs();
            }
        });

        Fields rf = Fields.of(tb, io.requests.payload());
        requestsValid = tb.signal(io.requests.valid());
        memoryErrorSignal = tb.signal(io.memoryError);
        requestSink = tb.add(new StreamSink<>("requests", tb.signal(io.requests.valid()),
                tb.signal(io.requests.ready()), () -> new Wr((int) rf.get("qp"), (int) rf.get("opcode"),
                        rf.get("wrId"), rf.get("localAddress"), rf.get("length"), rf.get("localStag"),
                        rf.get("localTo"), rf.get("remoteStag"), rf.get("remoteTo"), rf.get("invalidateStag"),
                        rf.get("data"), rf.get("mask"), rf.get("compareData"), rf.get("compareMask"),
                        (int) rf.get("aop")), pacing.requests(), this::request));
        Fields pf = Fields.of(tb, io.recv.payload());
        recvSink = tb.add(new StreamSink<>("recv", tb.signal(io.recv.valid()), tb.signal(io.recv.ready()),
                () -> new Post((int) pf.get("qp"), pf.get("address"), pf.get("capacity"), pf.get("wrId")),
                pacing.recv(), this::post));
        SimSignal inv = tb.signal(io.stagInvalidate.payload());
        invalidateSink = tb.add(new StreamSink<>("stagInvalidate", tb.signal(io.stagInvalidate.valid()),
                tb.signal(io.stagInvalidate.ready()), inv::get, pacing.invalidate(), this::invalidate));
        Fields ef = Fields.of(tb, io.events.payload());
        events = tb.add(new StreamSource<Event>(tb.signal(io.events.valid()), tb.signal(io.events.ready()), e -> {
            ef.set("kind", e.kind).set("qp", e.qp).set("wrId", e.wrId).set("length", e.length).set("info", e.info)
                    .set("cause", e.cause).set("opcode", e.opcode).set("stag", e.stag);
        }, pacing.events())).onAccepted(this::accepted);
        Fields mf = Fields.of(tb, io.mpaErrors.payload());
        mpaErrors = tb.add(new StreamSource<MpaError>(tb.signal(io.mpaErrors.valid()),
                tb.signal(io.mpaErrors.ready()), e -> mf.set("qp", e.qp).set("code", e.code).set("seq", e.seq),
                pacing.mpa())).onAccepted(this::mpaAccepted);
        SimSignal doneValid = tb.signal(io.stagInvalidateDone.valid());
        SimSignal doneFound = tb.signal(io.stagInvalidateDone.payload());
        SimSignal errValid = tb.signal(io.qpError.valid());
        Fields xf = Fields.of(tb, io.qpError.payload());
        doneValid.set(false);
        doneFound.set(false);
        // The bench's engine: completions after their delay, incoming Sends into posted buffers, the STag table's
        // answer to an invalidation; and the register block watching qpError.
        tb.add(new Agent() {
            @Override
            public void sample() {
                watchOverflow();
                if (errValid.getBool()) {
                    QpErr e = new QpErr((int) xf.get("qp"), (int) xf.get("state"), (int) xf.get("kind"),
                            (int) xf.get("status"));
                    qpError(e);
                }
            }

            @Override
            public void drive() {
                boolean done = invalidateDue >= 0 && tb.cycle() >= invalidateDue;
                doneValid.set(done);
                doneFound.set(done && invalidateFound);
                if (done) {
                    invalidateDone();
                }
                engineStep();
            }
        });
        tb.reset(3);
    }

    // ------------------------------------------------------------------------------------------------- the host

    /** Runs {@code action} at the next host step (after the next clock edge), as a register write. */
    void host(Runnable action) {
        hostActions.add(action);
    }

    private long allocate(long size) {
        long a = nextAlloc;
        // Page-aligned rings; every other one near the top of the 32-bit space (wide addresses exercised).
        nextAlloc += (size + 4095) & ~4095L;
        nextAlloc += 4096;
        return a;
    }

    /** Sets up CQ {@code c} with {@code 2^log} slots (memory zeroed: owner bits 0 = not written in phase 1). */
    void setupCq(int c, int log) {
        Cq k = cqs.get(c);
        long base = allocate((long) Cqe.SIZE << log);
        memory.write(base, new byte[Cqe.SIZE << log]);
        // A new ring for the CQ number: the rings start it afresh, the host's consumer side too (cqCons = 0).
        host(() -> {
            k.base = base;
            k.log = log;
            k.cons = 0;
            k.published = 0;
            k.phase = true;
            k.written = 0;
            cqBase[c].set(base);
            cqSize[c].set(log);
            cqCons[c].set(0);
        });
    }

    /** Configures QP {@code q}'s rings in RESET and moves it to {@code to}. */
    void setupQp(int q, int sqLog, int rqLog, int sqCqN, int rqCqN, QpState to) {
        Qp p = qps.get(q);
        long sqB = allocate((long) SqWqe.SIZE << sqLog);
        long rqB = allocate((long) RqWqe.SIZE << rqLog);
        host(() -> {
            p.sqBase = sqB;
            p.rqBase = rqB;
            p.sqLog = sqLog;
            p.rqLog = rqLog;
            p.sqCq = sqCqN;
            p.rqCq = rqCqN;
            sqBase[q].set(sqB);
            rqBase[q].set(rqB);
            sqSize[q].set(sqLog);
            rqSize[q].set(rqLog);
            sqCq[q].set(sqCqN);
            rqCq[q].set(rqCqN);
            p.state = to;
            state[q].set(to.code());
        });
    }

    /** Moves QP {@code q} to {@code s} (the register block's QP_STATE). */
    void setState(int q, QpState s) {
        host(() -> {
            qps.get(q).state = s;
            state[q].set(s.code());
        });
    }

    /**
     * The QP went to RESET: state RESET and one {@code clear} pulse; the model forgets its rings (elements not
     * handed out are gone; one request and one receive post already shown may still arrive, stale).
     */
    void reset(int q) {
        host(() -> {
            Qp p = qps.get(q);
            p.state = QpState.RESET;
            state[q].set(QpState.RESET.code());
            clear[q].set(true);
            clearNow[q] = true;
            p.sq.clear();
            p.rq.clear();
            p.inEngine.clear();
            p.hwRq.clear();
            p.sqProd = p.rqProd = p.sqCons = p.rqCons = 0;
            p.outstanding = p.postsOut = p.incoming = 0;
            p.dead = false;
            p.afterDead = 0;
            p.stale = 1;
            p.staleRecv = 1;
            sqProd[q].set(0);
            rqProd[q].set(0);
        });
    }

    /** Writes {@code w} into the next slot of QP {@code q}'s send ring; the doorbell rings with {@link #ring}. */
    int post(int q, Wqe w) {
        Qp p = qps.get(q);
        int index = p.sqProd & 0xFFFF;
        assertTrue(((p.sqProd - sqConsNow(q)) & 0xFFFF) < (1 << p.sqLog), "test posts past its send ring");
        memory.write(p.sqBase + (long) p.sqSlot(index) * SqWqe.SIZE, w.bytes(rnd));
        p.sq.add(new Posted(index, w, 0, 0));
        p.sqProd = (p.sqProd + 1) & 0xFFFF;
        return index;
    }

    /** Reads of send ring slot {@code index} of QP {@code q} fail from now on (the memory answers SLVERR). */
    void faultSqSlot(int q, int index) {
        Qp p = qps.get(q);
        long a = p.sqBase + (long) p.sqSlot(index) * SqWqe.SIZE;
        slave.withFault(a, a + SqWqe.SIZE);
        p.faultySq.add(index);
    }

    /**
     * Reads of receive ring slot {@code index} of QP {@code q} fail from now on. (At W = 512 a burst for an even slot
     * covers the odd one after it: use even slots.)
     */
    void faultRqSlot(int q, int index) {
        Qp p = qps.get(q);
        long a = p.rqBase + (long) p.rqSlot(index) * RqWqe.SIZE;
        slave.withFault(a, a + RqWqe.SIZE);
        p.faultyRq.add(index);
    }

    /** The rings' sticky memory error output. */
    boolean memoryError() {
        return memoryErrorSignal.getBool();
    }

    /** Rings QP {@code q}'s send doorbell (QP_SQ_PROD). */
    void ring(int q) {
        int prod = qps.get(q).sqProd;
        host(() -> {
            sqProd[q].set(prod);
            doorbellCycle = tb.cycle() + 1;
        });
    }

    /** Posts a receive buffer on QP {@code q}'s receive ring and rings its doorbell. */
    int postRecv(int q, long address, long capacity) {
        Qp p = qps.get(q);
        int index = p.rqProd & 0xFFFF;
        assertTrue(((p.rqProd - rqConsNow(q)) & 0xFFFF) < (1 << p.rqLog), "test posts past its receive ring");
        ByteBuffer b = ByteBuffer.allocate(RqWqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < RqWqe.SIZE; i++) {
            b.put(i, (byte) rnd.nextInt(256));
        }
        b.putLong(RqWqe.ADDRESS, address).putInt(RqWqe.CAPACITY, (int) capacity);
        memory.write(p.rqBase + (long) p.rqSlot(index) * RqWqe.SIZE, b.array());
        p.rq.add(new Posted(index, null, address, capacity));
        p.rqProd = (p.rqProd + 1) & 0xFFFF;
        int prod = p.rqProd;
        host(() -> rqProd[q].set(prod));
        return index;
    }

    /** Room in QP {@code q}'s send ring as the host sees it. */
    int sqRoom(int q) {
        Qp p = qps.get(q);
        return (1 << p.sqLog) - ((p.sqProd - sqConsNow(q)) & 0xFFFF);
    }

    int rqRoom(int q) {
        Qp p = qps.get(q);
        return (1 << p.rqLog) - ((p.rqProd - rqConsNow(q)) & 0xFFFF);
    }

    int sqConsNow(int q) {
        return (int) sqCons[q].get();
    }

    int rqConsNow(int q) {
        return (int) rqCons[q].get();
    }

    /** {@code n} Sends arrive for QP {@code q}, each consuming the oldest posted buffer when there is one. */
    void incoming(int q, int n) {
        qps.get(q).incoming += n;
    }

    /** Pushes an engine event for QP {@code q} directly (Terminates). */
    void event(Event e) {
        events.push(e);
    }

    void mpaError(int q, int code, long seq) {
        mpaErrors.push(new MpaError(q, code, seq));
    }

    /** Stops ({@code false}) or resumes the host's consumption of CQ {@code c}. */
    void consume(int c, boolean on) {
        cqs.get(c).consume = on;
    }

    private void pollCqs() {
        for (Cq k : cqs) {
            if (k.log == 0 && k.base == 0) {
                continue;
            }
            boolean moved = false;
            while (k.consume) {
                long at = k.base + (long) (k.cons & (k.slots() - 1)) * Cqe.SIZE;
                byte[] e = memory.read(at, Cqe.SIZE);
                if (((e[Cqe.OWNER] & 1) == 1) != k.phase) {
                    break;
                }
                ByteBuffer b = ByteBuffer.wrap(e).order(ByteOrder.LITTLE_ENDIAN);
                for (int i = Cqe.OPCODE + 1; i < Cqe.OWNER; i++) {
                    assertEquals(0, e[i], "reserved octet " + i + " of a CQE");
                }
                assertEquals(0, e[Cqe.OWNER] & 0xFE, "owner octet bits 7:1");
                Entry got = new Entry(k.n, b.getInt(Cqe.WR_ID) & 0xFFFFFFFFL, b.getInt(Cqe.LENGTH) & 0xFFFFFFFFL,
                        b.getLong(Cqe.INFO), b.getInt(Cqe.STAG) & 0xFFFFFFFFL, e[Cqe.QP] & 0xFF, e[Cqe.KIND] & 0xFF,
                        e[Cqe.STATUS] & 0xFF, e[Cqe.OPCODE] & 0xFF);
                entryCycles.add(tb.cycle());
                Qp p = qps.get(got.qp);
                boolean receive = got.kind == CqeKind.RECEIVE.code() || got.kind == CqeKind.RECEIVE_IMMEDIATE.code();
                Scoreboard<Entry> sb = receive ? p.rqEntries : p.sqEntries;
                if (k.overflows > 0) {
                    k.dropped += sb.actualAfterLosses(got, x -> x.cq == k.n);
                } else {
                    sb.actual(got);
                }
                k.cons = (k.cons + 1) & 0xFFFF;
                k.read++;
                if ((k.cons & (k.slots() - 1)) == 0) {
                    k.phase = !k.phase;
                }
                moved = true;
            }
            if (moved) {
                k.published = k.cons;
                cqCons[k.n].set(k.cons);
            }
        }
    }

    /**
     * The core marks a CQ overflowed only when an entry met it full: the host had released fewer than
     * {@code 2^size} slots before the entry (one entry may still be on its way to memory).
     */
    private void watchOverflow() {
        for (Cq k : cqs) {
            boolean now = cqOverflow[k.n].getBool();
            if (now && !k.flagged) {
                assertTrue(k.written + 1 - unwrap(k) >= k.slots(), "cycle " + tb.cycle() + ": CQ " + k.n
                        + " marked overflowed with " + k.written + " entries written and " + k.published
                        + " released of " + k.slots() + " slots (seed " + tb.seed() + ")");
                k.overflows++;
            }
            k.flagged = now;
        }
    }

    /** CQ {@code c} is marked overflowed now (CQ_STATUS.OVERFLOW). */
    boolean overflowed(int c) {
        return cqOverflow[c].getBool();
    }

    /** No CQE is written over an entry the host has not released, and entries go to consecutive slots. */
    private void checkWrite(long address, int length, boolean isWrite) {
        if (!isWrite) {
            return;
        }
        for (Cq k : cqs) {
            long size = (long) Cqe.SIZE * k.slots();
            if (Long.compareUnsigned(address - k.base, size) >= 0) {
                continue;
            }
            long off = address - k.base;
            if (off % Cqe.SIZE == 0) {
                long slot = off / Cqe.SIZE;
                assertEquals(k.written % k.slots(), slot, "CQ " + k.n + ": entry " + k.written + " written to slot "
                        + slot);
                assertTrue(k.written - unwrap(k) < k.slots(), "cycle " + tb.cycle() + ": CQ " + k.n + " entry "
                        + k.written + " written while the host released only " + k.published + " of "
                        + k.slots() + " slots");
                k.written++;
            }
            return;
        }
    }

    /** The published consumer index as a count comparable with {@code written}. */
    private static long unwrap(Cq k) {
        long w = k.written;
        long c = k.published;
        return w - ((w - c) & 0xFFFF);
    }

    // ----------------------------------------------------------------------------------------- the engine side

    private void request(Wr w) {
        if (firstRequestCycle < 0) {
            firstRequestCycle = tb.cycle();
        }
        lastRequestCycle = tb.cycle();
        requestCycles.add(tb.cycle());
        requestQps.add(w.qp);
        Qp p = qps.get(w.qp);
        Posted head = p.sq.peek();
        if (head == null || !head.wqe.request(w.qp, head.index).equals(w)) {
            if (p.stale > 0) {
                p.stale--;
                return;
            }
            throw new AssertionError("cycle " + tb.cycle() + ": request " + w + " but QP " + w.qp + " expects "
                    + (head == null ? "nothing" : head.wqe.request(w.qp, head.index)) + " (seed " + tb.seed() + ")");
        }
        p.sq.poll();
        assertTrue(head.wqe.known() && !head.wqe.localInvalidate(), "only RDMAP operations reach requests");
        if (invalidating != null) {
            // Only a request handed out before the invalidation (of another QP: the invalidation waited for every
            // earlier request of its own) may be taken while it is pending.
            assertTrue(shownBeforeInvalidate && w.qp != invalidatingQp, "cycle " + tb.cycle()
                    + ": a request started during a local invalidation");
            shownBeforeInvalidate = false;
        }
        if (!p.alive()) {
            p.afterDead++;
            assertTrue(p.afterDead <= 1, "QP " + w.qp + ": requests keep coming in ERR");
            return;
        }
        if (head.wqe.fence()) {
            assertEquals(0, p.outstanding, "cycle " + tb.cycle() + ": fenced request " + head.index + " of QP "
                    + w.qp + " started with earlier requests incomplete");
        }
        p.outstanding++;
        p.requests++;
        long due = tb.cycle() + completionMin + rnd.nextInt(completionMax - completionMin + 1);
        if (!p.inEngine.isEmpty()) {
            due = Math.max(due, p.inEngine.peekLast().due);
        }
        int op = w.opcode;
        int kind = op == WqeOpcode.RDMA_READ.code() ? CqeKind.READ_DONE.code()
                : op == WqeOpcode.ATOMIC.code() ? CqeKind.ATOMIC_DONE.code() : CqeKind.SEND_DONE.code();
        long info = kind == CqeKind.ATOMIC_DONE.code() ? rnd.nextLong() : 0;
        long length = kind == CqeKind.SEND_DONE.code() ? w.length : rnd.nextInt() & 0xFFFFFFFFL;
        p.inEngine.add(new InEngine(w, due, new Event(kind, w.qp, w.wrId, length, info, 0, op, 0)));
    }

    private void post(Post r) {
        lastPostCycle = tb.cycle();
        Qp p = qps.get(r.qp);
        Posted head = p.rq.peek();
        // A slot whose read failed is posted with address and capacity 0.
        boolean faulty = head != null && p.faultyRq.contains(head.index);
        long capacity = faulty ? 0 : head == null ? -1 : head.capacity;
        long address = faulty ? 0 : head == null ? -1 : head.address;
        if (head == null || address != r.address || capacity != r.capacity || head.index != r.wrId) {
            if (p.staleRecv > 0) {
                p.staleRecv--;
                return;
            }
            throw new AssertionError("cycle " + tb.cycle() + ": receive post " + r + " but QP " + r.qp + " expects "
                    + head + " (seed " + tb.seed() + ")");
        }
        p.rq.poll();
        if (!p.alive()) {
            return;
        }
        p.postsOut++;
        p.posts++;
        assertTrue(p.postsOut <= cfg.ddp().recvDepth(), "cycle " + tb.cycle() + ": QP " + r.qp + " has "
                + p.postsOut + " buffers in the engine's queue of " + cfg.ddp().recvDepth());
        p.hwRq.add(r);
    }

    private void invalidate(long stag) {
        assertTrue(invalidating == null, "a second invalidation before the first was answered");
        for (Qp p : qps) {
            Posted head = p.sq.peek();
            if (head != null && head.wqe.localInvalidate() && (head.wqe.invalidateStag & 0xFFFFFFFFL) == stag) {
                p.sq.poll();
                if (!p.alive()) {
                    p.afterDead++;
                    assertTrue(p.afterDead <= 1, "QP " + p.n + ": invalidations keep coming in ERR");
                }
                assertEquals(0, p.outstanding, "cycle " + tb.cycle() + ": local invalidate " + head.index
                        + " of QP " + p.n + " started with earlier requests incomplete");
                invalidating = head;
                invalidatingQp = p.n;
                shownBeforeInvalidate = requestsValid.getBool();
                invalidateFound = invalidateFinds.test((int) stag);
                invalidateDue = tb.cycle() + 1 + rnd.nextInt(4);
                return;
            }
        }
        throw new AssertionError("cycle " + tb.cycle() + ": invalidation of STag " + Long.toHexString(stag)
                + " that no QP's next element asks for");
    }

    private void invalidateDone() {
        Qp p = qps.get(invalidatingQp);
        Posted h = invalidating;
        invalidating = null;
        invalidateDue = -1;
        if (!p.alive()) {
            return;
        }
        int status = invalidateFound ? Cqe.STATUS_SUCCESS : Cqe.STATUS_INVALIDATE_FAILED;
        // Written signaled or not (the driver shows an unsignaled one only when it failed).
        p.sqEntries.expect(new Entry(p.sqCq, p.sqSlot(h.index), 0, 0, h.wqe.invalidateStag & 0xFFFFFFFFL, p.n,
                CqeKind.LOCAL_INVALIDATE_DONE.code(), status, WqeOpcode.LOCAL_INVALIDATE_CODE));
        p.sqCons = (h.index + 1) & 0xFFFF;
    }

    private static final RdmapOpcode[] SENDS = {RdmapOpcode.SEND, RdmapOpcode.SEND_WITH_INVALIDATE,
        RdmapOpcode.SEND_WITH_SE, RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE};

    private void engineStep() {
        for (Qp p : qps) {
            while (autoComplete && !p.held && !p.inEngine.isEmpty() && p.inEngine.peek().due <= tb.cycle()) {
                events.push(p.inEngine.poll().completion);
            }
            if (p.incoming > 0 && !p.hwRq.isEmpty() && rnd.nextInt(4) == 0) {
                Post b = p.hwRq.poll();
                p.incoming--;
                boolean imm = rnd.nextInt(4) == 0;
                RdmapOpcode op = imm ? RdmapOpcode.IMMEDIATE_DATA : SENDS[rnd.nextInt(SENDS.length)];
                int opcode = op.code();
                long len = imm ? 8 : (b.capacity == 0 ? 0 : Math.floorMod(rnd.nextLong(), b.capacity + 1));
                boolean invalidates = op == RdmapOpcode.SEND_WITH_INVALIDATE
                        || op == RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE;
                long stag = invalidates ? rnd.nextInt() & 0xFFFFFFFFL : 0;
                events.push(new Event(imm ? RxEventKind.RECEIVE_IMMEDIATE.code() : RxEventKind.RECEIVE.code(), p.n,
                        b.wrId, len, imm ? rnd.nextLong() : 0, 0, opcode, stag));
            }
        }
    }

    /** Completes every request in the bench's engine now (when {@link #autoComplete} is off). */
    void completeAll() {
        for (Qp p : qps) {
            while (!p.inEngine.isEmpty()) {
                events.push(p.inEngine.poll().completion);
            }
        }
    }

    /** The rings took an event: what the model expects from it. */
    private void accepted(Event e) {
        Qp p = qps.get(e.qp);
        CqeKind kind = CqeKind.of(e.kind);
        boolean alive = p.alive();
        switch (kind) {
            case SEND_DONE, READ_DONE, ATOMIC_DONE -> {
                p.outstanding--;
                if (!alive) {
                    return;
                }
                int index = (int) (e.wrId & 0xFFFF);
                p.sqCons = (index + 1) & 0xFFFF;
                if ((e.wrId >>> 31) != 0 || e.cause != 0) {
                    p.sqEntries.expect(new Entry(p.sqCq, p.sqSlot(index), e.length, e.info, e.stag, p.n, e.kind,
                            e.cause, e.opcode));
                }
            }
            case RECEIVE, RECEIVE_IMMEDIATE -> {
                p.postsOut--;
                if (!alive) {
                    return;
                }
                int index = (int) (e.wrId & 0xFFFF);
                p.rqCons = (index + 1) & 0xFFFF;
                p.rqEntries.expect(new Entry(p.rqCq, p.rqSlot(index), e.length, e.info, e.stag, p.n, e.kind, 0,
                        e.opcode));
            }
            case TERMINATE_SENT, TERMINATE_RECEIVED -> {
                if (!alive) {
                    return;
                }
                p.sqEntries.expect(new Entry(p.sqCq, 0xFFFFFFFFL, e.length, e.info, e.stag, p.n, e.kind, e.cause,
                        e.opcode));
                qpErrors.expect(new QpErr(p.n, QpState.ERR.code(), e.kind, e.cause));
                p.dead = true;
            }
            default -> throw new AssertionError("bench pushed event kind " + kind);
        }
    }

    private void mpaAccepted(MpaError e) {
        Qp p = qps.get(e.qp);
        if (!p.alive()) {
            return;
        }
        p.sqEntries.expect(new Entry(p.sqCq, 0xFFFFFFFFL, 0, e.seq, 0, p.n, CqeKind.MPA_ERROR.code(), e.code, 0));
        qpErrors.expect(new QpErr(p.n, QpState.ERR.code(), CqeKind.MPA_ERROR.code(), e.code));
        p.dead = true;
    }

    /** A QP error from the rings: a bad element (SQE) is checked here; the register block applies the state. */
    private void qpError(QpErr e) {
        Qp p = qps.get(e.qp);
        if (e.state == QpState.SQE.code()) {
            Posted head = p.sq.poll();
            boolean faulty = head != null && p.faultySq.contains(head.index);
            assertTrue(head != null && (!head.wqe.known() || faulty), "cycle " + tb.cycle() + ": QP " + e.qp
                    + " moved to SQE but its next element is " + head);
            assertEquals(0, p.outstanding, "bad element completed before the requests ahead of it");
            int status = faulty ? Cqe.STATUS_WQE_READ_ERROR : Cqe.STATUS_BAD_OPCODE;
            p.sqEntries.expect(new Entry(p.sqCq, p.sqSlot(head.index), 0, 0, 0, p.n, CqeKind.SEND_DONE.code(),
                    status, faulty ? 0 : head.wqe.opcode & 0xF));
            qpErrors.expect(new QpErr(p.n, QpState.SQE.code(), CqeKind.SEND_DONE.code(), status));
            p.sqCons = (head.index + 1) & 0xFFFF;
        }
        qpErrors.actual(e);
        QpState to = QpState.of(e.state);
        delayed.add(new Object[] {tb.cycle() + rnd.nextInt(registerDelay + 1), (Runnable) () -> {
            Qp x = qps.get(e.qp);
            // The register block applies the move unless the QP has left the state it was in (e.g. reset).
            if (x.state != QpState.RESET) {
                x.state = to;
                state[e.qp].set(to.code());
            }
        }});
    }

    // ------------------------------------------------------------------------------------------------ running

    /** Nothing left to do: every source drained, every request completed, every expected entry read. */
    boolean quiet() {
        if (events.busy() || mpaErrors.busy() || invalidating != null || !hostActions.isEmpty() || slave.busy()
                || !delayed.isEmpty()) {
            return false;
        }
        for (Qp p : qps) {
            if (!p.inEngine.isEmpty() || pendingEntries(p.sqEntries) != 0 || pendingEntries(p.rqEntries) != 0) {
                return false;
            }
            if (p.alive() && p.state == QpState.RTS && !p.sq.isEmpty()) {
                return false;
            }
            if (p.alive() && p.incoming > 0 && (!p.hwRq.isEmpty() || !p.rq.isEmpty())) {
                return false;
            }
        }
        return qpErrors.pending() == 0;
    }

    /** Entries still expected on {@code sb}, less those a CQ marked overflowed now will never write. */
    private int pendingEntries(Scoreboard<Entry> sb) {
        return sb.pending() - (int) sb.count(this::lost);
    }

    /** An expected entry for a CQ that is marked overflowed now: dropped (nothing is written there until a new ring). */
    private boolean lost(Entry e) {
        return cqOverflow[e.cq].getBool();
    }

    /**
     * Runs until {@link #quiet()} (plus a few cycles for nothing else to happen), then checks the indices. Entries
     * still expected for a CQ marked overflowed are then dropped from the scoreboards (counted in {@link Cq#dropped}).
     */
    long settle(long maxCycles) {
        long t = tb.runUntil(this::quiet, maxCycles, "the rings to settle");
        tb.step(20);
        assertTrue(quiet(), "something happened after the rings had settled");
        for (Qp p : qps) {
            for (Scoreboard<Entry> sb : List.of(p.sqEntries, p.rqEntries)) {
                for (Cq k : cqs) {
                    if (overflowed(k.n)) {
                        k.dropped += sb.discard(x -> x.cq == k.n);
                    }
                }
            }
        }
        checkIndices();
        return t;
    }

    /** sqCons, rqCons and cqProd as the model says. */
    void checkIndices() {
        for (Qp p : qps) {
            if (p.state == QpState.RESET && p.sqBase == 0) {
                continue;
            }
            assertEquals(p.sqCons, sqCons[p.n].get(), "QP " + p.n + " sqCons (seed " + tb.seed() + ")");
            assertEquals(p.rqCons, rqCons[p.n].get(), "QP " + p.n + " rqCons (seed " + tb.seed() + ")");
        }
        for (Cq k : cqs) {
            assertEquals(k.written & 0xFFFF, cqProd[k.n].get(), "CQ " + k.n + " cqProd");
        }
    }

    void runUntil(BooleanSupplier done, long max, String what) {
        tb.runUntil(done, max, what);
    }

    long requestsTaken() {
        return requestSink.received();
    }

    long postsTaken() {
        return recvSink.received();
    }
}
