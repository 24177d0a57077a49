package rnic.hw.qp;

import rnic.wire.RqWqe;

/**
 * Reads receive queue elements ({@link RqWqe}, {@value RqWqe#SIZE} octets per slot, one burst each) of every QP in
 * round robin, for {@link QpRqFeeder}. The policy (which QPs may fetch: INIT or later, credits left) is the feeder's.
 */
public final class QpRqFetcher extends QpRingFetcher {
    /** Octets of an element the feeder reads: up to the end of {@link RqWqe#CAPACITY}. */
    public static final int KEEP_OCTETS = RqWqe.CAPACITY + 4;

    public QpRqFetcher(QpRingsConfig c) {
        super(c, RqWqe.SIZE, KEEP_OCTETS);
    }
}
