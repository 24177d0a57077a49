package rnic.sim.tcp;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import rnic.sim.Agent;
import rnic.sim.pcap.PcapWriter;
import rnic.sim.pcap.TcpEndpoint;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;

/**
 * A simulated IPv4 network of a few hosts (the simulated RNICs), created during the run: listeners by address and
 * port, active opens from ephemeral ports, and one {@link TcpChannel} per connection, each ticked once per clock cycle
 * by this one {@link Agent} (so channels come and go without adding agents to the testbench).
 *
 * <p><b>Handshake.</b> {@link Host#connect} returns the client end at once, neither established nor refused; after
 * {@link #handshakeCycles()} the SYN has "arrived": if a listener is open at the remote address and port, the channel
 * starts (the capture shows SYN, SYN-ACK, ACK), the client end is established and the server end waits in the
 * listener's {@link Listener#accept()} queue; otherwise the client end is refused (the capture shows SYN and RST-ACK).
 *
 * <p><b>Options.</b> Each connection's {@link TcpOptions} (MODEL or KERNEL, segmentation, loss …) is, in this order:
 * the one given for its connection number ({@link #optionsForConnection}, 0 = the first {@code connect} of the run),
 * the one given for its destination port ({@link #optionsForPort}), or the default.
 *
 * <p><b>Capture.</b> With a {@link PcapWriter}, every channel writes its wire with the real addresses: the client's
 * IPv4 address and ephemeral port, the listener's address and port, and a MAC per host.
 *
 * <p>Pure Java: usable without a simulator (call {@link #tick()}), or as an agent of a {@code Tb}.
 */
public final class TcpNetwork implements Agent {
    /** First ephemeral port (IANA dynamic range). */
    public static final int EPHEMERAL_FIRST = 49152;

    private final Random rng;
    private final PcapWriter pcap;
    private final TcpOptions defaults;
    private final Map<Integer, TcpOptions> perPort = new HashMap<>();
    private final Map<Integer, TcpOptions> perConnection = new HashMap<>();
    private final Map<InetAddress, Host> hosts = new HashMap<>();
    private final List<TcpChannel> channels = new ArrayList<>();
    private final List<TcpChannel> active = new ArrayList<>();
    private final List<Pending> pending = new ArrayList<>();
    private int handshakeCycles = 4;
    private int connections;
    private long cycle;

    /** An active open on its way: the SYN arrives at {@code due}. */
    private record Pending(TcpChannel channel, Host from, InetSocketAddress remote, long due) {
    }

    /**
     * @param rng        random source of every channel (ISNs, segmentation, delays, loss)
     * @param pcap       where the wire goes, or {@code null}
     * @param defaults   options of a connection without options of its own
     * @param startCycle the cycle of the first {@link #tick()}
     */
    public TcpNetwork(Random rng, PcapWriter pcap, TcpOptions defaults, long startCycle) {
        this.rng = rng;
        this.pcap = pcap;
        this.defaults = defaults;
        this.cycle = startCycle;
    }

    /** Options of every connection to port {@code port} (unless given per connection). */
    public TcpNetwork optionsForPort(int port, TcpOptions options) {
        perPort.put(port, options);
        return this;
    }

    /** Options of connection number {@code n} (0 = the run's first {@code connect}). */
    public TcpNetwork optionsForConnection(int n, TcpOptions options) {
        perConnection.put(n, options);
        return this;
    }

    /** Cycles from {@code connect} until it is established or refused (at least 1; default 4). */
    public TcpNetwork handshakeCycles(int cycles) {
        if (cycles < 1) {
            throw new IllegalArgumentException("the handshake takes at least one cycle, got " + cycles);
        }
        this.handshakeCycles = cycles;
        return this;
    }

    public int handshakeCycles() {
        return handshakeCycles;
    }

    /**
     * Adds a host at {@code address} with Ethernet address {@code mac} (for the capture).
     *
     * @throws IllegalArgumentException when the address is taken
     */
    public Host host(String name, InetAddress address, String mac) {
        if (hosts.containsKey(address)) {
            throw new IllegalArgumentException(address.getHostAddress() + " already belongs to host "
                    + hosts.get(address).name);
        }
        Host h = new Host(name, address, mac);
        hosts.put(address, h);
        return h;
    }

