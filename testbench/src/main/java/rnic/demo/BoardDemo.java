package rnic.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import rnic.board.BoardSim;
import rnic.hw.board.BoardSoc;
import rnic.hw.top.RnicPair;
import rnic.sim.RnicSystem;
import rnic.sim.SimModel;
import rnic.sim.pcap.Tshark;
import rnic.sim.serial.PtyUart;
import rnic.sim.serial.UartAgent;
import rnic.transport.serial.HostLink;
import rnic.transport.serial.JsscSerialLine;
import rnic.transport.serial.SerialLine;
import rnic.transport.serial.SerialTransport;
import rnic.tools.Launcher;

/**
 * {@code ./rnic demo --board sim|DEVICE}: the demo's operations ({@link DemoScenario}, unchanged) with host a on a
 * board over its serial line. The driver runs on {@link SerialTransport} over jssc ({@link JsscSerialLine}), so every
 * register access, board-memory access and TCP octet of a crosses the host link to the board firmware. With
 * {@code sim} the board is the {@link rnic.hw.board.BoardSoc} in Verilator (real firmware, 48 MHz, 3 Mbaud) whose
 * UART pins are driven and sampled bit by bit and joined to a pseudo-terminal ({@link PtyUart}) that jssc opens like a
 * real {@code /dev/ttyUSB0}; with a device path it is a programmed board. The peer, host b, is the simulated RNIC
 * (core b of the two-RNIC model, W = 64) on this host's kernel TCP over loopback, in its own simulation on its own
 * thread; the capture is that socket's octets, which Wireshark decodes.
 *
 * <pre>
 *   ./rnic demo --board sim|DEVICE [--pcap FILE] [--seed N]
 * </pre>
 */
public final class BoardDemo {
    /** a's waits on a board: a 4 KB Write crosses a 3 Mbaud line (14 ms) and the peer is a simulation. */
    static final int SIM_BOARD_WAITS = 250;
    /** On hardware the waits are wall-clock time, and the peer's simulation is slow by that clock. */
    static final int DEVICE_WAITS = 2500;
    /** b's waits: it idles (a thousand cycles a second) while the board boots and sets up over the line. */
    static final int PEER_WAITS = 100;
    /** How long the board may take to answer one host-link message. */
    static final Duration CALL = Duration.ofMillis(200);
    /** The host link's retransmission timeout: above a full window at 3 Mbaud (28 ms). */
    static final Duration RTO = Duration.ofMillis(40);

    private BoardDemo() {
    }

    /** Parsed command line: {@code board} is "sim" or a serial device. */
    public record Options(String board, Path pcap, long seed, Duration wallLimit) {
        static Options parse(String[] args) {
            String board = null;
            Path pcap = Path.of("build", "demo-board.pcap");
            long seed = 1;
            Duration limit = Duration.ofMinutes(30);
            for (int i = 0; i < args.length; i++) {
                String v = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--board" -> board = need(args[i], v);
                    case "--pcap" -> pcap = Path.of(need(args[i], v));
                    case "--seed" -> seed = Long.parseLong(need(args[i], v));
                    case "--limit-s" -> limit = Duration.ofSeconds(Long.parseLong(need(args[i], v)));
                    default -> throw new IllegalArgumentException("usage: ./rnic demo --board sim|DEVICE [--pcap FILE]"
                            + " [--seed N] [--limit-s SECONDS]");
                }
                i++;
            }
            if (board == null) {
                throw new IllegalArgumentException("--board sim|DEVICE is needed");
            }
            return new Options(board, pcap, seed, limit);
        }

        private static String need(String option, String value) {
            if (value == null) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return value;
        }

