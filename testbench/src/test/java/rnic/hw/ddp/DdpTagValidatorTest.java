package rnic.hw.ddp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.model.ddp.StagTable;
import rnic.model.ddp.StagTable.Access;
import rnic.sim.Agent;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.StreamSink;
import rnic.sim.StreamSource;
import rnic.sim.Tb;
import rnic.wire.TerminateCause;

/**
 * Verilator testbench of {@link DdpTagValidator} against the golden model {@link StagTable}: every result, in order,
 * must carry the Terminate the model gives for the same access (mapped with {@link TagFault#cause}) and, on success,
 * the model region's host address of the TO; every local invalidation must report what the model's
 * {@code invalidate} returns. The model is driven in the order the validator took the operations (an agent watches
 * the three input ports and fails if two are taken in one cycle), so the test also checks that every operation sees
 * exactly the effect of those taken before it.
 *
 * <p><b>Memory-protection property</b> (computed from the test's own list of registered regions, not from the model):
 * whenever a PLACE, READ or ATOMIC passes, every octet [address, address + length) lies inside the host range
 * [va, va + length) of a registered region of the stream's PD, usable by its QP, granting the right; for ATOMIC the
 * address is also 8-aligned. The own list also decides local and remote invalidations independently and must agree
 * with the model.
 *
 * <p>Requirements and docs/requirements.md §3 rows, each with a directed test (exact {@link TagFault} code and the model's
 * Terminate):
 * <ul>
 * <li>E-D1 (invalid STag: unknown index, wrong key, index beyond the table, deregistered, invalidated), E-D2 (no
 * remote-write right, T-16), E-D3 (TO below the base or at/after the bound), E-D4 (TO + length past the bound), E-D5
 * (other PD, other QP of a bound STag; DDP-33), E-D6 (TO + length wraps 2^64): {@link #placementFaults};</li>
 * <li>E-R1, E-R2 (TO and end out of range), E-R3, E-R4, E-R5: {@link #readSourceFaults};</li>
 * <li>E-R18 (all five), E-R16 (host address, not TO, misaligned; T-26, T-27): {@link #atomicFaults};</li>
 * <li>E-R6 (operation cause 0/2/09 for an unknown or invalid STag, protection cause 0/1/09 for another PD or QP;
 * RDMAP-13): {@link #remoteInvalidate};</li>
 * <li>DDP-19, RDMAP-09 (zero length is not checked), DDP-30, DDP-34 (local invalidation, deregistration), RDMAP-19,
 * RDMAP-26, RDMAP-34, RDMAP-44, and the check order (first failure decides) in all of them.</li>
 * </ul>
 * Ordering of program / invalidate / remote invalidate against checks, back to back: {@link #orderingBackToBack}.
 * Throughput: {@link #fullRate} (N checks in N + LATENCY + 1 cycles, also with host operations mixed in).
 */
class DdpTagValidatorTest {
    static final int TAG_WIDTH = 16;
    /** 16 entries and 4 QPs: random STags hit registered entries often. */
    static final DdpConfig SMALL = DdpConfig.defaults().withStagCount(16);
    static final int PROPERTY_CHECKS = 100_000;
    static final int FULL_RATE_CHECKS = 20_000;

    static SimModel<DdpTagValidator> model(DdpConfig cfg) {
        return SimModel.of(String.format("DdpTagValidator-s%d-q%d-pd%d-t%d", cfg.stagCount(), cfg.qpCount(),
                cfg.pdWidth(), TAG_WIDTH), () -> new DdpTagValidator(cfg, TAG_WIDTH));
    }

    // ------------------------------------------------------------------------------------------------- stimulus

    /** One entry write, as the host issues it. */
    record Program(int index, boolean valid, int key, int pd, boolean qpBound, int qp, boolean write, boolean read,
            boolean atomic, boolean zeroBased, long va, long length) {
        int stag() {
            return index << 8 | key;
        }

        /** The same region for the golden model. */
        StagTable.Region region() {
            Set<Access> access = EnumSet.noneOf(Access.class);
            if (write) {
                access.add(Access.REMOTE_WRITE);
            }
            if (read) {
                access.add(Access.REMOTE_READ);
            }
            if (atomic) {
                access.add(Access.REMOTE_ATOMIC);
            }
            return new StagTable.Region(stag(), pd, qpBound ? OptionalInt.of(qp) : OptionalInt.empty(), access, va,
                    length, zeroBased);
        }

        /** A copy with {@code valid} clear: a deregistration of the index. */
        Program deregistered() {
            return new Program(index, false, key, pd, qpBound, qp, write, read, atomic, zeroBased, va, length);
        }

        /** A copy at another index with another key. */
        /** The same region bound to QP {@code q} (a remote peer may invalidate only such an STag). */
        Program boundTo(int q) {
            return new Program(index, valid, key, pd, true, q, write, read, atomic, zeroBased, va, length);
        }

        Program at(int newIndex, int newKey) {
            return new Program(newIndex, valid, newKey, pd, qpBound, qp, write, read, atomic, zeroBased, va, length);
        }
    }

    /** One check; {@code want} is the exact fault a directed test expects (null in random tests). */
    record Check(int tag, TagOp op, int stag, long to, long length, int pd, int qp, TagFault want) {
        /** Whether a pass places or fetches octets, so that the address means something. */
        boolean accesses() {
            return op == TagOp.ATOMIC || op != TagOp.INVALIDATE && length != 0;
        }

        long octets() {
            return op == TagOp.ATOMIC ? 8 : length;
        }

        @Override
        public String toString() {
            return String.format("#%d %s stag %08x to %016x len %d pd %d qp %d", tag, op, stag, to, length, pd, qp);
        }
    }

    /** A result as the validator presents it. */
    record Seen(int tag, int fault, long address) {
    }

    /**
     * What is compared: the tag, the Terminate the fault maps to, the address when it means something, and the exact
     * fault where a directed test names one.
     */
    record Outcome(int tag, Optional<TerminateCause> cause, Long address, TagFault fault) {
        @Override
        public String toString() {
            return String.format("tag %d %s%s%s", tag, cause.map(TerminateCause::name).orElse("pass"),
                    address == null ? "" : String.format(" address %016x", address),
                    fault == null ? "" : " fault " + fault);
        }
    }

    /** A region in the test's own list: the host range, the PD, QP binding (-1: none) and rights. */
    record Own(int index, int key, int pd, int qp, boolean write, boolean read, boolean atomic, long va, long length) {
        static Own of(Program p) {
            return new Own(p.index, p.key, p.pd, p.qpBound ? p.qp : -1, p.write, p.read, p.atomic, p.va, p.length);
        }

