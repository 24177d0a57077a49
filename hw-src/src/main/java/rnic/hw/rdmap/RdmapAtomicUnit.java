package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Stream;

/**
 * The arithmetic of the RFC 7306 Atomic Operations (§5.1; docs/requirements.md §2.9, RDMAP-28, RDMAP-32, RDMAP-33): masked
 * FetchAdd and masked CmpSwap on one 64-bit value, one operation per cycle, {@value #LATENCY} cycles from
 * {@code request} to {@code result}.
 *
 * <p><b>FetchAdd</b> uses the carry-save form {@code ((a & ~m) + (b & ~m)) ^ ((a ^ b) & m)} (a = original, b = Add
 * Data, m = Add Mask), bit-exact to the §5.1.1 bit loop: clearing each field's most significant bit keeps carries
 * inside the field, and the XOR term rebuilds that bit as a ⊕ b ⊕ carry-in, dropping its carry out. It maps onto one
 * 64-bit carry chain; cutting the carry per bit instead puts a LUT on every bit of the chain (5× slower, measured
 * below). <b>CmpSwap</b> is the §5.1.2 expression: on a match under Compare Mask, Swap Data replaces the bits of Swap
 * Mask.
 *
 * <p><b>Alignment (RDMAP-34, E-R16, T-27).</b> A request whose {@code addrLow} is not 0 targets a misaligned address:
 * its result has {@code misaligned} set, {@code writeEnable} clear and {@code newValue = originalValue}, so memory is
 * not modified; the engine then generates Terminate Layer 0 (RDMAP) / EType 0x2 (Remote Operation Error) / Error Code
 * 0x07 (Catastrophic error, localized to RDMAP Stream), RFC 7306 §8.2, instead of an Atomic Response.
 *
 * <p><b>Why memory is not in this block.</b> It sees the value read from the target and says what to write back; the
 * read-modify-write engine around it owns the memory port. That engine must (a) resolve STag/TO and check access
 * (RDMAP-44) before any read, (b) byte-swap between the big-endian wire and the target memory's order (T-26),
 * (c) keep other Atomics off an address between its read and write (RDMAP-37), which spans the memory's latency as
 * well as this block's, and (d) carry the Request Identifier and stream to the response. Those depend on the memory
 * system (host DMA or on-chip RAM, their latencies) and on the queue design; the arithmetic does not, so it stays a
 * pure pipeline that can be verified alone against the RFC pseudocode. The {@code tag} carries the engine's context
 * through; results leave in request order (RDMAP-38 item 8).
 *
 * <p><b>Pipeline.</b> Stage 1 (into the first register) masks the operands, compares under Compare Mask and selects
 * the CmpSwap outcome; stage 2 is the carry chain and the final select. Both registers are {@code m2sPipe}s: valid and
 * payload registered, {@code request.ready = !stage1.valid || result.ready || !result.valid}, so with
 * {@code result.ready} high a request is taken every cycle, and back-pressure stalls the pipeline without losing or
 * reordering anything.
 *
 * <p><b>Measured</b> with yosys 0.23 + nextpnr-ice40 0.4 on an iCE40 HX8K (ct256): the unit synthesizes to 473 LUT4,
 * 63 SB_CARRY and 487 flip-flops. Placed with its ports fed from a shift register and its results XOR-folded into one
 * registered pin (so nothing is trimmed), it reaches 79.6 to 82.3 MHz over placer seeds 1 to 3. The critical path is
 * the 64-bit carry chain of stage 2 (12.2 ns, 9.3 ns of it logic); a bare registered 64-bit carry-save add in a similar
 * harness reaches 77 MHz, the per-bit carry kill 15 MHz. A faster clock would split the add at bit 32 across one more
 * stage, at one more cycle of latency.
 */
public final class RdmapAtomicUnit extends HwComponent {
    /** Cycles from a request being taken to its result being presented. */
    public static final int LATENCY = 2;
    /** The tag width {@code ./rnic generate} builds. */
    public static final int DEFAULT_TAG_WIDTH = 16;

    /** Ports: {@code request_*} in, {@code result_*} out. */
    public static final class Io extends HwBundle {
        public final int tagWidth;
        public final Stream<AtomicRequest> request;
        public final Stream<AtomicResult> result;