        /** The simulated board rather than a device. */
        public boolean simulated() {
            return board.equals("sim");
        }
    }

    /**
     * The outcome: the scenario's rows and checks, the board's cycles (simulated board only, else 0) and the peer's,
     * wall seconds, the host link's counters and the board's description.
     */
    public record Result(DemoScenario scenario, long boardCycles, long peerCycles, double seconds,
            HostLink.Stats link, String board, String peerReport, Throwable error) {
    }

    public static void main(String[] args) throws IOException {
        Options o = Launcher.parseOrExit(args, Options::parse);
        Launcher.useBuildSimDir();
        PrintStream out = System.out;
        Result r = run(o, line -> out.println("  " + line));
        print(out, o, r);
        System.exit(r.error() == null && r.scenario().failures().isEmpty() ? 0 : 1);
    }

    /** Runs the demo with host a on the board; {@code progress} gets one line per step. */
    public static Result run(Options o, Consumer<String> progress) throws IOException {
        if (o.pcap().toAbsolutePath().getParent() != null) {
            Files.createDirectories(o.pcap().toAbsolutePath().getParent());
        }
        // Both models before either simulation starts: a board waiting on a peer still compiling would time out.
        SimModel<BoardSoc> boardModel = null;
        if (o.simulated()) {
            progress.accept("building the board firmware and the Verilator model of the board SoC (first run: minutes)");
            boardModel = BoardSim.model();
        }
        progress.accept("building the Verilator model of the peer RNIC (first run: minutes)");
        SimModel<RnicPair> peerModel = RnicSystem.model(64);

        InetAddress loopback = InetAddress.getLoopbackAddress();
        DemoScenario scenario = new DemoScenario(progress, new DemoScenario.Setup(new InetSocketAddress(loopback, 0),
                o.simulated() ? SIM_BOARD_WAITS : DEVICE_WAITS, PEER_WAITS));
        AtomicReference<Throwable> error = new AtomicReference<>();
        long[] peerCycles = {0};
        String[] peerReport = {""};
        long t0 = System.nanoTime();
        long deadline = t0 + o.wallLimit().toNanos();

        Thread peer = new Thread(() -> {
            try {
                RnicSystem.run(peerModel, "board-demo-peer", o.seed(),
                        RnicSystem.builder().kernelTcp(1, loopback).capture(o.pcap()), sys -> {
                            scenario.responder(sys.b());
                            peerCycles[0] = sys.tb().cycle();
                            peerReport[0] = sys.report();
                        });
            } catch (Throwable e) {
                error.compareAndSet(null, e);
            }
        }, "peer-simulation");
        peer.setDaemon(true);
        peer.start();

        long[] boardCycles = {0};
        AtomicReference<HostLink.Stats> stats = new AtomicReference<>();
        AtomicReference<String> described = new AtomicReference<>("");
        if (o.simulated()) {
            boardModel.run("board-demo", o.seed(), tb -> {
                UartAgent uart = BoardSim.boot(tb);
                try (PtyUart pty = tb.add(new PtyUart(tb, uart, BoardSim.CLOCK, BoardSim.BIT))) {
                    progress.accept("simulated board's UART on " + pty.device() + " (jssc opens it at "
                            + BoardSim.BAUD + " baud)");
                    Thread host = new Thread(() -> initiator(() -> new JsscSerialLine(pty.device(),
                            (int) BoardSim.BAUD, pty.clock()), scenario, stats, described, error), "board-host");
                    host.setDaemon(true);
                    host.start();
                    while (host.isAlive() && System.nanoTime() < deadline
                            && (peer.isAlive() || error.get() == null)) {
                        tb.step(256);
                    }
                    if (host.isAlive()) {
                        error.compareAndSet(null, new IllegalStateException("the board's host program did not end"
                                + (System.nanoTime() >= deadline ? " within " + o.wallLimit() : "")));
                        host.interrupt();
                        host.join(5000);
                    }
                    boardCycles[0] = tb.cycle();
                    if (uart.framingErrors() != 0) {
                        error.compareAndSet(null, new IllegalStateException(uart.framingErrors()
                                + " UART framing errors"));
                    }
                } catch (IOException | InterruptedException e) {
                    error.compareAndSet(null, e);
                }
            });
        } else {
            initiator(() -> new JsscSerialLine(o.board(), (int) BoardSim.BAUD), scenario, stats, described, error);
        }
        try {
            peer.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (peer.isAlive()) {
            error.compareAndSet(null, new IllegalStateException("the peer's simulation did not end"));
        }
        return new Result(scenario, boardCycles[0], peerCycles[0], (System.nanoTime() - t0) / 1e9, stats.get(),
                described.get(), peerReport[0], error.get());
    }

    private interface LineFactory {
        SerialLine open() throws IOException;
    }

    private static void initiator(LineFactory line, DemoScenario scenario, AtomicReference<HostLink.Stats> stats,
            AtomicReference<String> described, AtomicReference<Throwable> error) {
        try (SerialTransport t = new SerialTransport(line.open(), InetAddress.getLoopbackAddress(), RTO, CALL)) {
            described.set(t.describe());
            try {
                scenario.initiator(t);
            } finally {
                stats.set(t.linkStats());
            }
        } catch (Throwable e) {
            // a failed check is already in the scenario's failures; keep the cause too
            error.compareAndSet(null, e);
        }
    }

    public static void print(PrintStream out, Options o, Result r) {
        DemoScenario s = r.scenario();
        out.println();
        out.println("RNIC a: " + r.board() + " — work requests on QP 0, latency = post to completion in board cycles");
        Demo.table(out, s.rows());
        out.println();
        out.println("RNIC b (simulated, W=64, kernel TCP on loopback) — what arrived");
        Demo.table(out, s.peerRows());
        out.println();
        if (r.link() != null) {
            out.println("host link: " + r.link() + "; octets on the line: " + r.link().octetsSent() + " to the board, "
                    + r.link().octetsReceived() + " from it");
        }
        if (o.simulated()) {
            out.printf(Locale.ROOT, "%d board cycles (48 MHz: %.3f s of board time) and %d peer cycles in %.1f s%n",
                    r.boardCycles(), r.boardCycles() / (double) BoardSim.CLOCK, r.peerCycles(), r.seconds());
        } else {
            out.printf(Locale.ROOT, "%.1f s; %d peer cycles%n", r.seconds(), r.peerCycles());
        }
        if (!r.peerReport().isEmpty()) {
            out.println(r.peerReport());
        }
        out.println("capture: " + o.pcap() + "   (tshark -r " + o.pcap() + "   or open it in Wireshark)");
        if (Tshark.binary().isPresent()) {
            try {
                out.println("tshark:  " + Tshark.summarize(o.pcap()));
            } catch (IOException e) {
                out.println("tshark:  could not decode the capture: " + e.getMessage());
            }
        }
        List<String> f = s.failures();
        if (r.error() == null && f.isEmpty()) {
            out.println("result: every operation completed as expected; the protection fault ended in a Terminate");
        } else {
            out.println("result: FAILED" + (r.error() != null ? " (" + r.error() + ")" : ""));
            f.forEach(x -> out.println("  - " + x));
        }
    }
}