        boolean usableBy(int streamPd, int streamQp) {
            return pd == streamPd && (qp < 0 || qp == streamQp);
        }

        boolean grants(TagOp op) {
            return switch (op) {
                case PLACE -> write;
                case READ -> read;
                case ATOMIC -> atomic;
                case INVALIDATE -> true;
            };
        }

        /** Whether host octets [address, address + octets) all lie in [va, va + length). */
        boolean covers(long address, long octets) {
            if (Long.compareUnsigned(address, va) < 0) {
                return false;
            }
            long offset = address - va;
            return Long.compareUnsigned(offset, length) < 0 && Long.compareUnsigned(octets, length - offset) <= 0;
        }
    }

    /** A check taken by the validator, with the own list as it was then. */
    record InFlight(Check check, List<Own> regions) {
    }

    // ---------------------------------------------------------------------------------------------------- bench

    /** The three input sources, the result sink, the golden model, the own list and the scoreboards. */
    static final class Bench {
        final DdpConfig cfg;
        final Tb<DdpTagValidator> tb;
        final StreamSource<Program> programs;
        final StreamSource<Integer> invalidates;
        final StreamSource<Check> checks;
        final StreamSink<Seen> results;
        final Scoreboard<Outcome> scoreboard;
        final Scoreboard<Boolean> invalidateDone;
        final StagTable model = new StagTable();
        /** The model's region at each index (the model is keyed by STag; the table by index). */
        final StagTable.Region[] modelAt;
        final Own[] ownAt;
        List<Own> ownList = List.of();
        final ArrayDeque<Program> programQueue = new ArrayDeque<>();
        final ArrayDeque<Integer> invalidateQueue = new ArrayDeque<>();
        final ArrayDeque<Check> checkQueue = new ArrayDeque<>();
        final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
        /** Operations in the order the validator took them, with the cycle: "cycle kind". */
        final List<String> taken = new ArrayList<>();
        final long[][] faults = new long[TagOp.values().length][TagFault.values().length];
        long propertyChecks;
        long hostOps;
        private int nextTag;

        Bench(Tb<DdpTagValidator> tb, DdpConfig cfg, Pacer checkPacer, Pacer hostPacer, Pacer resultPacer) {
            this.cfg = cfg;
            this.tb = tb;
            modelAt = new StagTable.Region[cfg.stagCount()];
            ownAt = new Own[cfg.stagCount()];
            DdpTagValidator.Io io = tb.dut().io;

            StagProgram pp = io.program.payload();
            SimSignal pIndex = tb.signal(pp.index);
            SimSignal pValid = tb.signal(pp.valid);
            SimSignal pKey = tb.signal(pp.key);
            SimSignal pPd = tb.signal(pp.pd);
            SimSignal pQpBound = tb.signal(pp.qpBound);
            SimSignal pQp = tb.signal(pp.qp);
            SimSignal pWrite = tb.signal(pp.remoteWrite);
            SimSignal pRead = tb.signal(pp.remoteRead);
            SimSignal pAtomic = tb.signal(pp.remoteAtomic);
            SimSignal pZeroBased = tb.signal(pp.zeroBased);
            SimSignal pVa = tb.signal(pp.va);
            SimSignal pLength = tb.signal(pp.length);
            programs = tb.add(new StreamSource<>(tb.signal(io.program.valid()), tb.signal(io.program.ready()), p -> {
                pIndex.set(p.index);
                pValid.set(p.valid);
                pKey.set(p.key);
                pPd.set(p.pd & 0xFFFF_FFFFL);
                pQpBound.set(p.qpBound);
                pQp.set(p.qp);
                pWrite.set(p.write);
                pRead.set(p.read);
                pAtomic.set(p.atomic);
                pZeroBased.set(p.zeroBased);
                pVa.set(p.va);
                pLength.set(p.length);
            }, hostPacer));

            SimSignal iStag = tb.signal(io.invalidate.payload());
            invalidates = tb.add(new StreamSource<>(tb.signal(io.invalidate.valid()),
                    tb.signal(io.invalidate.ready()), s -> iStag.set(s & 0xFFFF_FFFFL), hostPacer));

            TagRequest cp = io.check.payload();
            SimSignal cOp = tb.signal(cp.op);
            SimSignal cStag = tb.signal(cp.stag);
            SimSignal cTo = tb.signal(cp.to);
            SimSignal cLength = tb.signal(cp.length);
            SimSignal cPd = tb.signal(cp.pd);
            SimSignal cQp = tb.signal(cp.qp);
            SimSignal cTag = tb.signal(cp.tag);
            checks = tb.add(new StreamSource<>(tb.signal(io.check.valid()), tb.signal(io.check.ready()), c -> {
                cOp.set(c.op.code());
                cStag.set(c.stag & 0xFFFF_FFFFL);
                cTo.set(c.to);
                cLength.set(c.length);
                cPd.set(c.pd & 0xFFFF_FFFFL);
                cQp.set(c.qp);
                cTag.set(c.tag);
            }, checkPacer));

            // Runs after the sources' sample(): whatever they saw taken in this cycle takes effect in the model now.
            tb.add(new Agent() {
                long programsTaken;
                long invalidatesTaken;
                long checksTaken;

                @Override
                public void sample() {
                    int n = 0;
                    if (programs.sent() > programsTaken) {
                        programsTaken++;
                        n++;
                        takeProgram(programQueue.poll());
                    }
                    if (invalidates.sent() > invalidatesTaken) {
                        invalidatesTaken++;
                        n++;
                        takeInvalidate(invalidateQueue.poll());
                    }
                    if (checks.sent() > checksTaken) {
                        checksTaken++;
                        n++;
                        takeCheck(checkQueue.poll());
                    }
                    if (n > 1) {
                        throw new AssertionError("cycle " + tb.cycle() + ": " + n + " operations taken at once");
                    }
                }
            });

            invalidateDone = tb.add(new Scoreboard<>("invalidateDone, seed " + tb.seed()));
            SimSignal doneValid = tb.signal(io.invalidateDone.valid());
            SimSignal donePayload = tb.signal(io.invalidateDone.payload());
            tb.add(new Agent() {
                @Override
                public void sample() {
                    if (doneValid.getBool()) {
                        invalidateDone.actual(donePayload.getBool());
                    }
                }
            });

            TagResult rp = io.result.payload();
            SimSignal rTag = tb.signal(rp.tag);
            SimSignal rFault = tb.signal(rp.fault);
            SimSignal rAddress = tb.signal(rp.address);
            scoreboard = tb.add(new Scoreboard<>("tag results, seed " + tb.seed()));
            results = tb.add(new StreamSink<>("result", tb.signal(io.result.valid()), tb.signal(io.result.ready()),
                    () -> new Seen((int) rTag.get(), (int) rFault.get(), rAddress.get()), resultPacer, this::result));
            tb.reset(3);
        }

