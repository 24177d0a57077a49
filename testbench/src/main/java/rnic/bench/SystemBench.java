package rnic.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import rnic.cm.ConnectParams;
import rnic.cm.ConnectionManager;
import rnic.hw.top.RnicPair;
import rnic.sim.HostThreads;
import rnic.sim.RnicSystem;
import rnic.sim.SimModel;
import rnic.transport.Transport;
import rnic.verbs.Access;
import rnic.verbs.Completion;
import rnic.verbs.CompletionQueue;
import rnic.verbs.CompletionStatus;
import rnic.verbs.Device;
import rnic.verbs.DmaBuffer;
import rnic.verbs.MemoryRegion;
import rnic.verbs.ProtectionDomain;
import rnic.verbs.QueuePair;
import rnic.verbs.RecvRequest;
import rnic.verbs.RemoteBuffer;
import rnic.verbs.WorkRequest;

/**
 * {@code ./rnic bench system}: the two-RNIC system driven through the real driver. For 8-octet atomics and 64-octet and
 * 4-KB RDMA Writes, RDMA Reads and Sends it posts a batch of operations on QP 0 — once one at a time (post, wait for
 * the completion: latency-bound) and once keeping the send queue full (throughput-bound) — and prints simulated
 * cycles per operation, octets per cycle, and operations per second of wall-clock time; the ratio of the two runs is
 * what pipelining buys. Last, the simulation speed of the two-RNIC model in cycles per second: idle (clock only) and
 * while the hosts work, beside the {@code Crc32c} harness figure of {@code ./rnic bench sim} measured in the same run
 * (before and after the system runs), and the ratios: the machine is shared, so the ratio is the portable number.
 */
public final class SystemBench {
    private SystemBench() {
    }

    enum Kind {
        FETCH_ADD_8("FetchAdd 8 B", 8), WRITE_64("RDMA Write 64 B", 64), WRITE_4K("RDMA Write 4 KB", 4096),
        READ_64("RDMA Read 64 B", 64), READ_4K("RDMA Read 4 KB", 4096), SEND_64("Send 64 B", 64),
        SEND_4K("Send 4 KB", 4096);

        final String label;
        final int bytes;

        Kind(String label, int bytes) {
            this.label = label;
            this.bytes = bytes;
        }
    }

    record Figure(Kind kind, boolean pipelined, int ops, long cycles, double seconds) {
        double cyclesPerOp() {
            return (double) cycles / ops;
        }

        double bytesPerCycle() {
            return (double) ops * kind.bytes / cycles;
        }

        double opsPerSecond() {
            return ops / seconds;
        }
    }

    static final int QUEUE = 16;
    /** The idle phase: long enough (about 5 s) that one run's figure is steady on a shared machine. */
    static final int IDLE_CYCLES = 1_000_000;
    static final int RECV_SIZE = 4096;

