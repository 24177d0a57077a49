package rnic.sim.serial;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.atomic.AtomicLong;
import rnic.sim.Agent;

/**
 * A simulated board's UART on a pseudo-terminal of this host: any program opens {@link #device()} as it would a
 * board's {@code /dev/ttyUSB0} (the driver with jssc), and its octets reach the board's pins bit by bit through a
 * {@link UartAgent}, and back. A small Python relay ({@code pty}, {@code select}) holds the terminal's master side in
 * raw mode and copies octets to and from this agent through its standard streams; the agent moves them every
 * {@code pollCycles} cycles without blocking. It also publishes the simulation's time ({@link #clock()}, nanoseconds
 * at {@code clockHz}) for the program's link timers.
 */
public final class PtyUart implements Agent, AutoCloseable {
    private static final String RELAY = String.join("\n",
            "import os, pty, select, sys, tty",
            "master, slave = pty.openpty()",
            "tty.setraw(slave)",
            "tty.setraw(master)",
            "print(os.ttyname(slave), flush=True)",
            "inp, out = sys.stdin.fileno(), sys.stdout.fileno()",
            "while True:",
            "    r, _, _ = select.select([master, inp], [], [])",
            "    if inp in r:",
            "        d = os.read(inp, 4096)",
            "        if not d: break",
            "        os.write(master, d)",
            "    if master in r:",
            "        try:",
            "            d = os.read(master, 4096)",
            "        except OSError:",
            "            d = b''",
            "        if d: os.write(out, d)");

    private final Process relay;
    private final String device;
    private final InputStream fromTerminal;
    private final OutputStream toTerminal;
    private final UartAgent uart;
    private final AtomicLong clock = new AtomicLong();
    private final long clockHz;
    private final int pollCycles;
    private final rnic.sim.Tb<?> tb;
    private int countdown;

    /** Joins {@code uart} of {@code tb} (a clock of {@code clockHz}) to a new pseudo-terminal. */
    public PtyUart(rnic.sim.Tb<?> tb, UartAgent uart, long clockHz, int pollCycles) throws IOException {
        this.tb = tb;
        this.uart = uart;
        this.clockHz = clockHz;
        this.pollCycles = pollCycles;
        relay = new ProcessBuilder("python3", "-c", RELAY).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        fromTerminal = new BufferedInputStream(relay.getInputStream());
        toTerminal = relay.getOutputStream();
        StringBuilder name = new StringBuilder();
        for (int c; (c = fromTerminal.read()) != '\n'; ) {
            if (c < 0) {
                relay.destroy();
                throw new IOException("the pty relay did not start (python3 with pty/select is needed)");
            }
            name.append((char) c);
        }
        device = name.toString();
        if (!device.startsWith("/dev/")) {
            relay.destroy();
            throw new IOException("the pty relay said " + device);
        }
    }

    /** The terminal device to open. */
    public String device() {
        return device;
    }

    /** The simulation's time in nanoseconds, safe to read from any thread. */
    public java.util.function.LongSupplier clock() {
        return clock::get;
    }

    @Override
    public void drive() {
        if (--countdown > 0) {
            return;
        }
        countdown = pollCycles;
        long c = tb.cycle();
        clock.set(c / clockHz * 1_000_000_000L + c % clockHz * 1_000_000_000L / clockHz);
        try {
            int n = fromTerminal.available();
            if (n > 0) {
                byte[] b = new byte[n];
                int got = fromTerminal.read(b);
                uart.send(b, 0, got);
            }
            if (uart.available() > 0) {
                byte[] b = new byte[uart.available()];
                int k = uart.take(b, 0, b.length);
                toTerminal.write(b, 0, k);
                toTerminal.flush();
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("the pty relay failed", e);
        }
    }

    @Override
    public void close() throws IOException {
        toTerminal.close();
        try {
            if (!relay.waitFor(2, java.util.concurrent.TimeUnit.SECONDS)) {
                relay.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            relay.destroyForcibly();
        }
    }

    @Override
    public String toString() {
        return "PtyUart " + device + " (" + clockHz + " Hz)";
    }
}