        // ------------------------------------------------------------------------------------- what the test sends

        void program(Program p) {
            programQueue.add(p);
            programs.push(p);
        }

        void invalidate(int stag) {
            invalidateQueue.add(stag);
            invalidates.push(stag);
        }

        Check check(TagOp op, int stag, long to, long length, int pd, int qp, TagFault want) {
            Check c = new Check(nextTag, op, stag, to, length, pd, qp, want);
            nextTag = (nextTag + 1) & ((1 << TAG_WIDTH) - 1);
            checkQueue.add(c);
            checks.push(c);
            return c;
        }

        /** Operations queued and not yet taken. */
        int queued() {
            return programQueue.size() + invalidateQueue.size() + checkQueue.size();
        }

        // ------------------------------------------------------------------------------------ when they are taken

        private void takeProgram(Program p) {
            taken.add(tb.cycle() + " program " + p.index);
            hostOps++;
            StagTable.Region old = modelAt[p.index];
            if (old != null) {
                model.invalidate(old.stag());
                modelAt[p.index] = null;
            }
            if (p.valid) {
                StagTable.Region r = p.region();
                model.register(r);
                modelAt[p.index] = r;
            }
            setOwn(p.index, p.valid ? Own.of(p) : null);
        }

        private void takeInvalidate(int stag) {
            taken.add(tb.cycle() + " invalidate " + Integer.toHexString(stag));
            hostOps++;
            boolean was = model.invalidate(stag);
            Own own = ownOf(stag);
            assertEquals(own != null, was, "the model and the own list disagree on invalidating " + stag);
            if (was) {
                modelAt[cfg.stagIndex(stag)] = null;
                setOwn(own.index, null);
            }
            invalidateDone.expect(was);
        }

        private void takeCheck(Check c) {
            taken.add(tb.cycle() + " check " + c.op + " " + Integer.toHexString(c.stag));
            StagTable.Stream s = new StagTable.Stream(c.pd, c.qp);
            Optional<TerminateCause> cause = switch (c.op) {
                case PLACE -> model.checkPlacement(s, c.stag, c.to, c.length);
                case READ -> model.checkReadSource(s, c.stag, c.to, c.length);
                case ATOMIC -> model.checkAtomic(s, c.stag, c.to);
                case INVALIDATE -> model.invalidateRemote(s, c.stag);
            };
            Long address = null;
            if (cause.isEmpty() && c.accesses()) {
                address = modelAt[cfg.stagIndex(c.stag)].address(c.to);
            }
            if (c.op == TagOp.INVALIDATE) {
                Own own = ownOf(c.stag);
                // Only an STag bound to the stream's own QP may be invalidated remotely (RFC 5040 §8.1.1 item 7).
                boolean ownClears = own != null && own.usableBy(c.pd, c.qp) && own.qp >= 0;
                assertEquals(ownClears, cause.isEmpty(), "the model and the own list disagree on " + c);
                if (ownClears) {
                    modelAt[own.index] = null;
                    setOwn(own.index, null);
                }
            }
            scoreboard.expect(new Outcome(c.tag, cause, address, c.want));
            inFlight.add(new InFlight(c, ownList));
        }

        /** The own region an STag names: its index in the table, the key equal. */
        private Own ownOf(int stag) {
            int index = stag >>> 8;
            if (index >= ownAt.length) {
                return null;
            }
            Own own = ownAt[index];
            return own != null && own.key == (stag & 0xFF) ? own : null;
        }

        private void setOwn(int index, Own own) {
            ownAt[index] = own;
            List<Own> list = new ArrayList<>();
            for (Own o : ownAt) {
                if (o != null) {
                    list.add(o);
                }
            }
            ownList = List.copyOf(list);
        }

        private void result(Seen seen) {
            InFlight f = inFlight.poll();
            if (f == null) {
                throw new AssertionError("result with no check outstanding: tag " + seen.tag + " (seed " + tb.seed()
                        + ")");
            }
            Check c = f.check;
            TagFault fault = TagFault.fromCode(seen.fault);
            if (!fault.possibleFor(c.op)) {
                throw new AssertionError(fault + " for " + c + " (seed " + tb.seed() + ")");
            }
            faults[c.op.ordinal()][fault.ordinal()]++;
            boolean passes = fault == TagFault.NONE && c.accesses();
            if (passes) {
                assertProtected(f, seen.address);
            }
            scoreboard.actual(new Outcome(seen.tag, fault.cause(c.op), passes ? seen.address : null,
                    c.want == null ? null : fault));
        }

        /** The property: the octets a passed access touches are all inside a region that allows it. */
        private void assertProtected(InFlight f, long address) {
            Check c = f.check;
            boolean ok = false;
            for (Own r : f.regions) {
                if (r.usableBy(c.pd, c.qp) && r.grants(c.op) && r.covers(address, c.octets())) {
                    ok = true;
                    break;
                }
            }
            if (!ok || c.op == TagOp.ATOMIC && (address & 7) != 0) {
                throw new AssertionError(String.format("PROTECTION: %s passed with host octets [%016x, +%d) outside"
                        + " every region allowing it: %s (seed %d)", c, address, c.octets(), f.regions, tb.seed()));
            }
            propertyChecks++;
        }

        long checksDone() {
            return scoreboard.matched();
        }

        String faultTable() {
            StringBuilder sb = new StringBuilder(String.format("%-11s", ""));
            for (TagFault f : TagFault.values()) {
                sb.append(String.format("%17s", f));
            }
            for (TagOp op : TagOp.values()) {
                sb.append(String.format("%n%-11s", op));
                for (TagFault f : TagFault.values()) {
                    sb.append(String.format("%17s", f.possibleFor(op) ? faults[op.ordinal()][f.ordinal()] : "-"));
                }
            }
            return sb.toString();
        }
    }

    // ------------------------------------------------------------------------------------------ directed tests

