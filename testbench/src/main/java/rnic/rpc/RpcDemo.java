package rnic.rpc;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import rnic.hw.top.RnicPair;
import rnic.rpcrdma.RpcRdmaConfig;
import rnic.rpcrdma.RpcRdmaResponder;
import rnic.sim.HostThreads;
import rnic.sim.RnicSystem;
import rnic.sim.SimModel;
import rnic.sim.pcap.Tshark;

/**
 * {@code ./rnic demo rpc [--pcap FILE] [--seed N]}: the block service of {@link RpcScenario} over RPC-over-RDMA
 * between two simulated RNICs ({@link RnicPair}, W = 64), each host on the real driver. Prints one row per call
 * (procedure, argument and result sizes, the chunks used, the RDMA operations both sides issued, latency in cycles),
 * the simulation speed, and what tshark decodes from the capture (RPC-over-RDMA with ONC RPC inside); exit status 1
 * if a check failed.
 */
public final class RpcDemo {
    private RpcDemo() {
    }

    public static void main(String[] args) throws IOException {
        Path pcap = Path.of("build", "rpc.pcap");
        long seed = 1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--pcap" -> pcap = Path.of(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                default -> {
                    System.err.println("usage: ./rnic demo rpc [--pcap FILE] [--seed N]");
                    System.exit(2);
                }
            }
        }
        System.setProperty("rnic.simDir", Path.of("build", "sim").toString());
        Files.createDirectories(pcap.toAbsolutePath().getParent());
        PrintStream out = System.out;
        out.println("  building the Verilator model of two RNICs (W=64; the first build takes minutes)");
        SimModel<RnicPair> model = RnicSystem.model(64);
        RpcScenario s = new RpcScenario(line -> out.println("  " + line), RpcRdmaConfig.defaults());
        long[] cycles = {0};
        long t0 = System.nanoTime();
        RnicSystem.run(model, "rpc-demo", seed, RnicSystem.builder().capture(pcap), sys -> {
            new HostThreads().add("a", sys.a(), s::client).add("b", sys.b(), s::server).run();
            cycles[0] = sys.tb().cycle();
        });
        double seconds = (System.nanoTime() - t0) / 1e9;
        print(out, s, cycles[0], seconds, pcap);
        System.exit(s.failures().isEmpty() ? 0 : 1);
    }

    /** RDMA operations both sides issued for one call. */
    static String operations(RpcScenario.Row r, RpcRdmaResponder.Served v) {
        StringBuilder b = new StringBuilder("a: Send");
        if (v == null) {
            return b.toString();
        }
        if (v.reads() > 0) {
            b.append("; b: ").append(v.reads()).append(" Read (").append(v.readBytes()).append(" B)");
        } else {
            b.append("; b:");
        }
        if (v.writes() > 0) {
            b.append(" ").append(v.writes()).append(" Write (").append(v.writeBytes()).append(" B)");
        }
        b.append(v.sendWithInvalidate() ? " Send+Inv" : " Send");
        return b.toString();
    }

    static void print(PrintStream out, RpcScenario s, long cycles, double seconds, Path pcap) throws IOException {
        out.println();
        out.println("RPC-over-RDMA v1, NFSv3-shaped block service (program 100003 v3) at 10.0.0.2:20049 — latency = start to"
                + " reply, in cycles");
        String fmt = "  %-18s %7s %7s  %-40s %-42s %8s  %s%n";
        out.printf(Locale.ROOT, fmt, "procedure", "args B", "res B", "chunks", "RDMA operations", "cycles", "check");
        for (RpcScenario.Row r : s.rows()) {
            out.printf(Locale.ROOT, fmt, r.procedure(), r.argBytes(), r.resultBytes(), r.chunks(),
                    operations(r, s.served(r.xid())), r.cycles(), r.check());
        }
        out.println();
        out.printf(Locale.ROOT, "%d calls, %d cycles simulated in %.1f s: %.1f calls/s, %.0f cycles/s (both RNICs)%n",
                s.calls(), cycles, seconds, s.calls() / seconds, cycles / seconds);
        out.println("capture: " + pcap);
        if (Tshark.binary().isPresent()) {
            RpcCapture.Summary t = RpcCapture.summarize(pcap);
            out.println("tshark:  " + t);
        }
        List<String> f = s.failures();
        if (f.isEmpty()) {
            out.println("result: every call returned what a's model of b's disk says");
        } else {
            out.println("result: " + f.size() + " check(s) FAILED:");
            f.forEach(x -> out.println("  - " + x));
        }
    }
}
