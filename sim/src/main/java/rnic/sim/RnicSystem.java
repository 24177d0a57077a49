package rnic.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import rnic.hw.top.RnicPair;
import rnic.sim.pcap.PcapWriter;
import rnic.sim.tcp.TcpChannel;
import rnic.sim.tcp.KernelTcp;
import rnic.sim.tcp.TcpEnd;
import rnic.sim.tcp.TcpHost;
import rnic.sim.tcp.TcpNetwork;
import rnic.sim.tcp.TcpOptions;
import rnic.sim.tcp.TcpRxDriver;
import rnic.sim.tcp.TcpRxPacker;
import rnic.sim.tcp.TcpTxMonitor;
import rnic.transport.DmaAllocator;
import spinal.lib.bus.amba4.axi.Axi4;

/**
 * Two RNICs in one simulation, wired for the host driver: given a running model of the two-RNIC top
 * ({@code rnic.hw.top.RnicPair}: every port of RnicCore {@code a} and {@code b} with the prefixes {@code a_} and
 * {@code b_}), attaches to each core an {@link Apb3Master} on its register port, a {@link HostMemory} of its own host
 * behind its AXI4 port, per connection slot q an agent on {@code tcpRx_q} ({@link TcpRxDriver}) and on {@code tcpTx_q}
 * ({@link TcpTxMonitor}), and a simulated network ({@link TcpNetwork}) in which core a is 10.0.0.1 and core b
 * 10.0.0.2: {@code listen}/{@code connect} of the transports create {@link TcpChannel}s during the run (options per
 * destination port or per connection number), and a connection handed over to slot q drives that slot's agents;
 * optionally everything goes into one capture with the real addresses and ports. Returns a {@link SimTransport} per
 * core.
 *
 * <p>Fixed channels for channel-level tests (not part of the driver's SPI): {@code SimTransport.connection(q)} of
 * either transport creates (once) the channel from a's slot q
 * (10.0.0.1:49152+q, the client) to b's slot q (10.0.0.2:20049) with the options of {@link Builder#tcp(int,
 * TcpOptions)}; its {@code handOver()} binds slot q.
 *
 * <p>Ports are found by name ({@link Ports}), per the issue-5 contract: {@code <p>apb_PADDR} …, the AXI4 bundle whose
 * ports start {@code <p>axi}, and the streams {@code <p>tcpTx_<q>} / {@code <p>tcpRx_<q>}; the QP count and data width
 * W come from the ports. So this builder works with any top that keeps those names.
 *
 * <pre>{@code
 * SimModel<RnicPair> model = RnicSystem.model(64);
 * model.run("demo", seed, tb -> {
 *     try (RnicSystem sys = RnicSystem.builder()
 *             .tcp(TcpOptions.defaults().withSegmentation(Segmentation.mixed()).withLoss(0.01))
 *             .tcp(3, TcpOptions.defaults().withMode(TcpChannel.Mode.KERNEL))   // QP 3 over real sockets
 *             .capture(Path.of("build/demo.pcap"))
 *             .build(tb)) {
 *         // hand sys.a() and sys.b() (rnic.transport.Transport) to the host driver, one per RNIC;
 *         // the driver's rnic.cm listens on b (10.0.0.2:port) and connects from a; the stream of each
 *         // connection is handed to the slot of the queue pair bound to it
 *         ...
 *         System.out.println(sys.report());
 *     }
 * });
 * }</pre>
 */
public final class RnicSystem implements AutoCloseable {
    private final Tb<?> tb;
    private final SimTransport[] transports = new SimTransport[2];
    private final HostMemory[] memories = new HostMemory[2];
    private final Axi4MemorySlave[] slaves = new Axi4MemorySlave[2];
    private final TcpNetwork network;
    private final TcpNetwork.Host[] hosts = new TcpNetwork.Host[2];
    private final TcpChannel[] fixed;
    private final TcpOptions[] fixedOptions;
    private final int qps;
    private final List<TcpRxDriver> rx = new ArrayList<>();
    private final List<TcpTxMonitor> tx = new ArrayList<>();
    private final PcapWriter pcap;
    private final int dataWidth;
    private final KernelTcp kernel;
    private boolean closed;

