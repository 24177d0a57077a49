package rnic.sim;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import rnic.driver.DeviceClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;
import rnic.transport.Transport;

/**
 * Runs several host programs — each an ordinary blocking driver program, one per simulated RNIC — against one
 * simulation. Two hosts must run side by side: an MPA Initiator blocks until the Responder's host has answered, so
 * one thread calling both drivers in turn would deadlock.
 *
 * <p>Each program runs on its own Java thread with a {@link Transport} that hands every operation needing the model
 * (register accesses and {@link Transport#advance()}, which step the clock) to the simulation thread, the only thread
 * that may touch the Verilator model (its handle lives in a {@code thread_local}). Exactly one thread runs at any
 * time: the simulation thread serves one host's operation, then waits until that host posts its next operation or
 * ends, then serves the next host, round-robin. Host programs therefore see the simulation exactly as if they ran on
 * it, the run is deterministic, and host memory and TCP connection state (plain Java objects of the simulation) are
 * accessed directly — the semaphores of the hand-over order every access.
 *
 * <pre>{@code
 * HostThreads hosts = new HostThreads();
 * hosts.add("a", transportA, t -> { try (Device d = Device.open(t)) { ... } });
 * hosts.add("b", transportB, t -> { ... });
 * hosts.run();   // on the simulation thread, returns when every program has ended; rethrows the first failure
 * }</pre>
 */
public final class HostThreads {
    /** A host program: the driver code of one RNIC's host. */
    @FunctionalInterface
    public interface Program {
        void run(Transport transport) throws Exception;
    }

    /**
     * Device time one {@link Transport#awaitInterrupt} of a host runs before the other hosts get their turn: a
     * waiting host must not freeze the others' programs (256 cycles at 250 MHz).
     */
    public static final Duration AWAIT_SLICE = Duration.ofNanos(1024);

    private final List<Host> hosts = new ArrayList<>();
    private boolean ran;

    /** Adds a host program that will reach {@code device} (a transport owned by the simulation thread). */
    public HostThreads add(String name, Transport device, Program program) {
        if (ran) {
            throw new IllegalStateException("HostThreads already ran; create a new one");
        }
        hosts.add(new Host(name, device, program));
        return this;
    }

