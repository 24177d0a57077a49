package rnic.sim.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * {@link LoopbackPorts}: a port picked now and bound later (the siw VM's forwarded ports, bound anew for every rping
 * run) lies outside the kernel's ephemeral range, so no outgoing connection made in between can hold it.
 */
class LoopbackPortsTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** The port is below the ephemeral range, in the window, and a listener can bind it. */
    @Test
    void portIsBelowTheEphemeralRangeAndBindable() throws IOException {
        int low = LoopbackPorts.ephemeralLow();
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            int port = LoopbackPorts.free();
            assertTrue(port < low && port >= low - LoopbackPorts.WINDOW && port >= 1024,
                    port + " outside [" + (low - LoopbackPorts.WINDOW) + ", " + low + ")");
            try (ServerSocket s = new ServerSocket(port, 1, LOOPBACK)) {
                assertTrue(s.isBound());
            }
            seen.add(port);
        }
        assertTrue(seen.size() > 1, "the ports vary: " + seen);
    }

    /** A port picked earlier and not bound yet is not picked again when the caller names it. */
    @Test
    void aPortNamedAsTakenIsNotPickedAgain() throws IOException {
        int low = LoopbackPorts.ephemeralLow();
        int[] all = IntStream.range(low - LoopbackPorts.WINDOW, low).toArray();
        int keep = LoopbackPorts.free(); // free now
        int[] except = IntStream.of(all).filter(p -> p != keep).toArray();
        // Every port of the window but that one is named: free() must find it, whatever port it starts from.
        assertEquals(keep, LoopbackPorts.free(except));
    }

    /** Outgoing connections (ephemeral local ports) never land in the window the ports come from. */
    @Test
    void outgoingConnectionsNeverTakeSuchAPort() throws IOException {
        int low = LoopbackPorts.ephemeralLow();
        List<Socket> open = new ArrayList<>();
        try (ServerSocket server = new ServerSocket(0, 300, LOOPBACK)) {
            for (int i = 0; i < 200; i++) {
                Socket c = new Socket();
                open.add(c);
                c.connect(new InetSocketAddress(LOOPBACK, server.getLocalPort()));
                int local = c.getLocalPort();
                assertTrue(local >= low, "an outgoing connection got local port " + local + " below " + low);
            }
        } finally {
            for (Socket c : open) {
                c.close();
            }
        }
    }
}