    private RnicSystem(Builder b, Tb<?> tb) {
        this.tb = tb;
        Ports ports = Ports.of(tb);
        this.qps = b.qps > 0 ? b.qps : countQps(ports, b.prefix[0]);
        if (qps == 0) {
            throw new IllegalArgumentException("no " + b.prefix[0] + "tcpTx_0_valid port: is this the two-RNIC top?"
                    + " ports: " + ports.names(b.prefix[0]));
        }
        this.dataWidth = ports.streamField(b.prefix[0] + "tcpTx_0", "tdata").width();
        try {
            this.pcap = b.capture == null ? null : PcapWriter.create(b.capture);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the capture " + b.capture, e);
        }
        this.fixed = new TcpChannel[qps];
        this.fixedOptions = new TcpOptions[qps];
        this.network = tb.add(new TcpNetwork(tb.random(), pcap, b.tcp, tb.cycle()));
        b.perPort.forEach(network::optionsForPort);
        b.perConnection.forEach(network::optionsForConnection);
        network.handshakeCycles(b.handshakeCycles);
        // The legacy fixed channels come up on first use, but their ISNs are drawn here, in the order the channels
        // were once all created at build time, so a run draws the same random numbers as before (a seed reproduces
        // the same segmentation and losses).
        for (int q = 0; q < qps; q++) {
            TcpOptions o = b.perQp.getOrDefault(q, b.tcp);
            long client = o.clientIsn() != TcpOptions.RANDOM_ISN ? o.clientIsn()
                    : tb.random().nextLong() & 0xFFFF_FFFFL;
            long server = o.serverIsn() != TcpOptions.RANDOM_ISN ? o.serverIsn()
                    : tb.random().nextLong() & 0xFFFF_FFFFL;
            fixedOptions[q] = o.withIsn(client, server);
        }
        for (int s = 0; s < 2; s++) {
            hosts[s] = network.host(s == 0 ? "a" : "b", address(s), "02:00:00:00:00:0" + (s + 1));
        }
        // Cores on real sockets: one KernelTcp for the run, waiting on its sockets only while the whole simulation
        // (both cores' streams and memory ports, the simulated network) is idle.
        this.kernel = b.kernelBind[0] == null && b.kernelBind[1] == null ? null
                : tb.add(new KernelTcp(tb.random(), pcap, tb.cycle()).activity(this::activity));
        for (int s = 0; s < 2; s++) {
            String p = b.prefix[s];
            int side = s;
            String name = p.endsWith("_") ? p.substring(0, p.length() - 1) : p;
            Apb3Master apb = Apb3Master.on(tb, ports, p + "apb_").withTimeout(b.apbTimeout);
            memories[s] = new HostMemory();
            slaves[s] = Axi4MemorySlave.on(tb, ports.bundle(p + "axi", Axi4.class), memories[s]);
            List<TcpRxDriver> slotRx = new ArrayList<>();
            List<TcpTxMonitor> slotTx = new ArrayList<>();
            // The two-RNIC top gathers a core's tcpTx valid bits in one output: one read per cycle for all slots.
            TcpTxMonitor.ValidWord valids = ports.has(p + RnicPair.TX_VALID)
                    ? new TcpTxMonitor.ValidWord(tb, ports.signal(p + RnicPair.TX_VALID)) : null;
            for (int q = 0; q < qps; q++) {
                slotRx.add(tb.add(new TcpRxDriver(ports, p + "tcpRx_" + q, null, b.rxBeats, b.rxPacer.get(),
                        tb.random())));
                TcpTxMonitor m = new TcpTxMonitor(ports, p + "tcpTx_" + q, null, b.txPacer.get());
                slotTx.add(tb.add(valids == null ? m : m.validFrom(valids, q)));
            }
            rx.addAll(slotRx);
            tx.addAll(slotTx);
            TcpHost tcpHost = b.kernelBind[s] == null ? hosts[s]
                    : kernel.host(name, b.kernelBind[s], "02:00:00:00:00:0" + (s + 1));
            String what = b.kernelBind[s] != null
                    ? String.format("simulated RnicCore %s (W=%d, %d QPs, kernel TCP sockets on %s) in %s", name,
                            dataWidth, qps, b.kernelBind[s].getHostAddress(), tb.dut().definitionName())
                    : String.format("simulated RnicCore %s (W=%d, %d QPs, %s, TCP %s) in %s", name, dataWidth,
                    qps, address(s).getHostAddress(),
                    b.perQp.isEmpty() && b.perPort.isEmpty() && b.perConnection.isEmpty() ? b.tcp : "mixed",
                    tb.dut().definitionName());
            transports[s] = new SimTransport(tb, name, apb, memories[s],
                    new DmaAllocator(b.memoryBase, b.memorySize), slotRx, slotTx, tcpHost,
                    q -> fixedChannelEnd(q, side), b.advanceCycles, what, b.clockHz);
            if (ports.has(p + "interrupt")) {
                transports[s].withInterrupt(ports.signal(p + "interrupt"));
            }
        }
        // Reset with every agent attached, so the cores' inputs are driven (idle) from the first cycle; the transmit
        // monitors watch only after it (during reset the outputs show the registers' random initial values).
        if (b.resetCycles > 0) {
            tb.reset(b.resetCycles);
        }
        tx.forEach(TcpTxMonitor::arm);
    }

