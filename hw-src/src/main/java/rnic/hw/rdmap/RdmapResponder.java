package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.ddp.DdpSegmentBuilder;
import rnic.wire.Ddp;
import rnic.wire.DdpQueue;
import rnic.wire.Rdmap;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Stream;

/**
 * The responder half of the RDMAP transmit side: answers what the receive side accepted, strictly in the order it
 * was accepted, and sends its Terminates (RFC 5040 §4.4–§4.8, §5.2, §7; RFC 7306 §5, §7, §8; docs/requirements.md §2.7,
 * §2.8.4, RDMAP-09…RDMAP-11, RDMAP-14…RDMAP-16, RDMAP-35…RDMAP-38).
 *
 * <ul>
 * <li><b>Read Request</b> → Read Response segments to the Data Sink STag with the TO advancing, payload fetched from
 * the validated Data Source address, each within the QP's MULPDU; RDMARDSZ = 0 gives one empty L=1 segment. (The IRD
 * slot is freed when the last segment leaves the engine: {@link RdmapEngine}.)</li>
 * <li><b>Atomic Request</b> → the read-modify-write by the atomic engine ({@code atomic} / {@code atomicDone}), then the
 * Atomic Response on queue 3 (MSN counting Atomic Responses from 1) with the Request Identifier and the original
 * value big-endian. Jobs are taken one at a time, so a second Atomic is not processed
 * until the first one's response is generated, and a Read Response after an Atomic waits for it (RFC 7306 §7).</li>
 * <li><b>Store</b> (an Atomic Response this side received) → the engine writes the original value to the requester's
 * local address, then ATOMIC_DONE is reported ({@code events}).</li>
 * <li><b>Terminate</b>: the Terminate header of the cause (Layer/EType/Error Code, HdrCt M/D/R from
 * {@link TerminateCause}), with the failing segment's length and DDP header (14 or 18 octets by its T flag) when D is
 * set, and its Read Request header when R is set, on queue 2 with MSN 1 and MO 0 (RFC 5040 §4.8, docs/requirements.md §2.7.2);
 * an MPA error's ({@link RdmapRxControl#LLP_CAUSE_BASE}) is Layer LLP, EType 0, its MPA Error Code, no headers (§3.1).
 * Terminates go before jobs.</li>
 * </ul>
 */
public final class RdmapResponder extends HwComponent {
    /** Atomic engine operations. */
    public static final int OP_FETCH_ADD = 0;
    public static final int OP_CMP_SWAP = 2;
    /** Not an AOpCode: write {@code data} little-endian at the address. */
    public static final int OP_STORE = 15;

    /** One operation for the atomic engine. */
    public static final class AtomicJob extends HwBundle {
        public final UInt op;
        public final UInt address;
        public final Bits data;
        public final Bits mask;
        public final Bits compareData;
        public final Bits compareMask;

        public AtomicJob() {
            op = field("op", uint(4));
            address = field("address", uint(64));
            data = field("data", bits(64));
            mask = field("mask", bits(64));
            compareData = field("compareData", bits(64));
            compareMask = field("compareMask", bits(64));
        }
    }

    /** The engine's answer: the value read before the operation (0 for a store), and a memory error. */
    public static final class AtomicDone extends HwBundle {
        public final Bits original;
        public final Bool error;

        public AtomicDone() {
            original = field("original", bits(64));
            error = field("error", bool());
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final Stream<RdmapRxControl.Job> jobs;
        public final Stream<RdmapRxControl.TerminateJob> terminates;
        public final Stream<DdpSegmentBuilder.Command> segments;
        public final Stream<AtomicJob> atomic;
        public final Stream<AtomicDone> atomicDone;
        public final Stream<RdmapRxControl.Event> events;
        public final Stream<RdmapTxRequester.TxSetup> setup;

        public Io(DdpConfig c) {
            jobs = field("jobs", Streams.slaveStream(() -> new RdmapRxControl.Job(c)));
            terminates = field("terminates", Streams.slaveStream(() -> new RdmapRxControl.TerminateJob(c)));
            segments = field("segments", Streams.masterStream(
                    () -> new DdpSegmentBuilder.Command(DdpSegmentBuilder.DEFAULT_TAG_WIDTH, c.qpBits())));
            atomic = field("atomic", Streams.masterStream(AtomicJob::new));
            atomicDone = field("atomicDone", Streams.slaveStream(AtomicDone::new));
            events = field("events", Streams.masterStream(() -> new RdmapRxControl.Event(c)));
            setup = field("setup", Streams.slaveStream(() -> new RdmapTxRequester.TxSetup(c)));
        }
    }

    public final DdpConfig config;
    public final Io io;

