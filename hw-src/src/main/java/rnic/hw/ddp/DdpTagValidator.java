package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.Mem;
import spinal.core.UInt;
import spinal.core.dontCare$;
import spinal.lib.Flow;
import spinal.lib.Flow$;
import spinal.lib.Stream;
import spinal.lib.master$;

/**
 * The STag table and the memory-protection checks of remote access on the receive side (RFC 5041 §7.1, §8.2–§8.3;
 * RFC 5040 §7.2, §8.1; RFC 7306 §8–§9; DDP-19, DDP-30, DDP-33, DDP-34, RDMAP-09, RDMAP-13, RDMAP-19, RDMAP-26,
 * RDMAP-34, RDMAP-44): one check per cycle, deciding exactly as the golden model {@code rnic.model.ddp.StagTable}.
 *
 * <p><b>Checks.</b> A {@link TagRequest} on {@code check} is answered by one {@link TagResult} on {@code result}, in
 * request order, with the first failing check of the model's order (its {@link TagFault}): the STag is valid (index
 * inside the table, entry valid, key equal); the entry's PD is the stream's and, when bound, its QP the stream's; the
 * entry grants the right of the {@link TagOp}; the TO lies in [firstTo, firstTo + region length), firstTo being 0
 * for a zero-based region and {@code va} for a VA-based one; TO + access length does not carry out of 64 bits (a sum
 * of exactly 2^64 wraps); TO + access length does not pass firstTo + region length; for an ATOMIC (access length 8)
 * the host address is a multiple of 8. A PLACE or READ of length 0 is
 * not checked at all and passes (DDP-19, RDMAP-09). The host address is {@code va + to} zero-based, {@code to}
 * VA-based. An INVALIDATE fails INVALID when the STag is not valid (Terminate 0/2/09) and NOT_ASSOCIATED (0/1/09) for
 * an STag of another PD or QP or one not bound to a QP at all (shared by the PD's streams, which a remote peer must not
 * invalidate: RFC 5040 §8.1.1 item 7), and otherwise clears the entry. {@link TagFault#cause} maps (op, fault) to the Terminate.
 *
 * <p><b>Host ports.</b> {@code program} writes one entry (registration, or deregistration with {@code valid} clear);
 * {@code invalidate} takes an STag and clears its entry when the index and key match and it is valid, reporting
 * whether it was on {@code invalidateDone} (a Flow: one beat per invalidate, two cycles after it is taken; the host
 * side must always take it).
 *
 * <p><b>Order.</b> Every input goes through one in-order pipeline, at most one per cycle, and every write to the table
 * (program, local invalidate, remote INVALIDATE) is made by stage 1 in pipeline order. So an operation taken after
 * another sees its effect, whatever the ports: a check taken after a program or invalidate sees the new entry, a check
 * taken after a remote INVALIDATE of its STag sees it invalid. Arbitration is fixed priority, {@code program} over
 * {@code invalidate} over {@code check}: the host ports are rare and short, and registration changes should not wait
 * behind a long run of checks. (A host writing every cycle would starve the checks; host writes are expected to be
 * far rarer.)
 *
 * <p><b>Storage.</b> The table is a SpinalHDL {@link Mem} of {@link StagEntry} (valid, key, PD, QP binding, rights,
 * zero-based, VA and the exact end TO) with one synchronous read port and one write port, so it maps onto block RAM at
 * any size up to 4096 entries. A read is made in the cycle an operation is taken; the write of the operation ahead of
 * it (in stage 1) lands on the same clock edge, so the memory returns the old entry. That write is kept in a register
 * ({@code written}), and whether it hit the index read is decided in the same cycle and registered ({@code forward}),
 * so stage 1 only selects. No other write can be missed: the table is written only when stage 1 moves on, which is
 * exactly when the next read is made, and nothing is written while an operation waits in stage 1. Block RAM has no
 * reset, so after reset the validator spends {@code stagCount} cycles writing every entry invalid, with all inputs not
 * ready.
 *
 * <p><b>Pipeline</b> ({@value #LATENCY} cycles from a check being taken to its result being presented). Stage 1 (the
 * table read and the registers of the request) selects the forwarded or read entry, compares key, PD and QP, selects
 * the right, adds TO + length (65 bits, from the request registers) and makes the table write: a few LUT levels
 * behind the block RAM's output. Stage 2 runs the range comparisons TO &lt; va, TO ≥ end and TO + length &gt; end and
 * the address addition in parallel, each one carry chain from registers, and encodes the first fault. Stage 3 is the
 * result register. Each stage takes a new operation when it is empty or its content moves on
 * ({@code free = !valid || next free}), so with {@code result.ready} high one operation is taken every cycle and
 * back-pressure stalls the pipeline without losing or reordering anything. Program and invalidate operations leave
 * the pipeline after stage 1 and never wait for {@code result}. Measured (DdpTagValidatorTest): N checks queued at
 * once at full rate take N + {@value #LATENCY} + 1 cycles to the last result taken (one cycle for the source to
 * present the first, N to take them, {@value #LATENCY} to the last result); N checks mixed with H host operations
 * take N + H + {@value #LATENCY} + 1.
 *
 * <p><b>Measured</b> with yosys 0.23 + nextpnr-ice40 0.4 on an iCE40 HX8K (ct256), default configuration (64 STags,
 * 4 QPs, 16-bit PDs, 16-bit tag): 1203 LUT4, 389 SB_CARRY, 1178 flip-flops and 11 SB_RAM40_4K (the 64 × 161-bit
 * table). With its ports fed from a shift register and its outputs XOR-folded into one registered pin, it reaches 56.3,
 * 60.3 and 56.2 MHz over placer seeds 1 to 3. The critical path is one 64-bit carry chain of stage 2 (about 12 ns of
 * the 17.7 ns) and the fault encoding; stage 1 is shorter (block RAM output, forwarding select, key/PD/QP compare,
 * write enable). A faster clock would split the range comparisons at bit 32 across one more stage.
 */