    /** The cycle the next {@link #tick()} will be. */
    public long cycle() {
        return cycle;
    }

    /** Every channel of the run so far (refused and closed ones too), in order of creation. */
    public List<TcpChannel> channels() {
        return List.copyOf(channels);
    }

    /**
     * A channel that starts now between {@code client} and {@code server} (no listener, no handshake delay): the
     * fixed per-QP channels of the {@code SimTransport.connection(q)} (channel-level tests).
     */
    public TcpChannel fixedChannel(String name, TcpOptions options, Host client, int clientPort, Host server,
            int serverPort) {
        client.ports.add(clientPort);
        TcpChannel c = new TcpChannel(name, options, rng,
                capture(client, clientPort, server, serverPort), client.socket(clientPort),
                server.socket(serverPort));
        c.start(cycle);
        channels.add(c);
        active.add(c);
        return c;
    }

    private rnic.sim.tcp.TcpWireCapture capture(Host client, int clientPort, Host server, int serverPort) {
        return pcap == null ? null : new TcpWireCapture(pcap, client.endpoint(clientPort),
                server.endpoint(serverPort));
    }

    /** One clock cycle: SYNs that arrive now, then every running channel. */
    public void tick() {
        if (!pending.isEmpty()) {
            for (Pending p : List.copyOf(pending)) {
                if (p.due <= cycle) {
                    pending.remove(p);
                    arrive(p);
                }
            }
        }
        for (int i = 0; i < active.size(); i++) {
            TcpChannel c = active.get(i);
            c.tick();
            if (c.over()) {
                active.remove(i--);
            }
        }
        cycle++;
    }

    private void arrive(Pending p) {
        TcpChannel c = p.channel;
        if (c.over()) {
            return; // torn down while connecting
        }
        Host to = hosts.get(p.remote.getAddress());
        Listener l = to == null ? null : to.listeners.get(p.remote.getPort());
        if (l == null) {
            c.refuse(cycle);
            p.from.ports.remove(c.a().localAddress().getPort());
            return;
        }
        c.start(cycle);
        c.b().attach(to.binder, -1);
        l.queue.add(c.b());
        active.add(c);
    }

    @Override
    public void drive() {
        tick();
    }

    @Override
    public boolean busy() {
        if (!pending.isEmpty()) {
            return true;
        }
        for (TcpChannel c : active) {
            if (!c.idle()) {
                return true;
            }
        }
        return false;
    }

    /** Tears every channel down (FIN in the capture, KERNEL sockets closed). */
    public void closeAll() {
        for (TcpChannel c : channels) {
            c.close();
        }
        active.clear();
        pending.clear();
    }

    /** One line per channel and direction: octets, segments, losses, retransmissions. */
    public String report() {
        StringBuilder s = new StringBuilder();
        for (TcpChannel c : channels) {
            s.append(c.describe()).append('\n');
            s.append("  ").append(c.statsAtoB()).append('\n');
            s.append("  ").append(c.statsBtoA()).append('\n');
        }
        return s.toString();
    }

    /**
     * One host of the network: an address, its listeners, its ephemeral ports, and the {@link TcpEnd.SlotBinder} of
     * its core that every end of this host hands over to.
     */
    public final class Host implements TcpHost {
        private final String name;
        private final InetAddress address;
        private final String mac;
        private final Map<Integer, Listener> listeners = new HashMap<>();
        private final Set<Integer> ports = new HashSet<>();
        private int nextEphemeral = EPHEMERAL_FIRST;
        private TcpEnd.SlotBinder binder;

        private Host(String name, InetAddress address, String mac) {
            this.name = name;
            this.address = address;
            this.mac = mac;
        }

        public String name() {
            return name;
        }

        @Override
        public InetAddress address() {
            return address;
        }

        /** The core's slots the ends of this host hand over to ({@code null}: they cannot hand over by slot). */
        @Override
        public Host slots(TcpEnd.SlotBinder slots) {
            this.binder = slots;
            return this;
        }

        public TcpEnd.SlotBinder slots() {
            return binder;
        }

        InetSocketAddress socket(int port) {
            return new InetSocketAddress(address, port);
        }

        TcpEndpoint endpoint(int port) {
            return TcpEndpoint.of(mac, address.getHostAddress(), port);
        }