    static final int PD = 1;
    static final int QP = 1;
    static final Program VA_BASED = new Program(0, true, 0x11, PD, false, 0, true, true, true, false, 0x10000, 0x1000);
    /** Zero-based, at a host address that is 4 mod 8. */
    static final Program ZERO_BASED = new Program(1, true, 0x22, PD, false, 0, true, true, true, true, 0x20004,
            0x1000);
    static final Program BOUND_TO_QP2 = new Program(2, true, 0x33, PD, true, 2, true, true, true, false, 0x30000,
            0x1000);
    static final Program READ_ONLY = new Program(3, true, 0x44, PD, false, 0, false, true, false, false, 0x40000,
            0x1000);
    static final Program WRITE_ONLY = new Program(4, true, 0x55, PD, false, 0, true, false, false, false, 0x50000,
            0x1000);
    static final Program ATOMIC_ONLY = new Program(5, true, 0x66, PD, false, 0, false, false, true, false, 0x60000,
            0x1000);
    /** VA-based, its last octet at 2^64 - 1. */
    static final Program TOP = new Program(6, true, 0x77, PD, false, 0, true, true, true, false,
            0xFFFF_FFFF_FFFF_F000L, 0x1000);
    static final Program OTHER_PD = new Program(7, true, 0x88, 2, false, 0, true, true, true, false, 0x80000,
            0x1000);
    static final Program EMPTY = new Program(8, true, 0x99, PD, false, 0, true, true, true, false, 0x90000, 0);
    static final List<Program> TABLE = List.of(VA_BASED, ZERO_BASED, BOUND_TO_QP2, READ_ONLY, WRITE_ONLY, ATOMIC_ONLY,
            TOP, OTHER_PD, EMPTY);
    /** Index 9 is never programmed by the directed tests; 16 is beyond the 16-entry table. */
    static final int UNKNOWN = 9 << 8 | 0x11;
    static final int BEYOND = 16 << 8 | 0x11;

    /** Runs {@code rows} against the directed table at full rate, then with idle cycles and back-pressure. */
    private static void directed(String name, Consumer<Bench> rows) {
        for (boolean paced : new boolean[] {false, true}) {
            model(SMALL).run(name + (paced ? "-paced" : ""), name.hashCode() + (paced ? 1 : 0), tb -> {
                Random rng = tb.random();
                Bench b = paced
                        ? new Bench(tb, SMALL, Pacer.random(rng, 0.6), Pacer.random(rng, 0.6), Pacer.bursty(rng, 6))
                        : new Bench(tb, SMALL, Pacer.always(), Pacer.always(), Pacer.always());
                TABLE.forEach(b::program);
                tb.runUntilIdle(100);
                rows.accept(b);
                tb.runUntilIdle(10_000);
                long wanted = b.taken.stream().filter(t -> t.contains(" check ")).count();
                assertEquals(wanted, b.scoreboard.matched());
            });
        }
    }

    /** A check from the default stream (PD 1, QP 1) with the exact fault expected. */
    private static void row(Bench b, TagOp op, int stag, long to, long length, TagFault want) {
        b.check(op, stag, to, length, PD, QP, want);
    }

    /**
     * E-D1 … E-D6 for a tagged placement (DDP-30): each check in the model's order, the first failure deciding, and
     * DDP-19: a zero-length segment passes whatever its STag.
     */
    @Test
    void placementFaults() {
        directed("placement", b -> {
            TagOp op = TagOp.PLACE;
            row(b, op, VA_BASED.stag(), 0x10000, 0x1000, TagFault.NONE);            // fills it exactly
            row(b, op, VA_BASED.stag(), 0x10FFF, 1, TagFault.NONE);
            row(b, op, ZERO_BASED.stag(), 0, 0x1000, TagFault.NONE);                // address 0x20004
            row(b, op, ZERO_BASED.stag(), 0xFFF, 1, TagFault.NONE);
            row(b, op, TOP.stag(), 0xFFFF_FFFF_FFFF_F000L, 0x800, TagFault.NONE);
            row(b, op, UNKNOWN, 0x10000, 4, TagFault.INVALID);                      // E-D1
            row(b, op, VA_BASED.stag() + 1, 0x10000, 4, TagFault.INVALID);          // E-D1, wrong key
            row(b, op, BEYOND, 0x10000, 4, TagFault.INVALID);                       // E-D1, index beyond the table
            row(b, op, 0xFFFF_FF11, 0x10000, 4, TagFault.INVALID);
            b.check(op, OTHER_PD.stag(), 0x80000, 4, PD, QP, TagFault.NOT_ASSOCIATED);      // E-D5, other PD
            b.check(op, BOUND_TO_QP2.stag(), 0x30000, 4, PD, 1, TagFault.NOT_ASSOCIATED);   // E-D5, other QP
            b.check(op, BOUND_TO_QP2.stag(), 0x30000, 4, PD, 2, TagFault.NONE);
            b.check(op, OTHER_PD.stag(), 0, 4, 2, 3, TagFault.TO_OUT_OF_RANGE);           // its own PD: bounds
            row(b, op, READ_ONLY.stag(), 0x40000, 4, TagFault.NO_RIGHT);            // E-D2
            row(b, op, ATOMIC_ONLY.stag(), 0x60000, 8, TagFault.NO_RIGHT);
            row(b, op, VA_BASED.stag(), 0xFFFF, 1, TagFault.TO_OUT_OF_RANGE);       // E-D3, below the base
            row(b, op, VA_BASED.stag(), 0x11000, 1, TagFault.TO_OUT_OF_RANGE);      // E-D3, at the bound
            row(b, op, ZERO_BASED.stag(), 0x1000, 1, TagFault.TO_OUT_OF_RANGE);
            row(b, op, ZERO_BASED.stag(), 0x20004, 1, TagFault.TO_OUT_OF_RANGE);   // its VA is not a TO
            row(b, op, EMPTY.stag(), 0x90000, 1, TagFault.TO_OUT_OF_RANGE);
            row(b, op, VA_BASED.stag(), 0xFFFF_FFFF_FFFF_FFF0L, 0x100, TagFault.TO_OUT_OF_RANGE); // TO before wrap
            row(b, op, TOP.stag(), 0xFFFF_FFFF_FFFF_FFFFL, 1, TagFault.WRAP);      // E-D6: sum exactly 2^64
            row(b, op, TOP.stag(), 0xFFFF_FFFF_FFFF_F000L, 0x1000, TagFault.WRAP);
            row(b, op, TOP.stag(), 0xFFFF_FFFF_FFFF_FF00L, 0xFFFF_FFFFL, TagFault.WRAP);
            row(b, op, VA_BASED.stag(), 0x10FFF, 2, TagFault.END_OUT_OF_RANGE);     // E-D4
            row(b, op, VA_BASED.stag(), 0x10000, 0x1001, TagFault.END_OUT_OF_RANGE);
            row(b, op, ZERO_BASED.stag(), 0x800, 0xFFFF_FFFFL, TagFault.END_OUT_OF_RANGE);
            row(b, op, UNKNOWN, 0, 0, TagFault.NONE);                               // DDP-19
            row(b, op, READ_ONLY.stag(), 0x12345, 0, TagFault.NONE);
            b.check(op, OTHER_PD.stag(), 0, 0, PD, QP, TagFault.NONE);
        });
    }

