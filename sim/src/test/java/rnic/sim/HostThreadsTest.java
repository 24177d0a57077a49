package rnic.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;
import rnic.transport.Transport;

/**
 * {@link HostThreads}: two blocking host programs that can only finish together (each waits for the other's register
 * write, as an MPA Initiator waits for the Responder) run to the end, every model operation runs on the calling
 * (simulation) thread, the interleaving is the same on every run, and a failing host is reported by name.
 */
class HostThreadsTest {
    /** A register file and a clock owned by the test's thread: the stand-in for a model that only it may touch. */
    private static final class Clocked implements Transport {
        final Thread owner = Thread.currentThread();
        final int[] regs;
        final List<String> trace;
        final String name;
        long cycle;

        Clocked(String name, int[] regs, List<String> trace) {
            this.name = name;
            this.regs = regs;
            this.trace = trace;
        }

        private void onOwner() {
            assertSame(owner, Thread.currentThread(), "model touched from " + Thread.currentThread().getName());
        }

        @Override
        public int read32(int offset) {
            onOwner();
            return regs[offset];
        }

        @Override
        public void write32(int offset, int value) {
            onOwner();
            trace.add(name + " w" + offset + "=" + value + "@" + cycle);
            regs[offset] = value;
        }

        @Override
        public long allocate(long size, int alignment) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void free(long address) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void write(long address, byte[] data, int offset, int length) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void read(long address, byte[] dst, int offset, int length) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void advance() {
            onOwner();
            cycle++;
        }

        @Override
        public long cycles() {
            return cycle;
        }

        /** Register 1 is this stand-in's interrupt line; a cycle is 4 ns (250 MHz). */
        @Override
        public boolean awaitInterrupt(Duration timeout) {
            onOwner();
            long end = cycle + (timeout.toNanos() + 3) / 4;
            while (regs[1] == 0) {
                if (cycle >= end) {
                    return false;
                }
                cycle++;
            }
            return true;
        }

        @Override
        public long clockHz() {
            onOwner();
            return 250_000_000L;
        }

        @Override
        public long nanoTime() {
            onOwner();
            return cycle * 4;
        }

        @Override
        public java.net.InetAddress localAddress() {
            onOwner();
            return java.net.InetAddress.getLoopbackAddress();
        }

        @Override
        public TcpListener listen(java.net.InetSocketAddress local) {
            onOwner();
            throw new UnsupportedOperationException("no network in this stand-in");
        }

        @Override
        public TcpConnection connect(java.net.InetSocketAddress remote) {
            onOwner();
            throw new UnsupportedOperationException("no network in this stand-in");
        }

        @Override
        public int connectionSlots() {
            onOwner();
            return 4;
        }

        @Override
        public String describe() {
            return name;
        }

        @Override
        public void close() {
        }
    }

    /** Waits (advancing) until register {@code r} holds {@code v}. */
    private static void await(Transport t, int r, int v) {
        for (int i = 0; t.read32(r) != v; i++) {
            if (i > 10_000) {
                throw new IllegalStateException("timeout waiting for r" + r + "=" + v);
            }
            t.advance();
        }
    }

    /** How a ping-pong host waits until {@code shared[r]} holds {@code v}. */
    @FunctionalInterface
    private interface Wait {
        void until(Transport t, int[] shared, int r, int v);
    }

    /** a writes register 0 and waits for b's answer in register 1, round after round; b answers after 0–2 advances. */
    private static List<String> pingPong(int rounds, Wait wait) {
        int[] shared = new int[2];
        List<String> trace = new ArrayList<>();
        HostThreads hosts = new HostThreads();
        hosts.add("a", new Clocked("a", shared, trace), t -> {
            for (int i = 1; i <= rounds; i++) {
                t.write32(0, i);
                wait.until(t, shared, 1, i);
            }
        });
        hosts.add("b", new Clocked("b", shared, trace), t -> {
            for (int i = 1; i <= rounds; i++) {
                wait.until(t, shared, 0, i);
                for (int k = 0; k < i % 3; k++) {
                    t.advance();
                }
                t.write32(1, i);
            }
        });
        hosts.run();
        return trace;
    }

    private static List<String> pingPong(int rounds) {
        return pingPong(rounds, (t, shared, r, v) -> await(t, r, v));
    }

    @Test
    void blockingPeersFinishTogetherDeterministically() {
        List<String> first = pingPong(50);
        assertEquals(100, first.size());
        for (int i = 0; i < 50; i++) {
            assertTrue(first.get(2 * i).startsWith("a w0=" + (i + 1) + "@"), first.get(2 * i));
            assertTrue(first.get(2 * i + 1).startsWith("b w1=" + (i + 1) + "@"), first.get(2 * i + 1));
        }
        assertEquals(first, pingPong(50));
    }

