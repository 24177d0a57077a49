package rnic.sim;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;
import rnic.sim.tcp.TcpEnd;
import rnic.sim.tcp.TcpHost;
import rnic.sim.tcp.TcpNetwork;
import rnic.sim.tcp.TcpRxDriver;
import rnic.sim.tcp.TcpSlots;
import rnic.sim.tcp.TcpTxMonitor;
import rnic.transport.DmaAllocator;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;
import rnic.transport.Transport;

/**
 * The host driver's way into one simulated RnicCore ({@link Transport}): registers through the core's APB3 port
 * ({@link Apb3Master}, stepping the simulation until {@code PREADY}), host memory as a {@link HostMemory} the core
 * reaches through its AXI4 port ({@link Axi4MemorySlave}) with a {@link DmaAllocator} for the driver's rings and
 * buffers, and TCP: this device is a host ({@link TcpHost}) of the simulated {@link TcpNetwork} at
 * {@link #localAddress()} or of real kernel sockets ({@link rnic.sim.tcp.KernelTcp}), so
 * {@link #listen} and {@link #connect} open connections ({@link TcpEnd}s of {@link rnic.sim.tcp.TcpChannel}s), and
 * {@link TcpEnd#handOver(int)} binds one to a connection slot of the core: the {@link TcpRxDriver} on its
 * {@code tcpRx_<slot>} port and the {@link TcpTxMonitor} on its {@code tcpTx_<slot>} port. Built by
 * {@link RnicSystem}.
 *
 * <p><b>Slots</b> ({@link TcpSlots}). A slot takes a connection when it has none or its connection is closed (closed or
 * aborted by this host, or ended by the peer); otherwise the hand-over is refused with an IllegalStateException and
 * nothing changes. An unbound slot is idle: its tcpRx drives nothing and its tcpTx keeps
 * {@code ready} low, so a segment the core sends there waits in the core.
 *
 * <p><b>Channel-level tests.</b> {@link #connection(int)} (not part of the driver's SPI, which has only
 * listen/connect) returns the fixed channel of QP q (a's slot q to b's slot q, created on first use).
 *
 * <p>Everything runs on the simulation thread: a register access or {@link #advance()} steps the clock, and every
 * agent (memory, TCP channels, the other RNIC) runs along. Host-side memory accesses ({@link #write}, {@link #read})
 * are the host CPU's, immediate, and not reported to the memory's access listeners; they must fall inside an allocated
 * region, so a driver bug that scribbles elsewhere fails at once.
 *
 * <p>{@link #awaitInterrupt} steps the clock watching the core's {@code interrupt} output ({@link #withInterrupt}):
 * the wait ends in the cycle the port is seen high, with no register access. Device time is cycles at
 * {@link #clockHz()}.
 */
public final class SimTransport implements Transport {

    private final Tb<?> tb;
    private final String name;
    private final Apb3Master apb;
    private final HostMemory memory;
    private final DmaAllocator allocator;
    private final List<TcpRxDriver> rx;
    private final List<TcpTxMonitor> tx;
    private final TcpHost host;
    private final IntFunction<TcpEnd> fixed;
    private final TcpSlots slots;
    private final String description;
    private final long clockHz;
    private final long startCycle;
    private int advanceCycles;
    private SimSignal interrupt;
    private boolean closed;

    /**
     * @param name          e.g. "a"
     * @param rx            slot s = the agent on {@code tcpRx_<s>}
     * @param tx            slot s = the agent on {@code tcpTx_<s>}
     * @param host          this device in the simulated network or on kernel sockets (its slots are set to this
     *                      transport's)
     * @param fixed         the legacy fixed connection of QP q (created on first use)
     * @param advanceCycles cycles one {@link #advance()} steps
     * @param description   what {@link #describe()} returns
     * @param clockHz       the core's declared clock frequency
     */
    public SimTransport(Tb<?> tb, String name, Apb3Master apb, HostMemory memory, DmaAllocator allocator,
            List<TcpRxDriver> rx, List<TcpTxMonitor> tx, TcpHost host, IntFunction<TcpEnd> fixed,
            int advanceCycles, String description, long clockHz) {
        if (clockHz <= 0) {
            throw new IllegalArgumentException("clock frequency must be positive, got " + clockHz + " Hz");
        }
        if (rx.size() != tx.size()) {
            throw new IllegalArgumentException(rx.size() + " tcpRx agents but " + tx.size() + " tcpTx agents");
        }
        this.clockHz = clockHz;
        this.startCycle = tb.cycle();
        this.tb = tb;
        this.name = name;
        this.apb = apb;
        this.memory = memory;
        this.allocator = allocator;
        this.rx = List.copyOf(rx);
        this.tx = List.copyOf(tx);
        this.host = host;
        this.fixed = fixed;
        this.slots = new TcpSlots(name, rx.size(), (slot, end) -> {
            this.rx.get(slot).bind(end);
            this.tx.get(slot).bind(end);
        });
        host.slots((end, slot) -> {
            open();
            slots.bind(end, slot);
        });
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

    /** Device cycles in {@code d} at this core's {@link #clockHz()}, rounded up. */
    public long cycles(Duration d) {
        return rnic.driver.DeviceClock.cycles(d, clockHz);
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

    /**
     * The fixed channel of QP {@code index} (a's slot q to b's slot q; its {@code handOver()} binds that slot): for
     * channel-level tests of the simulation only; drivers use {@link #listen}/{@link #connect}.
     */
    public TcpEnd connection(int index) {
        open();
        if (index < 0 || index >= rx.size()) {
            throw new IllegalArgumentException(name + ": no connection " + index + "; the core has "
                    + rx.size() + " (one per QP, 0 … " + (rx.size() - 1) + ")");
        }
        return fixed.apply(index);
    }

    /** Connections (= QPs = slots). */
    public int connectionCount() {
        return rx.size();
    }

    /** The end bound to slot {@code slot}, or {@code null}. */
    public TcpEnd slot(int slot) {
        return slots.end(slot);
    }

    @Override
    public long clockHz() {
        return clockHz;
    }

    /** {@inheritDoc} Cycles since this transport was built × 10<sup>9</sup> / {@link #clockHz()}, rounded down. */
    @Override
    public long nanoTime() {
        return rnic.driver.DeviceClock.nanos(tb.cycle() - startCycle, clockHz);
    }

    @Override
    public InetAddress localAddress() {
        return host.address();
    }

    @Override
    public TcpListener listen(InetSocketAddress local) {
        open();
        return host.listen(local);
    }

    @Override
    public TcpConnection connect(InetSocketAddress remote) {
        open();
        return host.connect(remote);
    }

    @Override
    public int connectionSlots() {
        return rx.size();
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
