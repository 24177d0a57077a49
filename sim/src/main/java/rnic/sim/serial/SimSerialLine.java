package rnic.sim.serial;

import java.time.Duration;
import rnic.sim.Tb;
import rnic.transport.serial.SerialLine;

/**
 * A {@link SerialLine} to a simulated board's UART through a {@link UartAgent}: writing queues octets the agent
 * shifts out bit by bit; reading runs the simulation until octets arrive or the timeout has passed in simulated time,
 * which is also the line's clock ({@link #nanoTime}), so the host link's timers count simulated time. Used from the
 * thread that runs the simulation.
 */
public final class SimSerialLine implements SerialLine {
    private final Tb<?> tb;
    private final UartAgent uart;
    private final long clockHz;
    private final int pollCycles;

    /** A line on {@code uart} of {@code tb}, whose clock runs at {@code clockHz}. */
    public SimSerialLine(Tb<?> tb, UartAgent uart, long clockHz, int pollCycles) {
        this.tb = tb;
        this.uart = uart;
        this.clockHz = clockHz;
        this.pollCycles = pollCycles;
    }

    @Override
    public void write(byte[] data, int offset, int length) {
        uart.send(data, offset, length);
    }

    @Override
    public int read(byte[] dst, int offset, int length, Duration timeout) {
        long end = nanoTime() + timeout.toNanos();
        while (uart.available() == 0 && nanoTime() - end < 0) {
            tb.step(pollCycles);
        }
        return uart.take(dst, offset, length);
    }

    @Override
    public long nanoTime() {
        return tb.cycle() / clockHz * 1_000_000_000L + tb.cycle() % clockHz * 1_000_000_000L / clockHz;
    }

    @Override
    public void close() {
    }
}