    /**
     * The ping-pong above, waiting on plain memory (the stand-in's register array read directly, as a driver reads a
     * ring in host memory): with {@code do advance(); while (!done)} on the host thread, or with
     * {@code advanceUntil(done)}.
     */
    private static List<String> pingPongOnMemory(int rounds, boolean until, List<Thread> checkedOn) {
        return pingPong(rounds, (t, shared, r, v) -> {
            if (until) {
                t.advanceUntil(() -> {
                    checkedOn.add(Thread.currentThread());
                    return shared[r] == v;
                });
            } else {
                do {
                    t.advance();
                } while (shared[r] != v);
            }
        });
    }

    /**
     * {@code advanceUntil} keeps the turns and cycles of the host-side poll loop it replaces (every write at the same
     * cycle), while its condition runs on the simulation thread: the host is not woken for a poll that finds nothing.
     */
    @Test
    void advanceUntilKeepsThePollLoopsCyclesWithoutWakingTheHost() {
        List<String> loop = pingPongOnMemory(40, false, new ArrayList<>());
        List<Thread> checkedOn = new ArrayList<>();
        List<String> until = pingPongOnMemory(40, true, checkedOn);
        assertEquals(80, loop.size());
        assertEquals(loop, until);
        assertTrue(checkedOn.size() > 80, "conditions checked " + checkedOn.size() + " times");
        for (Thread t : checkedOn) {
            assertSame(Thread.currentThread(), t, "condition checked on " + t.getName());
        }
    }

    /** A condition that uses the device is refused with a clear exception; the host's transport still works. */
    @Test
    void advanceUntilConditionMustNotUseTheDevice() {
        int[] shared = new int[2];
        String[] seen = {null};
        long[] after = {0};
        HostThreads hosts = new HostThreads();
        hosts.add("a", new Clocked("a", shared, new ArrayList<>()), t -> {
            try {
                t.advanceUntil(() -> t.read32(1) == 1);
            } catch (IllegalStateException e) {
                seen[0] = e.getMessage();
            }
            long c = t.cycles();
            t.advance();
            after[0] = t.cycles() - c;
        });
        hosts.run();
        assertTrue(seen[0] != null && seen[0].contains("advanceUntil"), String.valueOf(seen[0]));
        assertEquals(1, after[0]);
    }

    /**
     * A host blocked in {@code awaitInterrupt} does not freeze the others: the wait runs in slices with the other
     * hosts' operations between them, so the peer that raises the line gets to run; a wait nobody ends takes exactly
     * its device time.
     */
    @Test
    void awaitInterruptLetsTheOtherHostsRun() {
        int[] shared = new int[2];
        long[] waited = {-1, -1};
        boolean[] got = {false, true};
        HostThreads hosts = new HostThreads();
        Clocked ca = new Clocked("a", shared, new ArrayList<>());
        hosts.add("a", ca, t -> {
            long start = t.cycles();
            got[0] = t.awaitInterrupt(Duration.ofMillis(1));
            waited[0] = t.cycles() - start;
        });
        hosts.add("b", new Clocked("b", shared, new ArrayList<>()), t -> {
            for (int i = 0; i < 100; i++) {
                t.advance();
            }
            t.write32(1, 1);
        });
        hosts.run();
        assertTrue(got[0], "a saw the line b raised");
        assertTrue(waited[0] > 0 && waited[0] < 250_000, "a waited " + waited[0] + " cycles, less than its 1 ms");

        int[] quiet = new int[2];
        HostThreads alone = new HostThreads();
        alone.add("a", new Clocked("a", quiet, new ArrayList<>()), t -> {
            long start = t.cycles();
            got[1] = t.awaitInterrupt(Duration.ofNanos(40_000));
            waited[1] = t.cycles() - start;
        });
        alone.run();
        assertTrue(!got[1], "nothing raised the line");
        assertEquals(10_000, waited[1], "40 us at 4 ns per cycle");
    }

    @Test
    void failingHostIsNamedAndOthersStillEnd() {
        int[] shared = new int[2];
        List<String> trace = new ArrayList<>();
        boolean[] bEnded = {false};
        HostThreads hosts = new HostThreads();
        hosts.add("a", new Clocked("a", shared, trace), t -> {
            t.advance();
            throw new IllegalStateException("boom");
        });
        hosts.add("b", new Clocked("b", shared, trace), t -> {
            for (int i = 0; i < 100; i++) {
                t.advance();
            }
            bEnded[0] = true;
        });
        HostThreads.HostFailure f = assertThrows(HostThreads.HostFailure.class, hosts::run);
        assertTrue(f.getMessage().contains("host a"), f.getMessage());
        assertEquals("boom", f.getCause().getMessage());
        assertTrue(bEnded[0]);
    }

    @Test
    void modelExceptionsReachTheHost() {
        int[] shared = new int[2];
        String[] seen = {null};
        HostThreads hosts = new HostThreads();
        hosts.add("a", new Clocked("a", shared, new ArrayList<>()), t -> {
            try {
                t.read32(7);
            } catch (ArrayIndexOutOfBoundsException e) {
                seen[0] = "caught";
            }
            t.advance();
        });
        hosts.run();
        assertEquals("caught", seen[0]);
    }
}