    public RdmapResponder(DdpConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        int qps = c.qpCount();
        int qb = c.qpBits();

        List<UInt> mulpdu = new ArrayList<>();
        List<UInt> msn3 = new ArrayList<>();
        for (int q = 0; q < qps; q++) {
            mulpdu.add(regInit("mulpdu_" + q, uint(16), U(128, 16)));
            msn3.add(regInit("msn3_" + q, uint(32), U(1, 32)));
        }
        set(io.setup.ready(), True());
        for (int p = 0; p < qps; p++) {
            final int qp = p;
            when(and(io.setup.valid(), eq(io.setup.payload().qp, U(qp, qb))), () -> {
                set(mulpdu.get(qp), io.setup.payload().mulpdu);
                set(msn3.get(qp), U(1, 32));
            });
        }

        // ---- Terminates ----
        RdmapRxControl.TerminateJob t = io.terminates.payload();
        Bits layerEtype = wire("termLayerEtype", B(0, 8));
        Bits code = wire("termCode", B(0, 8));
        Bool m = wire("termM", False());
        Bool d = wire("termD", False());
        Bool r = wire("termR", False());
        for (TerminateCause tc : TerminateCause.values()) {
            when(eq(t.cause, U(RdmapRxControl.causeCode(tc), RdmapRxControl.CAUSE_BITS)), () -> {
                set(layerEtype, B(tc.layerEtype(), 8));
                set(code, B(tc.code(), 8));
                set(m, tc.m() ? True() : False());
                set(d, tc.d() ? True() : False());
                set(r, tc.r() ? True() : False());
            });
        }
        // An MPA error of the QP's connection: Layer LLP, EType 0, no headers (docs/requirements.md §3.1, §3.4).
        for (rnic.wire.MpaErrorCode mc : rnic.wire.MpaErrorCode.values()) {
            when(eq(t.cause, U(RdmapRxControl.llpCauseCode(mc), RdmapRxControl.CAUSE_BITS)), () -> {
                set(layerEtype, B(mc.layerEtype(), 8));
                set(code, B(mc.code(), 8));
            });
        }
        Bool failedTagged = wire("failedTagged", t.octets.apply(7));
        Bits copied = range(t.octets, 8 * 18 - 1, 0);
        Bits rdmaHeader = range(t.octets, 8 * RdmapRxControl.TERMINATE_COPY_OCTETS - 1, 8 * 18);
        Bits hdrct = wire("hdrct", cat(m, d, r, B(0, 5)));
        HeaderOctets base = termBase(layerEtype, code, hdrct);
        HeaderOctets withTagged = termBase(layerEtype, code, hdrct).put(22, t.segmentLength)
                .putOctets(24, range(copied, 8 * 14 - 1, 0));
        HeaderOctets withUntagged = termBase(layerEtype, code, hdrct).put(22, t.segmentLength).putOctets(24, copied);
        HeaderOctets withRead = termBase(layerEtype, code, hdrct).put(22, t.segmentLength).putOctets(24, copied)
                .putOctets(42, rdmaHeader);
        Bits termHeader = wire("termHeader", mux(not(d), base.bits(), mux(r, withRead.bits(),
                mux(failedTagged, withTagged.bits(), withUntagged.bits()))));
        UInt termLength = wire("termLength", mux(not(d), U(22, 7), mux(r, U(70, 7),
                mux(failedTagged, U(38, 7), U(42, 7)))));

        // ---- jobs, one at a time ----
        RdmapRxControl.Job j = io.jobs.payload();
        Bool isRead = wire("isRead", eq(j.kind, U(RdmapRxControl.JOB_READ, 2)));
        Bool isAtomic = wire("isAtomic", eq(j.kind, U(RdmapRxControl.JOB_ATOMIC, 2)));
        Bool isStore = wire("isStore", eq(j.kind, U(RdmapRxControl.JOB_STORE, 2)));
        UInt offset = regInit("offset", uint(32), U(0, 32));
        Bool engineSent = regInit("engineSent", bool(), False());
        Bits original = reg("original", bits(64));
        Bool engineDone = regInit("engineDone", bool(), False());

        UInt maxPayload = wire("maxPayload", sub(vec(mulpdu).apply(j.qp), U(Ddp.TAGGED_HEADER_SIZE, 16)).resize(32));
        UInt remaining = wire("remaining", sub(j.size, offset));
        Bool lastRead = wire("lastRead", le(remaining, maxPayload));
        UInt readPayload = wire("readPayload", mux(lastRead, remaining, maxPayload));
        Bits readCtrl = wire("readCtrl", cat(True(), lastRead, B(0, 4), B(Ddp.VERSION, 2)));
        HeaderOctets readResp = new HeaderOctets().put(0, readCtrl)
                .put(1, RdmapOpcode.RDMA_READ_RESPONSE.control()).put(2, j.sinkStag)
                .put(6, add(j.sinkTo, offset.resize(64)));
        UInt qpMsn3 = wire("qpMsn3", vec(msn3).apply(j.qp));
        HeaderOctets atomicResp = new HeaderOctets().put(0, Ddp.L_FLAG | Ddp.VERSION)
                .put(1, RdmapOpcode.ATOMIC_RESPONSE.control()).put(6, U(DdpQueue.ATOMIC_RESPONSE.qn(), 32))
                .put(10, qpMsn3).put(18, j.reqId).put(22, original);

        // The engine: issued once per atomic/store job, its answer kept until the job finishes.
        AtomicJob aj = io.atomic.payload();
        set(io.atomic.valid(), and(io.jobs.valid(), or(isAtomic, isStore), not(engineSent)));
        set(aj.op, mux(isStore, U(OP_STORE, 4), j.aop));
        set(aj.address, j.address);
        set(aj.data, j.data);
        set(aj.mask, j.mask);
        set(aj.compareData, j.compareData);
        set(aj.compareMask, j.compareMask);
        when(io.atomic.fire(), () -> set(engineSent, True()));
        set(io.atomicDone.ready(), not(engineDone));
        when(io.atomicDone.fire(), () -> {
            set(engineDone, True());
            set(original, io.atomicDone.payload().original);
        });

        // Output selection: a Terminate first, else the job's segment (Read Response or Atomic Response).
        Bool termGo = wire("termGo", io.terminates.valid());
        Bool readGo = wire("readGo", and(io.jobs.valid(), isRead));
        Bool atomicGo = wire("atomicGo", and(io.jobs.valid(), isAtomic, engineDone));
        Bool storeGo = wire("storeGo", and(io.jobs.valid(), isStore, engineDone));
        DdpSegmentBuilder.Command seg = io.segments.payload();
        set(seg.tag, B(0, DdpSegmentBuilder.DEFAULT_TAG_WIDTH));
        set(io.segments.valid(), or(termGo, readGo, atomicGo));
        set(seg.qp, mux(termGo, t.qp, j.qp));
        set(seg.header, mux(termGo, termHeader, mux(isRead, readResp.bits(), atomicResp.bits())));
        set(seg.headerLength, mux(termGo, termLength, mux(isRead, U(Ddp.TAGGED_HEADER_SIZE, 7),
                U(Ddp.UNTAGGED_HEADER_SIZE + Rdmap.ATOMIC_RESPONSE_HEADER_SIZE, 7))));
        set(seg.address, add(j.address, offset.resize(64)));
        set(seg.payloadLength, mux(and(not(termGo), isRead), readPayload.resize(16), U(0, 16)));
        set(io.terminates.ready(), io.segments.ready());

        Bool jobSegment = wire("jobSegment", and(io.segments.fire(), not(termGo)));
        Bool finishesRead = wire("finishesRead", and(jobSegment, isRead, lastRead));
        Bool finishesAtomic = wire("finishesAtomic", and(jobSegment, isAtomic));
        // A store finishes when its event is taken (the ORD slot is freed when the host takes that event).
        Bool storeOut = wire("storeOut", and(storeGo, io.events.ready()));
        set(io.events.valid(), storeGo);
        RdmapRxControl.Event ev = io.events.payload();
        set(ev.kind, U(RxEventKind.ATOMIC_DONE.code(), 3));
        set(ev.qp, j.qp);
        set(ev.wrId, j.wrId);
        set(ev.length, U(8, 32));
        set(ev.info, j.data);
        set(ev.cause, U(0, RdmapRxControl.CAUSE_BITS));
        set(ev.opcode, U(RdmapOpcode.ATOMIC_RESPONSE.code(), 4));
        set(ev.stag, B(0, 32));

        Bool jobDone = wire("jobDone", or(finishesRead, finishesAtomic, storeOut));
        set(io.jobs.ready(), jobDone);
        when(and(jobSegment, isRead), () -> set(offset, mux(lastRead, U(0, 32), add(offset, readPayload))));
        when(jobDone, () -> {
            set(engineSent, False());
            set(engineDone, False());
        });
        for (int p = 0; p < qps; p++) {
            final int qp = p;
            when(and(finishesAtomic, eq(j.qp, U(qp, qb))), () -> set(msn3.get(qp), add(msn3.get(qp), U(1, 32))));
        }
    }

    /** The Terminate's own DDP header and its Terminate Control (RFC 5040 §4.8; docs/requirements.md §2.7.2). */
    private static HeaderOctets termBase(Bits layerEtype, Bits code, Bits hdrct) {
        return new HeaderOctets().put(0, Ddp.L_FLAG | Ddp.VERSION).put(1, RdmapOpcode.TERMINATE.control())
                .put(6, U(DdpQueue.TERMINATE.qn(), 32)).put(10, U(Ddp.FIRST_MSN, 32)).put(18, layerEtype)
                .put(19, code).put(20, hdrct);
    }
}
