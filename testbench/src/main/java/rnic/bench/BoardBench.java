package rnic.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Random;
import rnic.board.BoardSim;
import rnic.demo.BoardDemo;
import rnic.demo.DemoScenario;
import rnic.hw.board.BoardSoc;
import rnic.sim.serial.SimSerialLine;
import rnic.sim.serial.UartAgent;
import rnic.transport.serial.BoardLink;
import rnic.transport.serial.HostLink;
import rnic.tools.Launcher;

/**
 * {@code ./rnic bench board}: the board's host link and the demo through it, on the simulated board (48 MHz, 3 Mbaud,
 * UART pins driven and sampled bit by bit, the real firmware).
 *
 * <p>1. Host-link payload throughput: 16 KiB written to board memory ('M' messages) and read back ('N'), each timed in
 * simulated cycles, as payload octets per second, beside what the line carries (3 Mbaud 8N1: 300 000 octets/s); the
 * protocol overhead is the line octets (COBS, header, CRC32C, acknowledgements, message headers) per payload octet.
 * Also the round trip of one 32-bit register read. The host drives the simulation itself ({@link SimSerialLine}), so
 * these figures are exact and repeatable.
 *
 * <p>2. The demo through the board ({@link BoardDemo}, the pseudo-terminal and jssc path): simulated board cycles of
 * each operation from post to completion. The peer runs in its own simulation on its own thread, so these cycles
 * include the board's time spent waiting for the peer's simulation; they bound, not measure, what hardware would take
 * beside a hardware peer.
 */
public final class BoardBench {
    static final int BYTES = 16 * 1024;

    private BoardBench() {
    }

    public static void main(String[] args) throws Exception {
        Launcher.useBuildSimDir();
        link();
        demo();
        System.exit(0);
    }

    private static void link() throws Exception {
        BoardSim.model().run("bench-link", 1, tb -> {
            UartAgent uart = BoardSim.boot(tb);
            SimSerialLine line = new SimSerialLine(tb, uart, BoardSim.CLOCK, BoardSim.BIT);
            try (HostLink link = new HostLink(line, Duration.ofMillis(40))) {
                link.connect(Duration.ofMillis(50));
                BoardLink board = new BoardLink(link, Duration.ofMillis(200));
                byte[] data = new byte[BYTES];
                new Random(1).nextBytes(data);
                long address = BoardSoc.MEMORY_BASE;
                double lineRate = BoardSim.BAUD / 10.0;
                System.out.printf(Locale.ROOT, "host link at %d baud (8N1: %.0f octets/s on the line), board clock "
                        + "%d Hz, %d octets each way, frames of at most %d payload octets, window %d%n",
                        BoardSim.BAUD, lineRate, BoardSim.CLOCK, BYTES, HostLink.MAX_PAYLOAD, HostLink.WINDOW);
                System.out.printf("  %-34s %10s %12s %8s %12s %12s%n", "direction", "cycles", "payload B/s",
                        "of line", "line octets", "overhead");

                long s0 = link.stats().octetsSent();
                long r0 = link.stats().octetsReceived();
                long c0 = tb.cycle();
                board.writeMemory(address, data, 0, BYTES);
                long c1 = tb.cycle();
                long s1 = link.stats().octetsSent();
                long r1 = link.stats().octetsReceived();
                row("host → board (write memory)", c1 - c0, s1 - s0, r1 - r0, lineRate);

                byte[] back = new byte[BYTES];
                board.readMemory(address, back, 0, BYTES);
                long c2 = tb.cycle();
                if (!java.util.Arrays.equals(data, back)) {
                    throw new IllegalStateException("board memory read back differs");
                }
                row("board → host (read memory)", c2 - c1, link.stats().octetsReceived() - r1,
                        link.stats().octetsSent() - s1, lineRate);

                int n = 200;
                long c3 = tb.cycle();
                for (int i = 0; i < n; i++) {
                    board.read32(BoardSoc.APB_BASE + BoardSoc.RNIC_OFFSET);
                }
                long per = (tb.cycle() - c3) / n;
                System.out.printf(Locale.ROOT, "  register read round trip: %d cycles (%.1f µs; %.0f reads/s)%n", per,
                        per * 1e6 / BoardSim.CLOCK, BoardSim.CLOCK / (double) per);
                System.out.println("  link: " + link.stats() + "; UART framing errors " + uart.framingErrors());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** One direction: payload throughput, share of the line, octets on the line, overhead per payload octet. */
    private static void row(String what, long cycles, long forward, long backward, double lineRate) {
        double bps = BYTES * (double) BoardSim.CLOCK / cycles;
        System.out.printf(Locale.ROOT, "  %-34s %10d %12.0f %7.1f%% %12s %11.1f%%%n", what, cycles, bps,
                100 * bps / lineRate, forward + " + " + backward, 100.0 * (forward - BYTES) / BYTES);
    }

    private static void demo() throws Exception {
        Path pcap = Path.of("build", "bench-board.pcap");
        BoardDemo.Options o = new BoardDemo.Options("sim", pcap, 1, Duration.ofMinutes(30));
        long t0 = System.nanoTime();
        BoardDemo.Result r = BoardDemo.run(o, line -> { });
        System.out.println();
        System.out.printf(Locale.ROOT, "the demo through the simulated board (pty + jssc), %.0f s wall%n",
                (System.nanoTime() - t0) / 1e9);
        System.out.printf("  %-40s %7s %10s %10s  %s%n", "operation", "bytes", "cycles", "µs @48MHz", "status");
        for (DemoScenario.Row x : r.scenario().rows()) {
            System.out.printf(Locale.ROOT, "  %-40.40s %7s %10s %10s  %s%n", x.operation(),
                    x.bytes() > 0 ? Long.toString(x.bytes()) : "", x.cycles() > 0 ? Long.toString(x.cycles()) : "",
                    x.cycles() > 0 ? String.format(Locale.ROOT, "%.0f", x.cycles() * 1e6 / BoardSim.CLOCK) : "",
                    x.status());
        }
        if (r.link() != null) {
            System.out.println("  host link over the whole demo: " + r.link().octetsSent() + " octets to the board, "
                    + r.link().octetsReceived() + " from it; " + r.link());
        }
        System.out.printf(Locale.ROOT, "  %d board cycles in total (%.3f s of board time), %d peer cycles%n",
                r.boardCycles(), r.boardCycles() / (double) BoardSim.CLOCK, r.peerCycles());
        System.out.println("  result: " + (r.error() == null && r.scenario().failures().isEmpty() ? "ok"
                : "FAILED " + r.error() + " " + r.scenario().failures()));
    }
}
