package rnic.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import rnic.sim.tcp.LoopbackPorts;

/**
 * A Linux soft-iWARP (siw) peer in a qemu VM: Debian 12's kernel, siw built out of tree, rdma-core's {@code rping}
 * (see {@code testbench/interop/siw/build-vm.sh}, which this class runs first; its artifacts are cached under
 * {@code build/interop/siw/}).
 *
 * <p>The VM runs under TCG with user networking restricted to the host's loopback: nothing leaves the machine. siw is
 * attached to the VM's e1000 NIC (it cannot use 127.0.0.1). A server in the VM listens on 10.0.2.15:{@value #GUEST_PORT},
 * reached from the host at 127.0.0.1:{@link #serverPort()}. A client in the VM connects to
 * 10.0.2.100:{@value #GUEST_PORT}, which qemu relays (through the host-side busybox {@code nc}) to
 * 127.0.0.1:{@link #clientTargetPort()}, where the host's server must listen.
 *
 * <p>The VM's init reads one shell command per console line and answers with the output and {@code RNIC-EXIT <status>}.
 * Every failure to build or boot throws {@link IllegalStateException} with the console output: a test must never
 * mistake a missing VM for a pass.
 */
public final class SiwVm implements AutoCloseable {
    /** The rping port inside the VM (rping's default). */
    public static final int GUEST_PORT = 7174;
    /** The address a client in the VM uses to reach the host's server. */
    public static final String HOST_ALIAS = "10.0.2.100";
    /** The VM's own address. */
    public static final String GUEST_ADDRESS = "10.0.2.15";
    private static final String EXIT = "RNIC-EXIT ";
    private static final String PINGS = "RNIC-PINGS ";
    /**
     * Seconds after which the VM kills rping: after a failed connection rping can wait forever for its completion
     * thread, and the console would stay busy.
     */
    public static final int RPING_TIMEOUT = 90;
    /** Runs after rping -v (its stdout in /tmp/rping.out): prints RNIC-PINGS and keeps rping's status. */
    private static final String COUNT_PINGS = "rc=$?; echo \"" + PINGS + "$(grep -c 'ping data: rdma-ping-'"
            + " /tmp/rping.out)\"; grep -v 'ping data: rdma-ping-' /tmp/rping.out; exit $rc";

    private final boolean crc;
    private final Process qemu;
    private final OutputStream console;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> transcript = new ArrayList<>();
    private final int serverPort;
    private final int clientTargetPort;
    private final double bootSeconds;
    private final String banner;

    /** What a command in the VM printed and how it ended. */
    public record Result(int status, List<String> output, double seconds) {
        /** The output as one string, one line per line. */
        public String text() {
            return String.join("\n", output);
        }

        /**
         * For an rping run: how many iterations rping itself reported ({@code ping data:} lines of -v), or -1. rping's
         * exit status alone does not tell: it exits 0 whenever the connection ended by a disconnect, even mid-run.
         */
        public int pings() {
            for (String l : output) {
                if (l.startsWith(PINGS)) {
                    return Integer.parseInt(l.substring(PINGS.length()).trim());
                }
            }
            return -1;
        }

        /**
         * Whether rping ended cleanly. Besides status 0 this accepts one teardown race inside rping itself (the
         * Debian 12 build, after a completed run): its main thread destroys the CM event channel while its CM thread
         * still reads it, and that thread exits the process with -1 (status 255) after printing
         * {@code rdma_get_cm_event: Bad file descriptor}. Only after the disconnect event, so a run that failed is
         * never taken for this; the caller still checks the iteration count.
         */
        public boolean cleanExit() {
            if (status == 0) {
                return true;
            }
            String t = text();
            return status == 255 && t.contains("DISCONNECT EVENT")
                    && t.contains("rdma_get_cm_event: Bad file descriptor");
        }
    }

    /** A command started in the VM and not yet awaited. */
    public final class Pending {
        private final List<String> out = new ArrayList<>();
        private final long start = System.nanoTime();
        private Integer status;

        private Pending() {
        }

        /** Waits for a line starting with {@code prefix} (it stays in the output); false if the command ended first. */
        public boolean awaitLine(String prefix, double timeoutSeconds) {
            long deadline = System.nanoTime() + (long) (timeoutSeconds * 1e9);
            while (status == null) {
                String l = next(deadline, "a line '" + prefix + "'");
                if (l.startsWith(prefix)) {
                    out.add(l);
                    return true;
                }
                take(l);
            }
            return false;
        }

