package rnic.sim.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One connection of {@link KernelTcp}: a non-blocking kernel socket and the {@link TcpEnd} the host (MPA startup)
 * and then the core use. Index 0 of the capture is the active opener, 1 the listener's side.
 */
final class KernelSocket {
    /** Octets the end may hold unread (the core or host reads them). */
    static final int RX_CAPACITY = 256 * 1024;
    /** Octets the host or core may queue before the kernel takes them. */
    static final int TX_CAPACITY = 256 * 1024;
    /** Largest captured segment payload. */
    private static final int CAPTURE_MSS = 1460;
    private static final int MAX_IO = 64 * 1024;

    final TcpEnd end;
    private final SocketChannel ch;
    private final boolean client;
    private final long localIsn;
    private final long remoteIsn;
    private final java.util.function.BiFunction<InetSocketAddress, InetSocketAddress, TcpWireCapture> capture;
    private TcpWireCapture cap;
    private final int me;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(MAX_IO);
    private final byte[] scratch = new byte[MAX_IO];
    SelectionKey key;
    private long sent;
    private long received;
    private boolean established;
    private boolean finSent;
    private boolean finReceived;
    private boolean over;

    /**
     * @param capture makes the capture of this connection from its local and remote address (null: no capture);
     *                called once the addresses are known (the kernel picks an active open's port)
     */
    KernelSocket(TcpEnd end, SocketChannel ch, boolean client, long localIsn, long remoteIsn,
            java.util.function.BiFunction<InetSocketAddress, InetSocketAddress, TcpWireCapture> capture) {
        this.end = end;
        this.ch = ch;
        this.client = client;
        this.localIsn = localIsn;
        this.remoteIsn = remoteIsn;
        this.capture = capture;
        this.me = client ? 0 : 1;
    }

    boolean over() {
        return over;
    }

    /** Whether octets wait to be written. */
    boolean pending() {
        return established && !end.tx.isEmpty();
    }

    /**
     * Selector interest for an idle wait: readable while the end has room, writable when octets wait, connectable
     * while connecting.
     */
    void interest() {
        if (over || key == null || !key.isValid()) {
            return;
        }
        // no read interest while the end is full: a readable socket nobody can read would end every wait at once
        int ops = !established ? SelectionKey.OP_CONNECT
                : (finReceived || end.rxRoom() <= 0 ? 0 : SelectionKey.OP_READ)
                        | (end.tx.isEmpty() ? 0 : SelectionKey.OP_WRITE);
        key.interestOps(ops);
    }

    /** The handshake completed: the end is established, the capture shows SYN, SYN-ACK, ACK. */
    void established(long cycle) {
        established = true;
        try {
            if (ch.getLocalAddress() instanceof InetSocketAddress local
                    && ch.getRemoteAddress() instanceof InetSocketAddress remote) {
                end.addresses(local, remote);
            }
        } catch (IOException e) {
            // keep the addresses known at the open
        }
        cap = capture == null ? null : capture.apply(end.localAddress(), end.remoteAddress());
        end.establish();
        if (cap != null) {
            long clientIsn = client ? localIsn : remoteIsn;
            long serverIsn = client ? remoteIsn : localIsn;
            cap.handshake(cycle, clientIsn, serverIsn, CAPTURE_MSS, 0xFFFF, 0xFFFF);
        }
    }

    private long localSeq() {
        return localIsn + 1 + sent + (finSent ? 1 : 0);
    }

    private long remoteSeq() {
        return remoteIsn + 1 + received + (finReceived ? 1 : 0);
    }

