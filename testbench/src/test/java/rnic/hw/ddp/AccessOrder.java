package rnic.hw.ddp;

import java.util.ArrayDeque;
import rnic.sim.HostMemory;
import rnic.sim.Tb;

/**
 * The memory accesses a memory mover must make, as a {@link HostMemory.AccessListener}: one range per command, in
 * command order, each covered exactly once from its first octet to its last by reads (or writes) that follow one
 * another without gap or overlap; any other access — outside the expected ranges, out of order, of the other kind —
 * fails the test at once (DDP-31, DDP-35: nothing outside the registered range is touched).
 */
final class AccessOrder implements HostMemory.AccessListener {
    private final Tb<?> tb;
    private final boolean writes;
    private final String who;
    /** Per command: {next address, octets left}. */
    private final ArrayDeque<long[]> expected = new ArrayDeque<>();

    /** Expects {@code who}'s writes ({@code writes}) or reads only. */
    AccessOrder(Tb<?> tb, boolean writes, String who) {
        this.tb = tb;
        this.writes = writes;
        this.who = who;
    }

    /** The next command's range: {@code length} octets (at least 1) from {@code address}, wrapping at 2^64. */
    void expect(long address, long length) {
        expected.add(new long[] {address, length});
    }

    /** Ranges not yet completely accessed. */
    int pending() {
        return expected.size();
    }

    @Override
    public void access(long address, int length, boolean isWrite) {
        String kind = isWrite ? "write" : "read";
        if (isWrite != writes) {
            throw new AssertionError(who + " made a " + kind + " at " + HostMemory.hex(address) + " (seed " + tb.seed()
                    + ")");
        }
        long[] head = expected.peek();
        if (head == null) {
            throw new AssertionError(who + ": " + kind + " of " + length + " octets at " + HostMemory.hex(address)
                    + " with no command outstanding (seed " + tb.seed() + ")");
        }
        if (address != head[0] || length > head[1]) {
            throw new AssertionError(who + ": " + kind + " of " + length + " octets at " + HostMemory.hex(address)
                    + ", expected the next octets of the command's range at " + HostMemory.hex(head[0]) + " ("
                    + head[1] + " left) (seed " + tb.seed() + ")");
        }
        head[0] += length;
        head[1] -= length;
        if (head[1] == 0) {
            expected.poll();
        }
    }
}
