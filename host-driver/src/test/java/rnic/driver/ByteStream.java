package rnic.driver;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.Arrays;
import rnic.transport.TcpConnection;

/**
 * A TCP byte stream for tests of the startup exchange alone: the octets "from the peer" are given in advance (or
 * dripped in a few per {@link #tick()}), what the host sends is recorded, sequence numbers count both directions.
 * It stands for the network, not for the core: nothing here parses MPA or reacts to what the host sends.
 */
final class ByteStream implements TcpConnection {
    private final byte[] inbound;
    private final long rxIsn;
    private final long txIsn;
    private int available;
    private int read;
    private final int drip;
    private final ByteArrayOutputStream sent = new ByteArrayOutputStream();
    private boolean peerClosed;
    private boolean closed;
    private boolean handedOver;
    private final boolean closeAtEnd;

    /**
     * @param inbound    every octet the peer sends
     * @param drip       octets that become readable per {@link #tick()} (0: all at once)
     * @param closeAtEnd the peer closes once everything arrived
     */
    ByteStream(byte[] inbound, int drip, boolean closeAtEnd, long rxIsn, long txIsn) {
        this.inbound = inbound.clone();
        this.drip = drip;
        this.closeAtEnd = closeAtEnd;
        this.rxIsn = rxIsn;
        this.txIsn = txIsn;
        this.available = drip == 0 ? inbound.length : 0;
        peerClosed = closeAtEnd && available == inbound.length;
    }

    ByteStream(byte[] inbound) {
        this(inbound, 0, false, 1000, 5000);
    }

    /** Lets {@code drip} more octets arrive. */
    void tick() {
        available = Math.min(inbound.length, available + drip);
        if (closeAtEnd && available == inbound.length) {
            peerClosed = true;
        }
    }

    @Override
    public void send(byte[] data) {
        if (closed || handedOver) {
            throw new IllegalStateException("send after close or hand-over");
        }
        sent.writeBytes(data);
    }

    @Override
    public int receive(byte[] dst, int offset, int length) {
        if (closed || handedOver) {
            throw new IllegalStateException("receive after close or hand-over");
        }
        int n = Math.min(length, available - read);
        System.arraycopy(inbound, read, dst, offset, n);
        read += n;
        return n;
    }

    @Override
    public long sendSequence() {
        return txIsn + sent.size();
    }

    @Override
    public long receiveSequence() {
        return rxIsn + read;
    }

    @Override
    public void handOver(int slot) {
        handedOver = true;
    }

    @Override
    public boolean closed() {
        return peerClosed;
    }

    @Override
    public boolean peerFinished() {
        return peerClosed;
    }

    @Override
    public InetSocketAddress localAddress() {
        return new InetSocketAddress("10.0.0.1", 49152);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return new InetSocketAddress("10.0.0.2", 20049);
    }

    @Override
    public boolean established() {
        return true;
    }

    @Override
    public boolean refused() {
        return false;
    }

    @Override
    public void abort() {
        closed = true;
    }

    @Override
    public void close() {
        closed = true;
    }

    boolean hostClosed() {
        return closed;
    }

    byte[] sent() {
        return sent.toByteArray();
    }

    /** The inbound octets the host has not read. */
    byte[] unread() {
        return Arrays.copyOfRange(inbound, read, inbound.length);
    }
}
