package rnic.sim.tcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;
import rnic.sim.Agent;
import rnic.sim.pcap.PcapWriter;
import rnic.sim.pcap.TcpEndpoint;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;

/**
 * Real TCP for simulated cores: every {@code listen} and {@code connect} of a {@link Host} is a kernel socket
 * (java.nio, non-blocking) to a real address and port — loopback, a VM, another machine — so a simulated RnicCore
 * talks to any iWARP peer (Linux siw, a hardware RNIC, another simulation). One {@link TcpEnd} per connection carries
 * the host's MPA startup octets and, after {@link TcpEnd#handOver(int)}, the core's stream: octets already read from
 * the socket beyond the MPA frame stay in the end and go to the core first (MPA-26).
 *
 * <p><b>Polling.</b> An {@link Agent} of the simulation: every {@link #pollInterval(int)} cycles it accepts waiting
 * connections, completes active opens (established, or refused when the peer answers RST), writes what the host or
 * core queued as far as the kernel takes it and reads as much as each end has room for, all without blocking.
 *
 * <p><b>Real time and simulated time.</b> The simulation runs far slower than the peer's clock, and a peer that is
 * thinking (a VM under TCG) leaves the core idle. When nothing has moved for {@link #idleCycles(int)} cycles — no
 * octet on a socket, no accept or connect, and no change of the {@link #activity(LongSupplier) activity counter} the
 * simulation supplies (beats on the core's streams and memory port) — each cycle waits up to 1 ms in a
 * {@link Selector} on every socket before it runs: the CPU rests, and the first octet from the peer ends the wait at
 * once. Device time then advances about a thousand cycles per second: device-time timeouts are no measure of the
 * peer's real time, so a program facing a real peer should bound its waits in wall-clock time as well.
 *
 * <p><b>Capture.</b> With a {@link PcapWriter}, each connection is written as Ethernet/IPv4/TCP around the exact
 * octets that crossed its socket (the kernel's own segmentation and sequence numbers are not visible; a connection
 * between two cores of this simulation is written once, from the end established first): a handshake
 * when it is established, each write and each read as data segments of at most 1460 octets with the socket's real
 * addresses and ports, an ACK per read, FIN and RST as they happen; timestamps count cycles as microseconds, as
 * {@link TcpWireCapture} does.
 */
public final class KernelTcp implements Agent, AutoCloseable {
    /** Cycles without activity after which the simulation starts waiting on the sockets (default). */
    public static final int DEFAULT_IDLE_CYCLES = 4096;
    /** Cycles between two polls of the sockets (default). */
    public static final int DEFAULT_POLL_INTERVAL = 16;

    private final Selector selector;
    private final Random rng;
    private final PcapWriter pcap;
    private final List<KernelSocket> sockets = new ArrayList<>();
    private final List<Listener> listeners = new ArrayList<>();
    private final List<Host> hosts = new ArrayList<>();
    private final java.util.Set<String> captured = new java.util.HashSet<>();
    private LongSupplier activity = () -> 0;
    private int pollInterval = DEFAULT_POLL_INTERVAL;
    private int idleCycles = DEFAULT_IDLE_CYCLES;
    private long cycle;
    private long events;
    private long lastCount = Long.MIN_VALUE;
    private long lastActive;
    private long idleWaits;
    private long idleNanos;
    private int connections;
    private boolean closed;

