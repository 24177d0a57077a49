package rnic.hw.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.model.rdmap.AtomicAlu;
import rnic.model.rdmap.AtomicExamples;
import rnic.model.rdmap.AtomicOp;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.StreamSink;
import rnic.sim.StreamSource;
import rnic.sim.Tb;
import rnic.wire.AtomicOpcode;

/**
 * Verilator testbench of {@link RdmapAtomicUnit}: the worked examples of docs/requirements.md §2.9 (golden values from the
 * document), every misaligned target offset, and random operations of both kinds (operands and masks weighted towards
 * 0, all ones, single bits, sparse, dense and field-grid masks, see {@link AtomicOp#random}) against the RFC 7306
 * pseudocode model {@link AtomicAlu}, at full rate (one operation per cycle, checked as an exact cycle count) and with
 * idle cycles on the request side and back-pressure on the result side.
 *
 * <p>Requirements: RDMAP-28 (FetchAdd and CmpSwap both supported), RDMAP-32 (masked FetchAdd, mask 0 = plain add, the
 * original returned), RDMAP-33 (masked CmpSwap, memory unchanged and not written on a mismatch), RDMAP-34 / E-R16 /
 * T-27 (a misaligned target is flagged for Terminate 0/2/07 and never written), T-25 (the three masks), RDMAP-38
 * item 8 (results in request order).
 */
class RdmapAtomicUnitTest {
    static final int TAG_WIDTH = RdmapAtomicUnit.DEFAULT_TAG_WIDTH;
    static final int FULL_RATE_OPS = 100_000;
    static final int PACED_OPS = 100_000;

    static SimModel<RdmapAtomicUnit> model() {
        return SimModel.of("RdmapAtomicUnit-t" + TAG_WIDTH, () -> new RdmapAtomicUnit(TAG_WIDTH));
    }

    /** A request as driven: the operation and bits 2:0 of the target address. */
    record Request(int tag, AtomicOp op, int addrLow) {
    }

    /** A result as seen on the ports. */
    record Outcome(int tag, long originalValue, long newValue, boolean writeEnable, boolean misaligned) {
        /** What the unit must answer for {@code request}, given what the operation does when the target is aligned. */
        static Outcome expected(Request request, AtomicAlu.Result aligned) {
            long original = request.op.original();
            return request.addrLow != 0 ? new Outcome(request.tag, original, original, false, true)
                    : new Outcome(request.tag, aligned.original(), aligned.newValue(), aligned.write(), false);
        }

        @Override
        public String toString() {
            return String.format("tag %04x original %016x new %016x%s%s", tag, originalValue, newValue,
                    writeEnable ? " write" : "", misaligned ? " MISALIGNED" : "");
        }
    }

    /** The request source, the result sink and the scoreboard between them. */
    static final class Bench {
        final Tb<RdmapAtomicUnit> tb;
        final StreamSource<Request> source;
        final StreamSink<Outcome> sink;
        final Scoreboard<Outcome> scoreboard;
        private int nextTag;

        Bench(Tb<RdmapAtomicUnit> tb, Pacer requestPacer, Pacer resultPacer) {
            this.tb = tb;
            RdmapAtomicUnit.Io io = tb.dut().io;
            AtomicRequest in = io.request.payload();
            SimSignal tag = tb.signal(in.tag);
            SimSignal cmpSwap = tb.signal(in.cmpSwap);
            SimSignal addrLow = tb.signal(in.addrLow);
            SimSignal original = tb.signal(in.originalValue);
            SimSignal data = tb.signal(in.addOrSwapData);
            SimSignal mask = tb.signal(in.addOrSwapMask);
            SimSignal compareData = tb.signal(in.compareData);
            SimSignal compareMask = tb.signal(in.compareMask);
            source = tb.add(new StreamSource<>(tb.signal(io.request.valid()), tb.signal(io.request.ready()), r -> {
                tag.set(r.tag);
                cmpSwap.set(r.op.opcode() == AtomicOpcode.CMP_SWAP);
                addrLow.set(r.addrLow);
                original.set(r.op.original());
                data.set(r.op.addOrSwapData());
                mask.set(r.op.addOrSwapMask());
                compareData.set(r.op.compareData());
                compareMask.set(r.op.compareMask());
            }, requestPacer));

            AtomicResult out = io.result.payload();
            SimSignal outTag = tb.signal(out.tag);
            SimSignal outOriginal = tb.signal(out.originalValue);
            SimSignal outNew = tb.signal(out.newValue);
            SimSignal outWrite = tb.signal(out.writeEnable);
            SimSignal outMisaligned = tb.signal(out.misaligned);
            scoreboard = tb.add(new Scoreboard<>("atomic results, seed " + tb.seed()));
            sink = tb.add(new StreamSink<>("result", tb.signal(io.result.valid()), tb.signal(io.result.ready()),
                    () -> new Outcome((int) outTag.get(), outOriginal.get(), outNew.get(), outWrite.getBool(),
                            outMisaligned.getBool()), resultPacer, scoreboard::actual));
            tb.reset(3);
        }