    public static void main(String[] args) {
        int scale = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        System.setProperty("rnic.simDir", "build/sim");
        System.out.println("building/loading the RnicPair model (W=64) …");
        SimModel<RnicPair> model = RnicSystem.model(64);
        // The reference: the Crc32c harness of ./rnic bench sim, measured in this run (warm-up not counted).
        SimModel<rnic.hw.crc.Crc32c> crc = SimModel.of("Crc32c-w64",
                () -> new rnic.hw.crc.Crc32c(new rnic.hw.crc.Crc32cConfig(64)));
        SimSpeedBench.harness(crc, 200_000);
        double[] crcCpu = new double[2];
        double crcBefore = crcHarness(crc, crcCpu, 0);
        List<Figure> figures = new ArrayList<>();
        double[] speed = new double[2];
        double[] cpu = new double[2];
        RnicSystem.run(model, "bench", 1, RnicSystem.builder(), sys -> {
            long c0 = sys.tb().cycle();
            long t0 = System.nanoTime();
            long u0 = cpuNanos();
            sys.tb().step(IDLE_CYCLES);
            speed[0] = (sys.tb().cycle() - c0) / ((System.nanoTime() - t0) / 1e9);
            cpu[0] = (sys.tb().cycle() - c0) / ((cpuNanos() - u0) / 1e9);
            long c1 = sys.tb().cycle();
            long t1 = System.nanoTime();
            long u1 = cpuNanos();
            boolean[] done = {false};
            new HostThreads().add("a", sys.a(), t -> requester(t, figures, scale, done))
                    .add("b", sys.b(), t -> responder(t, done)).run();
            speed[1] = (sys.tb().cycle() - c1) / ((System.nanoTime() - t1) / 1e9);
            cpu[1] = (sys.tb().cycle() - c1) / ((cpuNanos() - u1) / 1e9);
        });
        System.out.println();
        System.out.println("Two simulated RNICs (W = 64) through the Java driver, QP 0, MODEL TCP channel");
        System.out.printf(Locale.ROOT, "  %-18s %5s | %13s %9s %10s | %13s %9s %10s | %8s%n", "operation", "ops",
                "1-at-a-time", "B/cycle", "ops/s", "queue of 16", "B/cycle", "ops/s", "speedup");
        System.out.printf(Locale.ROOT, "  %-18s %5s | %13s %9s %10s | %13s %9s %10s | %8s%n", "", "",
                "cycles/op", "", "(wall)", "cycles/op", "", "(wall)", "");
        for (int i = 0; i + 1 < figures.size(); i += 2) {
            Figure one = figures.get(i);
            Figure many = figures.get(i + 1);
            System.out.printf(Locale.ROOT, "  %-18s %5d | %13.1f %9.2f %10.0f | %13.1f %9.2f %10.0f | %7.2fx%n",
                    one.kind().label, many.ops(), one.cyclesPerOp(), one.bytesPerCycle(), one.opsPerSecond(),
                    many.cyclesPerOp(), many.bytesPerCycle(), many.opsPerSecond(),
                    one.cyclesPerOp() / many.cyclesPerOp());
        }
        double crcAfter = crcHarness(crc, crcCpu, 1);
        double crcSpeed = (crcBefore + crcAfter) / 2;
        double crcCpuSpeed = (crcCpu[0] + crcCpu[1]) / 2;
        System.out.printf(Locale.ROOT, "simulation speed: %.0f cycles/s idle (clock only), %.0f cycles/s with both"
                + " hosts working (%.2f of idle)%n", speed[0], speed[1], speed[1] / speed[0]);
        System.out.printf(Locale.ROOT, "Crc32c harness (./rnic bench sim) in the same run: %.0f cycles/s (%.0f before,"
                + " %.0f after)%n", crcSpeed, crcBefore, crcAfter);
        System.out.printf(Locale.ROOT, "ratio to Crc32c: idle %.4f, hosts working %.4f%n", speed[0] / crcSpeed,
                speed[1] / crcSpeed);
        // Per second of this process's CPU time: steadier than wall time when other jobs share the machine.
        System.out.printf(Locale.ROOT, "per CPU second of this process: %.0f cycles/s idle, %.0f with hosts; Crc32c"
                + " %.0f; ratios %.4f, %.4f%n", cpu[0], cpu[1], crcCpuSpeed, cpu[0] / crcCpuSpeed,
                cpu[1] / crcCpuSpeed);
    }

    /** One timed Crc32c harness run (2 M cycles): wall-clock cycles/s; CPU-time cycles/s into {@code cpu[i]}. */
    private static double crcHarness(SimModel<rnic.hw.crc.Crc32c> crc, double[] cpu, int i) {
        long u = cpuNanos();
        SimSpeedBench.Figure f = SimSpeedBench.harness(crc, 2_000_000);
        cpu[i] = f.cycles() / ((cpuNanos() - u) / 1e9);
        return f.cyclesPerSecond();
    }

    /** CPU time this process has used (every thread, the JIT's and the collector's too), in nanoseconds. */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** Where host b listens: its simulated address and the iWARP port. */
    private static final java.net.InetSocketAddress B_LISTENS = new java.net.InetSocketAddress("10.0.0.2", 4791);

    private static ConnectParams params() {
        return ConnectParams.defaults().withTimeout(java.time.Duration.ofMillis(2)); // 500 000 cycles at 250 MHz
    }

