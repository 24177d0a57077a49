package rnic.driver;

import static rnic.driver.RnicRegs.*;

import rnic.transport.Transport;
import rnic.wire.Cqe;

/**
 * The consumer side of one completion queue of the core: a ring of {@link Cqe} slots in host memory, CQ_BASE/CQ_SIZE,
 * and the CQ_CONS count the core needs to reuse slots (it never overwrites an unconsumed entry: one that meets the
 * ring full is dropped and the ring marked overflowed, CQ_STATUS).
 *
 * <p>An entry is new when bit 0 of its owner octet equals the phase of its pass through the ring: 1 on the first pass
 * (free-running index 0 … 2^n − 1), flipped at every wrap; the phase of index k is therefore 1 when bit n of k is 0.
 * The ring is programmed, then CQ_PROD is read as the starting index (whether or not the core restarted it), and
 * every slot's owner octet is written with the opposite of the phase the next pass expects there.
 */
public final class CompletionRing {
    private final Registers regs;
    private final Transport transport;
    private final int cq;
    private final Ring ring;
    private final byte[] slot = new byte[Cqe.SIZE];
    private int consumed;
    private int released;

    public CompletionRing(Registers regs, int cq, long address, int log2Slots) {
        this.regs = regs;
        this.transport = regs.transport();
        this.cq = cq;
        this.ring = new Ring(transport, address, log2Slots, Cqe.SIZE);
    }

    public int number() {
        return cq;
    }

    public int slots() {
        return ring.slots();
    }

    /**
     * Programs CQ_BASE_LO/HI and CQ_SIZE, takes CQ_PROD as the start, marks every slot old, writes CQ_CONS. CQ_SIZE
     * is first written with another value, so the core always starts the ring afresh (index 0, no overflow mark)
     * even when a queue before it of this number had the same memory.
     */
    public void program() {
        regs.write(Registers.cq(cq, CQ_BASE_LO), (int) ring.address());
        regs.write(Registers.cq(cq, CQ_BASE_HI), (int) (ring.address() >>> 32));
        regs.write(Registers.cq(cq, CQ_SIZE), ring.log2Slots() ^ 1);
        regs.write(Registers.cq(cq, CQ_SIZE), ring.log2Slots());
        consumed = regs.read(Registers.cq(cq, CQ_PROD)) & 0xFFFF;
        byte[] old = new byte[1];
        for (int i = 0; i < ring.slots(); i++) {
            int index = consumed + i;
            old[0] = (byte) (phase(index) ^ 1);
            transport.write(ring.slotAddress(index) + Cqe.OWNER, old, 0, 1);
        }
        released = consumed;
        regs.write(Registers.cq(cq, CQ_CONS), consumed & 0xFFFF);
    }

    /** The owner bit a new entry of free-running index {@code index} carries. */
    public int phase(int index) {
        return ((index >>> ring.log2Slots()) & 1) == 0 ? 1 : 0;
    }

    /** Whether the core has written the next entry (the host has not taken it yet); takes nothing. */
    public boolean ready() {
        ring.read(consumed, slot);
        return (slot[Cqe.OWNER] & 1) == phase(consumed);
    }

    /**
     * Takes the next entry if the core has written it.
     *
     * @return true with {@code into} filled, false when the next slot is still old
     */
    public boolean next(CqeView into) {
        if (!ready()) {
            return false;
        }
        into.decode(slot);
        consumed++;
        return true;
    }

    /**
     * Looks at the entries the core has written and the host not yet taken, oldest first, without taking any: the
     * first for which {@code match} holds is left decoded in {@code into}.
     */
    public boolean peek(CqeView into, java.util.function.Predicate<CqeView> match) {
        byte[] look = new byte[Cqe.SIZE];
        for (int i = 0; i < ring.slots(); i++) {
            ring.read(consumed + i, look);
            if ((look[Cqe.OWNER] & 1) != phase(consumed + i)) {
                return false;
            }
            into.decode(look);
            if (match.test(into)) {
                return true;
            }
        }
        return false;
    }

    /** Tells the core (CQ_CONS) how many entries were taken, if any since the last call. */
    public void release() {
        if (released != consumed) {
            released = consumed;
            regs.write(Registers.cq(cq, CQ_CONS), consumed & 0xFFFF);
        }
    }

    /** CQ_STATUS.OVERFLOW: the core dropped an entry that met this ring full (and drops every later one). */
    public boolean overflowed() {
        return (regs.read(Registers.cq(cq, CQ_STATUS)) & CQ_STATUS_OVERFLOW_MASK) != 0;
    }

    /** Entries the core reports written (CQ_PROD), minus those taken: a diagnostic. */
    public int pending() {
        return (regs.read(Registers.cq(cq, CQ_PROD)) - consumed) & 0xFFFF;
    }
}
