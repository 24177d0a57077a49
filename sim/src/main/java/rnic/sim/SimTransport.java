package rnic.sim;

import java.time.Duration;
import java.util.List;
import rnic.sim.tcp.TcpEnd;
import rnic.transport.TcpConnection;
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
 *
 * <p>{@link #awaitInterrupt} steps the clock watching the core's {@code interrupt} output ({@link #withInterrupt}):
 * the wait ends in the cycle the port is seen high, with no register access. Device time is cycles at
 * {@link #CLOCK_HZ}.
 */
public final class SimTransport implements Transport {
    /** The simulated core's clock: 250 MHz, 4 ns per cycle (device time of {@link #awaitInterrupt}). */
    public static final long CLOCK_HZ = 250_000_000L;

    private final Tb<?> tb;
    private final String name;
    private final Apb3Master apb;
    private final HostMemory memory;
    private final DmaAllocator allocator;
    private final List<TcpEnd> connections;
    private final String description;
    private int advanceCycles;
    private SimSignal interrupt;
    private boolean closed;

    /**
     * @param name          e.g. "a"
     * @param connections   connection q = the TCP end of QP q
     * @param advanceCycles cycles one {@link #advance()} steps
     * @param description   what {@link #describe()} returns
     */
    public SimTransport(Tb<?> tb, String name, Apb3Master apb, HostMemory memory, DmaAllocator allocator,
            List<TcpEnd> connections, int advanceCycles, String description) {
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

    /** The core's level {@code interrupt} output, which {@link #awaitInterrupt} watches. */
    public SimTransport withInterrupt(SimSignal port) {
        this.interrupt = port;
        return this;
    }

    /** Device cycles in {@code d} at {@link #CLOCK_HZ}, rounded up. */
    public static long cycles(Duration d) {
        if (d.isNegative() || d.isZero()) {
            return 0;
        }
        long ns = d.toNanos();
        return ns > Long.MAX_VALUE / CLOCK_HZ ? ns / 1_000_000_000L * CLOCK_HZ
                : (ns * CLOCK_HZ + 999_999_999L) / 1_000_000_000L;
    }

    @Override
    public boolean awaitInterrupt(Duration timeout) {
        open();
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException(name + ": awaitInterrupt needs a timeout of zero or more, got "
                    + timeout);
        }
        if (interrupt == null) {
            throw new IllegalStateException(description + " has no interrupt port attached (withInterrupt)");
        }
        long end = tb.cycle() + cycles(timeout);
        while (!interrupt.getBool()) {
            if (tb.cycle() >= end) {
                return false;
            }
            tb.step();
        }
        return true;
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