    /** E-R1 … E-R5 for the source of a Read Request (RDMAP-19 a–e, RDMAP-26); RDMAP-09: RDMARDSZ 0 passes. */
    @Test
    void readSourceFaults() {
        directed("readSource", b -> {
            TagOp op = TagOp.READ;
            row(b, op, VA_BASED.stag(), 0x10000, 0x1000, TagFault.NONE);
            row(b, op, ZERO_BASED.stag(), 0x10, 0x20, TagFault.NONE);
            row(b, op, READ_ONLY.stag(), 0x40FF0, 0x10, TagFault.NONE);
            row(b, op, UNKNOWN, 0x10000, 4, TagFault.INVALID);                      // E-R1
            row(b, op, READ_ONLY.stag() ^ 0x80, 0x40000, 4, TagFault.INVALID);
            row(b, op, BEYOND, 0x10000, 4, TagFault.INVALID);
            row(b, op, OTHER_PD.stag(), 0x80000, 4, TagFault.NOT_ASSOCIATED);       // E-R4
            row(b, op, BOUND_TO_QP2.stag(), 0x30000, 4, TagFault.NOT_ASSOCIATED);
            row(b, op, WRITE_ONLY.stag(), 0x50000, 4, TagFault.NO_RIGHT);           // E-R3
            row(b, op, ATOMIC_ONLY.stag(), 0x60000, 4, TagFault.NO_RIGHT);
            row(b, op, WRITE_ONLY.stag(), 0, 4, TagFault.NO_RIGHT);                 // rights before bounds
            row(b, op, READ_ONLY.stag(), 0x3FFFF, 4, TagFault.TO_OUT_OF_RANGE);     // E-R2, SrcTO
            row(b, op, READ_ONLY.stag(), 0x41000, 4, TagFault.TO_OUT_OF_RANGE);
            row(b, op, READ_ONLY.stag(), 0x40FFF, 2, TagFault.END_OUT_OF_RANGE);    // E-R2, SrcTO + RDMARDSZ
            row(b, op, TOP.stag(), 0xFFFF_FFFF_FFFF_FFF8L, 8, TagFault.WRAP);       // E-R5
            row(b, op, TOP.stag(), 0xFFFF_FFFF_FFFF_FFF8L, 7, TagFault.NONE);
            row(b, op, UNKNOWN, 0x10000, 0, TagFault.NONE);                         // RDMAP-09
            row(b, op, WRITE_ONLY.stag(), 0x50000, 0, TagFault.NONE);
        });
    }

    /**
     * E-R18 (all five) for the target of an Atomic Request (RDMAP-44), then E-R16 (RDMAP-34, T-26, T-27): the host
     * address, not the TO, must be 8-aligned. The length port is ignored: the target is always 8 octets.
     */
    @Test
    void atomicFaults() {
        directed("atomic", b -> {
            TagOp op = TagOp.ATOMIC;
            row(b, op, VA_BASED.stag(), 0x10008, 0, TagFault.NONE);                 // length ignored (not 0)
            row(b, op, VA_BASED.stag(), 0x10FF8, 1, TagFault.NONE);
            row(b, op, ATOMIC_ONLY.stag(), 0x60000, 0, TagFault.NONE);
            row(b, op, ZERO_BASED.stag(), 4, 0, TagFault.NONE);                     // address 0x20008
            row(b, op, ZERO_BASED.stag(), 0, 0, TagFault.MISALIGNED);               // E-R16: TO 0, address 0x20004
            row(b, op, ZERO_BASED.stag(), 0x10, 0, TagFault.MISALIGNED);
            row(b, op, VA_BASED.stag(), 0x10004, 0, TagFault.MISALIGNED);
            row(b, op, UNKNOWN, 0x10000, 0, TagFault.INVALID);                      // E-R18, invalid
            row(b, op, BEYOND, 0x10000, 0, TagFault.INVALID);
            row(b, op, OTHER_PD.stag(), 0x80000, 0, TagFault.NOT_ASSOCIATED);       // E-R18, not associated
            row(b, op, BOUND_TO_QP2.stag(), 0x30000, 0, TagFault.NOT_ASSOCIATED);
            row(b, op, READ_ONLY.stag(), 0x40000, 0, TagFault.NO_RIGHT);            // E-R18, access rights
            row(b, op, WRITE_ONLY.stag(), 0x50000, 0, TagFault.NO_RIGHT);
            row(b, op, VA_BASED.stag(), 0x11000, 0, TagFault.TO_OUT_OF_RANGE);      // E-R18, base/bounds
            row(b, op, VA_BASED.stag(), 0x10FFC, 0, TagFault.END_OUT_OF_RANGE);     // 4 octets left; also misaligned
            row(b, op, EMPTY.stag(), 0x90000, 0, TagFault.TO_OUT_OF_RANGE);
            row(b, op, TOP.stag(), 0xFFFF_FFFF_FFFF_FFF8L, 0, TagFault.WRAP);       // E-R18, wrap
            row(b, op, TOP.stag(), 0xFFFF_FFFF_FFFF_FFF9L, 0, TagFault.WRAP);
            row(b, op, TOP.stag(), 0xFFFF_FFFF_FFFF_FFF0L, 0, TagFault.NONE);
        });
    }