    /**
     * A counter that moves whenever either core does something visible: a beat on a TCP stream or the memory port,
     * or the simulated network is busy (what {@link KernelTcp} watches before it lets the simulation wait).
     */
    private long activity() {
        long n = 0;
        for (TcpRxDriver d : rx) {
            n += d.beats();
        }
        for (TcpTxMonitor m : tx) {
            n += m.beats();
        }
        for (Axi4MemorySlave m : slaves) {
            if (m != null) {
                n += m.readBeats() + m.writeBeats();
            }
        }
        return network.busy() ? n + tb.cycle() : n;
    }

    /** The kernel sockets of the cores on real TCP ({@link Builder#kernelTcp}), or {@code null}. */
    public KernelTcp kernelTcp() {
        return kernel;
    }

    /** RNIC a: 10.0.0.1, b: 10.0.0.2. */
    static java.net.InetAddress address(int side) {
        try {
            return java.net.InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) (side + 1)});
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e); // four octets are always a valid address
        }
    }

    /** The legacy fixed channel of QP q (created on first use): a's slot q to b's slot q. */
    private TcpEnd fixedChannelEnd(int q, int side) {
        if (fixed[q] == null) {
            fixed[q] = network.fixedChannel("qp" + q, fixedOptions[q], hosts[0],
                    TcpNetwork.EPHEMERAL_FIRST + q, hosts[1], LEGACY_SERVER_PORT);
            fixed[q].a().attach(hosts[0].slots(), q);
            fixed[q].b().attach(hosts[1].slots(), q);
        }
        return fixed[q].end(side);
    }

    /** The legacy fixed channels' server port: 20049 (IANA "nfsrdma"; Wireshark does not claim it for NVMe/TCP). */
    static final int LEGACY_SERVER_PORT = 20049;

    private static int countQps(Ports ports, String prefix) {
        int q = 0;
        while (ports.has(prefix + "tcpTx_" + q + "_valid") || ports.has(prefix + "tcpTx_" + q + "_tvalid")) {
            q++;
        }
        return q;
    }

    /**
     * The two-RNIC model of the default configuration at data width {@code dataWidth} (key {@code RnicPair-w<W>}),
     * compiled profile-guided ({@link SimModel#profileGuided}) once per JVM: the one place that builds it, so every
     * user asks for it the same way.
     */
    public static SimModel<RnicPair> model(int dataWidth) {
        return SimModel.profileGuided("RnicPair-w" + dataWidth,
                () -> new RnicPair(rnic.hw.top.RnicConfig.defaults().withDataWidth(dataWidth)));
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Runs {@code body} on a fresh simulation of {@code model} with the system built by {@code builder}; the system
     * is closed (capture written) at the end, also when the body fails.
     */
    public static void run(SimModel<?> model, String testName, long seed, Builder builder,
            Consumer<RnicSystem> body) {
        model.run(testName, seed, tb -> {
            try (RnicSystem sys = builder.build(tb)) {
                body.accept(sys);
            }
        });
    }

    /** The transport of RNIC a (the TCP client side of every connection). */
    public SimTransport a() {
        return transports[0];
    }

    /** The transport of RNIC b (the TCP server side). */
    public SimTransport b() {
        return transports[1];
    }

    /** The legacy fixed channel of QP q (created now if neither transport asked for it yet). */
    public TcpChannel channel(int qp) {
        fixedChannelEnd(qp, 0);
        return fixed[qp];
    }

    /** Every channel of the run so far: fixed ones and those of listen/connect, in order of creation. */
    public List<TcpChannel> channels() {
        return network.channels();
    }

    /** The simulated network: hosts a (10.0.0.1) and b (10.0.0.2), their listeners and channels. */
    public TcpNetwork network() {
        return network;
    }

    /** Host memory of RNIC a (0) or b (1). */
    public HostMemory memory(int side) {
        return memories[side];
    }

    /** The AXI4 memory model of RNIC a (0) or b (1), e.g. to set latencies, pacing or fault ranges. */
    public Axi4MemorySlave memorySlave(int side) {
        return slaves[side];
    }

    public Tb<?> tb() {
        return tb;
    }

    /** The agent on RNIC a's (0) or b's (1) {@code tcpTx_<qp>} port: segments and beats the core sent. */
    public TcpTxMonitor txMonitor(int side, int qp) {
        return tx.get(side * qps + qp);
    }

    /** The agent on RNIC a's (0) or b's (1) {@code tcpRx_<qp>} port: octets and beats the core took. */
    public TcpRxDriver rxDriver(int side, int qp) {
        return rx.get(side * qps + qp);
    }

    /** W: the cores' data path width in bits. */
    public int dataWidth() {
        return dataWidth;
    }

    /** One line per TCP direction: octets, segments, sizes, losses, retransmissions; and the cores' beat counts. */
    public String report() {
        StringBuilder s = new StringBuilder(network.report());
        for (TcpTxMonitor m : tx) {
            s.append("  ").append(m).append(": ").append(m.segments()).append(" segments in ").append(m.beats())
                    .append(" beats\n");
        }
        for (TcpRxDriver d : rx) {
            s.append("  ").append(d).append(": ").append(d.octets()).append(" octets in ").append(d.beats())
                    .append(" beats\n");
        }
        return s.toString();
    }

    /** Closes the channels (FIN in the capture, KERNEL sockets closed), the capture file and the transports. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        network.closeAll();
        if (kernel != null) {
            kernel.close();
        }
        for (SimTransport t : transports) {
            if (t != null) {
                t.close();
            }
        }
        if (pcap != null) {
            try {
                pcap.close();
            } catch (IOException e) {
                throw new UncheckedIOException("closing the capture", e);
            }
        }
    }

    /** Options of the system; {@link #build} inside a {@link SimModel#run} body. */
    public static final class Builder {
        private final String[] prefix = {"a_", "b_"};
        private TcpOptions tcp = TcpOptions.defaults();
        private final Map<Integer, TcpOptions> perQp = new HashMap<>();
        private Path capture;
        private long memoryBase = 0x1_0000_0000L;
        private long memorySize = 1L << 30;
        private int advanceCycles = 16;
        private int qps;
        private int resetCycles = 10;
        private long apbTimeout = 10_000;
        private TcpRxPacker.Policy rxBeats = TcpRxPacker.Policy.PER_SEGMENT;
        private Supplier<Pacer> rxPacer = Pacer::always;
        private Supplier<Pacer> txPacer = Pacer::always;
        private long clockHz = 250_000_000L;
        private final Map<Integer, TcpOptions> perPort = new HashMap<>();
        private final Map<Integer, TcpOptions> perConnection = new HashMap<>();
        private int handshakeCycles = 4;
        private final java.net.InetAddress[] kernelBind = new java.net.InetAddress[2];

        private Builder() {
        }

        /**
         * Puts core {@code side} (0 = a, 1 = b) on real TCP: its transport's {@code listen}/{@code connect} open kernel
         * sockets bound to {@code bind} ({@link KernelTcp}; the any-address: every interface) instead of channels of
         * the simulated network, so it reaches real peers (Linux siw, another machine, the other core over loopback).
         * With {@link #capture}, their connections go into the same capture.
         */
        public Builder kernelTcp(int side, java.net.InetAddress bind) {
            if (side != 0 && side != 1) {
                throw new IllegalArgumentException("side is 0 (a) or 1 (b), got " + side);
            }
            kernelBind[side] = java.util.Objects.requireNonNull(bind, "bind address");
            return this;
        }

        /** The cores' declared clock frequency in Hz (default 250 MHz): what {@code nanoTime()} converts with. */
        public Builder clockHz(long hz) {
            if (hz <= 0) {
                throw new IllegalArgumentException("clock frequency must be positive, got " + hz + " Hz");
            }
            this.clockHz = hz;
            return this;
        }

        /** Port name prefixes of the two cores (default {@code "a_"}, {@code "b_"}). */
        public Builder prefixes(String a, String b) {
            prefix[0] = a;
            prefix[1] = b;
            return this;
        }

        /** TCP options of every QP's channel (default {@link TcpOptions#defaults()}). */
        public Builder tcp(TcpOptions options) {
            this.tcp = options;
            return this;
        }

        /** TCP options of QP {@code qp}'s legacy fixed channel ({@code connection(qp)}). */
        public Builder tcp(int qp, TcpOptions options) {
            perQp.put(qp, options);
            return this;
        }

        /** TCP options of every {@code connect} to port {@code port} (unless given per connection). */
        public Builder tcpForPort(int port, TcpOptions options) {
            perPort.put(port, options);
            return this;
        }

        /** TCP options of the run's {@code n}-th {@code connect} (0 = the first, counted over both RNICs). */
        public Builder tcpForConnection(int n, TcpOptions options) {
            perConnection.put(n, options);
            return this;
        }

        /** Cycles from {@code connect} to established or refused (default 4). */
        public Builder handshakeCycles(int cycles) {
            this.handshakeCycles = cycles;
            return this;
        }

        /** Writes the wire of every channel into this pcap file. */
        public Builder capture(Path file) {
            this.capture = file;
            return this;
        }

        /** Each host's memory window for allocate() (default 1 GiB at 0x1_0000_0000). */
        public Builder memoryWindow(long base, long size) {
            this.memoryBase = base;
            this.memorySize = size;
            return this;
        }

        /** Cycles one {@code advance()} steps (default 16). */
        public Builder advanceCycles(int cycles) {
            this.advanceCycles = cycles;
            return this;
        }

        /** Number of QPs (default: counted from the {@code tcpTx_<q>} ports). */
        public Builder qps(int n) {
            this.qps = n;
            return this;
        }

        /** Reset cycles applied at the end of {@link #build} (default 10; 0 = none). */
        public Builder resetCycles(int cycles) {
            this.resetCycles = cycles;
            return this;
        }

        /** Cycles an APB transfer may wait for PREADY (default 10 000). */
        public Builder apbTimeout(long cycles) {
            this.apbTimeout = cycles;
            return this;
        }

        /** How received octets are cut into tcpRx beats (default per segment). */
        public Builder rxBeats(TcpRxPacker.Policy policy) {
            this.rxBeats = policy;
            return this;
        }

        /** Idle insertion on each tcpRx port (a new pacer per port). */
        public Builder rxPacer(Supplier<Pacer> pacer) {
            this.rxPacer = pacer;
            return this;
        }

        /** Back-pressure on each tcpTx port (a new pacer per port). */
        public Builder txPacer(Supplier<Pacer> pacer) {
            this.txPacer = pacer;
            return this;
        }

        /** Attaches everything to {@code tb}'s design and returns the system. */
        public RnicSystem build(Tb<?> tb) {
            return new RnicSystem(this, tb);
        }
    }
}
