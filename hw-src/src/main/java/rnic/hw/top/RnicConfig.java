package rnic.hw.top;

import rnic.hw.ddp.DdpConfig;
import rnic.hw.mpa.MpaRxConfig;

/**
 * Elaboration parameters of one {@link RnicCore}: the DDP/RDMAP engines' configuration (data-path width W, QPs,
 * STags, PD width, receive depth, IRD/ORD limits) and the number of completion queues. One TCP connection per QP:
 * connection index == QP number, so {@code ddp.qpCount()} is also the number of MPA connections.
 *
 * <p>The register map (see {@link RnicRegisterFile}) gives each QP a 256-octet block between 0x1000 and 0x2000 and
 * each CQ a 64-octet block from 0x2000 in a 16-bit APB space, and reports the QP and CQ counts in 8-bit fields of
 * {@code CORE_CONFIG}: hence at most {@value #MAX_QPS} QPs and {@value #MAX_CQS} CQs.
 *
 * @param ddp     the engines' configuration (W, qpCount, stagCount, pdWidth, recvDepth, maxIrd, maxOrd)
 * <p>{@code mss} is the TCP MSS the core's connections advertise: it bounds the largest FPDU a conforming peer sends, so
 * it sizes each connection's MPA receive buffer ({@link MpaRxConfig}); a longer ULPDU_Length is an MPA error (E-M2).
 * The host's TCP must not advertise a larger MSS.
 *
 * @param ddp     the engines' configuration (W, qpCount, stagCount, pdWidth, recvDepth, maxIrd, maxOrd)
 * @param cqCount completion queues, 1 … {@value #MAX_CQS}
 * @param mss     the advertised TCP MSS, {@value MpaRxConfig#MIN_MSS} … 65535 (default {@value MpaRxConfig#DEFAULT_MSS})
 */
public record RnicConfig(DdpConfig ddp, int cqCount, int mss) {
    /** QP blocks fit between QP_BASE (0x1000) and CQ_BASE (0x2000) at a 0x100 stride. */
    public static final int MAX_QPS = 16;
    /** CQ numbers are reported in an 8-bit field of CORE_CONFIG. */
    public static final int MAX_CQS = 255;

    public RnicConfig {
        if (ddp == null) {
            throw new IllegalArgumentException("ddp configuration missing");
        }
        if (ddp.qpCount() < 2) {
            // QP numbers index per-QP state with at least one bit; a one-QP core is not built (use two).
            throw new IllegalArgumentException("a core has 2 … " + MAX_QPS + " QPs, got " + ddp.qpCount());
        }
        if (ddp.qpCount() > MAX_QPS) {
            throw new IllegalArgumentException("at most " + MAX_QPS + " QPs fit the register map, got "
                    + ddp.qpCount());
        }
        if (cqCount < 1 || cqCount > MAX_CQS) {
            throw new IllegalArgumentException("cqCount must be 1 … " + MAX_CQS + ", got " + cqCount);
        }
        mpa(ddp.dataWidth(), mss); // validates the MSS
    }

    /** A configuration for the default jumbo MSS ({@value MpaRxConfig#DEFAULT_MSS}). */
    public RnicConfig(DdpConfig ddp, int cqCount) {
        this(ddp, cqCount, MpaRxConfig.DEFAULT_MSS);
    }

    private static MpaRxConfig mpa(int dataWidth, int mss) {
        return new MpaRxConfig(dataWidth, mss);
    }

    /** The default preset: {@link DdpConfig#defaults()} (W = 64, 4 QPs, 64 STags) and one CQ per QP. */
    public static RnicConfig defaults() {
        DdpConfig d = DdpConfig.defaults();
        return new RnicConfig(d, d.qpCount());
    }

    /** The same configuration with other engine parameters. */
    public RnicConfig withDdp(DdpConfig d) {
        return new RnicConfig(d, cqCount, mss);
    }

    /** The same configuration at another data-path width. */
    public RnicConfig withDataWidth(int w) {
        return new RnicConfig(ddp.withDataWidth(w), cqCount, mss);
    }

    /** The same configuration with another number of QPs (and connections); the CQ count is kept. */
    public RnicConfig withQpCount(int n) {
        return new RnicConfig(ddp.withQpCount(n), cqCount, mss);
    }

    /** The same configuration with another number of completion queues. */
    public RnicConfig withCqCount(int n) {
        return new RnicConfig(ddp, n, mss);
    }

    /** The same configuration for another advertised MSS (and so another MPA receive-buffer size). */
    public RnicConfig withMss(int m) {
        return new RnicConfig(ddp, cqCount, m);
    }

    /** The MPA receiver's configuration of every connection: W and the advertised MSS. */
    public MpaRxConfig mpaRx() {
        return mpa(ddp.dataWidth(), mss);
    }

    /** Data-path width W in bits. */
    public int dataWidth() {
        return ddp.dataWidth();
    }

    /** Queue pairs, and TCP connections. */
    public int qpCount() {
        return ddp.qpCount();
    }

    /** Bits of a CQ number (at least 1). */
    public int cqBits() {
        return Math.max(1, 32 - Integer.numberOfLeadingZeros(cqCount - 1));
    }
}
