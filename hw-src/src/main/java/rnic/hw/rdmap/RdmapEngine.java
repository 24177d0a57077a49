package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.DdpBeat;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.ddp.DdpPlacer;
import rnic.hw.ddp.DdpRxHeader;
import rnic.hw.ddp.DdpSegmentBuilder;
import rnic.hw.ddp.DdpTagValidator;
import rnic.hw.ddp.MemoryArbiter;
import rnic.hw.ddp.MemoryPort;
import rnic.hw.ddp.StagProgram;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Flow;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4;

/**
 * The DDP and RDMAP engines of one RNIC, for {@code qpCount} QPs (one DDP stream each), between the MPA layer
 * (segments in and out, {@link DdpBeat}) and host memory (the {@link MemoryPort}), with the host's work requests,
 * receive buffers, STag registrations and QP setup as inputs and its events as output (RFC 5040, RFC 5041, RFC 7306;
 * CONFORMANCE §1.2, §1.3).
 *
 * <pre>
 *  rx ─► DdpRxHeader ─ head ─► RdmapRxControl ◄─► DdpTagValidator ◄─ stagProgram / stagInvalidate
 *             │                  │ place  │ jobs, terminates
 *             └─ payload FIFO ─► DdpPlacer │──► RdmapResponder ◄─► RdmapAtomicEngine
 *                                  │       │          │ segments
 *  requests ─► RdmapTxRequester ───┼───────┼──────────┴─► DdpSegmentBuilder ─► tx
 *                                  └── MemoryArbiter ◄┘ (reads, writes) ─► axi
 * </pre>
 *
 * <p>Received segments are decided by {@link RdmapRxControl} and placed by {@link DdpPlacer}; the payload waits in a
 * FIFO of {@value #PAYLOAD_DEPTH} beats while its head is decided, so placement starts before a long segment has
 * ended. Segments to send come from the responder (Read Responses, Atomic Responses, Terminates — first) and the
 * requester (work requests), built with their payload by {@link DdpSegmentBuilder}. After this side has sent a
 * Terminate on a QP nothing more is sent on it (RFC 5040 §5.4: the stream is dead). Events of the receive side, the
 * responder (ATOMIC_DONE) and the requester (SEND_DONE) are merged onto {@code events}, the requester's completions
 * of each QP in submission order ({@link RdmapCompletionOrder}, RDMAP-23), which also frees ORD slots.
 */
public final class RdmapEngine extends HwComponent {
    /** Beats of received payload buffered while the segment's head is decided. */
    public static final int PAYLOAD_DEPTH = 32;

    /** Opens or closes a QP: receive state, Protection Domain, IRD, ORD and the MULPDU of its MPA connection. */
    public static final class Setup extends HwBundle {
        public final DdpConfig config;
        public final UInt qp;
        public final Bool open;
        public final UInt pd;
        public final UInt ird;
        public final UInt ord;
        public final UInt mulpdu;