        /** Waits for the command's end. */
        public Result await(double timeoutSeconds) {
            long deadline = System.nanoTime() + (long) (timeoutSeconds * 1e9);
            while (status == null) {
                take(next(deadline, "the end of the command"));
            }
            return new Result(status, List.copyOf(out), (System.nanoTime() - start) / 1e9);
        }

        private void take(String l) {
            if (l.startsWith(EXIT)) {
                status = Integer.parseInt(l.substring(EXIT.length()).trim());
            } else {
                out.add(l);
            }
        }
    }

    private SiwVm(boolean crc) throws IOException {
        this.crc = crc;
        Path root = repoRoot();
        Path out = root.resolve("build/interop/siw");
        build(root, out);
        // Below the ephemeral range: the host's listener binds clientTargetPort anew for every run, and in between an
        // outgoing connection must not be able to take it (Address already in use).
        serverPort = LoopbackPorts.free();
        clientTargetPort = LoopbackPorts.free(serverPort); // qemu binds serverPort only when it starts
        String netdev = "user,id=n0,restrict=on,net=10.0.2.0/24,host=10.0.2.2"
                + ",hostfwd=tcp:127.0.0.1:" + serverPort + "-" + GUEST_ADDRESS + ":" + GUEST_PORT
                + ",guestfwd=tcp:" + HOST_ALIAS + ":" + GUEST_PORT + "-cmd:" + out.resolve("busybox")
                + " nc 127.0.0.1 " + clientTargetPort;
        List<String> cmd = List.of("qemu-system-x86_64", "-machine", "q35", "-cpu", "max", "-m", "512", "-smp", "1",
                "-display", "none", "-monitor", "none", "-serial", "stdio", "-no-reboot",
                "-kernel", out.resolve("vmlinux").toString(), "-initrd", out.resolve("initrd.cpio.gz").toString(),
                "-append", "console=ttyS0 quiet panic=-1 rnic.crc=" + (crc ? 1 : 0),
                "-netdev", netdev, "-device", "e1000,netdev=n0,romfile=");
        long t0 = System.nanoTime();
        try {
            qemu = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start qemu-system-x86_64 (apt-get install -y qemu-system-x86): "
                    + e.getMessage(), e);
        }
        console = qemu.getOutputStream();
        Thread reader = new Thread(this::readConsole, "siw-vm-console");
        reader.setDaemon(true);
        reader.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        String ready = null;
        while (ready == null) {
            String l = next(deadline, "RNIC-READY");
            if (l.startsWith("RNIC-FAIL")) {
                close();
                throw new IllegalStateException("the siw VM failed to start: " + l + "\n" + transcript());
            }
            int i = l.indexOf("RNIC-READY");
            if (i >= 0) {
                ready = l.substring(i);
            }
        }
        banner = ready;
        bootSeconds = (System.nanoTime() - t0) / 1e9;
    }

    /**
     * Builds the VM if needed (cached) and boots it with {@code siw-crc.ko} (MPA CRC required) when {@code crc}, else
     * with siw's defaults (CRC only if the peer asks).
     */
    public static SiwVm start(boolean crc) throws IOException {
        return new SiwVm(crc);
    }

    /** Runs {@code build-vm.sh} (a no-op when the cached artifacts are current). */
    public static void build(Path root, Path out) throws IOException {
        Path script = root.resolve("testbench/interop/siw/build-vm.sh");
        Files.createDirectories(out);
        Path log = out.resolve("build-vm.out");
        try {
            Process p = new ProcessBuilder("bash", script.toString(), out.toString()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("building the siw VM failed:\n" + Files.readString(log));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted building the siw VM", e);
        }
    }

    /** The repository root: the nearest directory upwards holding {@code testbench/interop/siw/build-vm.sh}. */
    public static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        for (Path q = p; q != null; q = q.getParent()) {
            if (Files.isRegularFile(q.resolve("testbench/interop/siw/build-vm.sh"))) {
                return q;
            }
        }
        throw new IllegalStateException("not inside the repository (no testbench/interop/siw/build-vm.sh above " + p
                + ")");
    }

    /** Whether this VM loaded the CRC-required siw. */
    public boolean crcRequired() {
        return crc;
    }

    /** Seconds from starting qemu to the VM's RNIC-READY. */
    public double bootSeconds() {
        return bootSeconds;
    }

    /** The VM's ready line: the siw module and the kernel release. */
    public String banner() {
        return banner;
    }

    /** Host port (127.0.0.1) forwarded to a server in the VM at {@value #GUEST_PORT}. */
    public int serverPort() {
        return serverPort;
    }

    /** Host port (127.0.0.1) a client in the VM reaches as {@value #HOST_ALIAS}:{@value #GUEST_PORT}. */
    public int clientTargetPort() {
        return clientTargetPort;
    }

    /** Starts a shell command in the VM (one at a time: await it before the next). */
    public Pending start(String command) {
        if (command.contains("\n")) {
            throw new IllegalArgumentException("one line only: " + command);
        }
        try {
            console.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            console.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("the VM's console is closed", e);
        }
        return new Pending();
    }

    /** Runs a shell command in the VM and waits for it. */
    public Result run(String command, double timeoutSeconds) {
        return start(command).await(timeoutSeconds);
    }

    /**
     * Starts {@code rping -s} in the VM and returns once it listens (the host can then connect to
     * {@link #serverPort()}); await the result after the host's client is done. rping runs with -v (counted, see
     * {@link Result#pings()}) and, if asked, -V.
     */
    public Pending rpingServer(int size, int count, boolean validate) {
        String rping = "timeout " + RPING_TIMEOUT + " rping -s -a " + GUEST_ADDRESS + " -p " + GUEST_PORT + " -S " + size + " -C " + count + " -v"
                + (validate ? " -V" : "") + " >/tmp/rping.out";
        // The previous server's listening socket can outlive its rping for a moment: wait until it is gone, or
        // `listening` would see the old socket and the client would meet a server that is going away.
        Pending p = start("released " + GUEST_PORT + " || echo 'an earlier listener on " + GUEST_PORT
                + " never went away'; " + rping + " & pid=$!; listening " + GUEST_PORT
                + " && echo RNIC-LISTENING; wait $pid; " + COUNT_PINGS);
        if (!p.awaitLine("RNIC-LISTENING", 60)) {
            throw new IllegalStateException("rping -s ended before listening: " + p.await(5).text());
        }
        return p;
    }

    /** Starts {@code rping -c} in the VM toward the host's server at {@link #clientTargetPort()}. */
    public Pending rpingClient(int size, int count, boolean validate) {
        return start("timeout " + RPING_TIMEOUT + " rping -c -a " + HOST_ALIAS + " -p " + GUEST_PORT + " -S " + size + " -C " + count + " -v"
                + (validate ? " -V" : "") + " >/tmp/rping.out; " + COUNT_PINGS);
    }

    /** Everything the console printed so far. */
    public synchronized String transcript() {
        return String.join("\n", transcript);
    }

    @Override
    public void close() {
        if (qemu.isAlive()) {
            try {
                console.write("poweroff -f\n".getBytes(StandardCharsets.UTF_8));
                console.flush();
            } catch (IOException e) {
                // the console is gone: the destroy below ends qemu
            }
            try {
                if (!qemu.waitFor(10, TimeUnit.SECONDS)) {
                    qemu.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                qemu.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private void readConsole() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(qemu.getInputStream(),
                StandardCharsets.UTF_8))) {
            String l;
            while ((l = r.readLine()) != null) {
                l = l.replace("\r", "");
                synchronized (this) {
                    transcript.add(l);
                }
                lines.add(l);
            }
        } catch (IOException e) {
            // qemu ended; next() reports it
        }
        lines.add("\u0000EOF");
    }

    private String next(long deadlineNanos, String what) {
        try {
            String l = lines.poll(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (l == null) {
                throw new IllegalStateException("timed out waiting for " + what + " from the siw VM; console:\n"
                        + transcript());
            }
            if (l.equals("\u0000EOF")) {
                lines.add(l);
                throw new IllegalStateException("the siw VM stopped (qemu exit " + (qemu.isAlive() ? "?" :
                        qemu.exitValue()) + ") while waiting for " + what + "; console:\n" + transcript());
            }
            return l;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