        /**
         * Listens on {@code local} (this host's address or the any-address; port 0 picks an ephemeral port).
         *
         * @throws IllegalArgumentException for another host's address or a port out of range
         * @throws IllegalStateException    when the port is in use
         */
        @Override
        public Listener listen(InetSocketAddress local) {
            if (local == null) {
                throw new IllegalArgumentException(name + ": listen(null)");
            }
            if (!local.getAddress().isAnyLocalAddress() && !local.getAddress().equals(address)) {
                throw new IllegalArgumentException(name + ": cannot listen on " + local.getAddress().getHostAddress()
                        + ", this device's address is " + address.getHostAddress());
            }
            int port = local.getPort() == 0 ? ephemeral() : local.getPort();
            if (listeners.containsKey(port) || ports.contains(port)) {
                throw new IllegalStateException(name + ": port " + port + " is in use");
            }
            Listener l = new Listener(this, socket(port));
            listeners.put(port, l);
            ports.add(port);
            return l;
        }

        /** An active open from an ephemeral port to {@code remote}: established or refused after the handshake. */
        @Override
        public TcpEnd connect(InetSocketAddress remote) {
            if (remote == null || remote.isUnresolved()) {
                throw new IllegalArgumentException(name + ": connect to an unresolved address " + remote);
            }
            if (remote.getPort() <= 0 || remote.getPort() > 0xFFFF) {
                throw new IllegalArgumentException(name + ": connect to port " + remote.getPort());
            }
            int n = connections++;
            TcpOptions o = perConnection.getOrDefault(n, perPort.getOrDefault(remote.getPort(), defaults));
            int port = ephemeral();
            ports.add(port);
            Host server = hosts.get(remote.getAddress());
            // The capture needs a MAC for the far end even when no host has that address (the SYN is refused).
            TcpWireCapture cap = pcap == null ? null : new TcpWireCapture(pcap, endpoint(port),
                    server != null ? server.endpoint(remote.getPort())
                            : TcpEndpoint.of("02:00:00:00:00:ff", remote.getAddress().getHostAddress(),
                                    remote.getPort()));
            TcpChannel c = new TcpChannel("c" + n + " " + address.getHostAddress() + ":" + port + ">"
                    + remote.getAddress().getHostAddress() + ":" + remote.getPort(), o, rng, cap, socket(port),
                    remote);
            c.a().attach(binder, -1);
            channels.add(c);
            // established (or refused) in the handshakeCycles-th tick from now
            pending.add(new Pending(c, this, remote, cycle + handshakeCycles - 1));
            return c.a();
        }

        private int ephemeral() {
            for (int i = 0; i <= 0xFFFF - EPHEMERAL_FIRST; i++) {
                int p = nextEphemeral;
                nextEphemeral = p == 0xFFFF ? EPHEMERAL_FIRST : p + 1;
                if (!ports.contains(p) && !listeners.containsKey(p)) {
                    return p;
                }
            }
            throw new IllegalStateException(name + ": every ephemeral port is in use");
        }

        @Override
        public String toString() {
            return name + " " + address.getHostAddress();
        }
    }

    /** A listener of a {@link Host}: established incoming connections wait here for {@link #accept()}. */
    public static final class Listener implements TcpListener {
        private final Host host;
        private final InetSocketAddress local;
        private final ArrayDeque<TcpEnd> queue = new ArrayDeque<>();
        private boolean closed;

        private Listener(Host host, InetSocketAddress local) {
            this.host = host;
            this.local = local;
        }

        @Override
        public InetSocketAddress localAddress() {
            return local;
        }

        @Override
        public TcpConnection accept() {
            if (closed) {
                throw new IllegalStateException(host.name + ": accept() on the closed listener " + local);
            }
            return queue.poll();
        }

        /** Established connections waiting for {@link #accept()}. */
        public int waiting() {
            return queue.size();
        }

        /** {@inheritDoc} Connections still waiting are reset (RST). */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            host.listeners.remove(local.getPort());
            host.ports.remove(local.getPort());
            for (TcpEnd e : queue) {
                e.abort();
            }
            queue.clear();
        }

        public boolean closed() {
            return closed;
        }

        @Override
        public String toString() {
            return "listener " + host.name + " " + local;
        }
    }
}
