package rnic.transport.serial;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;

/**
 * The board's TCP, carried by the host's kernel: each connection is a non-blocking socket of this host. Before the
 * hand-over the driver exchanges the MPA startup frames through it; after {@link Connection#handOver(int)} what the
 * socket reads goes to the core's connection slot through the board link (octets the driver had not read go first:
 * MPA-26), and what the slot sends comes back as {@link BoardLink.TcpOutput} events and is written to the socket.
 * Everything moves in {@link #pump()}, which {@link SerialTransport#advance()} calls: no threads.
 *
 * <p>Sequence numbers: the kernel's are not visible, so each connection numbers its octets from a random initial
 * value per direction; the core only needs them to be consistent (the receive side's {@code RX_SEQ} and the driver's
 * {@code receiveSequence()} come from the same count).
 */
final class SocketTcp implements AutoCloseable {
    /** Octets read from a socket and not yet taken by the board before the socket is read again. */
    private static final int PENDING_MAX = 16 * 1024;

    private final BoardLink board;
    private final Random random = new Random();
    private final List<Connection> connections = new ArrayList<>();
    private final List<Listener> listeners = new ArrayList<>();
    private final Connection[] slots;

    SocketTcp(BoardLink board, int slots) {
        this.board = board;
        this.slots = new Connection[slots];
    }

    Listener listen(InetSocketAddress local) {
        try {
            ServerSocketChannel ch = ServerSocketChannel.open();
            ch.configureBlocking(false);
            ch.bind(local);
            Listener l = new Listener(ch);
            listeners.add(l);
            return l;
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen on " + local + ": " + e.getMessage(), e);
        }
    }

    Connection connect(InetSocketAddress remote) {
        try {
            SocketChannel ch = SocketChannel.open();
            ch.configureBlocking(false);
            Connection c = new Connection(ch);
            c.connecting = !ch.connect(remote);
            c.established = !c.connecting;
            c.remote = remote;
            connections.add(c);
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to " + remote, e);
        }
    }

    /** What the board sent on a slot: to that slot's socket. */
    void fromCore(int slot, byte[] octets) {
        Connection c = slot < slots.length ? slots[slot] : null;
        if (c != null && !c.closed) {
            c.out.add(ByteBuffer.wrap(octets));
            c.sendSeq += octets.length;
        }
    }

    /** Moves what can move without blocking; returns whether anything did. */
    boolean pump() throws IOException {
        boolean moved = false;
        for (Listener l : listeners) {
            moved |= l.acceptWaiting();
        }
        for (Connection c : connections) {
            moved |= c.pump();
        }
        return moved;
    }

    @Override
    public void close() {
        for (Connection c : connections) {
            c.abort();
        }
        for (Listener l : listeners) {
            l.close();
        }
    }

