package rnic.sim.tcp;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Ports on 127.0.0.1 that a test picks now and binds later, possibly many times, while the machine opens other
 * connections in between.
 *
 * <p>A port the kernel hands out for {@code bind(0)} comes from its ephemeral range, and once released, any outgoing
 * connection may get it as its local port. Such a socket has no {@code SO_REUSEADDR}, so while it lives, and for a
 * minute in TIME_WAIT after it closes, a listener cannot bind the port ({@code Address already in use}). The ports
 * here come from just below the ephemeral range ({@code /proc/sys/net/ipv4/ip_local_port_range}), which the kernel
 * never assigns to outgoing connections, so only the caller's own listeners and their accepted connections use them.
 */
public final class LoopbackPorts {
    /** How many ports below the ephemeral range are tried. */
    static final int WINDOW = 12_000;
    private static final int LOWEST = 1024;
    private static final int ATTEMPTS = 200;
    private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    /** Linux's default ephemeral range starts here. */
    private static final int DEFAULT_EPHEMERAL_LOW = 32768;

    private LoopbackPorts() {
    }

    /**
     * A port below the kernel's ephemeral range that is free on 127.0.0.1 now and is none of {@code except} (ports
     * the caller picked earlier and has not bound yet).
     *
     * @throws IOException if {@value #ATTEMPTS} ports of the window in a row, from a random one on, were in use
     */
    public static int free(int... except) throws IOException {
        int high = ephemeralLow();
        int low = Math.max(LOWEST, high - WINDOW);
        InetAddress loopback = InetAddress.getLoopbackAddress();
        if (high - low < ATTEMPTS) {
            throw new IOException("the kernel's ephemeral range starts at " + high + " (" + RANGE
                    + "): no room below it for a fixed loopback port");
        }
        // From a random port on, through the window: an excluded port costs no attempt, a port in use one.
        IOException last = null;
        int size = high - low;
        int first = ThreadLocalRandom.current().nextInt(size);
        int tried = 0;
        Set<Integer> skip = IntStream.of(except).boxed().collect(Collectors.toSet());
        for (int i = 0; i < size && tried < ATTEMPTS; i++) {
            int port = low + (first + i) % size;
            if (skip.contains(port)) {
                continue;
            }
            tried++;
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new InetSocketAddress(loopback, port), 1);
                return port;
            } catch (IOException e) {
                last = e;
            }
        }
        throw new IOException("no free port on " + loopback.getHostAddress() + " in [" + low + ", " + high + ")",
                last);
    }

    /** The first port of the kernel's ephemeral range (Linux's default if the range cannot be read). */
    static int ephemeralLow() {
        // A line reader: Files.readString reads only the first octet of this sysctl file (Java 17).
        try (BufferedReader r = Files.newBufferedReader(RANGE, StandardCharsets.US_ASCII)) {
            String[] f = r.readLine().trim().split("\\s+");
            return Integer.parseInt(f[0]);
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_LOW;
        }
    }
}