        public Setup(DdpConfig config) {
            this.config = config;
            qp = field("qp", uint(config.qpBits()));
            open = field("open", bool());
            pd = field("pd", uint(config.pdWidth()));
            ird = field("ird", uint(8));
            ord = field("ord", uint(8));
            mulpdu = field("mulpdu", uint(16));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final DdpConfig config;
        public final Stream<DdpBeat> rx;
        public final Stream<DdpBeat> tx;
        public final Axi4 axi;
        public final Stream<RdmapTxRequester.WorkRequest> requests;
        public final Stream<RdmapRxControl.RecvPost> recv;
        public final Stream<Setup> setup;
        public final Stream<StagProgram> stagProgram;
        public final Stream<UInt> stagInvalidate;
        public final Flow<Bool> stagInvalidateDone;
        public final Stream<RdmapRxControl.Event> events;
        /** Sticky: a memory access of a placement, fetch or atomic got an error response. */
        public final Bool memoryError;

        public Io(DdpConfig config) {
            this.config = config;
            DdpConfig c = config;
            rx = field("rx", Streams.slaveStream(() -> new DdpBeat(c)));
            tx = field("tx", Streams.masterStream(() -> new DdpBeat(c)));
            axi = field("axi", MemoryPort.master(c.dataWidth()));
            requests = field("requests", Streams.slaveStream(() -> new RdmapTxRequester.WorkRequest(c)));
            recv = field("recv", Streams.slaveStream(() -> new RdmapRxControl.RecvPost(c)));
            setup = field("setup", Streams.slaveStream(() -> new Setup(c)));
            stagProgram = field("stagProgram", Streams.slaveStream(() -> new StagProgram(c)));
            stagInvalidate = field("stagInvalidate", Streams.slaveStream(() -> uint(32)));
            stagInvalidateDone = field("stagInvalidateDone", spinal.lib.master$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(spinal.core.Bool::new))));
            events = field("events", Streams.masterStream(() -> new RdmapRxControl.Event(c)));
            memoryError = field("memoryError", out(bool()));
        }
    }

    public final DdpConfig config;
    public final Io io;
    public final DdpRxHeader header;
    public final RdmapRxControl control;
    public final DdpTagValidator validator;
    public final DdpPlacer placer;
    public final RdmapTxRequester requester;
    public final RdmapResponder responder;
    public final RdmapAtomicEngine atomic;
    public final DdpSegmentBuilder builder;
    public final MemoryArbiter memory;
    public final RdmapCompletionOrder order;

    public RdmapEngine(DdpConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        header = child("header", () -> new DdpRxHeader(c));
        control = child("control", () -> new RdmapRxControl(c));
        validator = child("validator", () -> new DdpTagValidator(c, DdpTagValidator.DEFAULT_TAG_WIDTH));
        placer = child("placer", () -> new DdpPlacer(c, DdpPlacer.DEFAULT_TAG_WIDTH));
        requester = child("requester", () -> new RdmapTxRequester(c));
        responder = child("responder", () -> new RdmapResponder(c));
        atomic = child("atomic", () -> new RdmapAtomicEngine(c));
        builder = child("builder", () -> new DdpSegmentBuilder(c, DdpSegmentBuilder.DEFAULT_TAG_WIDTH));
        memory = child("memory", () -> new MemoryArbiter(c.dataWidth()));

        // ---- receive ----
        Streams.connect(io.rx, header.io.input);
        Streams.connect(header.io.header, control.io.header);
        // Synchronous read (latency 2): a buffer of this size must map to block RAM, not LUTs.
        Stream<DdpBeat> payload = Streams.fifo(header.io.output, PAYLOAD_DEPTH, 2);
        Streams.connect(payload, placer.io.segment);
        // Segments the placer has taken whole: what the receive side waits for before a Terminate or a response.
        UInt inBeat = regInit("rxBeat", uint(16), U(0, 16));
        Bool inLast = wire("rxLastBeat", DdpBeat.isLastBeat(inBeat, payload.payload().length, c.octets()));
        when(payload.fire(), () -> set(inBeat, mux(inLast, U(0, 16), add(inBeat, U(1, 16)))));
        set(control.io.consumed, and(payload.fire(), inLast));

        Streams.connect(control.io.check, validator.io.check);
        Streams.connect(validator.io.result, control.io.checkResult);
        Streams.connect(io.stagProgram, validator.io.program);
        Streams.connect(io.stagInvalidate, validator.io.invalidate);
        set(io.stagInvalidateDone.valid(), validator.io.invalidateDone.valid());
        set(io.stagInvalidateDone.payload(), validator.io.invalidateDone.payload());

        Streams.connect(control.io.place, placer.io.cmd);
        set(placer.io.done.ready(), True());
        set(control.io.placed, placer.io.done.fire());

        Streams.connect(io.recv, control.io.recv);
        Streams.connect(requester.io.outstanding, control.io.outstanding);
        Streams.connect(control.io.jobs, responder.io.jobs);
        Streams.connect(control.io.terminates, responder.io.terminates);
        Streams.connect(responder.io.atomic, atomic.io.job);
        Streams.connect(atomic.io.done, responder.io.atomicDone);

        // ---- setup, fanned out (every receiver is always ready) ----
        Setup su = io.setup.payload();
        set(io.setup.ready(), True());
        set(control.io.setup.valid(), io.setup.valid());
        set(control.io.setup.payload().qp, su.qp);
        set(control.io.setup.payload().open, su.open);
        set(control.io.setup.payload().pd, su.pd);
        set(control.io.setup.payload().ird, su.ird);
        for (RdmapTxRequester.TxSetup ts : new RdmapTxRequester.TxSetup[] {requester.io.setup.payload(),
                responder.io.setup.payload()}) {
            set(ts.qp, su.qp);
            set(ts.mulpdu, su.mulpdu);
            set(ts.ord, su.ord);
        }
        set(requester.io.setup.valid(), io.setup.valid());
        set(responder.io.setup.valid(), io.setup.valid());

        // ---- transmit ----
        // One message at a time per source: once a source's segment without L has gone, that source keeps the
        // builder until its L=1 segment (DDP-21). The responder goes first and its Terminates cut in at any segment
        // boundary. A QP whose receive side has failed sends nothing but its Terminate, and nothing after it
        // (RFC 5040 §5.4); its other segments are discarded here.
        Streams.connect(io.requests, requester.io.requests);
        Stream<DdpSegmentBuilder.Command> fromResponder = responder.io.segments;
        Stream<DdpSegmentBuilder.Command> fromRequester = requester.io.segments;
        UInt lock = regInit("txLock", uint(2), U(0, 2));
        Bool responderTerminate = wire("responderTerminate", eq(range(fromResponder.payload().header, 15, 8),
                B(rnic.wire.RdmapOpcode.TERMINATE.control(), 8)));
        Bool pickResponder = wire("pickResponder", and(fromResponder.valid(),
                or(neq(lock, U(2, 2)), responderTerminate)));
        Bool pickRequester = wire("pickRequester", and(not(pickResponder), fromRequester.valid(),
                neq(lock, U(1, 2))));
        DdpSegmentBuilder.Command chosen = wire("chosen",
                new DdpSegmentBuilder.Command(DdpSegmentBuilder.DEFAULT_TAG_WIDTH, c.qpBits()));
        set(chosen, mux(pickResponder, fromResponder.payload(), fromRequester.payload()));
        Bool isTerminate = wire("isTerminate", and(pickResponder, responderTerminate));
        java.util.List<Bool> dead = new java.util.ArrayList<>();
        for (int q = 0; q < c.qpCount(); q++) {
            dead.add(regInit("txDead_" + q, bool(), False()));
        }
        Bool discard = wire("discard", or(vec(dead).apply(chosen.qp),
                and(control.io.failed.apply(chosen.qp), not(isTerminate))));
        Stream<DdpSegmentBuilder.Command> toBuilder = builder.io.cmd;
        Bool any = wire("anyPicked", or(pickResponder, pickRequester));
        set(toBuilder.valid(), and(any, not(discard)));
        set(toBuilder.payload(), chosen);
        Bool taken = wire("taken", and(any, or(toBuilder.ready(), discard)));
        set(fromResponder.ready(), and(pickResponder, taken));
        set(fromRequester.ready(), and(pickRequester, taken));
        Bool lastOfMessage = wire("lastOfMessage", chosen.header.apply(6));
        when(taken, () -> set(lock, mux(or(lastOfMessage, isTerminate), U(0, 2),
                mux(pickResponder, U(1, 2), U(2, 2)))));
        for (int q = 0; q < c.qpCount(); q++) {
            final int qp = q;
            when(and(toBuilder.fire(), isTerminate, eq(chosen.qp, U(qp, c.qpBits()))),
                    () -> set(dead.get(qp), True()));
            when(and(io.setup.valid(), eq(su.qp, U(qp, c.qpBits()))), () -> set(dead.get(qp), False()));
        }
        // A segment already built when its QP failed is dropped at the output, decided at its first beat: the
        // Terminate is the next segment the QP sends, and the last (RFC 5040 §5.4, the golden model's decision 14).
        Stream<DdpBeat> built = builder.io.segment;
        UInt outBeat = regInit("txBeat", uint(16), U(0, 16));
        Bool dropping = regInit("txDropping", bool(), False());
        Bool firstBeat = wire("txFirstBeat", eq(outBeat, U(0, 16)));
        Bool builtTerminate = wire("builtTerminate", eq(range(built.payload().data, 15, 8),
                B(rnic.wire.RdmapOpcode.TERMINATE.control(), 8)));
        // Once shown on tx, a beat stays until taken (the stream contract): only a first beat not yet shown is dropped.
        Bool shown = regInit("txShown", bool(), False());
        Bool dropThis = wire("txDrop", mux(firstBeat, and(control.io.failed.apply(built.payload().qp),
                not(builtTerminate), not(shown)), dropping));
        Bool builtLast = wire("txLastBeat", DdpBeat.isLastBeat(outBeat, built.payload().length, c.octets()));
        set(io.tx.valid(), and(built.valid(), not(dropThis)));
        set(io.tx.payload(), built.payload());
        set(built.ready(), or(io.tx.ready(), dropThis));
        // A response holds its IRD slot until the first beat of its last segment is shown on tx (an Atomic Response is
        // one segment): held while it waits in the builder, so a peer exceeding IRD is caught however far ahead the
        // builder has read, and from that beat on the segment is committed.
        Bits head = built.payload().data;
        Bool lastResponse = wire("lastResponseOut", or(and(eq(range(head, 11, 8), B(2, 4)), head.apply(6),
                head.apply(7)), eq(range(head, 11, 8), B(0xB, 4))));
        set(control.io.irdRelease.valid(), and(io.tx.valid(), firstBeat, not(shown), lastResponse));
        set(control.io.irdRelease.payload(), built.payload().qp);
        set(shown, and(io.tx.valid(), not(io.tx.ready())));
        when(built.fire(), () -> {
            set(outBeat, mux(builtLast, U(0, 16), add(outBeat, U(1, 16))));
            set(dropping, and(dropThis, not(builtLast)));
        });
        set(builder.io.done.ready(), True());

        // ---- memory ----
        memory.io.placer.$less$less(placer.io.axi);
        memory.io.builder.$less$less(builder.io.axi);
        memory.io.atomic.$less$less(atomic.io.axi);
        io.axi.$less$less(memory.io.axi);
        Bool memoryError = regInit("memoryErrorSticky", bool(), False());
        when(or(and(placer.io.done.fire(), placer.io.done.payload().error),
                and(builder.io.done.fire(), builder.io.done.payload().error),
                and(atomic.io.done.fire(), atomic.io.done.payload().error)), () -> set(memoryError, True()));
        set(io.memoryError, memoryError);

        // ---- events: the receive side's own, and the requester's completions in submission order per QP ----
        order = child("order", () -> new RdmapCompletionOrder(c));
        Stream<RdmapRxControl.Event> rxAll = control.io.events;
        Bool isReadDone = wire("isReadDone", eq(rxAll.payload().kind, U(RxEventKind.READ_DONE.code(), 3)));
        Stream<RdmapRxControl.Event> rxEv = wire("rxEvents", Streams.stream(() -> new RdmapRxControl.Event(c)));
        set(rxEv.valid(), and(rxAll.valid(), not(isReadDone)));
        set(rxEv.payload(), rxAll.payload());
        set(order.io.readDone.valid(), and(rxAll.valid(), isReadDone));
        set(order.io.readDone.payload(), rxAll.payload());
        set(rxAll.ready(), mux(isReadDone, order.io.readDone.ready(), rxEv.ready()));
        Streams.connect(responder.io.events, order.io.atomicDone);
        Stream<RdmapTxRequester.Completion> sent = requester.io.completions;
        RdmapCompletionOrder.Submitted sub = wire("submitted", new RdmapCompletionOrder.Submitted(c));
        RdmapTxRequester.Completion done = sent.payload();
        set(sub.qp, done.qp);
        set(sub.kind, done.kind);
        set(sub.event.kind, mux(eq(done.kind, U(RdmapCompletionOrder.READ, 2)), U(RxEventKind.READ_DONE.code(), 3),
                mux(eq(done.kind, U(RdmapCompletionOrder.ATOMIC, 2)), U(RxEventKind.ATOMIC_DONE.code(), 3),
                        U(RxEventKind.SEND_DONE.code(), 3))));
        set(sub.event.qp, done.qp);
        set(sub.event.wrId, done.wrId);
        set(sub.event.length, done.length);
        set(sub.event.info, B(0, 64));
        set(sub.event.cause, U(0, RdmapRxControl.CAUSE_BITS));
        set(sub.event.opcode, done.opcode);
        set(sub.event.stag, B(0, 32));
        Streams.connect(Streams.translateWith(sent, sub), order.io.submitted);
        Streams.connect(order.io.ordRelease, requester.io.ordRelease);

        // Fixed priority, but a shown event stays until taken (the grant is kept while it waits).
        Stream<RdmapRxControl.Event> ordered = order.io.completions;
        Stream<RdmapRxControl.Event> out = io.events;
        Bool evHeld = regInit("eventsHeldOrdered", bool(), False());
        Bool evWaiting = regInit("eventsWaiting", bool(), False());
        Bool pickOrdered = wire("eventsPickOrdered", mux(evWaiting, evHeld, not(rxEv.valid())));
        set(out.valid(), mux(pickOrdered, ordered.valid(), rxEv.valid()));
        set(out.payload(), mux(pickOrdered, ordered.payload(), rxEv.payload()));
        set(rxEv.ready(), and(out.ready(), not(pickOrdered)));
        set(ordered.ready(), and(out.ready(), pickOrdered));
        set(evWaiting, and(out.valid(), not(out.ready())));
        set(evHeld, pickOrdered);
    }
}
