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
 */
class TbInputLatchTest {

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
            ClockDomain core = ClockDomain.current();
            ClockDomain latch = core.copy(io.inputLatch, null, core.copy$default$3(), null, null, core.config(),
                    core.frequency(), core.copy$default$8());
            core.setSynchronousWith(latch);
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
}