    /**
     * Runs every program to its end. Call on the simulation thread. If a program throws, the others are still run to
     * their end (they may fail on their own — e.g. time out waiting for the dead peer), then the first failure is
     * rethrown with the host's name.
     */
    public void run() {
        if (ran) {
            throw new IllegalStateException("HostThreads already ran; create a new one");
        }
        ran = true;
        for (Host h : hosts) {
            h.thread.start();
            h.awaitHost();
        }
        boolean any = true;
        while (any) {
            any = false;
            for (Host h : hosts) {
                if (h.serveOne()) {
                    any = true;
                }
            }
        }
        for (Host h : hosts) {
            try {
                h.thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while joining host " + h.name, e);
            }
        }
        HostFailure first = null;
        for (Host h : hosts) {
            if (h.failure != null) {
                HostFailure f = new HostFailure("host " + h.name + " failed: " + h.failure, h.failure);
                if (first == null) {
                    first = f;
                } else {
                    first.addSuppressed(f);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** A host program ended with an exception; the cause is what it threw. */
    public static final class HostFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HostFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** One host: its thread, its forwarding transport and the hand-over between it and the simulation thread. */
    private static final class Host {
        final String name;
        final Transport device;
        final Thread thread;
        /** Released by the host when it has posted an operation or ended. */
        final Semaphore toSim = new Semaphore(0);
        /** Released by the simulation thread when the posted operation is done. */
        final Semaphore toHost = new Semaphore(0);
        Supplier<Object> pending;
        /** For {@link Transport#advanceUntil}: the pending operation is served again in each turn until this holds. */
        java.util.function.BooleanSupplier until;
        Object result;
        RuntimeException error;
        Throwable failure;
        volatile boolean ended;

        Host(String name, Transport device, Program program) {
            this.name = name;
            this.device = device;
            Transport forwarding = new Forwarding(this);
            thread = new Thread(() -> {
                try {
                    program.run(forwarding);
                } catch (Throwable t) {
                    failure = t;
                } finally {
                    ended = true;
                    toSim.release();
                }
            }, "host-" + name);
            thread.setDaemon(true);
        }

        /** Simulation thread: waits until this host posted an operation or ended. */
        void awaitHost() {
            toSim.acquireUninterruptibly();
        }

        /** Simulation thread: serves this host's pending operation; false when the host has ended. */
        boolean serveOne() {
            if (ended) {
                return false;
            }
            Supplier<Object> op = pending;
            try {
                result = op.get();
                error = null;
                // The host's own check after each advance, done here while it stays parked: the same turns, the
                // same cycles, no hand-over per poll.
                if (until != null && !until.getAsBoolean()) {
                    return true;
                }
            } catch (RuntimeException e) {
                error = e;
            }
            pending = null;
            until = null;
            toHost.release();
            awaitHost();
            return true;
        }

        /** Host thread: runs {@code op} on the simulation thread and returns its result. */
        Object call(Supplier<Object> op) {
            return call(op, null);
        }

        /** Host thread: runs {@code op} in this host's turns until {@code done} holds after it (null: once). */
        Object call(Supplier<Object> op, java.util.function.BooleanSupplier done) {
            if (Thread.currentThread() != thread) {
                // E.g. an advanceUntil condition that reads a register: it runs on the simulation thread.
                throw new IllegalStateException("host " + name + "'s transport used from thread "
                        + Thread.currentThread().getName() + " (an advanceUntil condition must not use the device)");
            }
            pending = op;
            until = done;
            toSim.release();
            toHost.acquireUninterruptibly();
            if (error != null) {
                RuntimeException e = error;
                error = null;
                throw e;
            }
            return result;
        }
    }

    /**
     * The host's view of the device: model operations go to the simulation thread; memory and TCP state are used
     * directly (the simulation thread is parked while this host runs).
     */
    private static final class Forwarding implements Transport {
        private final Host host;

        Forwarding(Host host) {
            this.host = host;
        }

        @Override
        public int read32(int offset) {
            return (Integer) host.call(() -> host.device.read32(offset));
        }

        @Override
        public void write32(int offset, int value) {
            host.call(() -> {
                host.device.write32(offset, value);
                return null;
            });
        }

        @Override
        public long allocate(long size, int alignment) {
            return host.device.allocate(size, alignment);
        }

        @Override
        public void free(long address) {
            host.device.free(address);
        }

        @Override
        public void write(long address, byte[] data, int offset, int length) {
            host.device.write(address, data, offset, length);
        }

        @Override
        public void read(long address, byte[] dst, int offset, int length) {
            host.device.read(address, dst, offset, length);
        }

        @Override
        public void advance() {
            host.call(() -> {
                host.device.advance();
                return null;
            });
        }

        /** {@inheritDoc} The simulation thread checks {@code done} in this host's turns; the host wakes once. */
        @Override
        public void advanceUntil(java.util.function.BooleanSupplier done) {
            java.util.Objects.requireNonNull(done, "done");
            host.call(() -> {
                host.device.advance();
                return null;
            }, done);
        }

        @Override
        public long cycles() {
            return host.device.cycles();
        }

        /**
         * In slices of {@link #AWAIT_SLICE}, the other hosts running between them; the timeout counts device time
         * (cycles at the transport's {@code clockHz()}), which also passes while the others run.
         */
        @Override
        public boolean awaitInterrupt(Duration timeout) {
            if (timeout == null || timeout.isNegative()) {
                throw new IllegalArgumentException("awaitInterrupt needs a timeout of zero or more, got " + timeout);
            }
            long hz = clockHz();
            long end = host.device.cycles() + DeviceClock.cycles(timeout, hz);
            long sliceCycles = DeviceClock.cycles(AWAIT_SLICE, hz);
            while (true) {
                long left = end - host.device.cycles();
                if (left <= 0) {
                    return false;
                }
                Duration slice = Duration.ofNanos(Math.min(left, sliceCycles) * 1_000_000_000L / hz);
                if ((Boolean) host.call(() -> host.device.awaitInterrupt(slice))) {
                    return true;
                }
            }
        }

        @Override
        public long clockHz() {
            return (Long) host.call(host.device::clockHz);
        }

        @Override
        public long nanoTime() {
            return (Long) host.call(host.device::nanoTime);
        }

        @Override
        public InetAddress localAddress() {
            return (InetAddress) host.call(host.device::localAddress);
        }

        @Override
        public TcpListener listen(InetSocketAddress local) {
            return (TcpListener) host.call(() -> host.device.listen(local));
        }

        @Override
        public TcpConnection connect(InetSocketAddress remote) {
            return (TcpConnection) host.call(() -> host.device.connect(remote));
        }

        @Override
        public int connectionSlots() {
            return (Integer) host.call(host.device::connectionSlots);
        }

        @Override
        public String describe() {
            return host.device.describe();
        }

        @Override
        public void close() {
            host.call(() -> {
                host.device.close();
                return null;
            });
        }
    }
}