    /** One poll; returns how many things happened (octets moved count as one per read or write). */
    int poll(long cycle) {
        int events = 0;
        try {
            if (!established) {
                if (end.abortRequested()) {
                    close();
                    end.resetByRst();
                    return 1;
                }
                boolean done;
                try {
                    done = ch.finishConnect();
                } catch (IOException e) {
                    // nothing listens there (RST to the SYN), or unreachable
                    cap = capture == null ? null : capture.apply(end.localAddress(), end.remoteAddress());
                    if (cap != null) {
                        cap.refused(cycle - 1, cycle, localIsn, CAPTURE_MSS, 0xFFFF);
                    }
                    end.refuse();
                    close();
                    return 1;
                }
                if (!done) {
                    return 0;
                }
                established(cycle);
                events++;
            }
            if (end.abortRequested()) {
                if (cap != null) {
                    cap.rst(me, cycle, localSeq(), remoteSeq());
                }
                ch.setOption(StandardSocketOptions.SO_LINGER, 0); // close() sends RST
                close();
                end.resetByRst();
                return events + 1;
            }
            events += write(cycle);
            events += read(cycle);
            if (finSent && finReceived) {
                close();
            }
        } catch (IOException e) {
            // reset by the peer (ECONNRESET, EPIPE)
            if (cap != null) {
                cap.rst(1 - me, cycle, remoteSeq(), localSeq());
            }
            end.resetByRst();
            close();
            events++;
        }
        return events;
    }

    private int write(long cycle) throws IOException {
        int events = 0;
        while (!finSent && !end.tx.isEmpty()) {
            int n = end.tx.peek(scratch, 0, scratch.length);
            int w = ch.write(ByteBuffer.wrap(scratch, 0, n));
            if (w <= 0) {
                break; // the kernel's send buffer is full
            }
            if (cap != null) {
                for (int off = 0; off < w; off += CAPTURE_MSS) {
                    int len = Math.min(CAPTURE_MSS, w - off);
                    cap.data(me, cycle, localIsn + 1 + sent + off, remoteSeq(), 0xFFFF, scratch, off, len);
                }
            }
            end.tx.drop(w);
            sent += w;
            events++;
        }
        if (!finSent && end.tx.isEmpty() && end.closeRequested()) {
            ch.shutdownOutput(); // FIN after everything written
            if (cap != null) {
                cap.fin(me, cycle, localSeq(), remoteSeq(), 0xFFFF);
            }
            finSent = true;
            events++;
        }
        return events;
    }

    private int read(long cycle) throws IOException {
        int events = 0;
        while (!finReceived) {
            int room = Math.min(end.rxRoom(), MAX_IO);
            if (room <= 0) {
                break;
            }
            buffer.clear().limit(room);
            int n = ch.read(buffer);
            if (n < 0) {
                if (cap != null) {
                    cap.fin(1 - me, cycle, remoteSeq(), localSeq(), 0xFFFF);
                }
                finReceived = true;
                end.peerClosed();
                if (cap != null) {
                    cap.ack(me, cycle, localSeq(), remoteSeq(), room);
                }
                return events + 1;
            }
            if (n == 0) {
                break;
            }
            byte[] chunk = new byte[n];
            buffer.flip();
            buffer.get(chunk);
            if (cap != null) {
                for (int off = 0; off < n; off += CAPTURE_MSS) {
                    int len = Math.min(CAPTURE_MSS, n - off);
                    cap.data(1 - me, cycle, remoteIsn + 1 + received + off, localSeq(), 0xFFFF, chunk, off, len);
                }
            }
            received += n;
            end.deliver(chunk);
            if (cap != null) {
                cap.ack(me, cycle, localSeq(), remoteSeq(), end.rxRoom());
            }
            events++;
        }
        return events;
    }

    /** The simulation ends: a FIN in the capture from each side that sent none, then the socket is closed. */
    void shutdown(long cycle) {
        if (over) {
            return;
        }
        if (cap != null && established) {
            if (!finSent) {
                cap.fin(me, cycle, localSeq(), remoteSeq(), 0xFFFF);
                finSent = true;
            }
            if (!finReceived) {
                cap.fin(1 - me, cycle, remoteSeq(), localSeq(), 0xFFFF);
                finReceived = true;
            }
            cap.ack(me, cycle, localSeq(), remoteSeq(), 0xFFFF);
        }
        end.peerClosed();
        close();
    }

    private void close() {
        over = true;
        if (key != null) {
            key.cancel();
        }
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing: nothing left to do with this socket
        }
    }
}
