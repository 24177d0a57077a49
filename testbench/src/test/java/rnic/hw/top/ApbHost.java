package rnic.hw.top;

import java.util.ArrayDeque;
import rnic.sim.Agent;
import rnic.sim.SimSignal;
import rnic.sim.Tb;
import spinal.lib.bus.amba3.apb.Apb3;

/**
 * The host's register bus in the RNIC core's testbenches: drives a design's APB3 slave port (AMBA 3 APB: a setup cycle with {@code PSEL}, then
 * access cycles with {@code PENABLE} until the slave raises {@code PREADY}). One transfer at a time, back to back when
 * queued. {@link #read} and {@link #write} queue a transfer and step the testbench until it has completed, so a test
 * reads like driver code; the other agents keep running meanwhile.
 *
 * <p>Each completed transfer's {@code PSLVERROR} is kept ({@link #lastError()}); a transfer that does not complete
 * within {@value #TIMEOUT} cycles fails the test.
 */
final class ApbHost implements Agent {
    /** Cycles a transfer may wait for PREADY before the test fails. */
    public static final int TIMEOUT = 10_000;

    /** One register transfer; {@code data} is the written value, or the read value once done. */
    public static final class Transfer {
        final boolean write;
        final int address;
        int data;
        boolean error;
        boolean done;
        long cycles;

        Transfer(boolean write, int address, int data) {
            this.write = write;
            this.address = address;
            this.data = data;
        }

        public boolean done() {
            return done;
        }

        public int data() {
            return data;
        }

        public boolean error() {
            return error;
        }

        /** Cycles from the setup phase to the completing access cycle, inclusive (2 with no wait state). */
        public long cycles() {
            return cycles;
        }
    }

    private final Tb<?> tb;
    private final SimSignal paddr;
    private final SimSignal psel;
    private final SimSignal penable;
    private final SimSignal pwrite;
    private final SimSignal pwdata;
    private final SimSignal pready;
    private final SimSignal prdata;
    private final SimSignal pslverror;
    private final ArrayDeque<Transfer> queue = new ArrayDeque<>();
    private Transfer current;
    private boolean access;
    private boolean last;
    private long started;

    private ApbHost(Tb<?> tb, Apb3 port) {
        this.tb = tb;
        paddr = tb.signal(port.PADDR());
        psel = tb.signal(port.PSEL());
        penable = tb.signal(port.PENABLE());
        pwrite = tb.signal(port.PWRITE());
        pwdata = tb.signal(port.PWDATA());
        pready = tb.signal(port.PREADY());
        prdata = tb.signal(port.PRDATA());
        pslverror = port.PSLVERROR() == null ? null : tb.signal(port.PSLVERROR());
        psel.set(0);
        penable.set(false);
        pwrite.set(false);
    }

    /** A master on {@code port}, added to {@code tb}. */
    static ApbHost on(Tb<?> tb, Apb3 port) {
        return tb.add(new ApbHost(tb, port));
    }

    /** Queues a read; it completes while the testbench steps. */
    public Transfer submitRead(int address) {
        Transfer t = new Transfer(false, address, 0);
        queue.add(t);
        return t;
    }

    /** Queues a write; it completes while the testbench steps. */
    public Transfer submitWrite(int address, int value) {
        Transfer t = new Transfer(true, address, value);
        queue.add(t);
        return t;
    }

    /** Reads a register: steps the testbench until the read has completed. */
    public int read(int address) {
        return await(submitRead(address)).data;
    }

    /** Writes a register: steps the testbench until the write has completed. */
    public void write(int address, int value) {
        await(submitWrite(address, value));
    }

    /** Steps the testbench until {@code t} has completed. */
    public Transfer await(Transfer t) {
        tb.runUntil(t::done, TIMEOUT, "APB " + (t.write ? "write" : "read") + " at 0x"
                + Integer.toHexString(t.address));
        last = t.error;
        return t;
    }

    /** PSLVERROR of the transfer {@link #await} completed last. */
    public boolean lastError() {
        return last;
    }

    @Override
    public void sample() {
        if (current != null && access && pready.getBool()) {
            if (!current.write) {
                current.data = (int) prdata.get();
            }
            current.error = pslverror != null && pslverror.getBool();
            current.cycles = tb.cycle() - started + 1;
            current.done = true;
            current = null;
        }
    }

    @Override
    public void drive() {
        if (current != null) {
            access = true; // setup phase done: access phase until PREADY
            penable.set(true);
            return;
        }
        current = queue.poll();
        access = false;
        if (current == null) {
            psel.set(0);
            penable.set(false);
            return;
        }
        started = tb.cycle();
        psel.set(1);
        penable.set(false);
        pwrite.set(current.write);
        paddr.set(current.address & (paddr.width() >= 64 ? -1L : (1L << paddr.width()) - 1));
        pwdata.set(current.write ? current.data & 0xFFFF_FFFFL : 0);
    }

    @Override
    public boolean busy() {
        return current != null || !queue.isEmpty();
    }
}