    private static void responder(Transport t, boolean[] done) {
        try (Device dev = Device.open(t)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue scq = dev.createCompletionQueue(64);
            CompletionQueue rcq = dev.createCompletionQueue(256);
            QueuePair qp = pd.createQueuePair(new QueuePair.Config(scq, rcq, 16, 128, 0, 0));
            DmaBuffer mem = dev.allocate(64 * 1024);
            MemoryRegion mr = pd.registerMemory(mem, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ, Access.REMOTE_ATOMIC));
            DmaBuffer recv = dev.allocate(RECV_SIZE * 128);
            MemoryRegion mrRecv = pd.registerMemory(recv, EnumSet.of(Access.LOCAL_WRITE));
            for (int i = 0; i < 128; i++) {
                qp.postRecv(RecvRequest.of(mrRecv.sge((long) i * RECV_SIZE, RECV_SIZE)));
            }
            new ConnectionManager(dev).listen(B_LISTENS).accept(qp, params().withPrivateData(ByteBuffer.allocate(12)
                    .putInt(mr.rkey()).putLong(mr.address()).array()), java.time.Duration.ofMillis(40));
            Completion[] out = Completion.array(32);
            int slot = 0;
            while (!done[0]) {
                int n = rcq.poll(out);
                for (int i = 0; i < n; i++) {
                    if (out[i].status() != CompletionStatus.SUCCESS) {
                        throw new IllegalStateException("b: " + out[i]);
                    }
                    qp.postRecv(RecvRequest.of(mrRecv.sge((long) (slot++ % 128) * RECV_SIZE, RECV_SIZE)));
                }
                if (n == 0) {
                    // As t.advance() until the loop would go on: the same cycles, without waking this thread per poll.
                    t.advanceUntil(() -> done[0] || rcq.hasCompletions());
                }
            }
        }
    }

    private static void requester(Transport t, List<Figure> figures, int scale, boolean[] done) {
        try (Device dev = Device.open(t)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue scq = dev.createCompletionQueue(64);
            CompletionQueue rcq = dev.createCompletionQueue(64);
            QueuePair qp = pd.createQueuePair(new QueuePair.Config(scq, rcq, QUEUE, 16, 0, 0));
            DmaBuffer mem = dev.allocate(64 * 1024);
            MemoryRegion mr = pd.registerMemory(mem, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            var c = new ConnectionManager(dev).connectWhenListening(B_LISTENS, qp, params(),
                    java.time.Duration.ofMillis(20));
            ByteBuffer pdata = ByteBuffer.wrap(c.peerPrivateData());
            RemoteBuffer remote = new RemoteBuffer(pdata.getInt(), pdata.getLong());
            Completion[] out = Completion.array(QUEUE);
            for (Kind k : Kind.values()) {
                int ops = (k.bytes >= 4096 ? 40 : 200) * scale;
                for (boolean pipelined : new boolean[] {false, true}) {
                    long c0 = dev.cycles();
                    long t0 = System.nanoTime();
                    int posted = 0;
                    int completed = 0;
                    while (completed < ops) {
                        int window = pipelined ? QUEUE : 1;
                        while (posted < ops && posted - completed < window) {
                            qp.postSend(request(k, mr, remote, posted));
                            posted++;
                        }
                        int n = scq.poll(out);
                        for (int i = 0; i < n; i++) {
                            if (out[i].status() != CompletionStatus.SUCCESS) {
                                throw new IllegalStateException(k + ": " + out[i]);
                            }
                        }
                        completed += n;
                        if (n == 0) {
                            t.advanceUntil(scq::hasCompletions);
                        }
                    }
                    figures.add(new Figure(k, pipelined, ops, dev.cycles() - c0, (System.nanoTime() - t0) / 1e9));
                    System.out.printf(Locale.ROOT, "  %-18s %s: %d ops in %d cycles%n", k.label,
                            pipelined ? "queue of 16" : "one at a time", ops, dev.cycles() - c0);
                }
            }
            done[0] = true;
        }
    }

    private static WorkRequest request(Kind k, MemoryRegion mr, RemoteBuffer remote, int i) {
        long off = (long) (i % 8) * 4096;
        return switch (k) {
            case FETCH_ADD_8 -> WorkRequest.fetchAdd(mr.sge(32768 + (i % 64) * 8L, 8), remote.plus(32768), 1);
            case WRITE_64, WRITE_4K -> WorkRequest.rdmaWrite(mr.sge(off, k.bytes), remote.plus(off));
            case READ_64, READ_4K -> WorkRequest.rdmaRead(mr.sge(off, k.bytes), remote.plus(off));
            case SEND_64, SEND_4K -> WorkRequest.send(mr.sge(off, k.bytes));
        };
    }
}
