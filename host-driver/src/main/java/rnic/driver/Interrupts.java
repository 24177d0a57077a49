package rnic.driver;

import static rnic.driver.RnicRegs.*;

/**
 * The IRQ block and the CQs' notify requests (CQ_NOTIFY): the driver's side of the core's completion and asynchronous
 * events. Like an interrupt handler, {@link #take()} reads IRQ_STATUS and clears every bit it saw (write 1 to clear),
 * so the level {@code interrupt} output falls and the next wait blocks until something new happens; the caller keeps
 * what was seen.
 */
public final class Interrupts {
    private final Registers regs;
    private int enabled;

    /** Takes over the IRQ block: nothing enabled, nothing pending (a previous driver's events are gone). */
    public Interrupts(Registers regs) {
        this.regs = regs;
        this.enabled = 0;
        regs.write(IRQ_ENABLE, 0);
        regs.write(IRQ_STATUS, IRQ_STATUS_CQ_MASK | IRQ_STATUS_ASYNC_MASK);
    }

    /** Arms CQ {@code cq}'s notify request: its next completion (solicited or failed only, if asked) raises an event. */
    public void requestNotify(int cq, boolean solicitedOnly) {
        regs.write(Registers.cq(cq, CQ_NOTIFY), CQ_NOTIFY_ARMED_MASK | (solicitedOnly ? CQ_NOTIFY_SOLICITED_ONLY_MASK
                : 0));
    }

    /** Withdraws CQ {@code cq}'s notify request and clears its pending event bit. */
    public void cancelNotify(int cq) {
        regs.write(Registers.cq(cq, CQ_NOTIFY), 0);
        regs.write(IRQ_STATUS, 1 << (IRQ_STATUS_CQ_SHIFT + cq));
    }

    /** Whether CQ {@code cq}'s request is still armed (ARMED reads 1 until it fires). */
    public boolean armed(int cq) {
        return (regs.read(Registers.cq(cq, CQ_NOTIFY)) & CQ_NOTIFY_ARMED_MASK) != 0;
    }

    /** Lets CQ {@code cq}'s event drive the interrupt (or not). */
    public void enableCq(int cq, boolean on) {
        set(1 << (IRQ_ENABLE_CQ_SHIFT + cq), on);
    }

    /** Lets the asynchronous (QP error) event drive the interrupt (or not). */
    public void enableAsync(boolean on) {
        set(IRQ_ENABLE_ASYNC_MASK, on);
    }

    private void set(int mask, boolean on) {
        int next = on ? enabled | mask : enabled & ~mask;
        if (next != enabled) {
            enabled = next;
            regs.write(IRQ_ENABLE, enabled);
        }
    }

    /** Reads IRQ_STATUS and clears the bits it holds; returns them (0: nothing pending). */
    public int take() {
        int status = regs.read(IRQ_STATUS);
        if (status != 0) {
            regs.write(IRQ_STATUS, status);
        }
        return status;
    }

    /** The CQ bits of an IRQ_STATUS value (bit c: CQ c). */
    public static int cqBits(int status) {
        return Registers.field(status, IRQ_STATUS_CQ_SHIFT, IRQ_STATUS_CQ_MASK);
    }

    /** Whether an IRQ_STATUS value holds the asynchronous event. */
    public static boolean async(int status) {
        return (status & IRQ_STATUS_ASYNC_MASK) != 0;
    }
}
