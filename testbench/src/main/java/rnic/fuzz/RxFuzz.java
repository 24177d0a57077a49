package rnic.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import rnic.driver.RnicRegs;
import rnic.hw.top.RnicPair;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.ddp.StagTable;
import rnic.model.ddp.TerminateException;
import rnic.model.mpa.MpaDeframer;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.model.rdmap.AtomicRequest;
import rnic.model.rdmap.EndpointAction;
import rnic.model.rdmap.ImmediateData;
import rnic.model.rdmap.RdmapDecoder;
import rnic.model.rdmap.RdmapEndpoint;
import rnic.model.rdmap.RdmapMessage;
import rnic.model.rdmap.ReadRequest;
import rnic.model.rdmap.SendMessage;
import rnic.model.rdmap.TaggedMessage;
import rnic.model.rdmap.Terminate;
import rnic.sim.Apb3Master;
import rnic.sim.Axi4MemorySlave;
import rnic.sim.HostMemory;
import rnic.sim.Pacer;
import rnic.sim.Ports;
import rnic.sim.RnicSystem;
import rnic.sim.SimModel;
import rnic.sim.Tb;
import rnic.sim.TcpPayloadSource;
import rnic.wire.Cqe;
import rnic.wire.MpaErrorCode;
import rnic.wire.QpState;
import rnic.wire.RdmapOpcode;
import rnic.wire.RqWqe;
import rnic.wire.TerminateCause;

/**
 * {@code ./rnic fuzz}: the receive path of one {@code RnicCore} (core b of the two-RNIC model {@link RnicPair}) under
 * random and mutated traffic on all four of its TCP receive ports at once, checked against the golden models.
 *
 * <p><b>Traffic.</b> Rounds; in each, every connection q gets an episode: a few valid RDMAP messages from a peer
 * (RDMA Writes to three STags of different kinds, Sends and Immediate Data into posted receive buffers, RDMA Read
 * Requests, Atomic Requests, now and then an inbound Terminate) framed by the golden {@link MpaFramer} with the
 * connection's own Markers (on/off), CRC (on/off), EMSS and start sequence number, then — on most episodes — one thing
 * broken: a field of one segment (DDP control octet/flags, RDMAP control octet/opcode, STag, TO, QN, MSN replayed or
 * skipped, MO, Read Request fields, Atomic Request fields, Terminate contents, huge values), one segment replaced by
 * random octets or cut short, or, after framing, the MPA layer (ULPDU_Length, a Marker, the CRC, the PAD, random octets
 * in the stream, a hole in the sequence). The TCP payload is then cut into beats anywhere (down to one octet) and the
 * four connections are fed at the same time.
 *
 * <p><b>Golden.</b> The same octets go through {@link MpaDeframer} (built with the core's receive-buffer bound) and an
 * {@link RdmapEndpoint} per connection holding the same STags and receive buffers; a hole is an MPA error E-M1 after
 * the ULPDUs completed before it; an MPA error is {@link RdmapEndpoint#llpError}.
 *
 * <p><b>Oracle</b> (each failure is a violation with the seed and round):
 * <ul>
 *   <li>every AXI write (checked on the cycle it is issued) lies inside a region the host granted for writing: an STag
 *       region with Remote Write or Remote Atomic, the posted receive buffers, the completion rings;</li>
 *   <li>host memory in every data region equals the golden memory after each round — nothing placed after a detected
 *       error, nothing missing before it;</li>
 *   <li>no hang: a round's input is taken within {@value #BOUND_BASE} + {@value #BOUND_PER_OCTET} cycles per octet fed,
 *       and the core is quiet again within {@value #QUIET_LIMIT} cycles after that (quiet: {@value #QUIET_CYCLES}
 *       cycles without a memory or transmitted beat, CORE_STATUS.RX_IDLE set whenever read in them);</li>
 *   <li>each detected error gives exactly one Terminate, octet for octet the golden one (the MPA error's, Layer LLP,
 *       for an MPA error), as the connection's last FPDU; an inbound Terminate gives none;</li>
 *   <li>a connection with an error is in ERR afterwards (QP_STATE), the others stay in RTS and keep working.</li>
 * </ul>
 * A connection in ERR is reset (RESET → INIT → RTR → RTS, a new start sequence number) before its next episode.
 *
 * <p>Requirements exercised: MPA-23, MPA-25, MPA-42, MPA-44, DDP-18, DDP-27, DDP-28, DDP-31, RDMAP-14, RDMAP-17,
 * RDMAP-18 (docs/requirements.md §3, the error → Terminate table).
 */
public final class RxFuzz {
    static final int QPS = 4;
    static final int BOUND_BASE = 2000;
    static final int BOUND_PER_OCTET = 2;
    static final int QUIET_LIMIT = 20_000;
    /** Cycles without a memory or transmitted beat, the receive path idle throughout, that count as quiet. */
    static final int QUIET_CYCLES = 96;
    static final int IRD = 4;
    static final long SQ = 0x10_0000;
    static final long RQ = 0x20_0000;
    static final long CQ = 0x30_0000;
    static final int RING_STRIDE = 0x4000;
    static final int CQ_LOG2 = 8;
    static final int RQ_LOG2 = 4;
    static final int RECV_SLOTS = 16;
    static final int RECV_SLOT = 4096;
    /** The core's receive-buffer bound (RnicConfig default MSS 9000 − 6). */
    static final int MAX_ULPDU = 8994;

    /** How a run is set up. */
    public record Options(long fpdus, long seed, int width, boolean avoidOpenFindings, int maxViolations) {
        public Options(long fpdus, long seed, int width) {
            this(fpdus, seed, width, false, 20);
        }
    }

    /**
     * The open findings (README, "Fuzzing the receive path"): with {@code --avoid-open} the fuzzer does not generate
     * the traffic that shows them, and says so.
     */
    static final String OPEN_FINDINGS = "F16 (a Terminate lost when another"
            + " connection receives a Terminate at about the same time: no inbound Terminates generated)";

    /** What a run found. */
    public static final class Report {
        public long fpdus;
        public long octets;
        public long cycles;
        public long rounds;
        public long episodes;
        public long mutated;
        public long errors;
        public double seconds;
        public final Map<String, Long> causes = new TreeMap<>();
        public final Map<String, Long> mutations = new TreeMap<>();
        public final List<String> violations = new ArrayList<>();
        /** Violations by oracle: write outside a granted region, hang, memory, QP state, Terminate, unfinished FPDU. */
        public final Map<String, Long> violationKinds = new TreeMap<>();

        /** Violations of one oracle. */
        public long violations(String kind) {
            return violationKinds.getOrDefault(kind, 0L);
        }

        /** Violations of every oracle. */
        public long violationCount() {
            return violationKinds.values().stream().mapToLong(Long::longValue).sum();
        }

        public Options options;

