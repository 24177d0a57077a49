package rnic.board;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A pseudo-terminal whose other end is a program's standard input and output: the serial device a
 * {@code rnic.transport.serial.JsscSerialLine} opens like a board's {@code /dev/ttyUSB0}, with, say, the firmware's
 * link engine built natively behind it. A small Python relay (the {@code pty} and {@code select} modules) holds the
 * master side in raw mode and copies octets both ways.
 */
public final class PtyBridge implements AutoCloseable {
    private static final String RELAY = String.join("\n",
            "import os, pty, select, subprocess, sys, tty",
            "master, slave = pty.openpty()",
            "tty.setraw(slave)",
            "tty.setraw(master)",
            "p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)",
            "print(os.ttyname(slave), flush=True)",
            "out = p.stdout.fileno()",
            "while True:",
            "    r, _, _ = select.select([master, out, sys.stdin], [], [])",
            "    if sys.stdin in r and not os.read(sys.stdin.fileno(), 1):",
            "        break",
            "    if master in r:",
            "        d = os.read(master, 4096)",
            "        if not d: break",
            "        p.stdin.write(d)",
            "    if out in r:",
            "        d = os.read(out, 4096)",
            "        if not d: break",
            "        os.write(master, d)",
            "p.kill()");

    private final Process relay;
    private final String device;

    /** Starts {@code program} behind a new pseudo-terminal. */
    public PtyBridge(Path program) throws IOException {
        relay = new ProcessBuilder("python3", "-c", RELAY, program.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(relay.getInputStream(), StandardCharsets.UTF_8));
        device = r.readLine();
        if (device == null || !device.startsWith("/dev/")) {
            relay.destroy();
            throw new IOException("the pty relay did not start (said " + device + ")");
        }
    }

    /** The terminal device to open, e.g. {@code /dev/pts/3}. */
    public String device() {
        return device;
    }

    /** Stops the relay and the program (closing the relay's standard input ends it). */
    @Override
    public void close() throws IOException {
        relay.getOutputStream().close();
        try {
            if (!relay.waitFor(2, java.util.concurrent.TimeUnit.SECONDS)) {
                relay.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            relay.destroyForcibly();
        }
    }
}