public final class DdpTagValidator extends HwComponent {
    /** Cycles from a check being taken to its result being presented. */
    public static final int LATENCY = 3;
    /** The tag width {@code ./rnic generate} builds. */
    public static final int DEFAULT_TAG_WIDTH = 16;

    /** Ports; no prefix, so {@code check_valid}, {@code result_payload_fault}, {@code program_payload_va}, … */
    public static final class Io extends HwBundle {
        public final DdpConfig cfg;
        public final int tagWidth;
        /** Checks to make, PLACE / READ / ATOMIC / INVALIDATE. */
        public final Stream<TagRequest> check;
        /** One verdict per check, in order. */
        public final Stream<TagResult> result;
        /** Entry writes from the host. */
        public final Stream<StagProgram> program;
        /** Local invalidations from the host: the STag to invalidate. */
        public final Stream<UInt> invalidate;
        /** One per local invalidation: whether the STag was valid (and is no longer). */
        public final Flow<Bool> invalidateDone;

        public Io(DdpConfig cfg, int tagWidth) {
            this.cfg = cfg;
            this.tagWidth = tagWidth;
            check = field("check", Streams.slaveStream(() -> new TagRequest(cfg, tagWidth)));
            result = field("result", Streams.masterStream(() -> new TagResult(tagWidth)));
            program = field("program", Streams.slaveStream(() -> new StagProgram(cfg)));
            invalidate = field("invalidate", Streams.slaveStream(() -> uint(32)));
            invalidateDone = field("invalidateDone",
                    master$.MODULE$.apply(Flow$.MODULE$.apply(hardType(() -> bool()))));
        }
    }

    /** The registers of stage 1: the operation taken, and for a program the entry to write. */
    public static final class Stage1 extends HwBundle {
        public final DdpConfig cfg;
        public final int tagWidth;
        /** A program (host write of {@code entry} at {@code index}). */
        public final Bool program;
        /** A local invalidate of the STag {@code index}/{@code key}. */
        public final Bool invalidate;
        public final UInt index;
        public final UInt key;
        /** STag bits 31:8 fit the table. */
        public final Bool inRange;
        public final UInt op;
        public final UInt to;
        public final UInt length;
        public final UInt pd;
        public final UInt qp;
        public final Bits tag;
        public final StagEntry entry;

        public Stage1(DdpConfig cfg, int tagWidth) {
            this.cfg = cfg;
            this.tagWidth = tagWidth;
            program = field("program", bool());
            invalidate = field("invalidate", bool());
            index = field("index", uint(cfg.stagIndexBits()));
            key = field("key", uint(DdpConfig.KEY_BITS));
            inRange = field("inRange", bool());
            op = field("op", uint(2));
            to = field("to", uint(64));
            length = field("length", uint(32));
            pd = field("pd", uint(cfg.pdWidth()));
            qp = field("qp", uint(cfg.qpBits()));
            tag = field("tag", bits(tagWidth));
            entry = field("entry", new StagEntry(cfg));
        }
    }

