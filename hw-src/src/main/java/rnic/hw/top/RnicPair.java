package rnic.hw.top;

import java.util.List;
import rnic.hdl.Hdl;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Scala;
import spinal.core.BaseType;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.ClockDomain;
import spinal.core.Data;

/**
 * The simulation top of a two-RNIC system: two {@link RnicCore}s, {@code a} and {@code b}, with every port of each
 * brought out under the prefix {@code a_} or {@code b_} ({@code a_apb_PADDR}, {@code b_axi_awvalid},
 * {@code a_tcpTx_0_valid}, {@code a_tcpRx_1_payload_seq}, {@code a_interrupt}, …). The TCP connections between
 * the two, the host memories and the register accesses are the testbench's (the Java TCP channel model,
 * {@code rnic.sim.HostMemory}), so one Verilator model runs both RNICs in lockstep.
 *
 * <p>The only logic here is for the simulator: {@code a_tcpTxValid} and {@code b_tcpTxValid} gather each core's
 * {@code tcpTx_<q>_valid} bits into one output, and every input of a core passes a register (named {@code <port>_in})
 * clocked by an input {@code inputLatch_<side>_<interface>} — one per interface of each core ({@code inputLatch_a_apb},
 * {@code inputLatch_a_axi}, {@code inputLatch_b_tcpRx_0}, …) — which the testbench ({@code rnic.sim.Tb}) raises with
 * the falling clock edge of a cycle in which it wrote an input of that interface, and lowers with the next rising
 * edge. The testbench changes inputs only between a rising edge and the next falling one, so each core sees exactly
 * the values it would see wired straight through, at the same edges — the same behaviour cycle for cycle. What it buys
 * is speed: Verilator re-evaluates all logic that depends combinationally on a top-level input on every {@code eval},
 * the rising-edge one included, although nothing has changed since the falling edge; behind these registers that logic
 * is evaluated only when an input changed, and one latch per interface limits it to the logic behind the interfaces
 * that changed (a memory read beat does not re-evaluate the register file's address decode). Not for synthesis: a
 * board top wires {@link RnicCore} directly.
 */
public final class RnicPair extends HwComponent {

    /** Ports: the ports of each core, grouped per side. */
    public static final class Io extends HwBundle {
        public final RnicConfig config;
        public final RnicCore.Io a;
        public final RnicCore.Io b;
        // Named as the ports are (a_ and b_ prefix their side's ports), as the naming audit wants field = name.
        /** Every {@code a_tcpTx_<q>_valid} in one word (bit q): the testbench reads one signal per core. */
        public final Bits a_tcpTxValid;
        /** The same for core b. */
        public final Bits b_tcpTxValid;

        public Io(RnicConfig config) {
            this.config = config;
            a = field("a", new RnicCore.Io(config));
            b = field("b", new RnicCore.Io(config));
            a_tcpTxValid = field("a_" + TX_VALID, Hdl.out(Hdl.bits(config.qpCount())));
            b_tcpTxValid = field("b_" + TX_VALID, Hdl.out(Hdl.bits(config.qpCount())));
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
        expose(io.a, a.io);
        expose(io.b, b.io);
        Hdl.set(io.a_tcpTxValid, Hdl.catLsbFirst(a.io.tcpTx.stream().map(t -> t.valid()).toList()));
        Hdl.set(io.b_tcpTxValid, Hdl.catLsbFirst(b.io.tcpTx.stream().map(t -> t.valid()).toList()));
    }

    /** The name, after {@code a_} or {@code b_}, of the output that gathers a core's {@code tcpTx_<q>_valid}. */
    public static final String TX_VALID = "tcpTxValid";

    /** The clock domain of input latch {@code inputLatch_<group>}, its input made on first use. */
    private ClockDomain latch(String group) {
        return latches.computeIfAbsent(group, g -> {
            Bool clock = field(LATCH + "_" + g, Hdl.in(Hdl.bool()));
            ClockDomain core = ClockDomain.current();
            ClockDomain d = core.copy(clock, null, core.copy$default$3(), null, null, core.config(),
                    core.frequency(), core.copy$default$8());
            // Not a clock crossing: the testbench moves both clocks in a fixed order (see above).
            core.setSynchronousWith(d);
            return d;
        });
    }

    /** The testbench's name for an input-latch clock ({@code rnic.sim.Tb.INPUT_LATCH}; sim depends on hw-src). */
    private static final String LATCH = "inputLatch";

    private final java.util.Map<String, ClockDomain> latches = new java.util.LinkedHashMap<>();

    /**
     * Wires {@code port} (this top's) to {@code core} (the child's), leaf by leaf in declaration order: a core output
     * straight to its port, a core input through a register of the latch clock domain of its interface (the port's
     * element of {@link RnicCore.Io}: {@code a_apb}, {@code a_tcpRx_0}, …).
     */
    private void expose(RnicCore.Io port, RnicCore.Io core) {
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
                Data top = p;
                while (top.parent() != port) {
                    top = top.parent();
                }
                ClockDomain latch = latch(top.getName());
                BaseType r = latch.apply(Scala.byName(() -> Hdl.regNext(p)));
                r.setCompositeName(p, "in", false);
                Hdl.set(k, r);
            } else {
                Hdl.set(p, k);
            }
        }
    }
}