    /**
     * @param rng        initial sequence numbers of the capture
     * @param pcap       where the wire goes, or {@code null}
     * @param startCycle the cycle of the first {@link #drive()}
     */
    public KernelTcp(Random rng, PcapWriter pcap, long startCycle) {
        this.rng = rng;
        this.pcap = pcap;
        this.cycle = startCycle;
        this.lastActive = startCycle;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector for kernel sockets", e);
        }
    }

    /** A counter that changes whenever the simulated design does something (beats on its ports). */
    public KernelTcp activity(LongSupplier counter) {
        this.activity = counter;
        return this;
    }

    /** Cycles between two polls of the sockets (at least 1). */
    public KernelTcp pollInterval(int cycles) {
        if (cycles < 1) {
            throw new IllegalArgumentException("poll interval must be at least 1 cycle, got " + cycles);
        }
        this.pollInterval = cycles;
        return this;
    }

    /** Cycles without activity before the simulation waits on the sockets (at least 1). */
    public KernelTcp idleCycles(int cycles) {
        if (cycles < 1) {
            throw new IllegalArgumentException("idle threshold must be at least 1 cycle, got " + cycles);
        }
        this.idleCycles = cycles;
        return this;
    }

    /**
     * A host bound to {@code bind} (an interface address, or the any-address: listen on every interface, connect from
     * whichever the kernel picks); {@code mac} is its Ethernet address in the capture.
     */
    public Host host(String name, InetAddress bind, String mac) {
        Host h = new Host(name, bind, mac);
        hosts.add(h);
        return h;
    }

    /** How often the simulation waited on the sockets while idle, and for how long in total (for reports). */
    public String idleReport() {
        return String.format("%d idle waits, %.2f s", idleWaits, idleNanos / 1e9);
    }

    /** Every connection so far (open or over), in order of creation. */
    public List<TcpEnd> ends() {
        List<TcpEnd> out = new ArrayList<>();
        for (KernelSocket k : sockets) {
            out.add(k.end);
        }
        return out;
    }

    @Override
    public void drive() {
        if (closed) {
            return;
        }
        if (cycle % pollInterval == 0) {
            poll();
        }
        long count = activity.getAsLong() + events;
        if (count != lastCount) {
            lastCount = count;
            lastActive = cycle;
        } else if (cycle - lastActive > idleCycles) {
            awaitIo();
        }
        cycle++;
    }

    /** Waits up to 1 ms for any socket to become ready, then polls. */
    private void awaitIo() {
        for (KernelSocket k : sockets) {
            k.interest();
        }
        long t0 = System.nanoTime();
        try {
            selector.select(1);
        } catch (IOException e) {
            throw new UncheckedIOException("waiting on kernel sockets", e);
        }
        selector.selectedKeys().clear();
        idleWaits++;
        idleNanos += System.nanoTime() - t0;
        poll();
    }

    private void poll() {
        for (Listener l : listeners) {
            l.poll();
        }
        for (int i = 0; i < sockets.size(); i++) {
            KernelSocket k = sockets.get(i);
            if (k.over()) {
                continue;
            }
            events += k.poll(cycle);
        }
    }

    @Override
    public boolean busy() {
        for (KernelSocket k : sockets) {
            if (!k.over() && k.pending()) {
                return true;
            }
        }
        return false;
    }

    /** Closes every socket (connections get a FIN in the capture if they had none) and the selector. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Listener l : List.copyOf(listeners)) {
            l.close();
        }
        for (KernelSocket k : sockets) {
            k.shutdown(cycle);
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing: nothing left to do
        }
    }

    private SelectionKey register(java.nio.channels.SelectableChannel ch, int ops, Object what) {
        try {
            ch.configureBlocking(false);
            return ch.register(selector, ops, what);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot register a kernel socket", e);
        }
    }

    private TcpWireCapture capture(InetSocketAddress client, String clientMac, InetSocketAddress server,
            String serverMac) {
        if (pcap == null || client.getAddress().getAddress().length != 4
                || server.getAddress().getAddress().length != 4) {
            return null; // the capture is IPv4 only
        }
        String key = client.getAddress().getHostAddress() + ":" + client.getPort() + ">"
                + server.getAddress().getHostAddress() + ":" + server.getPort();
        if (!captured.add(key)) {
            return null; // both ends are ours (two cores over loopback): the first end's view is the connection
        }
        return new TcpWireCapture(pcap, TcpEndpoint.of(clientMac, client.getAddress().getHostAddress(),
                client.getPort()), TcpEndpoint.of(serverMac, server.getAddress().getHostAddress(), server.getPort()));
    }

    /** The MAC a peer gets in the capture. */
    private static final String PEER_MAC = "02:00:00:00:00:fe";

    // ------------------------------------------------------------------------------------------------ hosts

    /** One simulated core's TCP on kernel sockets: its bind address, listeners and connections. */
    public final class Host implements TcpHost {
        private final String name;
        private final InetAddress bind;
        private final String mac;
        private TcpEnd.SlotBinder binder;

        private Host(String name, InetAddress bind, String mac) {
            this.name = name;
            this.bind = bind;
            this.mac = mac;
        }

        @Override
        public InetAddress address() {
            return bind;
        }

        @Override
        public Host slots(TcpEnd.SlotBinder slots) {
            this.binder = slots;
            return this;
        }

        /**
         * {@inheritDoc} A kernel listening socket (SO_REUSEADDR).
         *
         * @throws IllegalArgumentException for an address other than this host's (or the any-address)
         * @throws IllegalStateException    when the kernel refuses the address (in use, not local)
         */
        @Override
        public Listener listen(InetSocketAddress local) {
            requireOpen();
            if (local == null) {
                throw new IllegalArgumentException(name + ": listen(null)");
            }
            if (!local.getAddress().isAnyLocalAddress() && !bind.isAnyLocalAddress()
                    && !local.getAddress().equals(bind)) {
                throw new IllegalArgumentException(name + ": cannot listen on " + local.getAddress().getHostAddress()
                        + ", this device's address is " + bind.getHostAddress());
            }
            InetSocketAddress at = local.getAddress().isAnyLocalAddress()
                    ? new InetSocketAddress(bind, local.getPort()) : local;
            try {
                ServerSocketChannel s = ServerSocketChannel.open();
                try {
                    s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                    s.bind(at, 8);
                } catch (IOException e) {
                    s.close();
                    throw new IllegalStateException(name + ": cannot listen on " + at + ": " + e.getMessage(), e);
                }
                Listener l = new Listener(this, s, (InetSocketAddress) s.getLocalAddress());
                register(s, SelectionKey.OP_ACCEPT, l);
                listeners.add(l);
                return l;
            } catch (IOException e) {
                throw new UncheckedIOException(name + ": listen on " + at, e);
            }
        }

        /** {@inheritDoc} A non-blocking kernel connect from this host's address (an ephemeral port). */
        @Override
        public TcpEnd connect(InetSocketAddress remote) {
            requireOpen();
            if (remote == null || remote.isUnresolved()) {
                throw new IllegalArgumentException(name + ": connect to an unresolved address " + remote);
            }
            if (remote.getPort() <= 0 || remote.getPort() > 0xFFFF) {
                throw new IllegalArgumentException(name + ": connect to port " + remote.getPort());
            }
            try {
                SocketChannel ch = SocketChannel.open();
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                if (!bind.isAnyLocalAddress()) {
                    ch.bind(new InetSocketAddress(bind, 0));
                }
                boolean now;
                try {
                    now = ch.connect(remote);
                } catch (IOException e) {
                    now = false; // refused at once: finishConnect reports it in the next poll
                }
                InetSocketAddress local = ch.getLocalAddress() instanceof InetSocketAddress a ? a
                        : new InetSocketAddress(bind, 0);
                KernelSocket k = newSocket(ch, true, local, remote);
                k.end.connecting();
                k.key = register(ch, now ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, k);
                if (now) {
                    k.established(cycle);
                }
                events++;
                return k.end;
            } catch (IOException e) {
                throw new UncheckedIOException(name + ": connect to " + remote, e);
            }
        }

        KernelSocket newSocket(SocketChannel ch, boolean client, InetSocketAddress local, InetSocketAddress remote) {
            long localIsn = rng.nextLong() & 0xFFFF_FFFFL;
            long remoteIsn = rng.nextLong() & 0xFFFF_FFFFL;
            int n = connections++;
            TcpEnd end = new TcpEnd("k" + n + " " + local + (client ? ">" : "<") + remote, localIsn + 1,
                    remoteIsn + 1, KernelSocket.RX_CAPACITY, KernelSocket.TX_CAPACITY);
            end.addresses(local, remote);
            end.attach(binder, -1);
            KernelSocket k = new KernelSocket(end, ch, client, localIsn, remoteIsn, pcap == null ? null
                    : (l, r) -> client ? capture(l, mac, r, PEER_MAC) : capture(r, PEER_MAC, l, mac));
            sockets.add(k);
            return k;
        }

        @Override
        public String toString() {
            return name + " " + bind.getHostAddress() + " (kernel sockets)";
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the kernel sockets are closed");
        }
    }

    /** A kernel listening socket: established connections wait here until {@link #accept()}. */
    public final class Listener implements TcpListener {
        private final Host host;
        private final ServerSocketChannel server;
        private final InetSocketAddress local;
        private final ArrayDeque<TcpEnd> queue = new ArrayDeque<>();
        private boolean closedListener;

        private Listener(Host host, ServerSocketChannel server, InetSocketAddress local) {
            this.host = host;
            this.server = server;
            this.local = local;
        }

        void poll() {
            if (closedListener) {
                return;
            }
            try {
                SocketChannel ch;
                while ((ch = server.accept()) != null) {
                    ch.configureBlocking(false);
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    KernelSocket k = host.newSocket(ch, false, (InetSocketAddress) ch.getLocalAddress(),
                            (InetSocketAddress) ch.getRemoteAddress());
                    k.key = register(ch, SelectionKey.OP_READ, k);
                    k.established(cycle);
                    queue.add(k.end);
                    events++;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("accepting on " + local, e);
            }
        }

        @Override
        public InetSocketAddress localAddress() {
            return local;
        }

        @Override
        public TcpConnection accept() {
            if (closedListener) {
                throw new IllegalStateException(host.name + ": accept() on the closed listener " + local);
            }
            poll();
            return queue.poll();
        }

        /** {@inheritDoc} Connections accepted by the kernel but not by the driver are reset. */
        @Override
        public void close() {
            if (closedListener) {
                return;
            }
            closedListener = true;
            listeners.remove(this);
            try {
                server.close();
            } catch (IOException ignored) {
                // closing
            }
            for (TcpEnd e : queue) {
                e.abort();
            }
            queue.clear();
        }

        @Override
        public String toString() {
            return "kernel listener " + host.name + " " + local;
        }
    }
}
