package rnic.hdl;

import java.util.function.Supplier;
import spinal.core.Bundle;
import spinal.core.Component;
import spinal.core.Data;
import spinal.core.DslScopeStack$;
import spinal.core.internals.ScopeStatement;

/**
 * Base class of every hardware component written in Java; the class name is the Verilog module name.
 *
 * <p>SpinalHDL's Scala compiler plugin names every {@code val} and restores the parent scope after every
 * {@code new Child}. Java has no plugin, so a component declares each piece of hardware through this class:
 *
 * <pre>{@code
 * public final class Counter extends HwComponent {
 *     public final Io io = io(new Io(8));                    // the port bundle, named "io"
 *     public final UInt count = regInit("count", uint(8), U(0, 8));
 *     public final Adder adder = child("adder", () -> new Adder(8));
 *     public Counter() { ... when(io.inc, () -> set(count, add(count, U(1, 8)))); ... }
 * }
 * }</pre>
 *
 * A component built with {@code new} inside another one, without {@link #child}, leaves the parent's scope pointing at
 * the child: {@link Rtl#generate} detects and reports that.
 */
public abstract class HwComponent extends Component {
    private boolean scopeRestored;

    protected HwComponent() {
        super();
    }

    /** Registers the port bundle under the name {@code io} (ports become {@code io_<field>} unless renamed). */
    protected final <T extends Bundle> T io(T bundle) {
        valCallback(bundle, "io");
        return bundle;
    }

    /** Names any hardware object of this component (signal, bundle, area, memory) after its Java field. */
    protected final <T> T field(String name, T hardware) {
        valCallback(hardware, name);
        return hardware;
    }

    /** A named combinational signal of the given type. */
    protected final <T extends Data> T wire(String name, T type) {
        return field(name, type);
    }

    /** A named register without reset value. */
    protected final <T extends Data> T reg(String name, T type) {
        return field(name, Hdl.reg(type));
    }

    /** A named register reset to {@code init}. */
    protected final <T extends Data> T regInit(String name, T type, Data init) {
        return field(name, Hdl.regInit(type, init));
    }

    /**
     * Instantiates a child component, restores this component's scope (the Scala plugin's {@code postInitCallback})
     * and names the instance.
     */
    protected final <C extends Component> C child(String name, Supplier<C> constructor) {
        ScopeStatement before = DslScopeStack$.MODULE$.get();
        C c = constructor.get();
        c.postInitCallback();
        if (DslScopeStack$.MODULE$.get() != before) {
            throw new IllegalStateException("child '" + name + "' (" + c.getClass().getSimpleName()
                    + ") did not restore the scope of " + getClass().getSimpleName()
                    + ": create its own children with child(...), not new");
        }
        valCallback(c, name);
        return c;
    }

    /**
     * One FIFO of {@code depth} per value of {@code index} (0 … {@code count}−1) behind {@code in}: each item goes to
     * the FIFO its index names, and {@code in} waits while that one is full. The per-queue streams are named
     * {@code <name>Push_<i>}. An item shows at a FIFO's head the cycle after it was pushed (latency 1): a same-cycle
     * bypass would put a 2:1 multiplexer on every payload bit of every queue, which is most of such a FIFO's logic
     * once its memory is in LUT RAM (a 132-bit, 8-entry FIFO: 164 LUT4 on ECP5 with the bypass, about 20 without).
     */
    protected final <T extends spinal.core.Data> java.util.List<spinal.lib.Stream<T>> fifoPerIndex(String name,
            spinal.lib.Stream<T> in, spinal.core.UInt index, int count, Supplier<T> type, int depth) {
        java.util.List<spinal.lib.Stream<T>> outs = new java.util.ArrayList<>();
        java.util.List<spinal.core.Bool> readies = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            spinal.lib.Stream<T> push = wire(name + "Push_" + i, Streams.stream(type));
            Hdl.set(push.valid(), Hdl.and(in.valid(), Hdl.eq(index, Hdl.U(i, index.getBitsWidth()))));
            Hdl.set(push.payload(), in.payload());
            readies.add(push.ready());
            outs.add(Streams.fifo(push, depth, 1));
        }
        Hdl.set(in.ready(), count == 1 ? readies.get(0) : Hdl.vec(readies).apply(index));
        return outs;
    }

    @Override
    public Component postInitCallback() {
        super.postInitCallback();
        scopeRestored = true;
        return this;
    }

    /** True once the parent scope was restored after construction (always true after {@link #child} or generate). */
    public final boolean isScopeRestored() {
        return scopeRestored;
    }
}