    /**
     * E-R6 and RDMAP-13: a remote invalidate of an unknown or already invalid STag fails with the operation cause
     * (0/2/09), of another PD's or QP's STag, or of one shared by the PD's streams (RDMAP-26, RFC 5040 §8.1.1 item
     * 7), with the protection cause (0/1/09) and leaves it valid; one that
     * succeeds takes effect for the very next check. Rights and bounds do not matter; TO and length are ignored.
     */
    @Test
    void remoteInvalidate() {
        directed("remoteInvalidate", b -> {
            TagOp inv = TagOp.INVALIDATE;
            row(b, inv, UNKNOWN, 0, 0, TagFault.INVALID);
            row(b, inv, BEYOND, 0, 0, TagFault.INVALID);
            row(b, inv, VA_BASED.stag() + 1, 0, 0, TagFault.INVALID);
            row(b, inv, OTHER_PD.stag(), 0, 0, TagFault.NOT_ASSOCIATED);
            row(b, inv, BOUND_TO_QP2.stag(), -1, 0xFFFF_FFFFL, TagFault.NOT_ASSOCIATED);
            row(b, TagOp.PLACE, BOUND_TO_QP2.stag(), 0x30000, 4, TagFault.NOT_ASSOCIATED); // still valid
            b.check(TagOp.PLACE, BOUND_TO_QP2.stag(), 0x30000, 4, PD, 2, TagFault.NONE);
            b.check(inv, BOUND_TO_QP2.stag(), 0, 0, PD, 2, TagFault.NONE);
            b.check(TagOp.PLACE, BOUND_TO_QP2.stag(), 0x30000, 4, PD, 2, TagFault.INVALID);
            // Shared by every stream of the PD (bound to no QP): never invalidatable by a remote peer.
            row(b, inv, READ_ONLY.stag(), 0x1234, 77, TagFault.NOT_ASSOCIATED);
            row(b, TagOp.READ, READ_ONLY.stag(), 0x40000, 4, TagFault.NONE);          // still valid
            row(b, inv, VA_BASED.stag(), 0, 0, TagFault.NOT_ASSOCIATED);
            row(b, TagOp.ATOMIC, VA_BASED.stag(), 0x10000, 0, TagFault.NONE);
            b.check(inv, BOUND_TO_QP2.stag(), 0, 0, PD, 2, TagFault.INVALID);         // already invalid
            b.check(TagOp.PLACE, BOUND_TO_QP2.stag(), 0x30000, 0, PD, 2, TagFault.NONE); // DDP-19 still
        });
    }

    /**
     * "Take effect in order": program, local invalidate, remote invalidate and checks back to back on the same
     * index, each check seeing exactly the operations taken before it, including a check taken just before a program
     * (old entry) and just after (new entry). At full rate the operations are taken in consecutive cycles, so the
     * write forwarding is exercised; with back-pressure stalls in between, the memory path.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fullRate", "stalled"})
    void orderingBackToBack(String pacing) {
        model(SMALL).run("ordering-" + pacing, pacing.hashCode(), tb -> {
            boolean stalled = pacing.equals("stalled");
            Random rng = tb.random();
            Bench b = new Bench(tb, SMALL, Pacer.always(), Pacer.always(),
                    stalled ? Pacer.bursty(rng, 5) : Pacer.always());
            tb.step(SMALL.stagCount() + 2);
            Program a = VA_BASED.at(9, 0xA1);
            Program c = ZERO_BASED.at(9, 0xC3);
            // 1. program then check at once: the check sees the new entry.
            b.program(a);
            b.check(TagOp.PLACE, a.stag(), 0x10000, 16, PD, QP, TagFault.NONE);
            tb.runUntilIdle(100);
            // 2. check, then re-program the index with another key (taken the next cycle), then checks of both keys.
            long start = tb.cycle();
            b.check(TagOp.READ, a.stag(), 0x10000, 16, PD, QP, TagFault.NONE);
            tb.step();
            b.program(c);
            b.check(TagOp.READ, a.stag(), 0x10000, 16, PD, QP, TagFault.INVALID);
            b.check(TagOp.READ, c.stag(), 0x10, 16, PD, QP, TagFault.NONE);
            tb.runUntilIdle(100); // else the programs below, queued now, would go before these checks (priority)
            // 3. two programs of one index back to back: the second wins.
            b.program(c.deregistered());
            b.program(a);
            b.check(TagOp.PLACE, c.stag(), 0, 16, PD, QP, TagFault.INVALID);
            b.check(TagOp.PLACE, a.stag(), 0x10000, 16, PD, QP, TagFault.NONE);
            // 4. local invalidate then check; a wrong key invalidates nothing; again: nothing.
            tb.runUntilIdle(100);
            b.invalidate(a.stag() ^ 1);
            b.check(TagOp.PLACE, a.stag(), 0x10000, 16, PD, QP, TagFault.NONE);
            tb.runUntilIdle(100);
            b.invalidate(a.stag());
            b.check(TagOp.PLACE, a.stag(), 0x10000, 16, PD, QP, TagFault.INVALID);
            b.invalidate(a.stag());
            // 5. remote invalidate, check right behind it in the same port; a refused one leaves the entry valid.
            tb.runUntilIdle(100);
            c = c.boundTo(QP);
            b.program(c);
            b.check(TagOp.INVALIDATE, c.stag(), 0, 0, 2, QP, TagFault.NOT_ASSOCIATED);
            b.check(TagOp.READ, c.stag(), 0, 8, PD, QP, TagFault.NONE);
            b.check(TagOp.INVALIDATE, c.stag(), 0, 0, PD, QP, TagFault.NONE);
            b.check(TagOp.READ, c.stag(), 0, 8, PD, QP, TagFault.INVALID);
            b.check(TagOp.INVALIDATE, c.stag(), 0, 0, PD, QP, TagFault.INVALID);
            // 6. deregistration, then a check; register again, then a check.
            tb.runUntilIdle(100);
            b.program(a);
            b.program(a.deregistered());
            b.check(TagOp.ATOMIC, a.stag(), 0x10000, 0, PD, QP, TagFault.INVALID);
            tb.runUntilIdle(100);
            b.program(a);
            b.check(TagOp.ATOMIC, a.stag(), 0x10000, 0, PD, QP, TagFault.NONE);
            tb.runUntilIdle(1000);
            assertEquals(15, b.scoreboard.matched());
            assertEquals(3, b.invalidateDone.matched());
            List<String> order = b.taken.stream().map(t -> t.substring(t.indexOf(' ') + 1)).toList();
            int i = order.indexOf("check READ " + Integer.toHexString(a.stag()));
            assertEquals(List.of("check READ " + Integer.toHexString(a.stag()), "program 9",
                    "check READ " + Integer.toHexString(a.stag()), "check READ " + Integer.toHexString(c.stag())),
                    order.subList(i, i + 4), "taken in this order");
            if (!stalled) {
                // Back to back: each taken the cycle after the one before, so the write-to-read forwarding decided.
                long first = Long.parseLong(b.taken.get(i).split(" ")[0]);
                for (int k = 1; k < 4; k++) {
                    assertEquals(first + k, Long.parseLong(b.taken.get(i + k).split(" ")[0]), b.taken.toString());
                }
                assertTrue(first - start <= 3, "the first check was taken at once");
            }
        });
    }

    /** After reset every entry is invalid, whatever the memory held (the model's registers start random). */
    @Test
    void everyEntryInvalidAfterReset() {
        model(SMALL).run("afterReset", 5, tb -> {
            Bench b = new Bench(tb, SMALL, Pacer.always(), Pacer.always(), Pacer.always());
            Random rng = tb.random();
            for (int index = 0; index < SMALL.stagCount(); index++) {
                for (int k = 0; k < 4; k++) {
                    int key = rng.nextInt(256);
                    b.check(TagOp.values()[k], index << 8 | key, 0, 8, 0, 0, TagFault.INVALID);
                }
            }
            long cycles = tb.runUntilIdle(1000);
            assertEquals(4L * SMALL.stagCount(), b.scoreboard.matched());
            // The sweep writes one entry per cycle (the first in the cycle that ends reset), the first check is taken
            // on the clock edge after the last one, then one per cycle.
            assertEquals(SMALL.stagCount() - 1 + 4L * SMALL.stagCount() + DdpTagValidator.LATENCY, cycles);
        });
    }

