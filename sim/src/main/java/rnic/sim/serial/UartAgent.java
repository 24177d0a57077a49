package rnic.sim.serial;

import java.util.ArrayDeque;
import rnic.sim.Agent;
import rnic.sim.SimSignal;

/**
 * The far end of a simulated board's UART, bit by bit, 8N1: drives the board's {@code rxd} from a queue of octets and
 * samples its {@code txd} into another, at {@code cyclesPerBit} clocks per bit. A received octet whose stop bit is
 * not high is counted as a framing error and dropped (as a real UART would deliver garbage, the link above must cope).
 */
public final class UartAgent implements Agent {
    private final SimSignal rxd;
    private final SimSignal txd;
    private final int bit;

    private final ArrayDeque<Integer> toBoard = new ArrayDeque<>();
    private int txShift = -1; // 10 bits: start, 8 data, stop; -1 when idle
    private int txBit;
    private int txCount;

    private final ArrayDeque<Integer> fromBoard = new ArrayDeque<>();
    private int rxState = -1; // -1 idle, 0 start bit, 1..8 data bits, 9 stop bit
    private int rxCount;
    private int rxValue;
    private long framingErrors;

    /** Drives {@code rxd} (the board's input) and samples {@code txd} (its output). */
    public UartAgent(SimSignal rxd, SimSignal txd, int cyclesPerBit) {
        if (cyclesPerBit < 4) {
            throw new IllegalArgumentException("at least 4 cycles per bit, got " + cyclesPerBit);
        }
        this.rxd = rxd;
        this.txd = txd;
        this.bit = cyclesPerBit;
        rxd.set(1);
    }

    /** Queues octets for the board. */
    public void send(byte[] data, int offset, int length) {
        for (int i = 0; i < length; i++) {
            toBoard.add(data[offset + i] & 0xFF);
        }
    }

    /** Octets received from the board and not yet taken. */
    public int available() {
        return fromBoard.size();
    }

    /** Takes up to {@code length} received octets into {@code dst}; returns how many. */
    public int take(byte[] dst, int offset, int length) {
        int n = 0;
        while (n < length && !fromBoard.isEmpty()) {
            dst[offset + n++] = (byte) (int) fromBoard.poll();
        }
        return n;
    }

    /** Received octets dropped for a low stop bit. */
    public long framingErrors() {
        return framingErrors;
    }

    @Override
    public void sample() {
        int level = (int) txd.get();
        if (rxState < 0) {
            if (level == 0) {
                rxState = 0;
                rxCount = bit / 2; // to the middle of the start bit
            }
            return;
        }
        if (--rxCount > 0) {
            return;
        }
        if (rxState == 0) {
            if (level != 0) {
                rxState = -1; // a glitch, not a start bit
                return;
            }
            rxValue = 0;
        } else if (rxState <= 8) {
            rxValue |= level << (rxState - 1);
        } else {
            if (level == 1) {
                fromBoard.add(rxValue);
            } else {
                framingErrors++;
            }
            rxState = -1;
            return;
        }
        rxState++;
        rxCount = bit;
    }

    @Override
    public void drive() {
        if (txShift < 0) {
            if (toBoard.isEmpty()) {
                return;
            }
            txShift = (toBoard.poll() << 1) | (1 << 9); // start bit 0, data LSB first, stop bit 1
            txBit = 0;
            txCount = 0;
        }
        if (txCount == 0) {
            if (txBit == 10) {
                txShift = -1;
                drive();
                return;
            }
            rxd.set((txShift >> txBit) & 1);
            txBit++;
            txCount = bit;
        }
        txCount--;
    }

    @Override
    public boolean busy() {
        return txShift >= 0 || !toBoard.isEmpty() || rxState >= 0;
    }
}
