package rnic.transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * How the driver reaches one RNIC: its register window, the host memory the core reads and writes (rings, buffers),
 * the TCP byte streams of its connections, and a way to let the device make progress. Implementations: the simulated
 * core ({@code rnic.sim.SimTransport}, module rnic-sim) and, later, a board over a serial link.
 *
 * <p>Not thread-safe: one driver thread uses a transport. Register offsets are those of the generated
 * {@code rnic.driver.RnicRegs}.
 */
public interface Transport extends AutoCloseable {
    /** Reads the 32-bit register at byte offset {@code offset}. */
    int read32(int offset);

    /** Writes the 32-bit register at byte offset {@code offset}. */
    void write32(int offset, int value);

    /**
     * Reserves {@code size} octets of device-visible host memory aligned to {@code alignment} (a power of two) and
     * returns its address; the memory reads as zero.
     *
     * @throws IllegalStateException when the window is exhausted
     */
    long allocate(long size, int alignment);

    /** Returns memory from {@link #allocate}; unknown addresses are refused with IllegalArgumentException. */
    void free(long address);

    /** Copies {@code length} octets of {@code data} from {@code offset} to host memory at {@code address}. */
    void write(long address, byte[] data, int offset, int length);

    /** Copies {@code length} octets of host memory at {@code address} into {@code dst} from {@code offset}. */
    void read(long address, byte[] dst, int offset, int length);

    /**
     * Lets the device run a little: a simulation advances its clock by a few cycles, a board transport yields. Called by
     * the driver whenever it waits (polling a completion queue, waiting for a register to change).
     */
    void advance();

    /**
     * {@link #advance()} until {@code done} holds: at least once, and {@code done} is checked after each advance, as
     * the loop {@code do advance(); while (!done)} would. {@code done} looks only at host memory and the caller's own
     * state — never at the device (no register access, no other transport call), so a simulation may check it
     * between its steps without waking the caller: a driver that polls a ring in host memory waits this way at no
     * cost per poll.
     */
    default void advanceUntil(java.util.function.BooleanSupplier done) {
        do {
            advance();
        } while (!done.getAsBoolean());
    }

    /** The device's cycle counter as the transport sees it (simulation time; a board reads CORE_CYCLE). */
    long cycles();

    /**
     * Lets the device run until its interrupt output is high or {@code timeout} of device time has passed; returns
     * whether it is high. Simulation: steps the clock, watching the core's {@code interrupt} port — no register
     * polling. A board transport waits for the firmware's event message.
     */
    boolean awaitInterrupt(java.time.Duration timeout);

    /** The core's clock frequency in Hz (simulation: the declared frequency, default 250 MHz). */
    long clockHz();

    /** Device time in nanoseconds since the transport was opened (simulation: cycles() * 1e9 / clockHz()). */
    long nanoTime();

    /** The address this device's TCP endpoints use (simulation: RNIC a 10.0.0.1, b 10.0.0.2). */
    InetAddress localAddress();

    /**
     * A passive TCP endpoint on {@code local} (its address must be {@link #localAddress()} or the any-address; port 0
     * picks a free port).
     *
     * @throws IllegalArgumentException for a foreign address
     * @throws IllegalStateException    when something already listens on that port
     */
    TcpListener listen(InetSocketAddress local);

    /**
     * Starts an active open to {@code remote} from an ephemeral local port; the connection becomes
     * {@link TcpConnection#established()} or {@link TcpConnection#refused()} as the device runs (nothing listening
     * there: refused).
     */
    TcpConnection connect(InetSocketAddress remote);

    /** How many connection slots the core has (== QP count); a slot is an internal detail of the driver. */
    int connectionSlots();

    /** A one-line description for messages, e.g. "simulated RnicCore a (W=64, 4 QPs)". */
    String describe();

    @Override
    void close();
}
