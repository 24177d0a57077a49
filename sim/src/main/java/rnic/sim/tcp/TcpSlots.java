package rnic.sim.tcp;

import java.util.function.BiConsumer;

/**
 * The connection slots of one core (slot s = the core's {@code tcpRx_<s>} / {@code tcpTx_<s>} ports, == QP s) as a
 * {@link TcpEnd.SlotBinder}: which end each slot carries, and the rule for taking a new one. A slot takes a connection
 * when it has none or its connection is closed ({@link TcpEnd#slotReleasable()}: closed or aborted by its host, or
 * ended by the peer); otherwise the hand-over is refused with an {@link IllegalStateException} and nothing changes. A
 * slot out of range is an {@link IllegalArgumentException}.
 */
public final class TcpSlots implements TcpEnd.SlotBinder {
    private final String name;
    private final TcpEnd[] ends;
    private final BiConsumer<Integer, TcpEnd> onBind;

    /**
     * @param name   the core, for messages (e.g. "a")
     * @param slots  how many slots
     * @param onBind called after a successful bind with the slot and the end (e.g. to bind the port agents)
     */
    public TcpSlots(String name, int slots, BiConsumer<Integer, TcpEnd> onBind) {
        this.name = name;
        this.ends = new TcpEnd[slots];
        this.onBind = onBind;
    }

    @Override
    public void bind(TcpEnd end, int slot) {
        if (slot < 0 || slot >= ends.length) {
            throw new IllegalArgumentException(name + ": no connection slot " + slot + "; the core has "
                    + ends.length + " (0 … " + (ends.length - 1) + ")");
        }
        TcpEnd current = ends[slot];
        if (current != null && current != end && !current.slotReleasable()) {
            throw new IllegalStateException(name + ": connection slot " + slot + " still carries " + current.name()
                    + " (" + current.localAddress() + " <-> " + current.remoteAddress() + "), which is not closed");
        }
        ends[slot] = end;
        onBind.accept(slot, end);
    }

    /** The end slot {@code slot} carries (the last one bound, even when closed), or {@code null}. */
    public TcpEnd end(int slot) {
        return ends[slot];
    }

    public int size() {
        return ends.length;
    }
}
