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
import rnic.sim.pcap.TcpEndpoint;

/**
 * {@code ./rnic interop siw [--sizes 64,4096,65000] [--count N] [--crc off|on|both] [--pcap-dir DIR]}: the golden
 * rping peer ({@link GoldenRping}) against rdma-core's rping on Linux siw ({@link SiwVm}), both roles, printing one
 * table row per run (role, size, CRC, iterations, result, time). Exit status 0 only if every run passed.
 */
public final class SiwInterop {
    /** Which side runs rping's client. */
    public enum Role {
        /** The golden model is the client, {@code rping -s} runs in the VM. */
        GOLDEN_CLIENT_SIW_SERVER("golden -c → siw -s"),
        /** {@code rping -c} runs in the VM, the golden model serves. */
        SIW_CLIENT_GOLDEN_SERVER("siw -c → golden -s");

        private final String label;

        Role(String label) {
            this.label = label;
        }

        /** The table's label. */
        public String label() {
            return label;
        }
    }

    /**
     * One run's result.
     *
     * @param role       who was the client
     * @param size       rping -S
     * @param crc        CRC in use on the wire
     * @param iterations iterations both sides completed: the golden side's count and rping's own (its -v lines)
     * @param golden     the golden side's outcome
     * @param siw        what rping in the VM printed and its exit status
     * @param seconds    wall time of the run
     */
    public record Run(Role role, int size, boolean crc, int iterations, GoldenRping.Outcome golden, SiwVm.Result siw,
            double seconds) {
        /** Both sides completed every iteration: the golden side without error, rping with exit status 0. */
        public boolean passed(int count) {
            return golden.ok(count) && siw.status() == 0 && siw.pings() == count && golden.crcInUse() == crc;
        }

        /** The table's result column. */
        public String result(int count) {
            if (passed(count)) {
                return "pass";
            }
            StringBuilder b = new StringBuilder("FAIL");
            if (golden.error() != null) {
                b.append(" golden: ").append(golden.error());
            }
            if (siw.status() != 0 || siw.pings() != count) {
                b.append(" rping exit ").append(siw.status()).append(", ").append(siw.pings()).append(" pings: ")
                        .append(String.join(" | ", siw.output()));
            }
            if (golden.crcInUse() != crc) {
                b.append(" CRC in use ").append(golden.crcInUse()).append(", expected ").append(crc);
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
                siw, seconds);
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
        List<Integer> sizes = List.of(64, 4096, 65000);
        int count = 10;
        String crcMode = "both";
        Path pcapDir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sizes" -> sizes = parseSizes(args[++i]);
                case "--count" -> count = Integer.parseInt(args[++i]);
                case "--crc" -> crcMode = args[++i];
                case "--pcap-dir" -> pcapDir = Path.of(args[++i]);
                default -> {
                    System.err.println("usage: ./rnic interop siw [--sizes 64,4096,65000] [--count N]"
                            + " [--crc off|on|both] [--pcap-dir DIR]");
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
                    for (int size : sizes) {
                        Path pcap = pcapDir == null ? null : pcapDir.resolve(String.format("siw-%s-%d-crc%s.pcap",
                                role == Role.GOLDEN_CLIENT_SIW_SERVER ? "server" : "client", size, crc ? "on" : "off"));
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