    // -------------------------------------------------------------------------------------------- random tests

    /**
     * The memory-protection property over {@value #PROPERTY_CHECKS} random checks (all four operations, STags mostly
     * registered, sometimes with a wrong key or beyond the table, PDs and QPs mostly right, TOs at and around region
     * edges and near 2^64, lengths 0 … 2^32 - 1 and exact fits), interleaved with random programs (including
     * deregistrations and regions ending at 2^64), local and remote invalidations, with pacing that changes every
     * 2000 cycles among full rate, idle insertion, bursts and back-pressure. Every fault of every operation must occur.
     */
    @Test
    void memoryProtectionProperty() {
        model(SMALL).run("property", 0x7A6, tb -> {
            Random rng = tb.random();
            Bench b = new Bench(tb, SMALL, phased(rng, 2000), phased(rng, 2000), phased(rng, 2000));
            long cycles = runRandom(b, rng, PROPERTY_CHECKS);
            System.out.printf("DdpTagValidator (16 STags, 4 QPs): %d checks, %d host operations, %d passed accesses"
                    + " checked against the own region list, %d cycles with idle and back-pressure%n%s%n",
                    b.checksDone(), b.hostOps, b.propertyChecks, cycles, b.faultTable());
            for (TagOp op : TagOp.values()) {
                for (TagFault f : TagFault.values()) {
                    if (f.possibleFor(op)) {
                        assertTrue(b.faults[op.ordinal()][f.ordinal()] > 0, op + " " + f + " never happened");
                    }
                }
            }
            assertTrue(b.propertyChecks > PROPERTY_CHECKS / 20, "passed accesses: " + b.propertyChecks);
        });
    }

    /**
     * The same random comparison on the smallest table (2 entries, 1 QP, 1-bit PDs) and the largest (4096 entries,
     * 256 QPs, 32-bit PDs): the index and key split and the out-of-table test at both ends of the STag layout.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"smallest", "largest"})
    void otherTableSizes(String which) {
        DdpConfig cfg = which.equals("smallest") ? new DdpConfig(64, 1, 2, 1, 16, 8, 8)
                : new DdpConfig(64, 256, 4096, 32, 16, 8, 8);
        model(cfg).run(which, which.hashCode(), tb -> {
            Random rng = tb.random();
            Bench b = new Bench(tb, cfg, phased(rng, 1000), phased(rng, 1000), phased(rng, 1000));
            long cycles = runRandom(b, rng, 20_000);
            System.out.printf("DdpTagValidator (%d STags, %d QPs, %d-bit PDs): %d checks, %d host operations, %d"
                    + " cycles%n%s%n", cfg.stagCount(), cfg.qpCount(), cfg.pdWidth(), b.checksDone(), b.hostOps,
                    cycles, b.faultTable());
        });
    }

    /**
     * Throughput: with no idle and no back-pressure, {@value #FULL_RATE_CHECKS} random checks take exactly N +
     * LATENCY + 1 cycles (the source presents the first one a cycle after it is queued); with H programs and
     * invalidates queued at the same time, N + H + LATENCY + 1: one operation of any kind per cycle.
     */
    @Test
    void fullRate() {
        model(SMALL).run("fullRate", 11, tb -> {
            Random rng = tb.random();
            Bench b = new Bench(tb, SMALL, Pacer.always(), Pacer.always(), Pacer.always());
            Generator g = new Generator(SMALL, rng);
            tb.step(SMALL.stagCount() + 2);
            for (int i = 0; i < SMALL.stagCount(); i++) {
                b.program(g.program(i));
            }
            tb.runUntilIdle(100);
            for (int i = 0; i < FULL_RATE_CHECKS; i++) {
                g.check(b);
            }
            long cycles = tb.runUntilIdle(2L * FULL_RATE_CHECKS);
            assertEquals(FULL_RATE_CHECKS + DdpTagValidator.LATENCY + 1, cycles, "checks only");

            int host = 0;
            for (int i = 0; i < FULL_RATE_CHECKS; i++) {
                g.check(b);
                if (i % 10 == 0) {
                    b.program(g.program(rng.nextInt(SMALL.stagCount())));
                    host++;
                }
                if (i % 25 == 0) {
                    b.invalidate(g.invalidate());
                    host++;
                }
            }
            long mixed = tb.runUntilIdle(2L * FULL_RATE_CHECKS);
            assertEquals(FULL_RATE_CHECKS + host + DdpTagValidator.LATENCY + 1, mixed, "checks and host operations");
            assertEquals(2L * FULL_RATE_CHECKS, b.scoreboard.matched());
            System.out.printf("DdpTagValidator: %d checks in %d cycles at full rate (latency %d); %d checks + %d host"
                    + " operations in %d cycles%n", FULL_RATE_CHECKS, cycles, DdpTagValidator.LATENCY,
                    FULL_RATE_CHECKS, host, mixed);
        });
    }

    /** Feeds {@code checks} random checks with random host operations between them; returns the cycles. */
    private static long runRandom(Bench b, Random rng, int checks) {
        Generator g = new Generator(b.cfg, rng);
        int[] sent = {0};
        b.tb.add(new Agent() {
            @Override
            public void drive() {
                // Keep a couple of operations queued so that the ports interleave cycle by cycle.
                while (sent[0] < checks && b.queued() < 3) {
                    int roll = rng.nextInt(100);
                    if (roll < 8) {
                        b.program(g.program(rng.nextInt(b.cfg.stagCount())));
                    } else if (roll < 11) {
                        b.invalidate(g.invalidate());
                    } else {
                        g.check(b);
                        sent[0]++;
                    }
                }
            }

            @Override
            public boolean busy() {
                return sent[0] < checks;
            }
        });
        long cycles = b.tb.runUntilIdle(40L * checks);
        assertEquals(checks, b.checksDone());
        return cycles;
    }

