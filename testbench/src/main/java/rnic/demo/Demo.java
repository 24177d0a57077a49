package rnic.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;
import rnic.hw.top.RnicConfig;
import rnic.hw.top.RnicPair;
import rnic.sim.HostThreads;
import rnic.sim.RnicSystem;
import rnic.sim.SimModel;
import rnic.sim.tcp.TcpChannel;
import rnic.sim.tcp.TcpOptions;
import rnic.tools.Launcher;

/**
 * {@code ./rnic demo}: two RNICs in Verilator ({@link RnicPair}), each driven by its own host running the real
 * driver ({@link DemoScenario}), connected over a TCP channel; prints a table of every operation with its completion
 * status, latency in cycles and throughput, and writes a pcap of the wire that Wireshark decodes.
 *
 * <pre>
 *   ./rnic demo [--pcap FILE] [--wave FILE] [--width 64|512] [--tcp model|kernel] [--seed N]
 * </pre>
 */
public final class Demo {
    private Demo() {
    }

    /** Parsed command line. */
    record Options(Path pcap, Path wave, int width, TcpChannel.Mode tcp, long seed) {
        static Options parse(String[] args) {
            Path pcap = Path.of("build", "demo.pcap");
            Path wave = null;
            int width = 64;
            TcpChannel.Mode tcp = TcpChannel.Mode.MODEL;
            long seed = 1;
            for (int i = 0; i < args.length; i++) {
                String v = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--pcap" -> pcap = Path.of(need(args[i], v));
                    case "--wave" -> wave = Path.of(need(args[i], v));
                    case "--width" -> width = Integer.parseInt(need(args[i], v));
                    case "--tcp" -> tcp = TcpChannel.Mode.valueOf(need(args[i], v).toUpperCase(Locale.ROOT));
                    case "--seed" -> seed = Long.parseLong(need(args[i], v));
                    case "-h", "--help" -> throw new IllegalArgumentException(
                            "usage: ./rnic demo [--pcap FILE] [--wave FILE] [--width 64|512] [--tcp model|kernel]"
                                    + " [--seed N]");
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + " (try --help)");
                }
                if (!args[i].startsWith("-h")) {
                    i++;
                }
            }
            if (width != 64 && width != 512) {
                throw new IllegalArgumentException("--width is 64 or 512, not " + width);
            }
            return new Options(pcap, wave, width, tcp, seed);
        }

        private static String need(String option, String value) {
            if (value == null) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return value;
        }
    }

    /** The outcome of one demo run. */
    public record Result(DemoScenario scenario, long cycles, double seconds, String tcpReport) {
    }

    public static void main(String[] args) throws IOException {
        Options o = Launcher.parseOrExit(args, Options::parse);
        PrintStream out = System.out;
        Result r = run(o, line -> out.println("  " + line));
        print(out, o, r);
        System.exit(r.scenario().failures().isEmpty() ? 0 : 1);
    }

    /** Runs the demo; {@code progress} gets one line per step. */
    public static Result run(Options o, java.util.function.Consumer<String> progress) throws IOException {
        if (o.wave() != null) {
            System.setProperty("rnic.wave", o.wave().toString().endsWith(".fst") ? "fst" : "vcd");
        }
        System.setProperty("rnic.simDir", Path.of("build", "sim").toString());
        Files.createDirectories(o.pcap().toAbsolutePath().getParent());
        RnicConfig cfg = RnicConfig.defaults().withDataWidth(o.width());
        String key = "RnicPair-w" + o.width() + (o.wave() != null ? "-wave" : "");
        progress.accept("building the Verilator model of two RNICs (W=" + o.width()
                + "; the first build takes a few minutes, later runs reuse it)");
        long c0 = System.nanoTime();
        SimModel<RnicPair> model = SimModel.profileGuided(key, () -> new RnicPair(cfg));
        progress.accept(String.format("model ready in %.0f s; running", (System.nanoTime() - c0) / 1e9));
        DemoScenario scenario = new DemoScenario(progress);
        long[] cycles = {0};
        String[] tcp = {""};
        long t0 = System.nanoTime();
        RnicSystem.Builder b = RnicSystem.builder().tcp(TcpOptions.defaults().withMode(o.tcp())).capture(o.pcap());
        RnicSystem.run(model, "demo", o.seed(), b, sys -> {
            try {
                new HostThreads().add("a", sys.a(), scenario::initiator).add("b", sys.b(), scenario::responder)
                        .run();
            } catch (HostThreads.HostFailure e) {
                // already a failed check of the scenario; the table shows how far it got
                progress.accept("stopped: " + e.getMessage());
            }
            cycles[0] = sys.tb().cycle();
            tcp[0] = sys.report();
        });
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (o.wave() != null) {
            copyWave(key, o.wave());
        }
        return new Result(scenario, cycles[0], seconds, tcp[0]);
    }

    private static void copyWave(String key, Path to) throws IOException {
        Path dir = Path.of("build", "sim", key);
        Optional<Path> wave;
        try (Stream<Path> s = Files.walk(dir)) {
            wave = s.filter(p -> p.toString().endsWith(".vcd") || p.toString().endsWith(".fst"))
                    .max((x, y) -> Long.compare(x.toFile().lastModified(), y.toFile().lastModified()));
        }
        if (wave.isEmpty()) {
            throw new IOException("no waveform was written under " + dir);
        }
        Files.createDirectories(to.toAbsolutePath().getParent());
        Files.copy(wave.get(), to, StandardCopyOption.REPLACE_EXISTING);
    }

    static void print(PrintStream out, Options o, Result r) {
        DemoScenario s = r.scenario();
        out.println();
        out.println("RNIC a (MPA Initiator) — work requests on QP 0, latency = post to completion in cycles");
        table(out, s.rows());
        out.println();
        out.println("RNIC b (MPA Responder) — what arrived");
        table(out, s.peerRows());
        out.println();
        out.printf(Locale.ROOT, "%d cycles simulated in %.1f s (%.0f cycles/s, both RNICs, W=%d)%n", r.cycles(),
                r.seconds(), r.cycles() / r.seconds(), o.width());
        if (!r.tcpReport().isEmpty()) {
            out.println(r.tcpReport());
        }
        out.println("capture: " + o.pcap() + "   (tshark -r " + o.pcap() + "   or open it in Wireshark)");
        if (rnic.sim.pcap.Tshark.binary().isPresent()) {
            try {
                out.println("tshark:  " + rnic.sim.pcap.Tshark.summarize(o.pcap()));
            } catch (IOException e) {
                out.println("tshark:  could not decode the capture: " + e.getMessage());
            }
        }
        if (o.wave() != null) {
            out.println("waveform: " + o.wave());
        }
        List<String> f = s.failures();
        if (f.isEmpty()) {
            out.println("result: every operation completed as expected; the protection fault ended in a Terminate");
        } else {
            out.println("result: " + f.size() + " check(s) FAILED:");
            f.forEach(x -> out.println("  - " + x));
        }
    }

    static void table(PrintStream out, List<DemoScenario.Row> rows) {
        out.printf(Locale.ROOT, "  %-40s %7s  %-22s %8s  %7s  %s%n", "operation", "bytes", "status", "cycles",
                "B/cycle", "check");
        for (DemoScenario.Row r : rows) {
            out.printf(Locale.ROOT, "  %-40s %7s  %-22s %8s  %7s  %s%n", r.operation(),
                    r.bytes() > 0 ? Long.toString(r.bytes()) : "", r.status(),
                    r.cycles() > 0 ? Long.toString(r.cycles()) : "",
                    r.bytesPerCycle() > 0 ? String.format(Locale.ROOT, "%.2f", r.bytesPerCycle()) : "", r.check());
        }
    }
}