        public String summary() {
            StringBuilder s = new StringBuilder();
            s.append(String.format(Locale.ROOT, "rnic fuzz: W=%d seed %d: %d FPDUs (%d octets) in %d rounds, %d"
                    + " episodes (%d mutated), %d cycles, %.1f s: %.0f FPDUs/s, %.0f cycles/s%n", options.width(),
                    options.seed(), fpdus, octets, rounds, episodes, mutated, cycles, seconds, fpdus / seconds,
                    cycles / seconds));
            s.append(String.format("errors detected: %d (Terminates expected and seen)%n", errors));
            causes.forEach((k, v) -> s.append(String.format("  %-40s %8d%n", k, v)));
            s.append("mutations applied:\n");
            mutations.forEach((k, v) -> s.append(String.format("  %-40s %8d%n", k, v)));
            if (options.avoidOpenFindings()) {
                s.append("not generated (--avoid-open): ").append(OPEN_FINDINGS).append('\n');
            }
            s.append(String.format("violations: %d%s%n", violationKinds.values().stream().mapToLong(Long::longValue)
                    .sum(), violationKinds.isEmpty() ? "" : " " + violationKinds));
            for (String v : violations.subList(0, Math.min(20, violations.size()))) {
                s.append("  ").append(v).append('\n');
            }
            if (!violations.isEmpty()) {
                s.append(String.format("reproduce: ./rnic fuzz --width %d --seed %d --fpdus %d%s%n", options.width(),
                        options.seed(), options.fpdus(), options.avoidOpenFindings() ? " --avoid-open" : ""));
            }
            return s.toString();
        }
    }