    private static InetSocketAddress localAddress(java.nio.channels.NetworkChannel channel) {
        try {
            return (InetSocketAddress) channel.getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A listening socket; {@link #accept()} returns what came, or null. */
    final class Listener implements TcpListener {
        private final ServerSocketChannel channel;
        private final ArrayDeque<Connection> waiting = new ArrayDeque<>();

        Listener(ServerSocketChannel channel) {
            this.channel = channel;
        }

        boolean acceptWaiting() throws IOException {
            if (!channel.isOpen()) {
                return false;
            }
            boolean any = false;
            for (SocketChannel s; (s = channel.accept()) != null; ) {
                s.configureBlocking(false);
                Connection c = new Connection(s);
                c.established = true;
                c.remote = (InetSocketAddress) s.getRemoteAddress();
                connections.add(c);
                waiting.add(c);
                any = true;
            }
            return any;
        }

        @Override
        public InetSocketAddress localAddress() {
            return SocketTcp.localAddress(channel);
        }

        @Override
        public TcpConnection accept() {
            return waiting.poll();
        }

        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException e) {
                // closing a listening socket that failed: nothing left to do
            }
        }
    }

    /** One connection on a kernel socket. */
    final class Connection implements TcpConnection {
        private final SocketChannel channel;
        private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
        private final ArrayDeque<byte[]> in = new ArrayDeque<>();
        private int inAt;
        private boolean connecting;
        private boolean established;
        private boolean refused;
        private boolean finished;
        private boolean closed;
        /** The peer reset the connection: what it had not delivered is gone. */
        private boolean reset;
        /** The core's connection slot has been told the stream ended. */
        private boolean finSent;
        private boolean closeAfterSend;
        private int slot = -1;
        private long sendSeq = random.nextInt() & 0xFFFF_FFFFL;
        private long recvSeq = random.nextInt() & 0xFFFF_FFFFL;
        private InetSocketAddress remote;

        Connection(SocketChannel channel) {
            this.channel = channel;
        }

        boolean pump() throws IOException {
            if (closed) {
                return sendFin();
            }
            boolean moved = false;
            if (connecting) {
                try {
                    if (channel.finishConnect()) {
                        connecting = false;
                        established = true;
                        moved = true;
                    }
                } catch (ConnectException e) {
                    connecting = false;
                    refused = true;
                    closed = true;
                    return true;
                }
                if (connecting) {
                    return false;
                }
            }
            while (!out.isEmpty()) {
                ByteBuffer b = out.peek();
                if (channel.write(b) == 0) {
                    break;
                }
                moved = true;
                if (!b.hasRemaining()) {
                    out.poll();
                }
            }
            if (out.isEmpty() && closeAfterSend) {
                channel.shutdownOutput();
                closeAfterSend = false;
            }
            if (slot >= 0) {
                moved |= toCore();
            }
            if (!finished && pending() < PENDING_MAX) {
                ByteBuffer b = ByteBuffer.allocate(BoardLink.CHUNK);
                int n;
                try {
                    n = channel.read(b);
                } catch (IOException e) {
                    // Reset by the peer: what the core was not shown yet is discarded (RFC 793), the stream ends.
                    closed = true;
                    reset = true;
                    in.clear();
                    inAt = 0;
                    sendFin();
                    return true;
                }
                if (n < 0) {
                    finished = true;
                    moved = true;
                } else if (n > 0) {
                    moved = true;
                    in.add(java.util.Arrays.copyOf(b.array(), n));
                    if (slot >= 0) {
                        toCore();
                    }
                }
            }
            return moved | sendFin();
        }

        /**
         * Once the peer's FIN (after every octet before it) or RST has reached a connection handed to the core, tells
         * the core's slot its stream ended ({@link BoardLink#finTcp}), once; returns whether it did now.
         */
        private boolean sendFin() throws IOException {
            if (slot < 0 || finSent || !(finished || reset) || !in.isEmpty()) {
                return false;
            }
            finSent = board.finTcp(slot);
            return finSent;
        }

        /** Offers what waits to the core's slot; keeps what the board's bridge has no room for yet. */
        private boolean toCore() throws IOException {
            boolean moved = false;
            while (!in.isEmpty()) {
                byte[] b = in.peek();
                int n = b.length - inAt;
                int taken = board.pushTcp(slot, recvSeq, b, inAt, n);
                recvSeq += taken;
                inAt += taken;
                moved |= taken > 0;
                if (taken < n) {
                    return moved;
                }
                in.poll();
                inAt = 0;
            }
            return moved;
        }

        private long pending() {
            long n = -inAt;
            for (byte[] b : in) {
                n += b.length;
            }
            return n;
        }

        @Override
        public void send(byte[] data) {
            if (slot >= 0) {
                throw new IllegalStateException("the connection belongs to slot " + slot + " now");
            }
            out.add(ByteBuffer.wrap(data.clone()));
            sendSeq += data.length;
        }

        @Override
        public int receive(byte[] dst, int offset, int length) {
            if (slot >= 0) {
                throw new IllegalStateException("the connection belongs to slot " + slot + " now");
            }
            int n = 0;
            while (n < length && !in.isEmpty()) {
                byte[] b = in.peek();
                int k = Math.min(length - n, b.length - inAt);
                System.arraycopy(b, inAt, dst, offset + n, k);
                n += k;
                inAt += k;
                if (inAt == b.length) {
                    in.poll();
                    inAt = 0;
                }
            }
            recvSeq += n;
            return n;
        }

        @Override
        public long sendSequence() {
            return sendSeq & 0xFFFF_FFFFL;
        }

        @Override
        public long receiveSequence() {
            return recvSeq & 0xFFFF_FFFFL;
        }

        @Override
        public void handOver(int slot) {
            if (this.slot >= 0 || !established) {
                throw new IllegalStateException("hand-over needs an established connection not yet handed over");
            }
            if (slot < 0 || slot >= slots.length || (slots[slot] != null && !slots[slot].closed)) {
                throw new IllegalArgumentException("slot " + slot + " is not free");
            }
            this.slot = slot;
            slots[slot] = this;
            // Octets the driver has not read belong to the core, first and in order (MPA-26); the next pump offers
            // them to the slot.
        }

        @Override
        public boolean closed() {
            return closed || (finished && in.isEmpty());
        }

        @Override
        public boolean peerFinished() {
            return finished;
        }

        @Override
        public InetSocketAddress localAddress() {
            return SocketTcp.localAddress(channel);
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
        public void abort() {
            out.clear();
            try {
                channel.setOption(java.net.StandardSocketOptions.SO_LINGER, 0);
                channel.close();
            } catch (IOException e) {
                // already gone
            }
            closed = true;
        }

        @Override
        public void close() {
            closeAfterSend = true;
            if (out.isEmpty() && established) {
                try {
                    channel.shutdownOutput();
                    closeAfterSend = false;
                } catch (IOException e) {
                    closed = true;
                }
            }
        }
    }
}
