package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.DdpConfig;
import spinal.core.Bool;
import spinal.core.Mem;
import spinal.core.dontCare$;
import spinal.core.writeFirst$;
import spinal.core.UInt;
import spinal.lib.Stream;

/**
 * Reports the requester's completions of each QP in the order its work requests were submitted (RFC 5040 §5.5 rules
 * 13–15, RFC 7306 §5.4 item 7; RDMAP-23, RDMAP-38): a Write, Send or Immediate Data is complete when its last segment
 * has left the transmit side whole, every payload octet read from host memory ({@code sent}), a Read when its last
 * Read Response is placed, an Atomic when its response is matched and the original value stored — but a completion is
 * reported only after every earlier request of the same QP. No order between QPs. A Write or Send whose payload read
 * failed (SLVERR/DECERR) completes with the cause {@code sent} gives ({@code RDMAP_LOCAL_CATASTROPHIC}); its QP fails
 * then, so it is the last of its QP to complete.
 *
 * <p>Per QP: the submitted requests in order ({@code submitted}, from the requester when a request's last segment is
 * handed on, with its event filled in), and the Read and Atomic completions that have happened ({@code readDone},
 * {@code atomicDone}; each in its own order, RFC 7306 §7 gives none between the two), and the Writes/Sends/Immediate
 * Data that have been sent ({@code sent}, a count). The head request is reported when a completion of its kind is
 * waiting. Opening or closing a QP ({@code clear}) forgets its requests and completions: they belong to the
 * connection that ended (a Read whose response can no longer arrive must not hold the next one's completions). A Read or Atomic completion frees its ORD slot as it is taken here
 * ({@code ordRelease}), not when the host reads the event: the peer's response has arrived.
 *
 * <p>The QP count costs memory depth, not logic (issue 14): the submitted requests of every QP are one RAM of
 * qps × {@link #DEPTH} entries ({@code requests}, QP q's ring at q × DEPTH) and the Atomic originals one of qps ×
 * {@link #atomicRing} ({@code originals}), both read synchronously (block RAM). Per QP stay only ring pointers, the
 * counters, a registered "head may be reported" bit and the kinds of its requests (2 bits each, LUT RAM): the arbiter
 * decides from these, one cycle ahead — it computes next cycle's choice from every QP's next state and reads that
 * QP's head from the RAMs on the same edge, so a completion shows in the same cycle as with a FIFO per QP. One
 * exception: an entry written into its ring's head place shows a cycle later than in a FIFO (it is read after it is
 * written), which only delays a completion that came before its request or an Atomic completion whose request already
 * waits at the head (one cycle).
 */
public final class RdmapCompletionOrder extends HwComponent {
    /** Requests of a QP that may wait here for an earlier Read or Atomic. */
    public static final int DEPTH = 16;
    /** Kinds of a submitted request. */
    public static final int SENT = 0;
    public static final int READ = 1;
    public static final int ATOMIC = 2;

    /** A request whose last segment was handed on. */
    public static final class Submitted extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        public final UInt kind;
        public final RdmapRxControl.Event event;

