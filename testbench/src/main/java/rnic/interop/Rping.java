package rnic.interop;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import rnic.hw.top.RnicPair;
import rnic.sim.RnicSystem;
import rnic.tools.Launcher;

/**
 * {@code ./rnic rping}: rdma-core's rping ({@link RpingPeer}, on the verbs/cm API) on a simulated RnicCore whose TCP
 * connections are real kernel sockets ({@link rnic.sim.tcp.KernelTcp}), so it pings any iWARP peer: Linux siw, a
 * hardware RNIC, another {@code ./rnic rping}.
 *
 * <pre>
 *   ./rnic rping -s [-vVP] [-S size] [-C count] [-a addr] [-p port] [--crc on|off] [--pcap FILE]
 *   ./rnic rping -c [-vV] [-S size] [-C count] -a addr [-p port] [--crc on|off] [--pcap FILE]
 *   (both: [--timeout S]; client: [--first-send-delay MS])
 * </pre>
 *
 * <p>The simulation is the two-RNIC model {@link RnicPair} (the one the system tests and {@code ./rnic demo} compile,
 * so no second Verilator model is built): core a runs rping on kernel sockets, core b idles (its inputs held idle; it
 * costs simulation time, about half of each cycle, but no compile). The exit status is 0 only if every iteration
 * completed (and validated with {@code -V}); a server without {@code -C} succeeds when its client ended the
 * connection after at least one iteration.
 */
public final class Rping {
    private Rping() {
    }

    /** Parsed command line: rping's options plus the pcap file. */
    record Command(RpingPeer.Options options, Path pcap) {
    }

    static final String USAGE = String.join("\n",
            "usage: ./rnic rping -s [-vVP] [-S size] [-C count] [-a addr] [-p port] [--crc on|off] [--pcap FILE]",
            "       ./rnic rping -c [-vV] [-S size] [-C count] -a addr [-p port] [--crc on|off] [--pcap FILE]",
            "  -c client side    -s server side    -P persistent server (one connection after another)",
            "  -v display ping data    -V validate ping data    -S size (26 … 65535, default 64)",
            "  -C count (default: until the peer stops)    -a address    -p port (default 7174)",
            "  --crc on|off  ask for MPA CRC (default off; on if either side asks)    --pcap FILE  capture the wire",
            "  --timeout S   bound on any one wait in seconds, a server's wait for a client included (default 60;",
            "                0: a server waits for clients forever; a -P server that served one ends normally)",
            "  --first-send-delay MS  client: pause between establishment and the first Send (siw's double receive)");

    static Command parse(String[] args) throws UnknownHostException {
        Boolean server = null;
        InetAddress address = null;
        int port = RpingPeer.DEFAULT_PORT;
        int count = 0;
        int size = 64;
        boolean verbose = false;
        boolean validate = false;
        boolean persistent = false;
        boolean crc = false;
        double timeout = 60;
        int firstSendDelay = 0;
        Path pcap = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "-s" -> server = true;
                case "-c" -> server = false;
                case "-v" -> verbose = true;
                case "-V" -> validate = true;
                case "-P" -> persistent = true;
                case "-a" -> {
                    address = InetAddress.getByName(need(a, v));
                    i++;
                }
                case "-p" -> {
                    port = Integer.parseInt(need(a, v));
                    i++;
                }
                case "-C" -> {
                    count = Integer.parseInt(need(a, v));
                    i++;
                }
                case "-S" -> {
                    size = Integer.parseInt(need(a, v));
                    i++;
                }
                case "--crc" -> {
                    String c = need(a, v).toLowerCase(Locale.ROOT);
                    if (!c.equals("on") && !c.equals("off")) {
                        throw new IllegalArgumentException("--crc on|off, not " + c);
                    }
                    crc = c.equals("on");
                    i++;
                }
                case "--pcap" -> {
                    pcap = Path.of(need(a, v));
                    i++;
                }
                case "--first-send-delay" -> {
                    firstSendDelay = Integer.parseInt(need(a, v));
                    i++;
                }
                case "--timeout" -> {
                    timeout = Double.parseDouble(need(a, v));
                    i++;
                }
                default -> {
                    // rping's combined short flags, e.g. -vV or -sVv
                    if (a.matches("-[scvVP]{2,}")) {
                        for (char ch : a.substring(1).toCharArray()) {
                            switch (ch) {
                                case 's' -> server = true;
                                case 'c' -> server = false;
                                case 'v' -> verbose = true;
                                case 'V' -> validate = true;
                                default -> persistent = true;
                            }
                        }
                    } else {
                        throw new IllegalArgumentException("unknown option " + a + "\n" + USAGE);
                    }
                }
            }
        }
        if (server == null) {
            throw new IllegalArgumentException("-s or -c is required\n" + USAGE);
        }
        if (persistent && !server) {
            throw new IllegalArgumentException("-P is a server option\n" + USAGE);
        }
        RpingPeer.Options o = new RpingPeer.Options(server, address, port, count, size, verbose, validate, persistent,
                crc, timeout, firstSendDelay, 0);
        return new Command(o, pcap);
    }

    private static String need(String option, String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
        }
        return value;
    }

    /**
     * Runs rping with {@code o} on core a of a fresh simulation whose TCP is kernel sockets, writing the capture to
     * {@code pcap} if not null.
     */
    public static RpingPeer.Result run(RpingPeer.Options o, Path pcap, PrintStream out, PrintStream err)
            throws IOException {
        return run(o, pcap, out, err, () -> { });
    }

    /** {@link #run(RpingPeer.Options, Path, PrintStream, PrintStream)}; a server calls {@code onListening} once it listens. */
    public static RpingPeer.Result run(RpingPeer.Options o, Path pcap, PrintStream out, PrintStream err,
            Runnable onListening) throws IOException {
        if (pcap != null && pcap.toAbsolutePath().getParent() != null) {
            Files.createDirectories(pcap.toAbsolutePath().getParent());
        }
        InetAddress bind = o.server() && o.address() != null ? o.address() : InetAddress.getByName("0.0.0.0");
        RnicSystem.Builder b = RnicSystem.builder().kernelTcp(0, bind);
        if (pcap != null) {
            b.capture(pcap);
        }
        RpingPeer.Result[] result = new RpingPeer.Result[1];
        RnicSystem.run(RnicSystem.model(64), o.server() ? "rping-s" : "rping-c", 1, b,
                sys -> result[0] = RpingPeer.run(sys.a(), o, out, err, onListening));
        return result[0];
    }

    /** Entry point of {@code ./rnic rping}. */
    public static void main(String[] args) throws IOException {
        Command c = Launcher.parseOrExit(args, Rping::parse);
        Launcher.useBuildSimDir();
        long t0 = System.nanoTime();
        RpingPeer.Result r = run(c.options(), c.pcap(), System.out, System.err);
        boolean ok = r.ok(c.options().count()) && (c.options().count() > 0 || r.iterations() > 0);
        System.out.printf("# rping %s: %d connection(s), %d iteration(s)%s, %s, %.1f s: %s%n",
                c.options().server() ? "server" : "client", r.connections(), r.iterations(),
                c.options().validate() ? " validated" : "", r.peer().isEmpty() ? "no connection" : r.peer(),
                (System.nanoTime() - t0) / 1e9, ok ? "ok" : "FAILED" + (r.error() != null ? ": " + r.error() : ""));
        System.exit(ok ? 0 : 1);
    }
}
