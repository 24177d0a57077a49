package rnic.interop;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import rnic.sim.RnicSystem;
import rnic.sim.pcap.TcpEndpoint;
import rnic.tools.Launcher;

/**
 * {@code ./rnic interop siw [--sizes 64,4096,65000] [--count N] [--crc off|on|both] [--only golden|rtl|all]
 * [--pcap-dir DIR]}: the golden rping peer ({@link GoldenRping}) and the simulated RNIC's rping ({@link Rping},
 * {@link RpingPeer} on kernel sockets) against rdma-core's rping on Linux siw ({@link SiwVm}), both roles, printing
 * one table row per run (role, size, CRC, iterations, result, time). Exit status 0 only if every run passed.
 */
public final class SiwInterop {
    /** Which side runs rping's client, and whether the project side is the golden models or the RTL. */
    public enum Role {
        /** The golden model is the client, {@code rping -s} runs in the VM. */
        GOLDEN_CLIENT_SIW_SERVER("golden -c → siw -s", false, true),
        /** {@code rping -c} runs in the VM, the golden model serves. */
        SIW_CLIENT_GOLDEN_SERVER("siw -c → golden -s", false, false),
        /** The project's {@code ./rnic rping -c} on the simulated RnicCore, {@code rping -s} in the VM. */
        RTL_CLIENT_SIW_SERVER("rtl -c → siw -s", true, true),
        /** {@code rping -c} in the VM, the project's {@code ./rnic rping -s} on the simulated RnicCore. */
        SIW_CLIENT_RTL_SERVER("siw -c → rtl -s", true, false);

        private final String label;
        private final boolean rtl;
        private final boolean projectClient;

        Role(String label, boolean rtl, boolean projectClient) {
            this.label = label;
            this.rtl = rtl;
            this.projectClient = projectClient;
        }

        /** The table's label. */
        public String label() {
            return label;
        }

        /** Whether the project side is the simulated RnicCore (else the golden models). */
        public boolean rtl() {
            return rtl;
        }

        /** Whether the project side is rping's client. */
        public boolean projectClient() {
            return projectClient;
        }
    }

    /**
     * One run's result.
     *
     * @param role       who was the client, and which project side
     * @param size       rping -S
     * @param crc        CRC in use on the wire
     * @param iterations iterations both sides completed: the project side's count and rping's own (its -v lines)
     * @param golden     the golden side's outcome (golden roles), else null
     * @param rtl        the simulated RNIC's outcome (RTL roles), else null
     * @param siw        what rping in the VM printed and its exit status
     * @param seconds    wall time of the run
     */
    public record Run(Role role, int size, boolean crc, int iterations, GoldenRping.Outcome golden,
            RpingPeer.Result rtl, SiwVm.Result siw, double seconds) {
        /** Both sides completed every iteration: the project side without error, rping with exit status 0. */
        public boolean passed(int count) {
            boolean project = golden != null ? golden.ok(count) : rtl.error() == null && rtl.iterations() == count;
            return project && siw.cleanExit() && siw.pings() == count && crcInUse() == crc;
        }

        /** Whether the project side saw CRC in use. */
        public boolean crcInUse() {
            return golden != null ? golden.crcInUse() : rtl.crc();
        }

        /** The project side's error, or null. */
        public String projectError() {
            return golden != null ? golden.error() : rtl.error();
        }

        /** The table's result column. */
        public String result(int count) {
            if (passed(count)) {
                return "pass";
            }
            StringBuilder b = new StringBuilder("FAIL");
            if (projectError() != null) {
                b.append(role.rtl() ? " rtl: " : " golden: ").append(projectError());
            }
            if (!siw.cleanExit() || siw.pings() != count) {
                b.append(" rping exit ").append(siw.status()).append(", ").append(siw.pings()).append(" pings: ")
                        .append(String.join(" | ", siw.output()));
            }
            if (crcInUse() != crc) {
                b.append(" CRC in use ").append(crcInUse()).append(", expected ").append(crc);
            }
            return b.toString();
        }
    }

    /** The golden client's pause between siw's MPA Reply and its first FPDU (the workaround of README item 6). */
    public static final int FIRST_FPDU_DELAY_MS = 200;

    private SiwInterop() {
    }

