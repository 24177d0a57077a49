package rnic.hw.top;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;

/**
 * The simulation top of a two-RNIC system: two {@link RnicCore}s, {@code a} and {@code b}, with every port of each
 * brought out under the prefix {@code a_} or {@code b_} ({@code a_apb_PADDR}, {@code b_axi_awvalid},
 * {@code a_tcpTx_0_valid}, {@code a_tcpRx_1_payload_seq}, {@code a_interrupt}, …). There is no logic here: the TCP connections between the two, the host memories and the
 * register accesses are the testbench's (the Java TCP channel model, {@code rnic.sim.HostMemory}), so one Verilator
 * model runs both RNICs in lockstep.
 */
public final class RnicPair extends HwComponent {

    /** Ports: the ports of each core, grouped per side. */
    public static final class Io extends HwBundle {
        public final RnicConfig config;
        public final RnicCore.Io a;
        public final RnicCore.Io b;

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
        expose(io.a, a.io, "a_");
        expose(io.b, b.io, "b_");
    }

    private static void expose(RnicCore.Io port, RnicCore.Io core, String prefix) {
        port.apb.$greater$greater(core.apb);
        port.axi.$less$less(core.axi);
        rnic.hdl.Hdl.set(port.interrupt, core.interrupt);
        for (int q = 0; q < port.tcpTx.size(); q++) {
            Streams.connect(core.tcpTx.get(q), port.tcpTx.get(q));
            Streams.connect(port.tcpRx.get(q), core.tcpRx.get(q));
        }
    }
}