    /** A pacing that changes every {@code phase} cycles among {@link Pacer#randomMix}'s patterns. */
    static Pacer phased(Random rng, int phase) {
        return new Pacer() {
            Pacer now;
            int left;

            @Override
            public boolean allow() {
                if (left-- <= 0) {
                    now = Pacer.randomMix(rng);
                    left = phase;
                }
                return now.allow();
            }
        };
    }

    /**
     * Random programs and checks, aimed at what the generator last programmed (its picture can be stale: that only
     * changes how often a check hits).
     */
    static final class Generator {
        final DdpConfig cfg;
        final Random rng;
        final Program[] picture;
        final long pdMask;

        Generator(DdpConfig cfg, Random rng) {
            this.cfg = cfg;
            this.rng = rng;
            picture = new Program[cfg.stagCount()];
            pdMask = cfg.pdWidth() == 32 ? 0xFFFF_FFFFL : (1L << cfg.pdWidth()) - 1;
        }

        int pd() {
            return (int) ((rng.nextInt(8) != 0 ? 1 + rng.nextInt(3) : rng.nextInt()) & pdMask);
        }

        Program program(int index) {
            boolean valid = rng.nextInt(10) != 0;
            long va;
            long length;
            switch (rng.nextInt(6)) {
                case 0 -> {
                    va = rng.nextInt(1 << 20);
                    length = rng.nextInt(20) == 0 ? 0 : rng.nextInt(4097);
                }
                case 1 -> { // ends at 2^64 or just below: TO + length wraps there
                    length = 1 + rng.nextInt(1 << 16);
                    va = -length - rng.nextInt(3);
                }
                case 2 -> {
                    va = rng.nextLong();
                    length = rng.nextLong() >>> (1 + rng.nextInt(63));
                }
                case 3 -> {
                    va = rng.nextLong() & ~7L;
                    length = 8L * (1 + rng.nextInt(64));
                }
                case 4 -> {
                    va = rng.nextInt(1 << 12);
                    length = 0xFFFF_FFFFL + rng.nextInt(3) - 1;
                }
                default -> {
                    va = rng.nextLong();
                    length = Long.MAX_VALUE >>> rng.nextInt(8);
                }
            }
            // Inside the 64-bit address space, and below 2^63 octets, as the model's Region requires.
            long room = va == 0 || -va < 0 ? Long.MAX_VALUE : -va;
            length = Math.min(length, room);
            Program p = new Program(index, valid, rng.nextInt(256), pd(), rng.nextInt(5) < 2,
                    rng.nextInt(cfg.qpCount()), rng.nextInt(10) < 7, rng.nextInt(10) < 7, rng.nextInt(10) < 7,
                    rng.nextBoolean(), va, length);
            picture[index] = valid ? p : null;
            return p;
        }

        /** A registered entry of the picture, or null. */
        Program registered() {
            for (int tries = 0; tries < 4; tries++) {
                Program p = picture[rng.nextInt(picture.length)];
                if (p != null) {
                    return p;
                }
            }
            return null;
        }

        /** A local invalidate, mostly of a registered STag. */
        int invalidate() {
            int stag = anyStag();
            Program p = stag >>> 8 < picture.length ? picture[stag >>> 8] : null;
            if (p != null && p.stag() == stag) {
                picture[p.index] = null;
            }
            return stag;
        }

        /** Mostly a registered STag, else one with a wrong key, beyond the table, or anything in the table. */
        int anyStag() {
            Program p = registered();
            int roll = rng.nextInt(20);
            if (p != null && roll < 15) {
                return p.stag();
            }
            if (p != null && roll < 17) {
                return p.index << 8 | ((p.key + 1 + rng.nextInt(255)) & 0xFF); // wrong key
            }
            if (roll < 18) {
                return (cfg.stagCount() + rng.nextInt((1 << 24) - cfg.stagCount())) << 8 | rng.nextInt(256);
            }
            return rng.nextInt(cfg.stagCount()) << 8 | rng.nextInt(256);
        }

        void check(Bench b) {
            int roll = rng.nextInt(100);
            TagOp op = roll < 35 ? TagOp.PLACE : roll < 65 ? TagOp.READ : roll < 94 ? TagOp.ATOMIC : TagOp.INVALIDATE;
            int stag = anyStag();
            Program p = stag >>> 8 < picture.length ? picture[stag >>> 8] : null;
            int pd = p != null && rng.nextInt(10) < 8 ? p.pd : pd();
            int qp = p != null && p.qpBound && rng.nextInt(10) < 7 ? p.qp : rng.nextInt(cfg.qpCount());
            long length = switch (rng.nextInt(16)) {
                case 0 -> 0;
                case 1, 2 -> 1 + rng.nextInt(8);
                case 3, 4, 5 -> 1 + rng.nextInt(4096);
                case 6 -> rng.nextInt() & 0xFFFF_FFFFL;
                case 7 -> 0xFFFF_FFFFL - rng.nextInt(4);
                default -> -1; // fit the end of the region, see below
            };
            long to;
            if (p == null) {
                to = rng.nextBoolean() ? rng.nextLong() : rng.nextInt(1 << 20);
            } else {
                long first = p.zeroBased ? 0 : p.va;
                long end = first + p.length; // 0 for a region ending at 2^64
                long octets = op == TagOp.ATOMIC ? 8 : Math.max(length, 1);
                to = switch (rng.nextInt(9)) {
                    case 0 -> first + rng.nextInt(17);
                    case 1 -> first - 1 - rng.nextInt(4);
                    case 2 -> end - octets + rng.nextInt(5) - 2;
                    case 3 -> end - 1 - rng.nextInt(4);
                    case 4 -> end + rng.nextInt(3);
                    case 5 -> -1L - rng.nextInt(16);
                    case 6 -> rng.nextLong();
                    default -> first + (p.length == 0 ? 0 : Long.remainderUnsigned(rng.nextLong(), p.length));
                };
                if (op == TagOp.ATOMIC && rng.nextInt(10) < 7) {
                    long address = p.zeroBased ? p.va + to : to;
                    to -= address & 7;
                }
                if (length < 0) {
                    long fit = end - to + rng.nextInt(3) - 1;
                    length = fit >= 0 && fit <= 0xFFFF_FFFFL ? fit : 1 + rng.nextInt(64);
                }
            }
            if (length < 0) {
                length = 1 + rng.nextInt(64);
            }
            if (op == TagOp.INVALIDATE && p != null && p.stag() == stag && p.pd == pd) {
                picture[p.index] = null;
            }
            b.check(op, stag, to, length, pd, qp, null);
        }
    }
}