        public Submitted(DdpConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            kind = field("kind", uint(2));
            event = field("event", new RdmapRxControl.Event(config));
        }
    }

    /** What the ring of requests keeps of a submitted request: its kind and its event (its QP is the ring's). */
    public static final class Entry extends HwBundle {
        public final DdpConfig config;
        public final UInt kind;
        public final RdmapRxControl.Event event;

        public Entry(DdpConfig config) {
            this.config = config;
            kind = field("kind", uint(2));
            event = field("event", new RdmapRxControl.Event(config));
        }
    }

    /** A Write, Send or Immediate Data whose last segment has been sent whole: its QP and the cause, or 0. */
    public static final class Sent extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        public final UInt cause;

        public Sent(DdpConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            cause = field("cause", uint(RdmapRxControl.CAUSE_BITS));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final Stream<Submitted> submitted;
        public final spinal.lib.Flow<Sent> sent;
        public final spinal.lib.Flow<UInt> clear;
        public final Stream<RdmapRxControl.Event> readDone;
        public final Stream<RdmapRxControl.Event> atomicDone;
        public final Stream<RdmapRxControl.Event> completions;
        public final Stream<UInt> ordRelease;

        public Io(DdpConfig c) {
            submitted = field("submitted", Streams.slaveStream(() -> new Submitted(c)));
            sent = field("sent", spinal.lib.slave$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new Sent(c)))));
            clear = field("clear", spinal.lib.slave$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> uint(c.qpBits())))));
            readDone = field("readDone", Streams.slaveStream(() -> new RdmapRxControl.Event(c)));
            atomicDone = field("atomicDone", Streams.slaveStream(() -> new RdmapRxControl.Event(c)));
            completions = field("completions", Streams.masterStream(() -> new RdmapRxControl.Event(c)));
            ordRelease = field("ordRelease", Streams.masterStream(() -> uint(c.qpBits())));
        }
    }

    public final DdpConfig config;
    public final Io io;
    /** The submitted requests of every QP: QP q's ring is entries q × DEPTH … q × DEPTH + DEPTH − 1. */
    public final Mem<Entry> requests;
    /** The original values of every QP's Atomic completions: QP q's ring starts at q × {@link #atomicRing}. */
    public final Mem<spinal.core.Bits> originals;
    /** Entries of a QP's ring of Atomic originals: maxOrd rounded up to a power of two (at most maxOrd are used). */
    public final int atomicRing;

    public RdmapCompletionOrder(DdpConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        int qps = c.qpCount();
        int qb = c.qpBits();
        int qi = log2Up(qps);
        int vi = Math.max(1, qi);
        int pb = log2Up(DEPTH) + 1;
        int sb = log2Up(DEPTH + 1);
        int ab = Math.max(1, log2Up(c.maxOrd()));
        atomicRing = 1 << ab;
        int cb = RdmapRxControl.CAUSE_BITS;
        requests = field("requests", new Mem<>(hardType(() -> new Entry(c)), qps * DEPTH));
        originals = field("originals", new Mem<>(hardType(() -> bits(64)), qps * atomicRing));
        // A read of the entry written in the same cycle is never used (see "fresh" below): yosys need not keep
        // read-before-write order between the ports, which a block RAM's two ports do not give.
        requests.addAttribute("no_rw_check");
        originals.addAttribute("no_rw_check");
        // 64-bit values, a few per QP: in LUT RAM they would cost a multiplexer and a register per bit.
        originals.addAttribute("ram_style", "block");

        // Per QP only pointers and counters. Read completions carry nothing the report needs (the request has its
        // wrId and length): a count. Sent Writes/Sends/Immediate Data: a count (at most DEPTH wait) and the cause of
        // the last one — after a failed one nothing more is sent on its QP until it is opened again. Each request's
        // kind is also kept per QP in a 16 × 2-bit LUT RAM read asynchronously: the arbiter needs every head's kind.
        List<UInt> wp = new ArrayList<>();
        List<UInt> rp = new ArrayList<>();
        List<UInt> awp = new ArrayList<>();
        List<UInt> arp = new ArrayList<>();
        List<UInt> readsDone = new ArrayList<>();
        List<UInt> sentDone = new ArrayList<>();
        List<UInt> sentCause = new ArrayList<>();
        List<Bool> ready = new ArrayList<>();
        List<Mem<UInt>> kinds = new ArrayList<>();
        for (int q = 0; q < qps; q++) {
            wp.add(regInit("subWr_" + q, uint(pb), U(0, pb)));
            rp.add(regInit("subRd_" + q, uint(pb), U(0, pb)));
            awp.add(regInit("atomicWr_" + q, uint(ab + 1), U(0, ab + 1)));
            arp.add(regInit("atomicRd_" + q, uint(ab + 1), U(0, ab + 1)));
            readsDone.add(regInit("readsDone_" + q, uint(8), U(0, 8)));
            sentDone.add(regInit("sentDone_" + q, uint(sb), U(0, sb)));
            sentCause.add(regInit("sentCause_" + q, uint(cb), U(0, cb)));
            ready.add(regInit("ready_" + q, bool(), False()));
            kinds.add(field("kinds_" + q, new Mem<>(hardType(() -> uint(2)), DEPTH)));
        }

        // Submitted requests in: the QP's ring, unless it holds DEPTH already.
        UInt inQp = io.submitted.payload().qp;
        List<Bool> subFull = new ArrayList<>();
        for (int q = 0; q < qps; q++) {
            subFull.add(eq(sub(wp.get(q), rp.get(q)), U(DEPTH, pb)));
        }
        set(io.submitted.ready(), not(pick(subFull, inQp, vi)));
        Entry entry = wire("entry", new Entry(c));
        set(entry.kind, io.submitted.payload().kind);
        set(entry.event, io.submitted.payload().event);
        requests.write(address(inQp, pick(slots(wp, pb - 1), inQp, vi), qi), entry, io.submitted.fire(), null);

        // Atomic completions in (a Read completion first when both come).
        set(io.readDone.ready(), True());
        UInt aQp = io.atomicDone.payload().qp;
        List<Bool> atomicFull = new ArrayList<>();
        for (int q = 0; q < qps; q++) {
            atomicFull.add(eq(sub(awp.get(q), arp.get(q)), U(c.maxOrd(), ab + 1)));
        }
        set(io.atomicDone.ready(), and(not(io.readDone.valid()), not(pick(atomicFull, aQp, vi))));
        originals.write(address(aQp, pick(slots(awp, ab), aQp, vi), qi), io.atomicDone.payload().info,
                io.atomicDone.fire(), null);

        // ORD slots: one release per Read or Atomic completion taken in (never both in one cycle: a Read's goes
        // first); the release is a pulse the requester always takes.
        set(io.ordRelease.valid(), or(io.readDone.fire(), io.atomicDone.fire()));
        set(io.ordRelease.payload(), mux(io.readDone.fire(), io.readDone.payload().qp, io.atomicDone.payload().qp));

        // The reported head: read from the rings the cycle before it shows (synchronous read, block RAM), at the
        // address the arbiter's next state names. The lowest ready QP goes (one completion per cycle), kept while
        // its completion waits to be taken (a shown beat stays: its address does not move).
        UInt held = regInit("held", uint(qb), U(0, qb)); // the QP whose head is shown
        Bool any = wire("any", orAll(ready));
        set(io.completions.valid(), any);
        Entry head = wire("head", new Entry(c));
        spinal.core.Bits original = wire("original", bits(64));
        Bool isRead = wire("headIsRead", eq(head.kind, U(READ, 2)));
        Bool isAtomic = wire("headIsAtomic", eq(head.kind, U(ATOMIC, 2)));
        Bool isSent = wire("headIsSent", eq(head.kind, U(SENT, 2)));
        RdmapRxControl.Event e = io.completions.payload();
        set(e, head.event);
        // The requester filled in the event; an Atomic's original value comes with its completion.
        e.info.allowOverride();
        set(e.info, mux(isAtomic, original, head.event.info));
        // The cause belongs to the last sent one: reported when it is the only one left.
        e.cause.allowOverride();
        set(e.cause, mux(and(isSent, eq(pick(sentDone, held, vi), U(1, sb))), pick(sentCause, held, vi),
                head.event.cause));

        // Next state per QP, and from it whether its head may be reported next cycle. An entry written into the
        // head's place this cycle is not read from the ring until the next (its kind shows then too): it waits one
        // cycle more than it would in a register FIFO. For a request that matters only when its completion came
        // before it (the requester's completions follow the request); for an Atomic original, whenever its request
        // already waits at the head.
        List<UInt> rpNext = new ArrayList<>();
        List<UInt> arpNext = new ArrayList<>();
        List<Bool> readyNext = new ArrayList<>();
        for (int q = 0; q < qps; q++) {
            UInt qU = U(q, qb);
            Bool take = and(io.completions.fire(), eq(held, qU));
            Bool clearMine = and(io.clear.valid(), eq(io.clear.payload(), qU));
            Bool push = and(io.submitted.fire(), eq(inQp, qU));
            Bool pop = and(take, neq(wp.get(q), rp.get(q)));
            UInt rpN = wire("subRdNext_" + q, mux(clearMine, U(0, pb), add(rp.get(q), pop.asUInt().resize(pb))));
            UInt wpN = mux(clearMine, U(0, pb), add(wp.get(q), push.asUInt().resize(pb)));
            Bool fresh = and(push, eq(wp.get(q), rpN));
            kinds.get(q).write(range(wp.get(q), pb - 2, 0), io.submitted.payload().kind, push, null);
            UInt kindN = kinds.get(q).readAsync(range(rpN, pb - 2, 0), writeFirst$.MODULE$);

            Bool readTaken = and(take, isRead);
            Bool readIn = and(io.readDone.fire(), eq(io.readDone.payload().qp, qU));
            UInt readsN = mux(clearMine, U(0, 8), sub(add(readsDone.get(q), readIn.asUInt().resize(8)),
                    readTaken.asUInt().resize(8)));
            Bool sentTaken = and(take, isSent);
            Bool sentIn = and(io.sent.valid(), eq(io.sent.payload().qp, qU));
            UInt sentN = mux(clearMine, U(0, sb), sub(add(sentDone.get(q), sentIn.asUInt().resize(sb)),
                    sentTaken.asUInt().resize(sb)));
            UInt causeN = mux(clearMine, U(0, cb), mux(sentIn, io.sent.payload().cause, sentCause.get(q)));

            Bool aPush = and(io.atomicDone.fire(), eq(aQp, qU));
            Bool aPop = and(take, isAtomic, neq(awp.get(q), arp.get(q)));
            UInt arpN = wire("atomicRdNext_" + q, mux(clearMine, U(0, ab + 1),
                    add(arp.get(q), aPop.asUInt().resize(ab + 1))));
            UInt awpN = mux(clearMine, U(0, ab + 1), add(awp.get(q), aPush.asUInt().resize(ab + 1)));
            Bool aFresh = and(aPush, eq(awp.get(q), arpN));

            Bool canN = wire("readyNext_" + q, and(neq(wpN, rpN), not(fresh), or(
                    and(eq(kindN, U(SENT, 2)), neq(sentN, U(0, sb))),
                    and(eq(kindN, U(READ, 2)), neq(readsN, U(0, 8))),
                    and(eq(kindN, U(ATOMIC, 2)), neq(awpN, arpN), not(aFresh)))));
            set(rp.get(q), rpN);
            set(wp.get(q), wpN);
            set(arp.get(q), arpN);
            set(awp.get(q), awpN);
            set(readsDone.get(q), readsN);
            set(sentDone.get(q), sentN);
            set(sentCause.get(q), causeN);
            set(ready.get(q), canN);
            rpNext.add(rpN);
            arpNext.add(arpN);
            readyNext.add(canN);
        }
        UInt lowest = wire("lowestNext", U(0, qb));
        for (int q = qps - 1; q >= 0; q--) {
            final int qp = q;
            when(readyNext.get(q), () -> set(lowest, U(qp, qb)));
        }
        Bool waitingN = wire("waitingNext", and(io.completions.valid(), not(io.completions.ready())));
        UInt pickN = wire("pickNext", mux(waitingN, held, lowest));
        set(held, pickN);
        // While a completion waits its address stays, so the read may as well pause (the beat is held).
        Bool advance = wire("advance", not(waitingN));
        set(head, requests.readSync(address(pickN, pick(slots(rpNext, pb - 1), pickN, vi), qi), advance,
                dontCare$.MODULE$, false));
        set(original, originals.readSync(address(pickN, pick(slots(arpNext, ab), pickN, vi), qi), advance,
                dontCare$.MODULE$, false));
    }

    /** Element {@code index} of per-QP values (a multiplexer; the list itself when there is one QP). */
    private static <T extends spinal.core.Data> T pick(List<T> perQp, UInt index, int indexBits) {
        return perQp.size() == 1 ? perQp.get(0) : vec(perQp).apply(index.resize(indexBits));
    }

    /** The places in their rings that pointers name (the pointers without their wrap bits). */
    private static List<UInt> slots(List<UInt> pointers, int bits) {
        List<UInt> r = new ArrayList<>();
        for (UInt p : pointers) {
            r.add(range(p, bits - 1, 0));
        }
        return r;
    }

    /** A ring memory's address: the QP's ring, then the slot in it. */
    private static UInt address(UInt qp, UInt slot, int qpIndexBits) {
        return qpIndexBits == 0 ? slot : cat(qp.resize(qpIndexBits), slot).asUInt();
    }

    private static Bool orAll(List<Bool> bits) {
        Bool r = bits.get(0);
        for (int i = 1; i < bits.size(); i++) {
            r = or(r, bits.get(i));
        }
        return r;
    }
}
