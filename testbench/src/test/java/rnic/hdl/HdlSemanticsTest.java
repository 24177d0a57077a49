package rnic.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static rnic.hdl.Hdl.*;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * The facade's vocabulary checked by simulation against a Java model of what each construct must mean: operator
 * results, {@code cat} (first argument most significant) vs {@code catLsbFirst}, {@code mux}, the priority of
 * {@code when/elseWhen/otherwise}, {@code switchOn} with multi-key cases and default, a register with reset value,
 * {@code regNext} and {@code combInit}.
 */
class HdlSemanticsTest {

    /** One of each construct, all outputs combinational except {@code count}. */
    public static final class Semantics extends HwComponent {
        public static final class Io extends HwBundle {
            public final Bits a = field("a", in(bits(4)));
            public final Bits b = field("b", in(bits(4)));
            public final Bool c = field("c", in(bool()));
            public final UInt sel = field("sel", in(uint(2)));
            public final UInt x = field("x", in(uint(8)));
            public final UInt y = field("y", in(uint(8)));
            public final Bits catAb = field("catAb", out(bits(8)));
            public final Bits catLsb = field("catLsb", out(bits(8)));
            public final Bits muxAb = field("muxAb", out(bits(4)));
            public final UInt whenOut = field("whenOut", out(uint(2)));
            public final Bits switchOut = field("switchOut", out(bits(4)));
            public final UInt sum = field("sum", out(uint(8)));
            public final UInt diff = field("diff", out(uint(8)));
            public final Bool less = field("less", out(bool()));
            public final Bool same = field("same", out(bool()));
            public final Bits logic = field("logic", out(bits(4)));
            public final UInt count = field("count", out(uint(8)));
            public final UInt delayed = field("delayed", out(uint(8)));
            public final UInt defaulted = field("defaulted", out(uint(8)));
        }

        public final Io io = io(new Io());
        public final UInt counter = regInit("counter", uint(8), U(5, 8));

        public Semantics() {
            set(io.catAb, cat(io.a, io.b));
            set(io.catLsb, catLsbFirst(List.of(io.a, io.b)));
            set(io.muxAb, mux(io.c, io.a, io.b));
            when(and(io.c, eq(io.sel, U(0, 2))), () -> set(io.whenOut, U(1, 2)))
                    .elseWhen(eq(io.sel, U(1, 2)), () -> set(io.whenOut, U(2, 2)))
                    .otherwise(() -> set(io.whenOut, U(3, 2)));
            switchOn(io.sel)
                    .is(0, () -> set(io.switchOut, io.a))
                    .is(List.of(1, 2), () -> set(io.switchOut, io.b))
                    .otherwise(() -> set(io.switchOut, not(io.a)));
            set(io.sum, add(io.x, io.y));
            set(io.diff, sub(io.x, io.y));
            set(io.less, lt(io.x, io.y));
            set(io.same, eq(io.x, io.y));
            set(io.logic, xor(and(io.a, io.b), or(io.a, not(io.b))));
            when(io.c, () -> set(counter, add(counter, U(1, 8))));
            set(io.count, counter);
            set(io.delayed, regNext(counter)); // the counter one cycle late
            // combInit: starts as y, overridden when c is set.
            UInt d = combInit(io.y);
            when(io.c, () -> set(d, io.x));
            set(io.defaulted, d);
        }
    }

    @Test
    void everyConstructMatchesItsJavaMeaning() {
        SimModel<Semantics> model = SimModel.of("HdlSemantics", Semantics::new);
        model.run("semantics", 11, tb -> {
            Semantics.Io io = tb.dut().io;
            SimSignal a = tb.signal(io.a);
            SimSignal b = tb.signal(io.b);
            SimSignal c = tb.signal(io.c);
            SimSignal sel = tb.signal(io.sel);
            SimSignal x = tb.signal(io.x);
            SimSignal y = tb.signal(io.y);
            c.set(false);
            tb.reset(2);
            assertEquals(5, tb.signal(io.count).get(), "register reset value");
            Random rng = tb.random();
            long expectedCount = 5;
            for (int i = 0; i < 2000; i++) {
                int av = rng.nextInt(16);
                int bv = rng.nextInt(16);
                boolean cv = rng.nextBoolean();
                int sv = rng.nextInt(4);
                int xv = rng.nextInt(256);
                int yv = rng.nextInt(256);
                a.set(av);
                b.set(bv);
                c.set(cv);
                sel.set(sv);
                x.set(xv);
                y.set(yv);
                tb.step();
                String at = "a=" + av + " b=" + bv + " c=" + cv + " sel=" + sv;
                assertEquals((av << 4) | bv, tb.signal(io.catAb).get(), "cat(a, b) " + at);
                assertEquals((bv << 4) | av, tb.signal(io.catLsb).get(), "catLsbFirst([a, b]) " + at);
                assertEquals(cv ? av : bv, tb.signal(io.muxAb).get(), "mux " + at);
                assertEquals(cv && sv == 0 ? 1 : sv == 1 ? 2 : 3, tb.signal(io.whenOut).get(), "when chain " + at);
                assertEquals(sv == 0 ? av : sv <= 2 ? bv : ~av & 15, tb.signal(io.switchOut).get(), "switch " + at);
                assertEquals((xv + yv) & 255, tb.signal(io.sum).get(), "add");
                assertEquals((xv - yv) & 255, tb.signal(io.diff).get(), "sub");
                assertEquals(xv < yv ? 1 : 0, tb.signal(io.less).get(), "lt");
                assertEquals(xv == yv ? 1 : 0, tb.signal(io.same).get(), "eq");
                assertEquals(((av & bv) ^ (av | (~bv & 15))) & 15, tb.signal(io.logic).get(), "and/or/xor/not");
                // The register samples the inputs applied before this step's rising edge.
                long countBefore = expectedCount;
                expectedCount = cv ? (expectedCount + 1) & 255 : expectedCount;
                assertEquals(expectedCount, tb.signal(io.count).get(), "counter " + at);
                assertEquals(countBefore, tb.signal(io.delayed).get(), "regNext(counter): its value before the edge");
                assertEquals(cv ? xv : yv, tb.signal(io.defaulted).get(), "combInit overridden in when");
            }
        });
    }
}
