package rnic.driver;

import static rnic.driver.RnicRegs.*;

/**
 * Programs the STag table through the STAG block: the fields, then STAG_COMMAND = 1, waiting on STAG_STATUS.busy
 * before and after (issue 5 contract). Deregistration writes the entry with valid = 0 (RFC 5040 §8.1: an invalid STag
 * is refused by the tag validator, E-D1 / E-R1 / E-R18).
 */
public final class StagProgrammer {
    /** Status polls (each followed by {@code transport.advance()}) before the STAG block counts as stuck. */
    public static final int MAX_POLLS = 100_000;

    private final Registers regs;

    public StagProgrammer(Registers regs) {
        this.regs = regs;
    }

    /**
     * Writes a valid entry.
     *
     * @return false when the STAG block stayed busy for {@link #MAX_POLLS} polls
     */
    public boolean program(StagRegistration e) {
        int flags = STAG_FLAGS_VALID_MASK
                | Registers.flag(e.qpBound(), STAG_FLAGS_QP_BOUND_MASK)
                | Registers.flag(e.remoteWrite(), STAG_FLAGS_REMOTE_WRITE_MASK)
                | Registers.flag(e.remoteRead(), STAG_FLAGS_REMOTE_READ_MASK)
                | Registers.flag(e.remoteAtomic(), STAG_FLAGS_REMOTE_ATOMIC_MASK)
                | Registers.flag(e.zeroBased(), STAG_FLAGS_ZERO_BASED_MASK);
        return command(e.index(), e.key(), e.pd(), e.qp(), flags, e.va(), e.length());
    }

    /**
     * Writes entry {@code index} invalid.
     *
     * @return false when the STAG block stayed busy
     */
    public boolean deregister(int index) {
        return command(index, 0, 0, 0, 0, 0, 0);
    }

    private boolean command(int index, int key, int pd, int qp, int flags, long va, long length) {
        if (!awaitIdle()) {
            return false;
        }
        regs.write(STAG_INDEX, index);
        regs.write(STAG_KEY, key);
        regs.write(STAG_PD, pd);
        regs.write(STAG_QP, qp);
        regs.write(STAG_FLAGS, flags);
        regs.write(STAG_VA_LO, (int) va);
        regs.write(STAG_VA_HI, (int) (va >>> 32));
        regs.write(STAG_LEN_LO, (int) length);
        regs.write(STAG_LEN_HI, (int) (length >>> 32));
        regs.write(STAG_COMMAND, 1);
        return awaitIdle();
    }

    private boolean awaitIdle() {
        for (int i = 0; i < MAX_POLLS; i++) {
            if (Registers.field(regs.read(STAG_STATUS), STAG_STATUS_BUSY_SHIFT, STAG_STATUS_BUSY_MASK) == 0) {
                return true;
            }
            regs.transport().advance();
        }
        return false;
    }
}