    /** The registers of stage 2: the outcome of the lookup checks, and the operands of the range checks. */
    public static final class Stage2 extends HwBundle {
        public final int tagWidth;
        public final Bits tag;
        public final Bool invalidateOp;
        public final Bool atomicOp;
        /** A PLACE or READ of length 0: not checked. */
        public final Bool zeroLength;
        public final Bool invalid;
        public final Bool notAssociated;
        public final Bool noRight;
        public final UInt to;
        /** TO + length, 65 bits: bit 64 is the wrap. */
        public final UInt sum;
        public final Bool zeroBased;
        public final UInt va;
        public final UInt end;

        public Stage2(int tagWidth) {
            this.tagWidth = tagWidth;
            tag = field("tag", bits(tagWidth));
            invalidateOp = field("invalidateOp", bool());
            atomicOp = field("atomicOp", bool());
            zeroLength = field("zeroLength", bool());
            invalid = field("invalid", bool());
            notAssociated = field("notAssociated", bool());
            noRight = field("noRight", bool());
            to = field("to", uint(64));
            sum = field("sum", uint(65));
            zeroBased = field("zeroBased", bool());
            va = field("va", uint(64));
            end = field("end", uint(65));
        }
    }

    public final DdpConfig cfg;
    public final int tagWidth;
    public final Io io;
    /** The STag table. */
    public final Mem<StagEntry> stags;
    /** Writing every entry invalid after reset; no input is taken meanwhile. */
    public final Bool sweeping;
    /** The entry stage 1 decides on: the table read, or the write made on the clock edge of that read. */
    public final StagEntry entry;
    /** The first failing check of the operation in stage 2, as a {@link TagFault} code. */
    public final UInt fault;