        /** Queues {@code op} at a target whose address ends in {@code addrLow}, expecting {@code aligned(op)}. */
        void send(AtomicOp op, int addrLow, Function<AtomicOp, AtomicAlu.Result> aligned) {
            Request r = new Request(nextTag, op, addrLow);
            nextTag = (nextTag + 1) & ((1 << TAG_WIDTH) - 1);
            source.push(r);
            scoreboard.expect(Outcome.expected(r, aligned.apply(op)));
        }
    }

    /** F1 … F6 and C1 … C4, each at an aligned target, with the document's new value. */
    @Test
    void workedExamples() {
        model().run("workedExamples", 1, tb -> {
            Bench bench = new Bench(tb, Pacer.always(), Pacer.always());
            for (AtomicExamples.Example e : AtomicExamples.conformance()) {
                bench.send(e.op(), 0, op -> new AtomicAlu.Result(op.original(), e.newValue(), e.write()));
            }
            tb.runUntilIdle(100);
            assertEquals(AtomicExamples.conformance().size(), bench.scoreboard.matched());
        });
    }

    /** Every example at target offsets 1 … 7 of a 64-bit word: flagged, original returned, nothing written. */
    @Test
    void misalignedTargetsAreFlaggedAndNeverWritten() {
        model().run("misaligned", 2, tb -> {
            Bench bench = new Bench(tb, Pacer.always(), Pacer.always());
            for (int addrLow = 1; addrLow < 8; addrLow++) {
                for (AtomicExamples.Example e : AtomicExamples.conformance()) {
                    bench.send(e.op(), addrLow, AtomicOp::apply);
                }
            }
            tb.runUntilIdle(1000);
            assertEquals(7L * AtomicExamples.conformance().size(), bench.scoreboard.matched());
        });
    }

    /**
     * {@value #FULL_RATE_OPS} random operations with no idle and no back-pressure: after the first request is
     * presented (one cycle, by the source agent) and the {@value RdmapAtomicUnit#LATENCY}-cycle pipeline has filled,
     * one result per cycle, so the run takes exactly N + LATENCY + 1 cycles.
     */
    @Test
    void randomOperationsAtFullRateOnePerCycle() {
        model().run("fullRate", 3, tb -> {
            Bench bench = new Bench(tb, Pacer.always(), Pacer.always());
            int[] perOpcode = sendRandom(bench, FULL_RATE_OPS);
            long cycles = tb.runUntilIdle(FULL_RATE_OPS + 100L);
            assertEquals(FULL_RATE_OPS + RdmapAtomicUnit.LATENCY + 1, cycles, "cycles for " + FULL_RATE_OPS + " ops");
            assertEquals(FULL_RATE_OPS, bench.scoreboard.matched());
            System.out.printf("RdmapAtomicUnit: %d ops (%d FetchAdd, %d CmpSwap) in %d cycles at full rate%n",
                    FULL_RATE_OPS, perOpcode[0], perOpcode[1], cycles);
        });
    }

    /**
     * {@value #PACED_OPS} random operations per pacing: idle cycles between requests, back-pressure on results
     * (bursty stalls), and random mixes of both. The sink checks that a stalled result stays presented, unchanged.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"idle", "backPressure", "both"})
    void randomOperationsWithIdleAndBackPressure(String pacing) {
        model().run(pacing, pacing.hashCode(), tb -> {
            Random rng = tb.random();
            Pacer requests = pacing.equals("backPressure") ? Pacer.always() : Pacer.random(rng, 0.5);
            Pacer results = switch (pacing) {
                case "idle" -> Pacer.always();
                case "backPressure" -> Pacer.bursty(rng, 12);
                default -> Pacer.randomMix(rng);
            };
            Bench bench = new Bench(tb, requests, results);
            sendRandom(bench, PACED_OPS);
            long cycles = tb.runUntilIdle(40L * PACED_OPS);
            assertEquals(PACED_OPS, bench.scoreboard.matched());
            System.out.printf("RdmapAtomicUnit: %d ops in %d cycles with pacing '%s'%n", PACED_OPS, cycles, pacing);
        });
    }

    /** Queues {@code n} random operations, one in 16 at a misaligned target; returns {FetchAdd, CmpSwap} counts. */
    private static int[] sendRandom(Bench bench, int n) {
        Random rng = bench.tb.random();
        int[] perOpcode = new int[2];
        for (int i = 0; i < n; i++) {
            AtomicOp op = AtomicOp.random(rng);
            perOpcode[op.opcode() == AtomicOpcode.FETCH_ADD ? 0 : 1]++;
            bench.send(op, rng.nextInt(16) == 0 ? 1 + rng.nextInt(7) : 0, AtomicOp::apply);
        }
        assertTrue(perOpcode[0] > n / 3 && perOpcode[1] > n / 3, "both operations exercised");
        return perOpcode;
    }
}
