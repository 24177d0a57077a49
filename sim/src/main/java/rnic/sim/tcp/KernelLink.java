package rnic.sim.tcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Both directions of a KERNEL-mode {@link TcpChannel}: one real TCP connection on 127.0.0.1, end a on the connecting
 * socket, end b on the accepted one. Linux's TCP does the segmentation, flow control and buffering; what the channel
 * sees as a "segment" is one non-blocking read, i.e. what the kernel had ready at the poll.
 *
 * <p>Everything is non-blocking and polled from the simulation thread every {@code pollInterval} cycles: queued octets
 * are written as far as the socket takes them, and each end reads as much as its receive buffer has room for (so a
 * host or core that does not read closes the kernel's window in turn). The capture shows each read as one data segment
 * with the channel's own sequence numbers (the kernel's are not visible), followed by an ACK from the reader.
 */
final class KernelLink implements AutoCloseable {
    /** Largest read, so a read fits one captured IPv4 packet. */
    private static final int MAX_READ = TcpOptions.MAX_MSS;
    private static final long CONNECT_TIMEOUT_NANOS = 10_000_000_000L;

    private final TcpEnd[] ends;
    private final TcpStats[] stats;
    private final long[] seqBase;
    private final TcpWireCapture capture;
    private final int pollInterval;
    private final SocketChannel[] sockets = new SocketChannel[2];
    private final long[] written = new long[2];
    private final long[] read = new long[2];
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(MAX_READ);
    private final byte[] scratch = new byte[MAX_READ];
    private final boolean[] shutdown = new boolean[2];
    private final boolean[] fin = new boolean[2];
    private long nextPoll;
    private boolean closed;

    /**
     * Opens the connection (a blocking wait of at most 10 s, on loopback it is immediate).
     *
     * @param seqBase sequence number of the first data octet of each direction (index = sending end)
     */
    KernelLink(TcpEnd a, TcpEnd b, TcpStats[] stats, long[] seqBase, TcpWireCapture capture, TcpOptions o) {
        this.ends = new TcpEnd[] {a, b};
        this.stats = stats;
        this.seqBase = seqBase;
        this.capture = capture;
        this.pollInterval = o.pollInterval();
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            if (o.socketBuffer() > 0) {
                server.setOption(StandardSocketOptions.SO_RCVBUF, o.socketBuffer());
            }
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            server.configureBlocking(false);
            SocketChannel client = SocketChannel.open();
            sockets[0] = client;
            if (o.socketBuffer() > 0) {
                client.setOption(StandardSocketOptions.SO_RCVBUF, o.socketBuffer());
                client.setOption(StandardSocketOptions.SO_SNDBUF, o.socketBuffer());
            }
            client.configureBlocking(false);
            boolean connected = client.connect(server.getLocalAddress());
            long deadline = System.nanoTime() + CONNECT_TIMEOUT_NANOS;
            while (!connected || sockets[1] == null) {
                if (!connected) {
                    connected = client.finishConnect();
                }
                if (sockets[1] == null) {
                    sockets[1] = server.accept();
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("no TCP connection on " + server.getLocalAddress() + " after 10 s");
                }
                if (!connected || sockets[1] == null) {
                    Thread.onSpinWait();
                }
            }
            sockets[1].configureBlocking(false);
            if (o.socketBuffer() > 0) {
                sockets[1].setOption(StandardSocketOptions.SO_SNDBUF, o.socketBuffer());
            }
            for (SocketChannel s : sockets) {
                s.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("KERNEL mode: could not open a TCP connection on 127.0.0.1 for "
                    + a.name() + " <-> " + b.name() + ": " + e.getMessage(), e);
        }
    }

    /** The local and remote ports of end a's socket, for messages. */
    String describe() {
        try {
            return sockets[0].getLocalAddress() + " <-> " + sockets[0].getRemoteAddress();
        } catch (IOException e) {
            return "closed";
        }
    }

    void tick(long now) {
        if (closed || now < nextPoll) {
            return;
        }
        nextPoll = now + pollInterval;
        try {
            for (int i = 0; i < 2; i++) {
                write(i);
            }
            for (int r = 0; r < 2; r++) {
                read(r, now);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("KERNEL mode socket of " + ends[0].name() + ": " + e.getMessage(), e);
        }
    }

    private void write(int s) throws IOException {
        TcpEnd e = ends[s];
        if (shutdown[s]) {
            return;
        }
        while (!e.tx.isEmpty()) {
            int n = e.tx.peek(scratch, 0, scratch.length);
            int w = sockets[s].write(ByteBuffer.wrap(scratch, 0, n));
            if (w <= 0) {
                return; // the kernel's send buffer is full
            }
            e.tx.drop(w);
            written[s] += w;
            stats[s].octets += w;
            stats[s].writes++;
        }
        if (e.closeRequested()) {
            sockets[s].shutdownOutput(); // FIN after everything written
            shutdown[s] = true;
        }
    }

    private void read(int r, long now) throws IOException {
        TcpEnd e = ends[r];
        int s = 1 - r;
        while (!fin[s]) {
            int room = Math.min(e.rxRoom(), MAX_READ);
            if (room <= 0) {
                return;
            }
            buffer.clear().limit(room);
            int n = sockets[r].read(buffer);
            if (n < 0) {
                fin[s] = true;
                e.peerClosed();
                if (capture != null) {
                    capture.fin(s, now, seqBase[s] + read[s], seq(r), ends[s].rxRoom());
                    capture.ack(r, now, seq(r), seq(s), e.rxRoom());
                }
                return;
            }
            if (n == 0) {
                return;
            }
            byte[] chunk = new byte[n];
            buffer.flip();
            buffer.get(chunk);
            stats[s].segment(n);
            stats[s].delivered += n;
            if (capture != null) {
                capture.data(s, now, seqBase[s] + read[s], seq(r), ends[s].rxRoom(), chunk, 0, n);
            }
            read[s] += n;
            e.deliver(chunk);
            if (capture != null) {
                capture.ack(r, now, seq(r), seq(s), e.rxRoom());
            }
            stats[s].acks++;
        }
    }

    /**
     * Sequence number of the next octet of direction {@code s} (sent by end s) the capture will show: after what the
     * peer has read, and after the FIN once the peer has read that.
     */
    long seq(int s) {
        return seqBase[s] + read[s] + (fin[s] ? 1 : 0);
    }

    /** Sequence number after the last octet of direction {@code s} the peer has read (where a FIN goes). */
    long dataEndSeq(int s) {
        return seqBase[s] + read[s];
    }

    boolean finSeen(int s) {
        return fin[s];
    }

    boolean idle() {
        for (int s = 0; s < 2; s++) {
            if (!ends[s].tx.isEmpty() || written[s] != read[s] || shutdown[s] != ends[s].closeRequested()
                    || shutdown[s] != fin[s]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        closed = true;
        for (SocketChannel s : sockets) {
            if (s != null) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing: nothing left to do with this socket
                }
            }
        }
    }
}