    public DdpTagValidator(DdpConfig cfg, int tagWidth) {
        if (tagWidth < 1) {
            throw new IllegalArgumentException("tag width must be at least 1, got " + tagWidth);
        }
        this.cfg = cfg;
        this.tagWidth = tagWidth;
        noIoPrefix(); // before io(...): the bundle is then named "" and its ports carry no io_ prefix
        io = io(new Io(cfg, tagWidth));
        int ib = cfg.stagIndexBits();
        int kb = DdpConfig.KEY_BITS;
        stags = field("stags", new Mem<>(hardType(() -> new StagEntry(cfg)), cfg.stagCount()));

        // Reset sweep: block RAM has no reset.
        sweeping = regInit("sweeping", bool(), True());
        UInt sweepIndex = regInit("sweepIndex", uint(ib), U(0, ib));
        when(sweeping, () -> {
            set(sweepIndex, add(sweepIndex, U(1, ib)));
            when(eq(sweepIndex, U(cfg.stagCount() - 1, ib)), () -> set(sweeping, False()));
        });

        // Pipeline control: a stage loads when it is empty or its content moves on.
        Bool s1Valid = regInit("s1Valid", bool(), False());
        Bool s2Valid = regInit("s2Valid", bool(), False());
        Bool resultValid = regInit("resultValid", bool(), False());
        Stage1 s1 = reg("s1", new Stage1(cfg, tagWidth));
        Stage2 s2 = reg("s2", new Stage2(tagWidth));
        TagResult resultData = reg("resultData", new TagResult(tagWidth));
        Bool s1Check = wire("s1Check", not(or(s1.program, s1.invalidate)));
        Bool resultFree = wire("resultFree", or(not(resultValid), io.result.ready()));
        Bool s2Free = wire("s2Free", or(not(s2Valid), resultFree));
        Bool s1Free = wire("s1Free", or(not(s1Valid), not(s1Check), s2Free));

        // Stage 0: arbitration (program, then invalidate, then check) and the table read.
        Bool open = wire("open", and(s1Free, not(sweeping)));
        set(io.program.ready(), open);
        set(io.invalidate.ready(), and(open, not(io.program.valid())));
        set(io.check.ready(), and(open, not(io.program.valid()), not(io.invalidate.valid())));
        TagRequest req = io.check.payload();
        StagProgram prog = io.program.payload();
        UInt stagIn = wire("stagIn", mux(io.invalidate.valid(), io.invalidate.payload(), req.stag));
        UInt readIndex = wire("readIndex", range(stagIn, kb + ib - 1, kb));
        StagEntry read = wire("read", stags.readSync(readIndex, s1Free, dontCare$.MODULE$, false));
        // The only write a read can miss is the one stage 1 makes on the same clock edge: decided here, registered.
        Bool commit = wire("commit", bool());
        Bool forward = reg("forward", bool());
        when(s1Free, () -> {
            set(forward, and(commit, eq(s1.index, readIndex)));
            set(s1Valid, or(io.program.fire(), io.invalidate.fire(), io.check.fire()));
            set(s1.program, io.program.valid());
            set(s1.invalidate, and(not(io.program.valid()), io.invalidate.valid()));
            set(s1.index, mux(io.program.valid(), prog.index, readIndex));
            set(s1.key, range(stagIn, kb - 1, 0));
            set(s1.inRange, eq(range(stagIn, 31, kb + ib), U(0, 32 - kb - ib)));
            set(s1.op, req.op);
            set(s1.to, req.to);
            set(s1.length, req.length);
            set(s1.pd, req.pd);
            set(s1.qp, req.qp);
            set(s1.tag, req.tag);
            set(s1.entry.valid, prog.valid);
            set(s1.entry.key, prog.key);
            set(s1.entry.pd, prog.pd);
            set(s1.entry.qpBound, prog.qpBound);
            set(s1.entry.qp, prog.qp);
            set(s1.entry.remoteWrite, prog.remoteWrite);
            set(s1.entry.remoteRead, prog.remoteRead);
            set(s1.entry.remoteAtomic, prog.remoteAtomic);
            set(s1.entry.zeroBased, prog.zeroBased);
            set(s1.entry.va, prog.va);
            set(s1.entry.end, add(mux(prog.zeroBased, U(0, 64), prog.va).resize(65), prog.length.resize(65)));
        });

        // Stage 1: the entry (forwarded when the write of the operation ahead hit the same index), the checks.
        StagEntry written = reg("written", new StagEntry(cfg));
        entry = wire("entry", new StagEntry(cfg));
        set(entry, read);
        when(forward, () -> set(entry, written));

        Bool opPlace = wire("opPlace", eq(s1.op, U(TagOp.PLACE.code(), 2)));
        Bool opRead = wire("opRead", eq(s1.op, U(TagOp.READ.code(), 2)));
        Bool opAtomic = wire("opAtomic", eq(s1.op, U(TagOp.ATOMIC.code(), 2)));
        Bool opInvalidate = wire("opInvalidate", eq(s1.op, U(TagOp.INVALIDATE.code(), 2)));
        Bool found = wire("found", and(entry.valid, eq(entry.key, s1.key), s1.inRange));
        Bool associated = wire("associated", and(eq(entry.pd, s1.pd),
                or(not(entry.qpBound), eq(entry.qp, s1.qp))));
        Bool granted = wire("granted", mux(opPlace, entry.remoteWrite,
                mux(opRead, entry.remoteRead, entry.remoteAtomic)));
        UInt len = wire("len", mux(opAtomic, U(8, 32), s1.length));
        // TO + len (65 bits) with the carry selected: the low 32 bits and TO's high half plus one side by side, the
        // low half's carry picks the high half (timing: a 33-bit carry chain instead of a 65-bit one).
        UInt lowSum = add(range(s1.to, 31, 0).resize(33), len.resize(33));
        UInt toHigh = range(s1.to, 63, 32).resize(33);
        UInt highSum = mux(lowSum.msb(), add(toHigh, U(1, 33)), toHigh);
        UInt sum = wire("sum", cat(highSum, range(lowSum, 31, 0)).asUInt());
        Bool zeroLength = wire("zeroLength", and(or(opPlace, opRead), eq(s1.length, U(0, 32))));

        // The table write: a program, a local invalidate of a valid STag, an accepted remote INVALIDATE.
        // A remote peer may invalidate only an STag bound to its own stream: one shared by the streams of a PD is
        // not invalidatable (RFC 5040 §8.1.1 item 7, RDMAP-26, E-R6).
        Bool invalidatable = wire("invalidatable", and(associated, entry.qpBound));
        Bool clears = wire("clears", and(found, or(s1.invalidate, and(s1Check, opInvalidate, invalidatable))));
        set(commit, and(s1Valid, s1Free, or(s1.program, clears)));
        StagEntry writeData = wire("writeData", new StagEntry(cfg));
        when(s1.program, () -> set(writeData, s1.entry)).otherwise(() -> set(writeData, entry));
        writeData.valid.allowOverride(); // a clear keeps the entry but its valid bit; the sweep clears it too
        set(writeData.valid, and(s1.program, s1.entry.valid, not(sweeping)));
        stags.write(mux(sweeping, sweepIndex, s1.index), writeData, or(sweeping, commit), null);
        when(commit, () -> set(written, writeData));

        Bool doneValid = regInit("doneValid", bool(), False());
        Bool doneFound = reg("doneFound", bool());
        set(doneValid, and(s1Valid, s1.invalidate));
        set(doneFound, found);
        set(io.invalidateDone.valid(), doneValid);
        set(io.invalidateDone.payload(), doneFound);

        when(s2Free, () -> {
            set(s2Valid, and(s1Valid, s1Check));
            set(s2.tag, s1.tag);
            set(s2.invalidateOp, opInvalidate);
            set(s2.atomicOp, opAtomic);
            set(s2.zeroLength, zeroLength);
            set(s2.invalid, not(found));
            set(s2.notAssociated, not(mux(opInvalidate, invalidatable, associated)));
            set(s2.noRight, not(granted));
            set(s2.to, s1.to);
            set(s2.sum, sum);
            set(s2.zeroBased, entry.zeroBased);
            set(s2.va, entry.va);
            set(s2.end, entry.end);
        });

        // Stage 2: the range checks and the address, each from registers, then the first failing check in the model's
        // order. The 64-bit compares are made as two halves side by side (timing: a 65-bit carry chain is about 8 ns
        // on an iCE40, half of that leaves room for the fault's priority behind it).
        Bool below = wire("below", and(not(s2.zeroBased), not(geHalves(s2.to, s2.va))));
        Bool above = wire("above", geHalves(s2.to.resize(65), s2.end));
        Bool wrap = wire("wrap", s2.sum.apply(64));
        Bool endOut = wire("endOut", not(geHalves(s2.end, s2.sum)));
        UInt address = wire("address", mux(s2.zeroBased, add(s2.va, s2.to), s2.to));
        Bool misaligned = wire("misaligned", and(s2.atomicOp, neq(range(address, 2, 0), U(0, 3))));
        fault = wire("fault", uint(3));
        when(s2.zeroLength, () -> set(fault, code(TagFault.NONE)))
                .elseWhen(s2.invalid, () -> set(fault, code(TagFault.INVALID)))
                .elseWhen(s2.notAssociated, () -> set(fault, code(TagFault.NOT_ASSOCIATED)))
                .elseWhen(s2.invalidateOp, () -> set(fault, code(TagFault.NONE)))
                .elseWhen(s2.noRight, () -> set(fault, code(TagFault.NO_RIGHT)))
                .elseWhen(or(below, above), () -> set(fault, code(TagFault.TO_OUT_OF_RANGE)))
                .elseWhen(wrap, () -> set(fault, code(TagFault.WRAP)))
                .elseWhen(endOut, () -> set(fault, code(TagFault.END_OUT_OF_RANGE)))
                .elseWhen(misaligned, () -> set(fault, code(TagFault.MISALIGNED)))
                .otherwise(() -> set(fault, code(TagFault.NONE)));

        // Stage 3: the result register.
        when(resultFree, () -> {
            set(resultValid, s2Valid);
            set(resultData.tag, s2.tag);
            set(resultData.fault, fault);
            set(resultData.address, address);
        });
        set(io.result.valid(), resultValid);
        set(io.result.payload(), resultData);
    }

    /** {@code a ≥ b} as the compare of the high halves, decided by the low halves when those are equal. */
    static Bool geHalves(UInt a, UInt b) {
        int w = a.getBitsWidth();
        int h = w / 2;
        UInt aHi = range(a, w - 1, h);
        UInt bHi = range(b, w - 1, h);
        return or(gt(aHi, bHi), and(eq(aHi, bHi), ge(range(a, h - 1, 0), range(b, h - 1, 0))));
    }

    private static UInt code(TagFault f) {
        return U(f.code(), 3);
    }
}
