package rnic.hw.qp;

import rnic.wire.SqWqe;

/**
 * Reads send queue elements ({@link SqWqe}, {@value SqWqe#SIZE} octets per slot, one burst each) of every QP in round
 * robin, for {@link QpSqIssuer}. The policy (which QPs may fetch: RTS, no error) is the issuer's.
 */
public final class QpSqFetcher extends QpRingFetcher {
    /** Octets of an element the issuer reads: up to the end of {@link SqWqe#COMPARE_MASK}. */
    public static final int KEEP_OCTETS = SqWqe.COMPARE_MASK + 8;

    public QpSqFetcher(QpRingsConfig c) {
        super(c, SqWqe.SIZE, KEEP_OCTETS);
    }
}