        public Io(int tagWidth) {
            this.tagWidth = tagWidth;
            request = field("request", Streams.slaveStream(() -> new AtomicRequest(tagWidth)));
            result = field("result", Streams.masterStream(() -> new AtomicResult(tagWidth)));
        }
    }

    /** What stage 1 hands to stage 2: the FetchAdd terms and the already selected non-FetchAdd outcome. */
    public static final class Prepared extends HwBundle {
        public final int tagWidth;
        public final Bits tag;
        public final Bits originalValue;
        /** {@code original & ~addMask}. */
        public final UInt augend;
        /** {@code addData & ~addMask}. */
        public final UInt addend;
        /** {@code (original ^ addData) & addMask}: the field MSBs before their carry-in. */
        public final Bits fieldMsbs;
        /** The new value is the sum: an aligned FetchAdd. */
        public final Bool useSum;
        /** The new value otherwise: the CmpSwap outcome, or the original for a misaligned target. */
        public final Bits otherValue;
        public final Bool writeEnable;
        public final Bool misaligned;

        public Prepared(int tagWidth) {
            this.tagWidth = tagWidth;
            tag = field("tag", bits(tagWidth));
            originalValue = field("originalValue", bits(64));
            augend = field("augend", uint(64));
            addend = field("addend", uint(64));
            fieldMsbs = field("fieldMsbs", bits(64));
            useSum = field("useSum", bool());
            otherValue = field("otherValue", bits(64));
            writeEnable = field("writeEnable", bool());
            misaligned = field("misaligned", bool());
        }
    }

    public final int tagWidth;
    public final Io io;
    /** Stage 1 output, before the first register. */
    public final Prepared prepared;
    /** Stage 2 output, before the result register. */
    public final AtomicResult computed;

    public RdmapAtomicUnit(int tagWidth) {
        if (tagWidth < 1) {
            throw new IllegalArgumentException("tag width must be at least 1, got " + tagWidth);
        }
        this.tagWidth = tagWidth;
        noIoPrefix(); // before io(...): the bundle is then named "" and its ports carry no io_ prefix
        io = io(new Io(tagWidth));

        AtomicRequest req = io.request.payload();
        prepared = wire("prepared", new Prepared(tagWidth));
        Bits notMask = not(req.addOrSwapMask); // ~Add Mask: field bodies; ~Swap Mask: the bits CmpSwap keeps
        Bool misaligned = wire("misaligned", neq(req.addrLow, U(0, 3)));
        Bool match = wire("match", eq(and(xor(req.compareData, req.originalValue), req.compareMask), B(0, 64)));
        Bool swap = wire("swap", and(req.cmpSwap, match, not(misaligned)));
        Bits swapped = wire("swapped", or(and(req.originalValue, notMask),
                and(req.addOrSwapData, req.addOrSwapMask)));
        set(prepared.tag, req.tag);
        set(prepared.originalValue, req.originalValue);
        set(prepared.augend, and(req.originalValue, notMask).asUInt());
        set(prepared.addend, and(req.addOrSwapData, notMask).asUInt());
        set(prepared.fieldMsbs, and(xor(req.originalValue, req.addOrSwapData), req.addOrSwapMask));
        set(prepared.useSum, and(not(req.cmpSwap), not(misaligned)));
        set(prepared.otherValue, mux(swap, swapped, req.originalValue));
        set(prepared.writeEnable, and(not(misaligned), or(not(req.cmpSwap), match)));
        set(prepared.misaligned, misaligned);
        // The registers take the name of the stream they sample: stage1_rData_*, stage2_rData_*.
        Stream<Prepared> stage1 = Streams.m2sPipe(wire("stage1", Streams.translateWith(io.request, prepared)));

        Prepared p = stage1.payload();
        computed = wire("computed", new AtomicResult(tagWidth));
        Bits sum = wire("sum", xor(add(p.augend, p.addend).asBits(), p.fieldMsbs));
        set(computed.tag, p.tag);
        set(computed.originalValue, p.originalValue);
        set(computed.newValue, mux(p.useSum, sum, p.otherValue));
        set(computed.writeEnable, p.writeEnable);
        set(computed.misaligned, p.misaligned);
        Streams.connect(Streams.m2sPipe(wire("stage2", Streams.translateWith(stage1, computed))), io.result);
    }
}
