package rnic.hw.qp;

import rnic.hw.ddp.DdpConfig;

/**
 * Elaboration parameters of {@link QpRings}: the engines' configuration (data-path width, QP count, the per-QP
 * hardware receive queue depth the RQ feeder fills) and the number of completion queues.
 *
 * @param ddp     the DDP/RDMAP engines' configuration the rings feed ({@code RdmapEngine})
 * @param cqCount completion queues: 1 … 256 (any number; CQ numbers are {@link #cqBits()} wide)
 */
public record QpRingsConfig(DdpConfig ddp, int cqCount) {
    /** Bits of a ring index (QP_SQ_PROD, QP_RQ_CONS, CQ_PROD, …): free-running 16-bit counters. */
    public static final int INDEX_BITS = 16;
    /** The largest ring size (log2 slots) that 16-bit free-running indices can tell apart from an empty ring. */
    public static final int MAX_SIZE_LOG2 = 15;
    /** Bits of a ring size register (log2 slots). */
    public static final int SIZE_BITS = 5;

    public QpRingsConfig {
        if (ddp == null) {
            throw new IllegalArgumentException("ddp configuration required");
        }
        if (cqCount < 1 || cqCount > 256) {
            throw new IllegalArgumentException("cqCount must be 1 … 256, got " + cqCount);
        }
    }

    /** The default preset: the engines' defaults and one CQ per QP. */
    public static QpRingsConfig defaults() {
        DdpConfig d = DdpConfig.defaults();
        return new QpRingsConfig(d, d.qpCount());
    }

    /** The same configuration at another width. */
    public QpRingsConfig withDataWidth(int w) {
        return new QpRingsConfig(ddp.withDataWidth(w), cqCount);
    }

    /** The same configuration with another number of CQs. */
    public QpRingsConfig withCqCount(int n) {
        return new QpRingsConfig(ddp, n);
    }

    /** Data-path width W of the memory port. */
    public int dataWidth() {
        return ddp.dataWidth();
    }

    /** Queue pairs. */
    public int qpCount() {
        return ddp.qpCount();
    }

    /** Bits of a QP number. */
    public int qpBits() {
        return ddp.qpBits();
    }

    /** Bits of a CQ number (at least 1). */
    public int cqBits() {
        return Math.max(1, Integer.SIZE - Integer.numberOfLeadingZeros(cqCount - 1));
    }
}
