package rnic.transport.serial;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import rnic.driver.RnicRegs;
import rnic.transport.DmaAllocator;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;
import rnic.transport.Transport;

/**
 * The driver's {@link Transport} to a board over its serial line: the RNIC core's registers, the board memory that is
 * its host memory, and its TCP connections — carried by this host's kernel — all through the board firmware's
 * services ({@link BoardLink} on a {@link HostLink}). The verbs API and the connection manager run on it unchanged.
 *
 * <p>Time is the line's clock ({@link SerialLine#nanoTime}): the wall clock for a real port, simulated time for a
 * simulated board. {@link #advance()} moves TCP octets both ways and takes the board's events; it waits a little for
 * the board when nothing moved, so a polling driver does not spin the line.
 */
public final class SerialTransport implements Transport {
    /** Board memory is handed out in 256-octet granules: a board has little of it. */
    public static final int GRANULE = 256;

    private final BoardLink board;
    private final HostLink link;
    private final SerialLine line;
    private final BoardLink.Info info;
    private final BoardSelfTest selfTest;
    private final InetAddress localAddress;
    private final DmaAllocator memory;
    private final SocketTcp tcp;
    private final int slots;
    private final long start;
    private boolean interrupt;
    private boolean closed;

    /**
     * Opens the transport: connects the host link on {@code line}, reads the board's info and the core's QP count.
     *
     * @param localAddress the host address the board's connections use (listen and connect from it)
     * @param timeout      how long the board may take to answer one message
     */
    public SerialTransport(SerialLine line, InetAddress localAddress, Duration rto, Duration timeout)
            throws IOException {
        this.line = line;
        this.link = new HostLink(line, rto);
        link.connect(timeout);
        this.board = new BoardLink(link, timeout);
        this.info = board.info();
        this.selfTest = board.selfTest();
        if (!selfTest.ok()) {
            System.getLogger(SerialTransport.class.getName()).log(System.Logger.Level.WARNING, selfTest.report());
        }
        this.localAddress = localAddress;
        this.memory = new DmaAllocator(info.memoryBase(), info.memoryBytes(), GRANULE);
        int qps = board.read32(info.rnicBase() + RnicRegs.CORE_CONFIG) & 0xFF;
        this.slots = qps;
        this.tcp = new SocketTcp(board, qps);
        this.start = line.nanoTime();
    }

    /**
     * The board's power-on self-test of its offload pipeline, read when the transport opened (a failure is also
     * logged as a warning: the board's RNIC may compute wrong results).
     */
    public BoardSelfTest selfTest() {
        return selfTest;
    }

    /** What the board said about itself when the transport opened. */
    public BoardLink.Info info() {
        return info;
    }

    /** The host link's counters: frames, retransmissions, drops, octets on the line both ways. */
    public HostLink.Stats linkStats() {
        return link.stats();
    }

    @Override
    public int read32(int offset) {
        try {
            return board.read32(info.rnicBase() + offset);
        } catch (IOException e) {
            throw failed("reading register 0x" + Integer.toHexString(offset), e);
        }
    }

    @Override
    public void write32(int offset, int value) {
        try {
            board.write32(info.rnicBase() + offset, value);
        } catch (IOException e) {
            throw failed("writing register 0x" + Integer.toHexString(offset), e);
        }
    }

    @Override
    public long allocate(long size, int alignment) {
        long at = memory.allocate(size, alignment);
        write(at, new byte[(int) memory.sizeOf(at)], 0, (int) memory.sizeOf(at));
        return at;
    }

    @Override
    public void free(long address) {
        memory.free(address);
    }

    @Override
    public void write(long address, byte[] data, int offset, int length) {
        checkRange(address, length);
        try {
            board.writeMemory(address, data, offset, length);
        } catch (IOException e) {
            throw failed("writing board memory at 0x" + Long.toHexString(address), e);
        }
    }

    @Override
    public void read(long address, byte[] dst, int offset, int length) {
        checkRange(address, length);
        try {
            board.readMemory(address, dst, offset, length);
        } catch (IOException e) {
            throw failed("reading board memory at 0x" + Long.toHexString(address), e);
        }
    }

    @Override
    public void advance() {
        try {
            boolean moved = tcp.pump();
            // Take the board's events; wait a little only when nothing else moved.
            Duration wait = moved ? Duration.ZERO : Duration.ofNanos(20_000_000_000L / info.baud());
            for (BoardLink.Event e; (e = board.nextEvent(wait)) != null; wait = Duration.ZERO) {
                take(e);
            }
        } catch (IOException e) {
            throw failed("moving TCP octets and events", e);
        }
    }

    private void take(BoardLink.Event e) {
        if (e instanceof BoardLink.TcpOutput out) {
            tcp.fromCore(out.connection(), out.octets());
        } else if (e instanceof BoardLink.Interrupt) {
            interrupt = true;
        }
    }

    @Override
    public long cycles() {
        int lo = read32(RnicRegs.CORE_CYCLE_LO);
        int hi = read32(RnicRegs.CORE_CYCLE_HI);
        return ((long) hi << 32) | (lo & 0xFFFF_FFFFL);
    }

    @Override
    public boolean awaitInterrupt(Duration timeout) {
        long end = nanoTime() + timeout.toNanos();
        // The firmware reports the line's rising edges; the level is the IRQ block's business (the driver reads it).
        while (!interrupt && nanoTime() - end < 0) {
            advance();
        }
        boolean seen = interrupt;
        interrupt = false;
        return seen || (read32(RnicRegs.IRQ_STATUS) & read32(RnicRegs.IRQ_ENABLE)) != 0;
    }

    @Override
    public long clockHz() {
        return info.clockHz();
    }

    @Override
    public long nanoTime() {
        return line.nanoTime() - start;
    }

    @Override
    public InetAddress localAddress() {
        return localAddress;
    }

    @Override
    public TcpListener listen(InetSocketAddress local) {
        if (!local.getAddress().isAnyLocalAddress() && !local.getAddress().equals(localAddress)) {
            throw new IllegalArgumentException(local.getAddress() + " is not this board's address " + localAddress);
        }
        return tcp.listen(new InetSocketAddress(localAddress, local.getPort()));
    }

    @Override
    public TcpConnection connect(InetSocketAddress remote) {
        return tcp.connect(remote);
    }

    @Override
    public int connectionSlots() {
        return slots;
    }

    @Override
    public String describe() {
        return String.format("board %s build %08x (%d QPs, %d KiB board memory, %d baud)", id(info.id()),
                info.buildId(), slots, info.memoryBytes() / 1024, info.baud());
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            tcp.close();
            try {
                board.close();
            } catch (IOException e) {
                // the line is going away either way
            }
        }
    }

    private void checkRange(long address, long length) {
        if (!memory.contains(address, length)) {
            throw new IllegalArgumentException(String.format("0x%x + %d is not inside an allocated board-memory "
                    + "region", address, length));
        }
    }

    private static String id(int v) {
        return new String(new byte[] {(byte) (v >> 24), (byte) (v >> 16), (byte) (v >> 8), (byte) v},
                java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static UncheckedIOException failed(String what, IOException e) {
        return new UncheckedIOException("board link failed " + what + ": " + e.getMessage(), e);
    }
}