    /**
     * One rping run between the golden peer and the VM's rping. Both sides validate (-V). With {@code pcap}, the
     * connection is written there.
     */
    public static Run run(SiwVm vm, Role role, int size, int count, Path pcap) throws IOException {
        if (role.rtl()) {
            return runRtl(vm, role, size, count, pcap);
        }
        boolean crc = vm.crcRequired();
        // 200 ms between siw's MPA Reply and the golden client's first FPDU: without it siw sometimes completes the
        // rping server's receive twice for that one Send and rping stalls (README.md here, item 6).
        GoldenRping.Options opt = new GoldenRping.Options(size, count, true, crc, 120, FIRST_FPDU_DELAY_MS);
        long t0 = System.nanoTime();
        GoldenRping.Outcome golden;
        SiwVm.Result siw;
        TcpEndpoint clientEnd;
        TcpEndpoint serverEnd;
        if (role == Role.GOLDEN_CLIENT_SIW_SERVER) {
            SiwVm.Pending server = vm.rpingServer(size, count, true);
            golden = GoldenRping.client(new InetSocketAddress(InetAddress.getLoopbackAddress(), vm.serverPort()), opt);
            siw = awaitOrFail(server, golden);
            clientEnd = TcpEndpoint.of("02:00:00:00:00:01", "10.0.2.2", 40000);
            serverEnd = TcpEndpoint.of("52:54:00:12:34:56", SiwVm.GUEST_ADDRESS, SiwVm.GUEST_PORT);
        } else {
            ExecutorService ex = Executors.newSingleThreadExecutor();
            try (ServerSocket listener = new ServerSocket(vm.clientTargetPort(), 1, InetAddress.getLoopbackAddress())) {
                Future<GoldenRping.Outcome> f = ex.submit(() -> GoldenRping.server(listener, opt));
                siw = vm.rpingClient(size, count, true).await(SiwVm.RPING_TIMEOUT + 30);
                golden = f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            } catch (ExecutionException e) {
                throw new IOException("the golden server failed", e.getCause());
            } finally {
                ex.shutdownNow();
            }
            clientEnd = TcpEndpoint.of("52:54:00:12:34:56", SiwVm.GUEST_ADDRESS, 40000);
            serverEnd = TcpEndpoint.of("02:00:00:00:00:02", SiwVm.HOST_ALIAS, SiwVm.GUEST_PORT);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Run r = new Run(role, size, golden.crcInUse(), Math.min(golden.iterations(), Math.max(0, siw.pings())), golden,
                null, siw, seconds);
        if (pcap == null && !r.passed(count)) {
            // A failed run keeps its evidence: the wire as the golden side saw it.
            pcap = SiwVm.repoRoot().resolve(String.format("build/interop/failed/siw-%s-%d-crc%s-%d.pcap",
                    role == Role.GOLDEN_CLIENT_SIW_SERVER ? "server" : "client", size, crc ? "on" : "off",
                    System.currentTimeMillis()));
            System.err.println("failed run: capture in " + pcap);
        }
        if (pcap != null) {
            Files.createDirectories(pcap.toAbsolutePath().getParent());
            GoldenRping.writePcap(golden, pcap, clientEnd, serverEnd);
        }
        return r;
    }

    /**
     * One rping run between the project's {@code ./rnic rping} on the simulated RnicCore (kernel sockets to the VM's
     * forwarded ports) and the VM's rping; both validate (-V). The RTL client pauses
     * {@link #FIRST_FPDU_DELAY_MS} between establishment and its first Send (siw's double receive, README item 6).
     * The capture goes to {@code pcap} if given, else to build/interop/failed/ when the run fails.
     */
    public static Run runRtl(SiwVm vm, Role role, int size, int count, Path pcap) throws IOException {
        // The model compiles on first use (minutes on a loaded machine): before any rping in the VM starts its timeout.
        RnicSystem.model(64);
        warmUp(vm);
        boolean crc = vm.crcRequired();
        Path capture = pcap != null ? pcap : SiwVm.repoRoot().resolve(String.format(
                "build/interop/failed/rtl-%s-%d-crc%s-%d.pcap", role.projectClient() ? "client" : "server", size,
                crc ? "on" : "off", System.currentTimeMillis()));
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        java.io.PrintStream err = new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8);
        java.io.PrintStream quiet = new java.io.PrintStream(java.io.OutputStream.nullOutputStream());
        long t0 = System.nanoTime();
        RpingPeer.Result rtl;
        SiwVm.Result siw;
        InetAddress loopback = InetAddress.getLoopbackAddress();
        if (role.projectClient()) {
            SiwVm.Pending server = vm.rpingServer(size, count, true);
            RpingPeer.Options o = RpingPeer.Options.client(loopback, vm.serverPort(), size, count).withCrc(crc)
                    .withTimeout(RTL_TIMEOUT_SECONDS).withFirstSendDelay(FIRST_FPDU_DELAY_MS);
            rtl = Rping.run(o, capture, quiet, err);
            siw = server.await(SiwVm.RPING_TIMEOUT + 30);
        } else {
            SiwVm.Pending[] client = new SiwVm.Pending[1];
            // rping's server: serve one connection until the client disconnects (-C is the client's business)
            RpingPeer.Options o = RpingPeer.Options.server(loopback, vm.clientTargetPort(), size).withCrc(crc)
                    .withTimeout(RTL_TIMEOUT_SECONDS);
            rtl = Rping.run(o, capture, quiet, err, () -> client[0] = vm.rpingClient(size, count, true));
            if (client[0] == null) {
                throw new IOException("the simulated rping server never listened: " + rtl.error());
            }
            siw = client[0].await(SiwVm.RPING_TIMEOUT + 30);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Run r = new Run(role, size, rtl.crc(), Math.min(rtl.iterations(), Math.max(0, siw.pings())), null, rtl, siw,
                seconds);
        if (pcap == null) {
            if (r.passed(count)) {
                Files.deleteIfExists(capture);
            } else {
                System.err.println("failed run: capture in " + capture + "; rping said: " + log);
            }
        }
        return r;
    }

    private static final java.util.Set<SiwVm> WARM = java.util.Collections.newSetFromMap(
            new java.util.WeakHashMap<>());

    /**
     * The first TCP connection through qemu's user networking after a boot takes about 6 s (the guest's SYN
     * retransmissions), and once in four such first connections the simulated RNIC saw the connection closed before
     * siw's MPA Reply (README item 10): before the first RTL run on a VM, one golden rping iteration (64 octets)
     * opens the path.
     */
    static void warmUp(SiwVm vm) throws IOException {
        if (!WARM.add(vm)) {
            return;
        }
        SiwVm.Pending server = vm.rpingServer(64, 1, true);
        GoldenRping.Outcome o = GoldenRping.client(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                vm.serverPort()), new GoldenRping.Options(64, 1, true, vm.crcRequired(), 60, FIRST_FPDU_DELAY_MS));
        SiwVm.Result r = server.await(SiwVm.RPING_TIMEOUT + 30);
        if (!o.ok(1) || r.pings() != 1) {
            throw new IllegalStateException("the warm-up rping on the fresh siw VM failed: golden " + o.error()
                    + ", rping: " + r.text());
        }
    }

