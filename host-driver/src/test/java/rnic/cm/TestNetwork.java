package rnic.cm;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;
import rnic.transport.Transport;

/**
 * A network of hosts for tests of the connection manager alone, in the style of {@code rnic.driver.ByteStream}: TCP
 * byte streams between listeners and connectors with a device clock that moves 1 µs per {@link Host#advance()}.
 * A SYN takes one advance to be answered (established, or refused when nothing listens). It stands for the network
 * and the TCP stack, not for the core: nothing here parses MPA. Hooks run on every advance so a second host can act
 * while the first one waits.
 */
final class TestNetwork {
    static final long TICK_NANOS = 1000;

    private long now;
    private final Map<InetSocketAddress, Socket> listeners = new HashMap<>();
    private final List<Runnable> hooks = new ArrayList<>();
    private final List<End> connecting = new ArrayList<>();
    private int nextPort = 50000;

    Host host(String address) {
        return new Host(address);
    }

    void onAdvance(Runnable hook) {
        hooks.add(hook);
    }

    long now() {
        return now;
    }

    private void tick() {
        now += TICK_NANOS;
        for (End e : List.copyOf(connecting)) {
            connecting.remove(e);
            Socket l = listeners.get(e.remote);
            if (l == null || l.closed) {
                e.refused = true;
            } else {
                End server = new End(e.remote, e.local, 9000);
                server.peer = e;
                e.peer = server;
                e.established = true;
                server.established = true;
                l.waiting.add(server);
            }
        }
        for (Runnable h : List.copyOf(hooks)) {
            h.run();
        }
    }

    /** One side of a TCP connection. */
    final class End implements TcpConnection {
        final InetSocketAddress local;
        final InetSocketAddress remote;
        final long isn;
        End peer;
        boolean established;
        boolean refused;
        final ByteArrayOutputStream sent = new ByteArrayOutputStream();
        int read;
        boolean fin;
        boolean reset;
        int handedOverTo = -1;
        /** Octets of the peer not read by the host when the stream was handed to the core. */
        byte[] unreadAtHandOver;

        End(InetSocketAddress local, InetSocketAddress remote, long isn) {
            this.local = local;
            this.remote = remote;
            this.isn = isn;
        }

        private void usable(String what) {
            if (handedOverTo >= 0 || fin || reset) {
                throw new IllegalStateException(what + " after hand-over or close");
            }
            if (!established) {
                throw new IllegalStateException(what + " before the connection is established");
            }
        }

        @Override
        public void send(byte[] data) {
            usable("send");
            sent.writeBytes(data);
        }

        @Override
        public int receive(byte[] dst, int offset, int length) {
            usable("receive");
            byte[] in = peer.sent.toByteArray();
            int n = Math.min(length, in.length - read);
            System.arraycopy(in, read, dst, offset, n);
            read += n;
            return n;
        }

        @Override
        public long sendSequence() {
            return isn + sent.size();
        }

        @Override
        public long receiveSequence() {
            return peer.isn + read;
        }

        @Override
        public void handOver(int slot) {
            usable("hand-over");
            handedOverTo = slot;
            byte[] in = peer.sent.toByteArray();
            unreadAtHandOver = java.util.Arrays.copyOfRange(in, read, in.length);
        }

        @Override
        public boolean closed() {
            return peer != null && (peer.fin || peer.reset) || reset;
        }

        @Override
        public void close() {
            fin = true;
        }

        @Override
        public InetSocketAddress localAddress() {
            return local;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return remote;
        }

        @Override
        public boolean established() {
            return established;
        }

        @Override
        public boolean refused() {
            return refused;
        }

        @Override
        public boolean peerFinished() {
            return peer != null && peer.fin;
        }

        @Override
        public void abort() {
            reset = true;
        }

        /** What this side sent (startup frames, Terminate). */
        byte[] sentOctets() {
            return sent.toByteArray();
        }
    }

    /** A listening socket. */
    final class Socket implements TcpListener {
        final InetSocketAddress local;
        final ArrayDeque<End> waiting = new ArrayDeque<>();
        boolean closed;

        Socket(InetSocketAddress local) {
            this.local = local;
        }

        @Override
        public InetSocketAddress localAddress() {
            return local;
        }

        @Override
        public TcpConnection accept() {
            return waiting.poll();
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** One host: the time and network part of a transport; registers and memory are not there. */
    final class Host implements Transport {
        final InetAddress address;
        final List<End> opened = new ArrayList<>();

        Host(String address) {
            try {
                this.address = InetAddress.getByName(address);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(e);
            }
        }

        @Override
        public long clockHz() {
            return 1_000_000_000L;
        }

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void advance() {
            tick();
        }

        /** The connection manager never waits for an interrupt; these hosts have no interrupt line. */
        @Override
        public boolean awaitInterrupt(java.time.Duration timeout) {
            throw new UnsupportedOperationException("the cm test network has no interrupt line");
        }

        @Override
        public long cycles() {
            return now;
        }

        @Override
        public InetAddress localAddress() {
            return address;
        }

        @Override
        public TcpListener listen(InetSocketAddress local) {
            if (!local.getAddress().equals(address) && !local.getAddress().isAnyLocalAddress()) {
                throw new IllegalArgumentException(local + " is not an address of " + address);
            }
            InetSocketAddress key = new InetSocketAddress(address, local.getPort());
            if (listeners.containsKey(key) && !listeners.get(key).closed) {
                throw new IllegalStateException("port " + local.getPort() + " is in use");
            }
            Socket s = new Socket(key);
            listeners.put(key, s);
            return s;
        }

        @Override
        public TcpConnection connect(InetSocketAddress remote) {
            End e = new End(new InetSocketAddress(address, nextPort++), remote, 1000);
            connecting.add(e);
            opened.add(e);
            return e;
        }

        @Override
        public int connectionSlots() {
            return 4;
        }

        @Override
        public String describe() {
            return "test host " + address.getHostAddress();
        }

        @Override
        public int read32(int offset) {
            throw new UnsupportedOperationException("no device here");
        }

        @Override
        public void write32(int offset, int value) {
            throw new UnsupportedOperationException("no device here");
        }

        @Override
        public long allocate(long size, int alignment) {
            throw new UnsupportedOperationException("no device here");
        }

        @Override
        public void free(long address) {
            throw new UnsupportedOperationException("no device here");
        }

        @Override
        public void write(long address, byte[] data, int offset, int length) {
            throw new UnsupportedOperationException("no device here");
        }

        @Override
        public void read(long address, byte[] dst, int offset, int length) {
            throw new UnsupportedOperationException("no device here");
        }

        @Override
        public void close() {
        }
    }
}
