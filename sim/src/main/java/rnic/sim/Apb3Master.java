package rnic.sim;

/**
 * Drives a design's APB3 slave port (AMBA 3 APB: {@code PADDR}, {@code PSEL}, {@code PENABLE}, {@code PWRITE},
 * {@code PWDATA} in; {@code PRDATA}, {@code PREADY}, {@code PSLVERROR} out) as the host's register bus: one transfer
 * at a time, a setup cycle then access cycles until {@code PREADY}, and the bus idle in between.
 *
 * <p>{@link #read} and {@link #write} are called from the testbench body and step the {@link Tb} until the transfer
 * completes (other agents keep running), failing with a clear message after {@link #timeout} cycles without
 * {@code PREADY} or on {@code PSLVERROR}. Signals are found by name ({@code <prefix>PADDR} …), so the harness does not
 * need the design's class.
 */
public final class Apb3Master implements Agent {
    /** An APB transfer answered with PSLVERROR. */
    public static final class SlaveError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int address;
        private final boolean write;

        SlaveError(String message, int address, boolean write) {
            super(message);
            this.address = address;
            this.write = write;
        }

        public int address() {
            return address;
        }

        public boolean write() {
            return write;
        }
    }

    /** REQUESTED: to be driven; SETUP: the setup edge comes next; ACCESS: PENABLE high, waiting for PREADY. */
    private enum Phase { IDLE, REQUESTED, SETUP, ACCESS, DONE }

    private final Tb<?> tb;
    private final String name;
    private final SimSignal paddr;
    private final SimSignal psel;
    private final SimSignal penable;
    private final SimSignal pwrite;
    private final SimSignal pwdata;
    private final SimSignal prdata;
    private final SimSignal pready;
    private final SimSignal pslverror;
    private final long addressLimit;
    private long timeout = 10_000;
    private Phase phase = Phase.IDLE;
    private int address;
    private boolean isWrite;
    private int wdata;
    private int rdata;
    private boolean error;
    private long transfers;
    private long waitCycles;

    /**
     * A master on the ports {@code <prefix>PADDR} … of {@code tb}'s design, added to {@code tb}.
     *
     * @param prefix e.g. {@code "apb_"} or {@code "a_apb_"}
     */
    public static Apb3Master on(Tb<?> tb, Ports ports, String prefix) {
        return tb.add(new Apb3Master(tb, ports, prefix));
    }

    private Apb3Master(Tb<?> tb, Ports ports, String prefix) {
        this.tb = tb;
        this.name = prefix.endsWith("_") ? prefix.substring(0, prefix.length() - 1) : prefix;
        paddr = ports.signal(prefix + "PADDR");
        psel = ports.signal(prefix + "PSEL");
        penable = ports.signal(prefix + "PENABLE");
        pwrite = ports.signal(prefix + "PWRITE");
        pwdata = ports.signal(prefix + "PWDATA");
        prdata = ports.signal(prefix + "PRDATA");
        pready = ports.signal(prefix + "PREADY");
        pslverror = ports.has(prefix + "PSLVERROR") ? ports.signal(prefix + "PSLVERROR") : null;
        addressLimit = 1L << paddr.width();
        psel.set(0);
        penable.set(false);
        pwrite.set(false);
    }

    /** Cycles a transfer may wait for PREADY before it fails (default 10 000). */
    public Apb3Master withTimeout(long cycles) {
        if (cycles < 2) {
            throw new IllegalArgumentException("an APB transfer takes at least 2 cycles");
        }
        this.timeout = cycles;
        return this;
    }

    /** Reads the 32-bit register at byte address {@code address}. */
    public int read(int address) {
        transfer(address, false, 0);
        return rdata;
    }

    /** Writes the 32-bit register at byte address {@code address}. */
    public void write(int address, int value) {
        transfer(address, true, value);
    }

    /** Transfers completed. */
    public long transfers() {
        return transfers;
    }

    /** Access cycles spent waiting for PREADY, over all transfers. */
    public long waitCycles() {
        return waitCycles;
    }

    private void transfer(int address, boolean write, int value) {
        if (phase != Phase.IDLE) {
            throw new IllegalStateException(name + ": a transfer is already in progress");
        }
        if ((address & 3) != 0 || Integer.toUnsignedLong(address) >= addressLimit) {
            throw new IllegalArgumentException(String.format("%s: register address 0x%x is not a 32-bit aligned "
                    + "address of the %d-bit PADDR", name, address, paddr.width()));
        }
        this.address = address;
        this.isWrite = write;
        this.wdata = value;
        this.phase = Phase.REQUESTED;
        long start = tb.cycle();
        while (phase != Phase.DONE) {
            if (tb.cycle() - start > timeout) {
                phase = Phase.IDLE;
                throw new IllegalStateException(String.format("%s: no PREADY %d cycles after %s 0x%04x: is the "
                        + "core out of reset, clocked, and does it decode this address? (seed %d)", name, timeout,
                        write ? "a write to" : "a read of", address, tb.seed()));
            }
            tb.step();
        }
        phase = Phase.IDLE;
        transfers++;
        if (error) {
            throw new SlaveError(String.format("%s: PSLVERROR on %s 0x%04x%s", name, write ? "write to" : "read of",
                    address, write ? String.format(" (data 0x%08x)", value) : ""), address, write);
        }
    }

    @Override
    public void sample() {
        if (phase == Phase.ACCESS) {
            if (pready.getBool()) {
                rdata = (int) prdata.get();
                error = pslverror != null && pslverror.getBool();
                phase = Phase.DONE;
            } else {
                waitCycles++;
            }
        }
    }

    @Override
    public void drive() {
        switch (phase) {
            case REQUESTED -> {
                paddr.set(Integer.toUnsignedLong(address));
                pwrite.set(isWrite);
                pwdata.set(Integer.toUnsignedLong(wdata));
                psel.set(1);
                penable.set(false);
                phase = Phase.SETUP;
            }
            case SETUP -> {
                penable.set(true);
                phase = Phase.ACCESS;
            }
            case ACCESS -> {
            }
            default -> {
                psel.set(0);
                penable.set(false);
            }
        }
    }

    @Override
    public boolean busy() {
        return phase == Phase.REQUESTED || phase == Phase.SETUP || phase == Phase.ACCESS;
    }
}