    public static void main(String[] args) {
        long fpdus = 10_000;
        long seed = System.nanoTime() & 0xFFFF_FFFFL;
        int width = 64;
        boolean avoid = false;
        int maxViolations = 20;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--fpdus" -> fpdus = Long.parseLong(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--width" -> width = Integer.parseInt(args[++i]);
                case "--avoid-open" -> avoid = true;
                case "--max-violations" -> maxViolations = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println("usage: ./rnic fuzz [--fpdus N] [--seed S] [--width 64|512] [--avoid-open]"
                            + " [--max-violations N]");
                    System.exit(2);
                }
            }
        }
        if (width != 64 && width != 512) {
            System.err.println("--width is 64 or 512");
            System.exit(2);
        }
        if (System.getProperty("rnic.simDir") == null) {
            System.setProperty("rnic.simDir", Path.of("build", "sim").toString());
        }
        System.out.printf("rnic fuzz: W=%d, seed %d, %d FPDUs (reproduce with --seed %d)%n", width, seed, fpdus, seed);
        progress = true;
        Report r = run(new Options(fpdus, seed, width, avoid, maxViolations));
        System.out.print(r.summary());
        System.exit(r.violations.isEmpty() ? 0 : 1);
    }

    /** Runs the fuzzer on the two-RNIC model of width {@code o.width()}. */
    public static Report run(Options o) {
        SimModel<RnicPair> model = RnicSystem.model(o.width());
        Report report = new Report();
        report.options = o;
        model.run("fuzz-" + o.seed(), o.seed(), tb -> new RxFuzz(tb, o, report).go());
        return report;
    }

    // ---------------------------------------------------------------------------------------------- set-up

    /** A registered region of the host, as the golden StagTable and the STAG registers see it. */
    record Region(int stag, int pd, int qp, boolean qpBound, Set<StagTable.Access> access, long va, long length,
            boolean zeroBased) {
        StagTable.Region golden() {
            return new StagTable.Region(stag, pd, qpBound ? OptionalInt.of(qp) : OptionalInt.empty(), access, va,
                    length, zeroBased);
        }

        long firstTo() {
            return zeroBased ? 0 : va;
        }
    }

    private final Tb<RnicPair> tb;
    private final Options options;
    private final Report report;
    private final Random rng;
    private final int w;
    private final Apb3Master apb;
    private final HostMemory memory = new HostMemory();
    private final HostMemory golden = new HostMemory();
    private final Axi4MemorySlave slave;
    private final List<TcpPayloadSource> in = new ArrayList<>();
    private final List<Region> regions = new ArrayList<>();
    private final Conn[] conns = new Conn[QPS];
    private final TxSink[] txSinks = new TxSink[QPS];

    /**
     * What core b sends on {@code tcpTx_q}, one packet (FPDU) per TCP segment; restartable: a QP reset may drop the
     * rest of a packet the core was showing (RnicCore's contract), so the octets gathered so far can be discarded.
     */
    static final class TxSink {
        final ByteArrayOutputStream packet = new ByteArrayOutputStream();
        /** Beats taken so far. */
        long beats;

        TxSink(Tb<?> tb, spinal.lib.Stream<rnic.hw.axis.AxisBeat> port, java.util.function.Consumer<byte[]> onPacket,
                java.util.function.IntConsumer onBeat) {
            rnic.hw.axis.AxisBeat p = port.payload();
            rnic.sim.SimSignal tdata = tb.signal(p.tdata);
            rnic.sim.SimSignal tkeep = tb.signal(p.tkeep);
            rnic.sim.SimSignal tlast = tb.signal(p.tlast);
            int octets = p.dataWidth / 8;
            tb.add(new rnic.sim.StreamSink<byte[]>(port.getName(), tb.signal(port.valid()), tb.signal(port.ready()),
                    () -> {
                        byte[] d = tdata.getOctets();
                        long keep = tkeep.get();
                        int n = Math.min(octets, Long.numberOfTrailingZeros(~keep));
                        byte[] b = Arrays.copyOf(d, n + 1);
                        b[n] = (byte) (tlast.getBool() ? 1 : 0);
                        return b;
                    }, Pacer.always(), b -> {
                        packet.write(b, 0, b.length - 1);
                        beats++;
                        onBeat.accept(packet.size());
                        if (b[b.length - 1] != 0) {
                            onPacket.accept(packet.toByteArray());
                            packet.reset();
                        }
                    }));
        }

        /** Octets of an unfinished packet, dropped. */
        int restart() {
            int n = packet.size();
            packet.reset();
            return n;
        }
    }
    /** Writes seen on the AXI port this round, [address, end). */
    private final List<long[]> writes = new ArrayList<>();
    private long round;
    /** Print a line every 10 000 FPDUs (the command line). */
    static boolean progress;

    /** One connection (QP q of core b) and its peer. */
    final class Conn {
        final int q;
        final int pd;
        final List<Region> mine = new ArrayList<>();
        boolean markers;
        boolean crc;
        int emss;
        MpaFramer framer;
        DdpSegmenter ddp;
        RdmapEndpoint endpoint;
        long rqProd;
        int outstandingRecv;
        /** FPDUs core b sent on this connection this episode (ULPDUs). */
        final List<byte[]> sent = new ArrayList<>();
        boolean terminateSeen;
        int afterTerminate;
        /** The golden receiver of this connection (persistent: the stream continues across rounds). */
        MpaDeframer deframer;
        /** A hole was fed: nothing more is delivered until RESET. */
        boolean dead;
        long seqStart;

        Conn(int q) {
            this.q = q;
            this.pd = 0x100 + q;
        }

        long recvBase() {
            return dataBase(q) + 0x10_0000;
        }
    }

    static long dataBase(int q) {
        return 0x0000_0010_0000_0000L * (q + 1);
    }

    private RxFuzz(Tb<RnicPair> tb, Options options, Report report) {
        this.tb = tb;
        this.options = options;
        this.report = report;
        this.rng = tb.random();
        this.w = options.width();
        Ports ports = Ports.of(tb);
        apb = Apb3Master.on(tb, ports, "b_apb_");
        slave = Axi4MemorySlave.on(tb, tb.dut().io.b.axi, memory);
        for (int q = 0; q < QPS; q++) {
            in.add(TcpPayloadSource.on(tb, tb.dut().io.b.tcpRx.get(q), Pacer.always()));
            int qq = q;
            txSinks[q] = new TxSink(tb, tb.dut().io.b.tcpTx.get(q), fpdu -> sent(qq, fpdu), n -> {
                if (traced()) {
                    System.out.printf("  [round %d cycle %d] QP %d beat out, %d octets of the FPDU%n", round,
                            tb.cycle(), qq, n);
                }
            });
        }
        memory.onAccess((address, length, isWrite) -> {
            if (isWrite) {
                if (traced()) {
                    System.out.printf("  [round %d cycle %d] AXI write %s +%d%n", round, tb.cycle(),
                            HostMemory.hex(address), length);
                }
                checkWrite(address, length);
            } else if (traced()) {
                System.out.printf("  [round %d cycle %d] AXI read %s +%d%n", round, tb.cycle(),
                        HostMemory.hex(address), length);
            }
        });
        tb.reset(3);
    }

    /**
     * {@code -Drnic.fuzz.trace=R[,R2...]}: print the episodes of round R (and of each further round listed) and what the
     * core sent; rounds R and R + 1 also get a cycle-by-cycle trace of memory accesses and transmitted beats.
     */
    private static final long[] TRACES = java.util.Arrays.stream(System.getProperty("rnic.fuzz.trace", "").split(","))
            .map(String::trim).filter(t -> !t.isEmpty()).mapToLong(Long::parseLong).toArray();

    /** Whether round {@code r} is one of those listed in {@code rnic.fuzz.trace}. */
    private static boolean tracedRound(long r) {
        return java.util.Arrays.stream(TRACES).anyMatch(t -> t == r);
    }
    private final String[] traces = new String[QPS];

    private void violation(String what) {
        String kind = what.startsWith("AXI write") ? "write outside a granted region"
                : what.startsWith("hang") ? "hang"
                : what.startsWith("memory") ? "memory differs from the golden"
                : what.contains("QP_STATE") || what.contains("reach RTS") ? "QP state"
                : what.contains("middle of an FPDU") ? "unfinished FPDU" : "Terminate";
        report.violationKinds.merge(kind, 1L, Long::sum);
        String v = String.format("round %d cycle %d: %s", round, tb.cycle(), what);
        if (TRACES.length > 0) {
            System.out.println("VIOLATION " + v);
        }
        if (report.violations.size() < 1_000_000) {
            report.violations.add(v);
        }
    }

    /** The per-access rule: a write lies inside a region granted for writing. */
    private void checkWrite(long address, int length) {
        writes.add(new long[] {address, address + length});
        long end = address + length;
        for (Region r : regions) {
            if ((r.access().contains(StagTable.Access.REMOTE_WRITE) || r.access().contains(
                    StagTable.Access.REMOTE_ATOMIC)) && inside(address, end, r.va(), r.va() + r.length())) {
                return;
            }
        }
        for (Conn c : conns) {
            if (inside(address, end, c.recvBase(), c.recvBase() + (long) RECV_SLOTS * RECV_SLOT)) {
                return;
            }
        }
        for (int q = 0; q < QPS; q++) {
            long cq = CQ + (long) q * RING_STRIDE;
            if (inside(address, end, cq, cq + ((long) Cqe.SIZE << CQ_LOG2))) {
                return;
            }
        }
        violation(String.format("AXI write of %d octets at %s outside every granted region", length,
                HostMemory.hex(address)));
    }

    private static boolean inside(long a, long end, long from, long to) {
        return Long.compareUnsigned(a, from) >= 0 && Long.compareUnsigned(end, to) <= 0;
    }

    private static int qpReg(int q, int reg) {
        return RnicRegs.QP_BASE + q * RnicRegs.QP_STRIDE + reg;
    }

    private static int cqReg(int c, int reg) {
        return RnicRegs.CQ_BASE + c * RnicRegs.CQ_STRIDE + reg;
    }

    private void programStag(Region r) {
        apb.write(RnicRegs.STAG_INDEX, r.stag() >>> 8);
        apb.write(RnicRegs.STAG_KEY, r.stag() & 0xFF);
        apb.write(RnicRegs.STAG_PD, r.pd());
        apb.write(RnicRegs.STAG_QP, r.qp());
        apb.write(RnicRegs.STAG_FLAGS, RnicRegs.STAG_FLAGS_VALID_MASK
                | (r.qpBound() ? RnicRegs.STAG_FLAGS_QP_BOUND_MASK : 0)
                | (r.access().contains(StagTable.Access.REMOTE_WRITE) ? RnicRegs.STAG_FLAGS_REMOTE_WRITE_MASK : 0)
                | (r.access().contains(StagTable.Access.REMOTE_READ) ? RnicRegs.STAG_FLAGS_REMOTE_READ_MASK : 0)
                | (r.access().contains(StagTable.Access.REMOTE_ATOMIC) ? RnicRegs.STAG_FLAGS_REMOTE_ATOMIC_MASK : 0)
                | (r.zeroBased() ? RnicRegs.STAG_FLAGS_ZERO_BASED_MASK : 0));
        apb.write(RnicRegs.STAG_VA_LO, (int) r.va());
        apb.write(RnicRegs.STAG_VA_HI, (int) (r.va() >>> 32));
        apb.write(RnicRegs.STAG_LEN_LO, (int) r.length());
        apb.write(RnicRegs.STAG_LEN_HI, (int) (r.length() >>> 32));
        apb.write(RnicRegs.STAG_COMMAND, 1);
        for (int polls = 0; (apb.read(RnicRegs.STAG_STATUS) & 1) != 0; polls++) {
            if (polls > 100) {
                throw new IllegalStateException("STAG_STATUS.BUSY stays set");
            }
        }
    }

    private QpState state(int q) {
        return QpState.of(apb.read(qpReg(q, RnicRegs.QP_STATE)));
    }

    /** Opens connection q from RESET: rings, PD, IRD/ORD, MPA settings, RESET→INIT→RTR→RTS; a fresh peer. */
    private void open(Conn c) {
        int q = c.q;
        apb.write(qpReg(q, RnicRegs.QP_STATE), QpState.RESET.code());
        tb.step(Long.getLong("rnic.fuzz.resetHold", 0));
        long sq = SQ + (long) q * RING_STRIDE;
        long rq = RQ + (long) q * RING_STRIDE;
        long cq = CQ + (long) q * RING_STRIDE;
        apb.write(qpReg(q, RnicRegs.QP_SQ_BASE_LO), (int) sq);
        apb.write(qpReg(q, RnicRegs.QP_SQ_BASE_HI), 0);
        apb.write(qpReg(q, RnicRegs.QP_SQ_SIZE), 4);
        apb.write(qpReg(q, RnicRegs.QP_RQ_BASE_LO), (int) rq);
        apb.write(qpReg(q, RnicRegs.QP_RQ_BASE_HI), 0);
        apb.write(qpReg(q, RnicRegs.QP_RQ_SIZE), RQ_LOG2);
        apb.write(qpReg(q, RnicRegs.QP_SQ_CQ), q);
        apb.write(qpReg(q, RnicRegs.QP_RQ_CQ), q);
        apb.write(cqReg(q, RnicRegs.CQ_BASE_LO), (int) cq);
        apb.write(cqReg(q, RnicRegs.CQ_BASE_HI), 0);
        apb.write(cqReg(q, RnicRegs.CQ_SIZE), CQ_LOG2);
        apb.write(cqReg(q, RnicRegs.CQ_CONS), apb.read(cqReg(q, RnicRegs.CQ_PROD)));
        apb.write(qpReg(q, RnicRegs.QP_PD), c.pd);
        apb.write(qpReg(q, RnicRegs.QP_IRD), IRD);
        apb.write(qpReg(q, RnicRegs.QP_ORD), IRD);
        c.markers = rng.nextBoolean();
        c.crc = rng.nextInt(4) != 0;
        c.emss = switch (rng.nextInt(4)) {
            case 0 -> 134 + rng.nextInt(200);
            case 1 -> 536;
            case 2 -> 1460;
            default -> 200 + rng.nextInt(9000 - 200);
        };
        long seqStart = switch (rng.nextInt(3)) {
            case 0 -> 0xFFFF_FFFFL - rng.nextInt(4096);
            case 1 -> rng.nextInt(1 << 16);
            default -> rng.nextLong() & 0xFFFF_FFFFL;
        };
        // No Markers out: each FPDU the core sends is read as ULPDU_Length + ULPDU.
        apb.write(qpReg(q, RnicRegs.QP_MPA), (c.markers ? RnicRegs.QP_MPA_RX_MARKERS_MASK : 0)
                | (c.crc ? RnicRegs.QP_MPA_CRC_MASK : 0));
        apb.write(qpReg(q, RnicRegs.QP_EMSS), 1460);
        apb.write(qpReg(q, RnicRegs.QP_RX_SEQ_START), (int) seqStart);
        for (QpState s : List.of(QpState.INIT, QpState.RTR, QpState.RTS)) {
            apb.write(qpReg(q, RnicRegs.QP_STATE), s.code());
        }
        if (state(q) != QpState.RTS) {
            violation("QP " + q + " does not reach RTS after RESET");
        }
        c.framer = new MpaFramer(new MpaDirection(c.markers, c.crc, seqStart), c.emss);
        c.deframer = new MpaDeframer(new MpaDirection(c.markers, c.crc, seqStart), MAX_ULPDU);
        c.dead = false;
        c.seqStart = seqStart;
        c.ddp = new DdpSegmenter();
        List<RdmapEndpoint.QpConfig> cfg = new ArrayList<>();
        for (int k = 0; k < QPS; k++) {
            cfg.add(new RdmapEndpoint.QpConfig(0x100 + k, IRD, IRD, 1460 - 6));
        }
        c.endpoint = new RdmapEndpoint(golden, cfg);
        for (Region r : regions) {
            c.endpoint.register(r.golden());
        }
        c.rqProd = 0;
        c.outstandingRecv = 0;
    }

    private void go() {
        for (int q = 0; q < QPS; q++) {
            conns[q] = new Conn(q);
        }
        for (int q = 0; q < QPS; q++) {
            Conn c = conns[q];
            long base = dataBase(q);
            int pd = c.pd;
            int key = rng.nextInt(256);
            // Write region (VA-based, bound to the QP), read/atomic region, zero-based write region of the PD.
            Region wr = new Region((1 + 3 * q) << 8 | key, pd, q, true, EnumSet.of(StagTable.Access.REMOTE_WRITE),
                    base + rng.nextInt(64), 65536, false);
            Region rd = new Region((2 + 3 * q) << 8 | key ^ 0x5A, pd, q, true,
                    EnumSet.of(StagTable.Access.REMOTE_READ, StagTable.Access.REMOTE_ATOMIC), base + 0x4_0000, 8192,
                    false);
            Region zb = new Region((3 + 3 * q) << 8 | key ^ 0xA5, pd, q, false,
                    EnumSet.of(StagTable.Access.REMOTE_WRITE), base + 0x8_0000 + 8 * rng.nextInt(64), 16384, true);
            for (Region r : List.of(wr, rd, zb)) {
                regions.add(r);
                c.mine.add(r);
                programStag(r);
            }
            byte[] fill = new byte[8192];
            rng.nextBytes(fill);
            memory.write(rd.va(), fill);
            golden.write(rd.va(), fill);
        }
        for (Conn c : conns) {
            open(c);
        }
        long start = System.nanoTime();
        long startCycle = tb.cycle();
        while (report.fpdus < options.fpdus() && report.violations.size() < options.maxViolations()) {
            long before = report.fpdus;
            tb.recordWave(TRACES.length == 0 || traced()); // with -Drnic.wave: only the traced rounds
            boolean ok = round();
            round++;
            if (progress && report.fpdus / 10_000 != before / 10_000) {
                System.out.printf("  %d FPDUs, %d rounds, %d errors, %d violations, %.0f s%n", report.fpdus, round,
                        report.errors, report.violations.size(), (System.nanoTime() - start) / 1e9);
            }
            if (!ok) {
                break;
            }
        }
        report.rounds = round;
        report.cycles = tb.cycle() - startCycle;
        report.seconds = (System.nanoTime() - start) / 1e9;
    }

    // ---------------------------------------------------------------------------------------------- a round

    /** What an episode expects from the golden side. */
    static final class Expect {
        boolean failed;
        String cause;
        byte[] terminate;
        boolean terminateReceived;
        /** E-M1: the QP stops without a Terminate. */
        boolean llpSilent;
    }

    private void sent(int q, byte[] fpdu) {
        Conn c = conns[q];
        if (fpdu.length < 2) {
            violation("QP " + q + ": an FPDU of " + fpdu.length + " octets");
            return;
        }
        int len = (fpdu[0] & 0xFF) << 8 | fpdu[1] & 0xFF;
        byte[] ulpdu = Arrays.copyOfRange(fpdu, 2, Math.min(fpdu.length, 2 + len));
        c.sent.add(ulpdu);
        if (traced()) {
            System.out.printf("  [round %d cycle %d] QP %d sent %d octets%n", round, tb.cycle(), q, ulpdu.length);
        }
        if (c.terminateSeen) {
            c.afterTerminate++;
        }
        if (isTerminate(ulpdu)) {
            c.terminateSeen = true;
        }
    }

    static boolean isTerminate(byte[] ulpdu) {
        return ulpdu.length >= 18 && (ulpdu[0] & 0x80) == 0 && (ulpdu[1] & 0x0F) == RdmapOpcode.TERMINATE.code()
                && ByteBuffer.wrap(ulpdu, 6, 4).getInt() == 2;
    }

    private boolean round() {
        writes.clear();
        List<byte[]> streams = new ArrayList<>();
        List<long[]> cuts = new ArrayList<>();
        Expect[] expect = new Expect[QPS];
        long octets = 0;
        for (Conn c : conns) {
            c.sent.clear();
            c.terminateSeen = false;
            c.afterTerminate = 0;
        }
        List<Integer> fedQps = new ArrayList<>();
        for (Conn c : conns) {
            Episode e = episode(c);
            expect[c.q] = e.expect;
            report.episodes++;
            if (e.mutation != null) {
                report.mutated++;
                report.mutations.merge(e.mutation, 1L, Long::sum);
            }
            report.fpdus += e.fpdus;
            octets += e.stream.length;
            streams.add(e.stream);
            cuts.add(new long[] {e.seq, e.holeFrom, e.holeTo});
            fedQps.add(c.q);
        }
        tb.step(64); // the receive buffers posted above reach the engine
        for (int q : fedQps) {
            byte[] s = streams.get(q);
            long[] cut = cuts.get(q);
            TcpPayloadSource src = in.get(q);
            var beats = TcpPayloadSource.resegmenting(rng, w / 8);
            if (cut[1] < 0) {
                if (s.length > 0) {
                    src.send(cut[0], s, beats);
                }
            } else {
                if (cut[1] > 0) {
                    src.send(cut[0], Arrays.copyOfRange(s, 0, (int) cut[1]), beats);
                }
                src.send((cut[0] + cut[2]) & 0xFFFF_FFFFL, Arrays.copyOfRange(s, (int) cut[2], s.length), beats);
            }
        }
        report.octets += octets;
        long bound = BOUND_BASE + BOUND_PER_OCTET * octets;
        long t0 = tb.cycle();
        boolean[] doneTrace = new boolean[QPS];
        while (in.stream().anyMatch(TcpPayloadSource::busy)) {
            if (tracedRound(round)) {
                for (int q = 0; q < QPS; q++) {
                    if (!doneTrace[q] && !in.get(q).busy()) {
                        doneTrace[q] = true;
                        System.out.printf("  [round %d cycle %d] QP %d input taken%n", round, tb.cycle(), q);
                    }
                }
            }
            if (tb.cycle() - t0 > bound) {
                violation(String.format("hang: %d octets not taken within %d cycles (W=%d)", octets, bound, w));
                return false;
            }
            tb.step();
        }
        // Quiet: for QUIET_CYCLES cycles no memory beat, no transmitted beat, and the receive path idle on every
        // sample of CORE_STATUS.RX_IDLE (read back to back over APB, a few cycles each). RX_IDLE alone is not enough:
        // the core may be draining a failed connection's ULPDU (no memory traffic, one beat per cycle) with work of
        // other connections behind it — a Read Request whose response starts a cycle after RX_IDLE rises, an MPA error
        // reported once the shared receiver's reader gets to it — and a window that merely ended on an idle sample saw
        // that work as missing (seed 29112026: rounds 35877 and 37124, a Read Response "stopped" mid-FPDU and an MPA
        // error with "no" Terminate, both sent a few cycles later).
        long t1 = tb.cycle();
        if (traced()) {
            System.out.printf("  [round %d cycle %d] input taken (from cycle %d)%n", round, t1, t0);
        }
        long lastActivity = tb.cycle();
        long beats = -1;
        boolean idle = true;
        while (tb.cycle() - lastActivity < QUIET_CYCLES) {
            if (tb.cycle() - t1 > QUIET_LIMIT) {
                violation("hang: the core is still busy " + QUIET_LIMIT + " cycles after its input was taken"
                        + (idle ? "" : " (CORE_STATUS.RX_IDLE low)"));
                return false;
            }
            idle = rxIdle(); // steps the clock
            long b = slave.readBeats() + slave.writeBeats() + sentBeats();
            if (b != beats || !idle) {
                beats = b;
                lastActivity = tb.cycle();
            }
        }
        check(expect);
        return true;
    }

    /** Whether this round's cycle-by-cycle trace is printed: a round listed in {@code rnic.fuzz.trace}, or the next. */
    private boolean traced() {
        return tracedRound(round) || tracedRound(round - 1);
    }

    /** CORE_STATUS.RX_IDLE: no received ULPDU is waiting for or inside the engine. */
    private boolean rxIdle() {
        return (apb.read(RnicRegs.CORE_STATUS) & RnicRegs.CORE_STATUS_RX_IDLE_MASK) != 0;
    }

    /** Beats core b has transmitted so far, on every connection. */
    private long sentBeats() {
        long n = 0;
        for (TxSink t : txSinks) {
            n += t.beats;
        }
        return n;
    }

    private void check(Expect[] expect) {
        if (traced()) {
            System.out.printf("  [round %d cycle %d] quiet: checking%n", round, tb.cycle());
        }
        for (Conn c : conns) {
            Expect e = expect[c.q];
            if (tracedRound(round)) {
                System.out.print(traces[c.q]);
                System.out.printf("  QP_STATE %s QP_ERROR %x; core sent %d FPDUs%n", state(c.q),
                        apb.read(qpReg(c.q, RnicRegs.QP_ERROR)), c.sent.size());
                for (byte[] u : c.sent) {
                    System.out.println("    " + describe(u));
                }
            }
            QpState s = state(c.q);
            if (e.failed && s != QpState.ERR) {
                violation("QP " + c.q + ": golden failed (" + e.cause + ") but QP_STATE is " + s);
            } else if (!e.failed && s != QpState.RTS) {
                violation("QP " + c.q + ": no error expected but QP_STATE is " + s + " (QP_ERROR "
                        + Integer.toHexString(apb.read(qpReg(c.q, RnicRegs.QP_ERROR))) + ")");
            }
            List<byte[]> terms = c.sent.stream().filter(RxFuzz::isTerminate).toList();
            if (e.terminate != null) {
                report.errors++;
                report.causes.merge(e.cause, 1L, Long::sum);
                if (terms.size() != 1) {
                    violation("QP " + c.q + ": " + terms.size() + " Terminates for " + e.cause);
                } else if (!Arrays.equals(terms.get(0), e.terminate)) {
                    violation("QP " + c.q + ": Terminate for " + e.cause + " differs: core " + describe(terms.get(0))
                            + " golden " + describe(e.terminate));
                }
                if (c.afterTerminate != 0) {
                    violation("QP " + c.q + ": " + c.afterTerminate + " FPDUs after the Terminate");
                }
            } else {
                if (e.terminateReceived) {
                    report.causes.merge("(inbound Terminate received: no reply)", 1L, Long::sum);
                }
                if (e.llpSilent) {
                    report.errors++;
                    report.causes.merge(e.cause + ", no Terminate", 1L, Long::sum);
                }
                if (!terms.isEmpty()) {
                    violation("QP " + c.q + ": a Terminate " + describe(terms.get(0)) + " but golden "
                            + (e.failed ? "received a Terminate" : "found no error"));
                }
            }
        }
        // Memory: every octet written this round, and everything the golden placed, equal in both.
        for (long[] r : writes) {
            compare(r[0], (int) (r[1] - r[0]), "AXI write");
        }
        for (long[] r : goldenPlaces) {
            compare(r[0], (int) (r[1] - r[0]), "golden placement");
        }
        goldenPlaces.clear();
        // Reset failed connections; release completions.
        for (Conn c : conns) {
            int partial = txSinks[c.q].packet.size();
            if (partial != 0) {
                violation("QP " + c.q + ": the core stopped sending in the middle of an FPDU (" + partial
                        + " octets of it sent, then nothing)");
            }
            if (expect[c.q].failed || state(c.q) != QpState.RTS) {
                open(c);
                txSinks[c.q].restart();
            } else {
                apb.write(cqReg(c.q, RnicRegs.CQ_CONS), apb.read(cqReg(c.q, RnicRegs.CQ_PROD)));
            }
        }
    }

    private final List<long[]> goldenPlaces = new ArrayList<>();

    private void compare(long address, int length, String what) {
        if (isRing(address)) {
            return;
        }
        byte[] got = memory.read(address, length);
        byte[] want = golden.read(address, length);
        if (!Arrays.equals(got, want)) {
            int i = Arrays.mismatch(got, want);
            violation(String.format("memory differs at %s (%s of %d octets at %s): core %02x, golden %02x",
                    HostMemory.hex(address + i), what, length, HostMemory.hex(address), got[i] & 0xFF,
                    want[i] & 0xFF));
        }
    }

    private static boolean isRing(long address) {
        return Long.compareUnsigned(address, CQ) >= 0 && Long.compareUnsigned(address, CQ + QPS * RING_STRIDE) < 0;
    }

    static String describe(byte[] ulpdu) {
        StringBuilder s = new StringBuilder();
        try {
            DdpSegment seg = DdpSegment.parse(ulpdu);
            s.append(new RdmapDecoder(true).decode(List.of(seg)));
        } catch (TerminateException | RuntimeException e) {
            s.append("(undecodable: ").append(e.getMessage()).append(')');
        }
        s.append(" [").append(java.util.HexFormat.of().formatHex(ulpdu)).append(']');
        return s.toString();
    }

    // ---------------------------------------------------------------------------------------------- episodes

    /** One connection's traffic for a round and what the golden side makes of it. */
    static final class Episode {
        byte[] stream = new byte[0];
        long seq;
        long holeFrom = -1;
        long holeTo = -1;
        int fpdus;
        String mutation;
        final Expect expect = new Expect();
    }

    private Episode episode(Conn c) {
        Episode e = new Episode();
        boolean mutate = rng.nextInt(8) < 5;
        int messages = 1 + rng.nextInt(6);
        List<byte[]> ulpdus = new ArrayList<>();
        Region wr = c.mine.get(0);
        Region rd = c.mine.get(1);
        Region zb = c.mine.get(2);
        int reads = 0;
        boolean terminateSent = false;
        int mulpdu = c.framer.mulpdu();
        for (int m = 0; m < messages && !terminateSent; m++) {
            int pick = rng.nextInt(100);
            RdmapMessage msg;
            if (pick < 35) {
                Region r = rng.nextBoolean() ? wr : zb;
                int n = rng.nextInt(8) == 0 ? 0 : 1 + rng.nextInt(rng.nextBoolean() ? 64 : 3000);
                long off = rng.nextInt((int) r.length() - n + 1);
                byte[] p = new byte[n];
                rng.nextBytes(p);
                msg = TaggedMessage.write(r.stag(), r.firstTo() + off, p);
            } else if (pick < 60 && c.outstandingRecv < 8) {
                int n = rng.nextInt(4) == 0 ? 0 : 1 + rng.nextInt(rng.nextBoolean() ? 64 : 2000);
                postRecv(c, n + rng.nextInt(200) + (rng.nextInt(10) == 0 ? 0 : 8));
                byte[] p = new byte[n];
                rng.nextBytes(p);
                RdmapOpcode op = rng.nextBoolean() ? RdmapOpcode.SEND : RdmapOpcode.SEND_WITH_SE;
                msg = rng.nextInt(6) == 0 ? new ImmediateData(rng.nextBoolean() ? RdmapOpcode.IMMEDIATE_DATA
                        : RdmapOpcode.IMMEDIATE_DATA_WITH_SE, rng.nextLong()) : new SendMessage(op, 0, p);
            } else if (pick < 78 && reads < IRD - 1) {
                reads++;
                int n = rng.nextInt(1500);
                long off = rng.nextInt((int) rd.length() - n + 1);
                msg = new ReadRequest(0x7700 | rng.nextInt(256), rng.nextLong(), n, rd.stag(), rd.va() + off);
            } else if (pick < 88 && reads < IRD - 1 && !mutate) {
                reads++;
                long to = rd.va() + 8L * rng.nextInt((int) rd.length() / 8);
                msg = rng.nextBoolean()
                        ? AtomicRequest.fetchAdd(rng.nextInt(), rd.stag(), to, rng.nextLong(), rng.nextLong())
                        : AtomicRequest.cmpSwap(rng.nextInt(), rd.stag(), to, rng.nextLong(), rng.nextLong(),
                                rng.nextLong(), rng.nextLong());
            } else if (pick < 92 && !options.avoidOpenFindings()) {
                // What the peer says it found in one of our (imagined) segments; any cause of the table.
                TerminateCause cause = TerminateCause.values()[rng.nextInt(TerminateCause.values().length)];
                byte[] ours = new DdpSegment(new DdpUntaggedHeader(true, 0x41L << 32, 1, 1, 0), new byte[28])
                        .encode();
                try {
                    msg = Terminate.inbound(cause, ours);
                } catch (IllegalArgumentException needsRequest) { // E-R1 … E-R5 carry the Read Request
                    msg = Terminate.inbound(cause, ours, new ReadRequest(0x100, 0, 64, 0x200, 0x1000));
                }
                terminateSent = true;
            } else {
                int n = rng.nextInt(300);
                byte[] p = new byte[n];
                rng.nextBytes(p);
                msg = TaggedMessage.write(wr.stag(), wr.va() + rng.nextInt(65536 - 300), p);
            }
            for (DdpSegment s : segments(msg, c.ddp, mulpdu)) {
                ulpdus.add(s.encode());
            }
        }
        if (ulpdus.isEmpty()) {
            ulpdus.add(TaggedMessage.write(wr.stag(), wr.va(), new byte[] {1}).segments(c.ddp, mulpdu).get(0)
                    .encode());
        }
        int mpaMutation = -1;
        if (mutate) {
            if (rng.nextInt(3) == 0) {
                mpaMutation = rng.nextInt(7);
            } else {
                e.mutation = mutateUlpdu(c, ulpdus);
            }
        }
        e.seq = c.framer.nextSeq();
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        List<long[]> fpdus = new ArrayList<>(); // stream offset of each FPDU, its length, its ULPDU length
        for (byte[] u : ulpdus) {
            for (TcpSegment s : c.framer.send(u)) {
                long off = (s.seq() - e.seq) & 0xFFFF_FFFFL;
                fpdus.add(new long[] {off, s.payload().length, u.length});
                stream.writeBytes(s.payload());
            }
        }
        byte[] bytes = stream.toByteArray();
        e.fpdus = fpdus.size();
        if (mpaMutation >= 0) {
            e.mutation = mutateMpa(c, e, bytes, fpdus, mpaMutation);
        }
        e.stream = bytes;
        golden(c, e);
        if (tracedRound(round)) {
            StringBuilder t = new StringBuilder(String.format("QP %d markers %s crc %s emss %d seq %d mutation %s"
                    + " hole %d..%d failed %s cause %s%n", c.q, c.markers, c.crc, c.emss, e.seq, e.mutation,
                    e.holeFrom, e.holeTo, e.expect.failed, e.expect.cause));
            for (byte[] u : ulpdus) {
                t.append("  ulpdu ").append(u.length).append(": ")
                        .append(java.util.HexFormat.of().formatHex(u, 0, Math.min(u.length, 64))).append('\n');
            }
            for (long[] f : fpdus) {
                t.append(String.format("  fpdu at %d len %d ulpdu %d%n", f[0], f[1], f[2]));
            }
            traces[c.q] = t.toString();
        }
        return e;
    }

    private List<DdpSegment> segments(RdmapMessage msg, DdpSegmenter ddp, int mulpdu) {
        return msg.segments(ddp, mulpdu);
    }

    private void postRecv(Conn c, int capacity) {
        int slot = (int) (c.rqProd % RECV_SLOTS);
        long address = c.recvBase() + (long) slot * RECV_SLOT;
        capacity = Math.min(capacity, RECV_SLOT);
        byte[] wqe = new byte[RqWqe.SIZE];
        ByteBuffer b = ByteBuffer.wrap(wqe).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(RqWqe.ADDRESS, address);
        b.putInt(RqWqe.CAPACITY, capacity);
        memory.write(RQ + (long) c.q * RING_STRIDE + (long) (c.rqProd % (1 << RQ_LOG2)) * RqWqe.SIZE, wqe);
        c.rqProd++;
        c.outstandingRecv++;
        apb.write(qpReg(c.q, RnicRegs.QP_RQ_PROD), (int) (c.rqProd & 0xFFFF));
        c.endpoint.postReceive(c.q, address, capacity, c.rqProd - 1);
    }

    /** Breaks one field of one segment (the DDP/RDMAP layers); the MPA framing stays valid. */
    private String mutateUlpdu(Conn c, List<byte[]> ulpdus) {
        int i = rng.nextInt(ulpdus.size());
        byte[] u = ulpdus.get(i);
        boolean tagged = u.length > 0 && (u[0] & 0x80) != 0;
        int kind = rng.nextInt(14);
        switch (kind) {
            case 0 -> { // DDP control: T, L, reserved, DV
                u[0] ^= (byte) (1 << rng.nextInt(8));
                return "DDP flags";
            }
            case 1 -> { // RDMAP control: RV, reserved, opcode
                if (rng.nextBoolean()) {
                    u[1] = (byte) (u[1] & 0xF0 | rng.nextInt(16));
                    return "RDMAP opcode";
                }
                u[1] ^= (byte) (0x10 << rng.nextInt(4));
                return "RDMAP RV/reserved";
            }
            case 2 -> { // STag (tagged) / Invalidate STag (untagged)
                int stag = switch (rng.nextInt(4)) {
                    case 0 -> rng.nextInt();
                    case 1 -> regions.get(rng.nextInt(regions.size())).stag();
                    case 2 -> ByteBuffer.wrap(u, 2, 4).getInt() ^ 1;
                    default -> ByteBuffer.wrap(u, 2, 4).getInt() + 0x100;
                };
                ByteBuffer.wrap(u).putInt(2, stag);
                return tagged ? "STag" : "Invalidate STag";
            }
            case 3 -> { // TO (tagged) / QN (untagged)
                if (tagged) {
                    ByteBuffer b = ByteBuffer.wrap(u);
                    long to = b.getLong(6);
                    b.putLong(6, switch (rng.nextInt(4)) {
                        case 0 -> rng.nextLong();
                        case 1 -> to + 65536;
                        case 2 -> -1L - rng.nextInt(16);
                        default -> to - 1 - rng.nextInt(64);
                    });
                    return "TO";
                }
                ByteBuffer.wrap(u).putInt(6, rng.nextBoolean() ? rng.nextInt(6) : rng.nextInt());
                return "QN";
            }
            case 4 -> { // MSN replay / skip (untagged)
                if (tagged || u.length < 18) {
                    return mutateBytes(u, "random octet");
                }
                ByteBuffer b = ByteBuffer.wrap(u);
                int msn = b.getInt(10);
                int d = switch (rng.nextInt(4)) {
                    case 0 -> -1;
                    case 1 -> 1;
                    case 2 -> 1 + rng.nextInt(40);
                    default -> rng.nextInt();
                };
                b.putInt(10, msn + d);
                return d < 0 ? "MSN replayed" : "MSN skipped";
            }
            case 5 -> { // MO
                if (tagged || u.length < 18) {
                    return mutateBytes(u, "random octet");
                }
                ByteBuffer b = ByteBuffer.wrap(u);
                b.putInt(14, rng.nextBoolean() ? b.getInt(14) + 1 + rng.nextInt(5000) : rng.nextInt());
                return "MO";
            }
            case 6, 7 -> { // Read Request / Atomic Request / Terminate fields (after the 18-octet header)
                for (int k = 0; k < ulpdus.size(); k++) {
                    byte[] v = ulpdus.get((i + k) % ulpdus.size());
                    if (v.length > 18 && (v[0] & 0x80) == 0) {
                        int op = v[1] & 0x0F;
                        int at = 18 + rng.nextInt(v.length - 18);
                        if (op == RdmapOpcode.RDMA_READ_REQUEST.code() && rng.nextBoolean()) {
                            // RDMARDSZ huge, or the source STag/TO
                            int field = rng.nextInt(3);
                            ByteBuffer b = ByteBuffer.wrap(v);
                            switch (field) {
                                case 0 -> b.putInt(18 + 12, rng.nextBoolean() ? -1 - rng.nextInt(100)
                                        : b.getInt(30) + 8192);
                                case 1 -> b.putInt(18 + 16, regions.get(rng.nextInt(regions.size())).stag());
                                default -> b.putLong(18 + 20, b.getLong(38) + 4096 + rng.nextInt(8192));
                            }
                            return "Read Request fields";
                        }
                        v[at] ^= (byte) (1 << rng.nextInt(8));
                        return switch (op) {
                            case 0x1 -> "Read Request fields";
                            case 0x7 -> "Terminate contents";
                            case 0xA -> "Atomic Request fields";
                            default -> "payload/header octet";
                        };
                    }
                }
                return mutateBytes(u, "random octet");
            }
            case 8 -> { // a segment cut short (its ULPDU truncated) or padded
                if (u.length > 1 && rng.nextBoolean()) {
                    ulpdus.set(i, Arrays.copyOf(u, 1 + rng.nextInt(u.length - 1)));
                    return "segment truncated";
                }
                byte[] longer = Arrays.copyOf(u, u.length + 1 + rng.nextInt(64));
                ulpdus.set(i, longer);
                return "segment lengthened";
            }
            case 9 -> { // random octets as a whole ULPDU
                byte[] r = new byte[1 + rng.nextInt(200)];
                rng.nextBytes(r);
                ulpdus.set(i, r);
                return "random ULPDU";
            }
            case 10 -> { // a segment replayed
                ulpdus.add(i, u.clone());
                return "segment replayed";
            }
            case 11 -> { // a segment skipped
                if (ulpdus.size() > 1) {
                    ulpdus.remove(i);
                    return "segment skipped";
                }
                return mutateBytes(u, "random octet");
            }
            default -> {
                return mutateBytes(u, "random octet");
            }
        }
    }

    private String mutateBytes(byte[] u, String what) {
        if (u.length == 0) {
            return "empty ULPDU";
        }
        int n = 1 + rng.nextInt(3);
        for (int k = 0; k < n; k++) {
            u[rng.nextInt(Math.min(u.length, 48))] = (byte) rng.nextInt(256);
        }
        return what;
    }

    /** Breaks the MPA layer of the framed stream. */
    private String mutateMpa(Conn c, Episode e, byte[] s, List<long[]> fpdus, int kind) {
        long[] f = fpdus.get(rng.nextInt(fpdus.size()));
        int off = (int) f[0];
        int len = (int) f[1];
        switch (kind) {
            case 0 -> { // ULPDU_Length (first two octets of the FPDU unless a Marker leads it)
                int at = markerAt(c, e.seq + off) ? off + 4 : off;
                int v = switch (rng.nextInt(4)) {
                    case 0 -> 0xFFFF - rng.nextInt(16);
                    case 1 -> 8995 + rng.nextInt(1000);
                    case 2 -> ((s[at] & 0xFF) << 8 | s[at + 1] & 0xFF) + 1 + rng.nextInt(8);
                    default -> Math.max(0, ((s[at] & 0xFF) << 8 | s[at + 1] & 0xFF) - 1 - rng.nextInt(8));
                };
                s[at] = (byte) (v >>> 8);
                s[at + 1] = (byte) v;
                return "ULPDU_Length";
            }
            case 1 -> { // a Marker
                for (int k = 0; k < s.length; k++) {
                    int p = (rng.nextInt(s.length) + k) % s.length;
                    if (markerAt(c, e.seq + p) && p + 4 <= s.length) {
                        s[p + rng.nextInt(4)] ^= (byte) (1 << rng.nextInt(8));
                        return "Marker";
                    }
                }
                s[off + len - 1] ^= 1;
                return "CRC";
            }
            case 2 -> { // CRC (the last four octets of the FPDU)
                s[off + len - 1 - rng.nextInt(4)] ^= (byte) (1 << rng.nextInt(8));
                return "CRC";
            }
            case 3 -> { // PAD: the octets between the ULPDU and the CRC
                int pad = (int) ((4 - (f[2] + 2) % 4) % 4);
                if (pad == 0) {
                    s[off + len - 1] ^= 0x40;
                    return "CRC";
                }
                s[off + len - 4 - 1 - rng.nextInt(pad)] ^= (byte) (1 << rng.nextInt(8));
                return "PAD";
            }
            case 4 -> { // random octets in the stream
                int n = 1 + rng.nextInt(16);
                int at = rng.nextInt(s.length);
                for (int k = 0; k < n && at + k < s.length; k++) {
                    s[at + k] = (byte) rng.nextInt(256);
                }
                return "random stream octets";
            }
            case 5 -> { // a hole: octets skipped
                int from = rng.nextInt(s.length);
                int to = Math.min(s.length, from + 1 + rng.nextInt(64));
                if (to >= s.length) {
                    from = Math.max(0, s.length - 2);
                    to = s.length - 1;
                }
                if (to <= from) {
                    s[s.length - 1] ^= 1;
                    return "random stream octets";
                }
                e.holeFrom = from;
                e.holeTo = to;
                return "hole (E-M1)";
            }
            default -> { // a cut ULPDU_Length in the middle of a huge FPDU: header octets of one FPDU broken
                s[off + rng.nextInt(Math.min(len, 24))] ^= (byte) (1 << rng.nextInt(8));
                return "FPDU header octet";
            }
        }
    }

    private boolean markerAt(Conn c, long seq) {
        if (!c.markers) {
            return false;
        }
        // Markers sit every 512 octets of the stream from the connection's start sequence number (MPA-12).
        return ((seq - c.seqStart) & 0xFFFF_FFFFL) % 512 == 0;
    }


    /** The golden side of an episode: the octets the core takes, through the MPA deframer and the endpoint. */
    private void golden(Conn c, Episode e) {
        // The deframer is persistent per connection (the stream continues across rounds).
        MpaDeframer d = c.deframer;
        byte[] s = e.stream;
        List<MpaDeframer.Event> events = new ArrayList<>();
        if (!d.failed() && !c.dead) {
            if (e.holeFrom < 0) {
                events.addAll(d.receive(new TcpSegment(e.seq, s)));
            } else {
                if (e.holeFrom > 0) {
                    events.addAll(d.receive(new TcpSegment(e.seq, Arrays.copyOfRange(s, 0, (int) e.holeFrom))));
                }
            }
        }
        boolean hole = e.holeFrom >= 0 && !d.failed() && !c.dead;
        Expect x = e.expect;
        for (MpaDeframer.Event ev : events) {
            if (ev instanceof MpaDeframer.Ulpdu u) {
                for (EndpointAction a : c.endpoint.receive(c.q, u.data())) {
                    record(c, a, x);
                }
                transmitAll(c, x);
            } else if (ev instanceof MpaDeframer.Error err) {
                llp(c, err.code(), x);
                hole = false;
            }
        }
        if (hole) {
            llp(c, MpaErrorCode.TCP_CLOSED, x);
            c.dead = true;
        }
        if (c.endpoint.failed(c.q)) {
            x.failed = true;
        }
    }


    /**
     * An MPA error: the connection stops (MPA-44). A CRC, Marker or framing error (E-M2, E-M3) sends the LLP Terminate
     * (docs/requirements.md §3.1); a hole in the sequence, E-M1 (the TCP stream is lost), sends none: the stream is
     * dead (§3.1 E-M1 "usually no Terminate can be sent"; RnicCore's contract).
     */
    private void llp(Conn c, MpaErrorCode code, Expect x) {
        if (!c.endpoint.failed(c.q)) {
            x.cause = "MPA " + code + " (2/0/" + String.format("%02x", code.code()) + ")";
            c.endpoint.llpError(c.q, code);
            transmitAll(c, x);
            if (code == MpaErrorCode.TCP_CLOSED) {
                x.terminate = null;
                x.llpSilent = true;
            }
        }
    }

    private void record(Conn c, EndpointAction a, Expect x) {
        if (a instanceof EndpointAction.Place p) {
            goldenPlaces.add(new long[] {p.address(), p.address() + p.data().length});
        } else if (a instanceof EndpointAction.Failure f) {
            x.cause = f.cause().toString();
        } else if (a instanceof EndpointAction.TerminateReceived) {
            x.terminateReceived = true;
        } else if (a instanceof EndpointAction.ReceiveCompletion) {
            c.outstandingRecv--;
        }
    }

    private void transmitAll(Conn c, Expect x) {
        for (EndpointAction a : c.endpoint.transmitAll(c.q)) {
            if (a instanceof EndpointAction.Outbound o
                    && RdmapEndpoint.sourceOf(o.ulpdu()) == RdmapEndpoint.Source.TERMINATE) {
                x.terminate = o.ulpdu();
            } else {
                record(c, a, x);
            }
        }
    }
}
