package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.DdpConfig;
import spinal.core.Bool;
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

    public RdmapCompletionOrder(DdpConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        int qps = c.qpCount();
        int qb = c.qpBits();

        List<Stream<Submitted>> subs = fifoPerIndex("sub", io.submitted, io.submitted.payload().qp, qps,
                () -> new Submitted(c), DEPTH);
        // Read completions carry nothing the report needs (the request has its wrId and length): a count per QP.
        // Atomic completions carry the original value: a queue of values per QP.
        List<UInt> readsDone = new ArrayList<>();
        // Sent Writes/Sends/Immediate Data: a count per QP (at most DEPTH wait), and the cause of the last one — after
        // a failed one nothing more is sent on its QP until it is opened again.
        List<UInt> sentDone = new ArrayList<>();
        List<UInt> sentCause = new ArrayList<>();
        int sb = log2Up(DEPTH + 1);
        for (int q = 0; q < qps; q++) {
            readsDone.add(regInit("readsDone_" + q, uint(8), U(0, 8)));
            sentDone.add(regInit("sentDone_" + q, uint(sb), U(0, sb)));
            sentCause.add(regInit("sentCause_" + q, uint(RdmapRxControl.CAUSE_BITS), U(0, RdmapRxControl.CAUSE_BITS)));
        }
        set(io.readDone.ready(), True());
        Stream<spinal.core.Bits> originals = wire("originals", Streams.stream(() -> bits(64)));
        set(originals.valid(), and(io.atomicDone.valid(), not(io.readDone.valid())));
        set(originals.payload(), io.atomicDone.payload().info);
        List<Stream<spinal.core.Bits>> atomics = fifoPerIndex("atomic", originals, io.atomicDone.payload().qp, qps,
                () -> bits(64), c.maxOrd());
        set(io.atomicDone.ready(), and(originals.ready(), not(io.readDone.valid())));

        // ORD slots: one release per Read or Atomic completion taken in (never both in one cycle: a Read's goes
        // first); the release is a pulse the requester always takes.
        set(io.ordRelease.valid(), or(io.readDone.fire(), io.atomicDone.fire()));
        set(io.ordRelease.payload(), mux(io.readDone.fire(), io.readDone.payload().qp, io.atomicDone.payload().qp));

        // Each QP's head, when it may be reported; the lowest ready QP goes (one completion per cycle).
        List<Bool> ready = new ArrayList<>();
        List<RdmapRxControl.Event> events = new ArrayList<>();
        for (int q = 0; q < qps; q++) {
            Stream<Submitted> s = subs.get(q);
            Submitted h = s.payload();
            Bool isRead = eq(h.kind, U(READ, 2));
            Bool isAtomic = eq(h.kind, U(ATOMIC, 2));
            Bool isSent = eq(h.kind, U(SENT, 2));
            Bool can = wire("ready_" + q, and(s.valid(), or(and(isSent, neq(sentDone.get(q), U(0, sb))), and(isRead,
                    neq(readsDone.get(q), U(0, 8))), and(isAtomic, atomics.get(q).valid()))));
            ready.add(can);
            // The requester filled in the event; an Atomic's original value comes with its completion.
            RdmapRxControl.Event e = wire("head_" + q, new RdmapRxControl.Event(c));
            set(e, h.event);
            e.info.allowOverride();
            set(e.info, mux(isAtomic, atomics.get(q).payload(), h.event.info));
            // The cause belongs to the last sent one: reported when it is the only one left.
            e.cause.allowOverride();
            set(e.cause, mux(and(isSent, eq(sentDone.get(q), U(1, sb))), sentCause.get(q), h.event.cause));
            events.add(e);
        }
        // The lowest ready QP, kept while its completion waits to be taken (a shown beat stays).
        UInt lowest = wire("lowest", U(0, qb));
        for (int q = qps - 1; q >= 0; q--) {
            final int qp = q;
            when(ready.get(q), () -> set(lowest, U(qp, qb)));
        }
        Bool waiting = regInit("waiting", bool(), False());
        UInt held = regInit("held", uint(qb), U(0, qb));
        UInt pick = wire("pick", mux(waiting, held, lowest));
        set(waiting, and(io.completions.valid(), not(io.completions.ready())));
        set(held, pick);
        Bool any = wire("any", or(ready.get(0), ready.size() > 1 ? orAll(ready.subList(1, ready.size())) : False()));
        set(io.completions.valid(), any);
        set(io.completions.payload(), vec(events).apply(pick.resize(Math.max(1, log2Up(qps)))));
        for (int q = 0; q < qps; q++) {
            Bool take = and(io.completions.fire(), eq(pick, U(q, qb)));
            Submitted h = subs.get(q).payload();
            set(subs.get(q).ready(), take);
            final int qp = q;
            Bool readTaken = and(take, eq(h.kind, U(READ, 2)));
            Bool readIn = and(io.readDone.fire(), eq(io.readDone.payload().qp, U(q, qb)));
            when(and(readIn, not(readTaken)), () -> set(readsDone.get(qp), add(readsDone.get(qp), U(1, 8))));
            when(and(readTaken, not(readIn)), () -> set(readsDone.get(qp), sub(readsDone.get(qp), U(1, 8))));
            set(atomics.get(q).ready(), and(take, eq(h.kind, U(ATOMIC, 2))));
            Bool sentTaken = and(take, eq(h.kind, U(SENT, 2)));
            Bool sentIn = and(io.sent.valid(), eq(io.sent.payload().qp, U(q, qb)));
            when(and(sentIn, not(sentTaken)), () -> set(sentDone.get(qp), add(sentDone.get(qp), U(1, sb))));
            when(and(sentTaken, not(sentIn)), () -> set(sentDone.get(qp), sub(sentDone.get(qp), U(1, sb))));
            when(sentIn, () -> set(sentCause.get(qp), io.sent.payload().cause));
            Bool clearMine = and(io.clear.valid(), eq(io.clear.payload(), U(q, qb)));
            for (Stream<?> f : List.of(subs.get(q), atomics.get(q))) {
                set((Bool) ((spinal.lib.StreamFifo<?>) f.component()).io().find("flush"), clearMine);
            }
            when(clearMine, () -> {
                set(readsDone.get(qp), U(0, 8));
                set(sentDone.get(qp), U(0, sb));
                set(sentCause.get(qp), U(0, RdmapRxControl.CAUSE_BITS));
            });
        }
    }

    private static Bool orAll(List<Bool> bits) {
        Bool r = bits.get(0);
        for (int i = 1; i < bits.size(); i++) {
            r = or(r, bits.get(i));
        }
        return r;
    }
}
