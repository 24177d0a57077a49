package rnic.hw.top;

import java.util.List;
import rnic.hdl.Hdl;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Scala;
import spinal.core.BaseType;
import spinal.core.Bool;
import spinal.core.ClockDomain;

/**
 * The simulation top of a two-RNIC system: two {@link RnicCore}s, {@code a} and {@code b}, with every port of each
 * brought out under the prefix {@code a_} or {@code b_} ({@code a_apb_PADDR}, {@code b_axi_awvalid},
 * {@code a_tcpTx_0_valid}, {@code a_tcpRx_1_payload_seq}, {@code a_interrupt}, …). The TCP connections between
 * the two, the host memories and the register accesses are the testbench's (the Java TCP channel model,
 * {@code rnic.sim.HostMemory}), so one Verilator model runs both RNICs in lockstep.
 *
 * <p>The only logic here is for the simulator: every input of a core passes a register (named {@code <port>_in})
 * clocked by the input {@code inputLatch}, which the testbench ({@code rnic.sim.Tb}) raises with the falling clock edge
 * of a cycle in which it wrote any input, and lowers with the next rising edge. The testbench changes inputs only
 * between a rising edge and the next falling one, so each core sees exactly the values it would see wired straight
 * through, at the same edges — the same behaviour cycle for cycle. What it buys is speed: Verilator re-evaluates all
 * logic that depends combinationally on a top-level input on every {@code eval}, the rising-edge one included,
 * although nothing has changed since the falling edge; behind these registers that logic is evaluated only when an
 * input changed, and a falling edge without input changes costs almost nothing. Not for synthesis: a board top wires
 * {@link RnicCore} directly.
 */
public final class RnicPair extends HwComponent {

    /** Ports: the ports of each core, grouped per side. */
    public static final class Io extends HwBundle {
        public final RnicConfig config;
        public final RnicCore.Io a;
        public final RnicCore.Io b;
        /** Clocks the registers of every core input: raised by the testbench when it changed an input. */
        public final Bool inputLatch = field("inputLatch", Hdl.in(Hdl.bool()));

        public Io(RnicConfig config) {
            this.config = config;
            a = field("a", new RnicCore.Io(config));
            b = field("b", new RnicCore.Io(config));
        }
    }

    public final RnicConfig config;
    public final Io io;
    public final RnicCore a;
    public final RnicCore b;

    public RnicPair(RnicConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        a = child("a", () -> new RnicCore(c));
        b = child("b", () -> new RnicCore(c));
        ClockDomain core = ClockDomain.current();
        ClockDomain latch = core.copy(io.inputLatch, null, core.copy$default$3(), null, null, core.config(),
                core.frequency(), core.copy$default$8());
        // Not a clock crossing: the testbench moves both clocks in a fixed order (see above).
        core.setSynchronousWith(latch);
        expose(io.a, a.io, latch);
        expose(io.b, b.io, latch);
    }

    /**
     * Wires {@code port} (this top's) to {@code core} (the child's), leaf by leaf in declaration order: a core output
     * straight to its port, a core input through a register of the {@code latch} clock domain.
     */
    private static void expose(RnicCore.Io port, RnicCore.Io core, ClockDomain latch) {
        List<BaseType> outer = Scala.list(port.flatten());
        List<BaseType> inner = Scala.list(core.flatten());
        if (outer.size() != inner.size()) {
            throw new IllegalStateException("port bundle and core bundle differ: " + outer.size() + " against "
                    + inner.size() + " signals");
        }
        for (int i = 0; i < outer.size(); i++) {
            BaseType p = outer.get(i);
            BaseType k = inner.get(i);
            if (k.isInput()) {
                BaseType r = latch.apply(Scala.byName(() -> Hdl.regNext(p)));
                r.setCompositeName(p, "in", false);
                Hdl.set(k, r);
            } else {
                Hdl.set(p, k);
            }
        }
    }
}
