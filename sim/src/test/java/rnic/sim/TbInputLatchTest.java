package rnic.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.hdl.Hdl.*;

import org.junit.jupiter.api.Test;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Scala;
import spinal.core.Bool;
import spinal.core.ClockDomain;
import spinal.core.UInt;

/**
 * {@link Tb}'s input-latch convention (the one {@code rnic.hw.top.RnicPair} uses): a design whose inputs pass
 * registers clocked by its input {@value Tb#INPUT_LATCH} sees a value driven in {@code drive()} at the same rising
 * edge as a design wired straight through, and the latch is pulsed only in half cycles in which an input was written.
 * With one latch per group of inputs ({@code inputLatch_<g>}, as {@code RnicPair} has one per interface), each is
 * pulsed only when an input of its own group was written, and the values still arrive at the same edges.
 */
class TbInputLatchTest {

    /** A clock domain on {@code clock}, declared synchronous with the current one (the testbench orders the edges). */
    static ClockDomain latchDomain(Bool clock) {
        ClockDomain core = ClockDomain.current();
        ClockDomain latch = core.copy(clock, null, core.copy$default$3(), null, null, core.config(), core.frequency(),
                core.copy$default$8());
        core.setSynchronousWith(latch);
        return latch;
    }

    /** {@code d} → a register on {@code inputLatch} → a register on the clock → {@code q}. */
    public static final class Latched extends HwComponent {
        /** The ports. */
        public static final class Io extends HwBundle {
            public final Bool inputLatch = field(Tb.INPUT_LATCH, in(bool()));
            public final UInt d = field("d", in(uint(8)));
            public final UInt q = field("q", out(uint(8)));

            public Io() {
            }
        }

        public final Io io;

        public Latched() {
            noIoPrefix();
            io = io(new Io());
            ClockDomain latch = latchDomain(io.inputLatch);
            UInt dIn = latch.apply(Scala.byName(() -> regNext(io.d)));
            set(io.q, regNext(dIn));
        }
    }

    @Test
    void aValueDrivenAfterAnEdgeIsTakenAtTheNextEdgeAndTheLatchMovesOnlyOnWrites() {
        SimModel<Latched> model = SimModel.of("TbInputLatch", Latched::new);
        model.run("latch", 1, tb -> {
            SimSignal d = tb.signal(tb.dut().io.d);
            SimSignal q = tb.signal(tb.dut().io.q);
            SimSignal latch = tb.signal(tb.dut().io.inputLatch);
            int[] checked = {0};
            boolean[] wrote = {false};
            tb.add(new Agent() {
                @Override
                public void sample() {
                    long c = tb.cycle();
                    if (c >= 6) { // after reset (releasing it is a write too)
                        // Wired straight through, the register would now hold what drive() wrote two steps ago
                        // (taken at the last rising edge); that value changes only on even cycles.
                        assertEquals(((c - 1) & ~1L) & 0xFF, q.get(), "q at cycle " + c);
                        // Raised with the last falling edge exactly when the last drive() wrote.
                        assertEquals(wrote[0] ? 1 : 0, latch.get(), "inputLatch at cycle " + c);
                        checked[0]++;
                    }
                }

                @Override
                public void drive() {
                    long c = tb.cycle();
                    wrote[0] = c % 2 == 0; // a new value on even cycles; odd cycles write nothing
                    if (wrote[0]) {
                        d.set(c & 0xFF);
                    }
                }
            });
            tb.reset(2);
            tb.step(100);
            assertTrue(checked[0] > 90, "checked " + checked[0] + " cycles");
        });
    }

    /** Two groups, {@code x_*} and {@code y_*}, each behind its own latch; {@code x_d} → {@code x_q}, {@code y_d} → {@code y_q}. */
    public static final class Grouped extends HwComponent {
        /** The ports. */
        public static final class Io extends HwBundle {
            public final Bool latchX = field(Tb.INPUT_LATCH + "_x", in(bool()));
            public final Bool latchY = field(Tb.INPUT_LATCH + "_y", in(bool()));
            public final UInt xd = field("x_d", in(uint(8)));
            public final UInt yd = field("y_d", in(uint(8)));
            public final UInt xq = field("x_q", out(uint(8)));
            public final UInt yq = field("y_q", out(uint(8)));

            public Io() {
            }
        }

        public final Io io;

        public Grouped() {
            noIoPrefix();
            io = io(new Io());
            ClockDomain lx = latchDomain(io.latchX);
            ClockDomain ly = latchDomain(io.latchY);
            UInt x = lx.apply(Scala.byName(() -> regNext(io.xd)));
            UInt y = ly.apply(Scala.byName(() -> regNext(io.yd)));
            set(io.xq, regNext(x));
            set(io.yq, regNext(y));
        }
    }

    @Test
    void eachGroupsLatchMovesOnlyOnWritesOfItsOwnInputs() {
        SimModel<Grouped> model = SimModel.of("TbInputLatchGrouped", Grouped::new);
        model.run("grouped", 1, tb -> {
            SimSignal xd = tb.signal(tb.dut().io.xd);
            SimSignal yd = tb.signal(tb.dut().io.yd);
            SimSignal xq = tb.signal(tb.dut().io.xq);
            SimSignal yq = tb.signal(tb.dut().io.yq);
            SimSignal lx = tb.signal(tb.dut().io.latchX);
            SimSignal ly = tb.signal(tb.dut().io.latchY);
            int[] checked = {0};
            boolean[] wrote = {false, false};
            long[] last = {0, 0};
            long[] seen = {0, 0};
            tb.add(new Agent() {
                @Override
                public void sample() {
                    long c = tb.cycle();
                    if (c >= 6) {
                        assertEquals(wrote[0] ? 1 : 0, lx.get(), "inputLatch_x at cycle " + c);
                        assertEquals(wrote[1] ? 1 : 0, ly.get(), "inputLatch_y at cycle " + c);
                        // q shows what d held at the previous rising edge, as wired straight through
                        assertEquals(seen[0], xq.get(), "x_q at cycle " + c);
                        assertEquals(seen[1], yq.get(), "y_q at cycle " + c);
                        checked[0]++;
                    }
                    seen[0] = last[0];
                    seen[1] = last[1];
                }

                @Override
                public void drive() {
                    long c = tb.cycle();
                    wrote[0] = c % 3 == 0; // x changes every third cycle, y every fifth
                    wrote[1] = c % 5 == 0;
                    if (wrote[0]) {
                        last[0] = c & 0xFF;
                        xd.set(last[0]);
                    }
                    if (wrote[1]) {
                        last[1] = (c * 7) & 0xFF;
                        yd.set(last[1]);
                    }
                }
            });
            tb.reset(2);
            tb.step(100);
            assertTrue(checked[0] > 90, "checked " + checked[0] + " cycles");
        });
    }
}