    /** How long any one wait of the simulated RNIC's rping may take (real time). */
    public static final double RTL_TIMEOUT_SECONDS = 120;

    /** rping's end; if it never comes, a failed result that keeps what the golden side saw. */
    private static SiwVm.Result awaitOrFail(SiwVm.Pending p, GoldenRping.Outcome golden) {
        try {
            return p.await(SiwVm.RPING_TIMEOUT + 30);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("rping did not end; the golden side " + (golden.error() == null
                    ? "completed " + golden.iterations() + " iterations" : "failed: " + golden.error()), e);
        }
    }

    /** The table header. */
    public static String header() {
        return String.format("%-20s %6s %4s %10s %8s  %s", "role", "size", "CRC", "iterations", "time", "result");
    }

    /** One table row. */
    public static String row(Run r, int count) {
        return String.format("%-20s %6d %4s %6d/%-3d %7.2fs  %s", r.role().label(), r.size(), r.crc() ? "on" : "off",
                r.iterations(), count, r.seconds(), r.result(count));
    }

    /** Entry point of {@code ./rnic interop siw}. */
    public static void main(String[] args) throws IOException {
        // the RTL rows' Verilator model lives with ./rnic demo's and ./rnic rping's (compiled once)
        Launcher.useBuildSimDir();
        List<Integer> sizes = List.of(64, 4096, 65000);
        int count = 10;
        String crcMode = "both";
        Path pcapDir = null;
        String only = "all";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--only" -> only = args[++i];
                case "--sizes" -> sizes = parseSizes(args[++i]);
                case "--count" -> count = Integer.parseInt(args[++i]);
                case "--crc" -> crcMode = args[++i];
                case "--pcap-dir" -> pcapDir = Path.of(args[++i]);
                default -> {
                    System.err.println("usage: ./rnic interop siw [--sizes 64,4096,65000] [--count N]"
                            + " [--crc off|on|both] [--only golden|rtl|all] [--pcap-dir DIR]");
                    System.exit(2);
                }
            }
        }
        List<Boolean> crcs = switch (crcMode) {
            case "off" -> List.of(false);
            case "on" -> List.of(true);
            case "both" -> List.of(false, true);
            default -> throw new IllegalArgumentException("--crc off|on|both, not " + crcMode);
        };
        boolean allPassed = true;
        System.out.println(header());
        for (boolean crc : crcs) {
            try (SiwVm vm = SiwVm.start(crc)) {
                System.out.printf("# VM booted in %.1f s: %s%n", vm.bootSeconds(), vm.banner());
                for (Role role : Role.values()) {
                    if (only.equals("golden") && role.rtl() || only.equals("rtl") && !role.rtl()) {
                        continue;
                    }
                    for (int size : sizes) {
                        Path pcap = pcapDir == null ? null : pcapDir.resolve(String.format("siw-%s%s-%d-crc%s.pcap",
                                role.rtl() ? "rtl-" : "", role.projectClient() ? "server" : "client", size,
                                crc ? "on" : "off"));
                        Run r = run(vm, role, size, count, pcap);
                        allPassed &= r.passed(count);
                        System.out.println(row(r, count));
                    }
                }
            }
        }
        System.out.println(allPassed ? "all passed" : "FAILED");
        System.exit(allPassed ? 0 : 1);
    }

    private static List<Integer> parseSizes(String s) {
        List<Integer> out = new ArrayList<>();
        for (String p : s.split(",")) {
            out.add(Integer.parseInt(p.trim()));
        }
        return out;
    }
}
