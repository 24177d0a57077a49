package rnic.sim;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import rnic.sim.tcp.TcpEnd;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;
import rnic.transport.Transport;

/**
 * The host driver's way into one simulated RnicCore ({@link Transport}): registers through the core's APB3 port
 * ({@link Apb3Master}, stepping the simulation until {@code PREADY}), host memory as a {@link HostMemory} the core
 * reaches through its AXI4 port ({@link Axi4MemorySlave}) with a {@link DmaAllocator} for the driver's rings and
 * buffers, and the TCP connections of the core's QPs ({@link TcpEnd}s of {@link rnic.sim.tcp.TcpChannel}s). Built by
 * {@link RnicSystem}.
 *
 * <p>Everything runs on the simulation thread: a register access or {@link #advance()} steps the clock, and every
 * agent (memory, TCP channels, the other RNIC) runs along. Host-side memory accesses ({@link #write}, {@link #read})
 * are the host CPU's, immediate, and not reported to the memory's access listeners; they must fall inside an allocated
 * region, so a driver bug that scribbles elsewhere fails at once.
 */
public final class SimTransport implements Transport {
    private final Tb<?> tb;
    private final String name;
    private final Apb3Master apb;
    private final HostMemory memory;
    private final DmaAllocator allocator;
    private final List<TcpEnd> connections;
    private final String description;
    private final long clockHz;
    private final long startCycle;
    private InetAddress address;
    private int advanceCycles;
    private boolean closed;

    /**
     * @param name          e.g. "a"
     * @param connections   connection q = the TCP end of QP q
     * @param advanceCycles cycles one {@link #advance()} steps
     * @param description   what {@link #describe()} returns
     * @param clockHz       the core's declared clock frequency
     * @param address       this device's IPv4 address
     */
    public SimTransport(Tb<?> tb, String name, Apb3Master apb, HostMemory memory, DmaAllocator allocator,
            List<TcpEnd> connections, int advanceCycles, String description, long clockHz, InetAddress address) {
        if (clockHz <= 0) {
            throw new IllegalArgumentException("clock frequency must be positive, got " + clockHz + " Hz");
        }
        this.clockHz = clockHz;
        this.address = address;
        this.startCycle = tb.cycle();
        this.tb = tb;
        this.name = name;
        this.apb = apb;
        this.memory = memory;
        this.allocator = allocator;
        this.connections = List.copyOf(connections);
        this.description = description;
        withAdvanceCycles(advanceCycles);
    }

    /** Cycles one {@link #advance()} steps (at least 1). */
    public SimTransport withAdvanceCycles(int cycles) {
        if (cycles < 1) {
            throw new IllegalArgumentException("advance() must step at least one cycle, got " + cycles);
        }
        this.advanceCycles = cycles;
        return this;
    }

    public int advanceCycles() {
        return advanceCycles;
    }

    @Override
    public int read32(int offset) {
        open();
        return apb.read(offset);
    }

    @Override
    public void write32(int offset, int value) {
        open();
        apb.write(offset, value);
    }

    @Override
    public long allocate(long size, int alignment) {
        open();
        long at = allocator.allocate(size, alignment);
        long len = allocator.sizeOf(at);
        byte[] zero = new byte[(int) Math.min(len, 1 << 20)];
        for (long done = 0; done < len; done += zero.length) {
            memory.write(at + done, zero, 0, (int) Math.min(zero.length, len - done));
        }
        return at;
    }

    @Override
    public void free(long address) {
        open();
        allocator.free(address);
    }

    @Override
    public void write(long address, byte[] data, int offset, int length) {
        open();
        checkRange(address, length, "write");
        memory.write(address, data, offset, length);
    }

    @Override
    public void read(long address, byte[] dst, int offset, int length) {
        open();
        checkRange(address, length, "read");
        System.arraycopy(memory.read(address, length), 0, dst, offset, length);
    }

    private void checkRange(long address, int length, String what) {
        if (length > 0 && !allocator.contains(address, length)) {
            throw new IllegalArgumentException(String.format("%s: host %s of %d octets at 0x%x is outside every "
                    + "allocated region", name, what, length, address));
        }
    }

    @Override
    public void advance() {
        open();
        tb.step(advanceCycles);
    }

    @Override
    public long cycles() {
        return tb.cycle();
    }

    @Override
    public TcpConnection connection(int index) {
        open();
        if (index < 0 || index >= connections.size()) {
            throw new IllegalArgumentException(name + ": no connection " + index + "; the core has "
                    + connections.size() + " (one per QP, 0 … " + (connections.size() - 1) + ")");
        }
        return connections.get(index);
    }

    /** Connections (= QPs). */
    public int connectionCount() {
        return connections.size();
    }

    @Override
    public long clockHz() {
        return clockHz;
    }

    /** {@inheritDoc} Cycles since this transport was built × 10<sup>9</sup> / {@link #clockHz()}, rounded down. */
    @Override
    public long nanoTime() {
        return nanos(tb.cycle() - startCycle, clockHz);
    }

    /** {@code cycles} × 10<sup>9</sup> / {@code hz} without overflow (exact for {@code hz} below 9.2 GHz). */
    static long nanos(long cycles, long hz) {
        return cycles / hz * 1_000_000_000L + cycles % hz * 1_000_000_000L / hz;
    }

    @Override
    public InetAddress localAddress() {
        return address;
    }

    @Override
    public TcpListener listen(InetSocketAddress local) {
        open();
        throw new UnsupportedOperationException(name + ": listen() arrives with the simulated network");
    }

    @Override
    public TcpConnection connect(InetSocketAddress remote) {
        open();
        throw new UnsupportedOperationException(name + ": connect() arrives with the simulated network");
    }

    @Override
    public int connectionSlots() {
        return connections.size();
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        closed = true;
    }

    private void open() {
        if (closed) {
            throw new IllegalStateException(description + ": the transport is closed");
        }
    }

    /** The testbench (to step it, to add agents). */
    public Tb<?> tb() {
        return tb;
    }

    /** The host memory the core's AXI port reaches. */
    public HostMemory memory() {
        return memory;
    }

    public DmaAllocator allocator() {
        return allocator;
    }

    public Apb3Master apb() {
        return apb;
    }

    @Override
    public String toString() {
        return description;
    }
}
