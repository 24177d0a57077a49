package rnic.driver;

import static rnic.driver.RnicRegs.*;

/**
 * What the CORE block of RnicCore says about the device (issue 5 contract: CORE_TYPE "RNIC", CORE_VERSION,
 * CORE_CONFIG with qpCount, cqCount, log2 stagCount and W/8).
 *
 * @param version   CORE_VERSION
 * @param qpCount   queue pairs (= TCP connections, connection index = QP number)
 * @param cqCount   completion queues
 * @param stagCount entries of the STag table (STag = index &lt;&lt; 8 | key)
 * @param dataBytes data-path width W / 8
 */
public record CoreInfo(int version, int qpCount, int cqCount, int stagCount, int dataBytes) {

    /**
     * Reads the CORE block.
     *
     * @throws IllegalStateException when CORE_TYPE is not "RNIC" (wrong register window or no device)
     */
    public static CoreInfo read(Registers regs) {
        int type = regs.read(CORE_TYPE);
        if (!Registers.typeIs(type, "RNIC")) {
            throw new IllegalStateException("no RnicCore at this transport: CORE_TYPE reads " + Registers.typeText(type)
                    + ", expected \"RNIC\"");
        }
        int version = regs.read(CORE_VERSION);
        int config = regs.read(CORE_CONFIG);
        int qps = Registers.field(config, CORE_CONFIG_QP_COUNT_SHIFT, CORE_CONFIG_QP_COUNT_MASK);
        int cqs = Registers.field(config, CORE_CONFIG_CQ_COUNT_SHIFT, CORE_CONFIG_CQ_COUNT_MASK);
        int log2Stags = Registers.field(config, CORE_CONFIG_STAG_COUNT_LOG2_SHIFT, CORE_CONFIG_STAG_COUNT_LOG2_MASK);
        int bytes = Registers.field(config, CORE_CONFIG_DATA_BYTES_SHIFT, CORE_CONFIG_DATA_BYTES_MASK);
        if (qps == 0 || cqs == 0 || log2Stags == 0 || log2Stags > 24) {
            throw new IllegalStateException(String.format("CORE_CONFIG 0x%08x is not a usable configuration (%d QPs, "
                    + "%d CQs, 2^%d STags)", config, qps, cqs, log2Stags));
        }
        return new CoreInfo(version, qps, cqs, 1 << log2Stags, bytes);
    }

    /** Whether the sticky memory-error bit of CORE_STATUS is set (an AXI error response was seen). */
    public static boolean memoryError(Registers regs) {
        return Registers.field(regs.read(CORE_STATUS), CORE_STATUS_MEMORY_ERROR_SHIFT,
                CORE_STATUS_MEMORY_ERROR_MASK) != 0;
    }

    /** CORE_LIMITS.MAX_IRD: the largest IRD a QP can have (QP_IRD is clamped to it). */
    public static int maxIrd(Registers regs) {
        return Registers.field(regs.read(CORE_LIMITS), CORE_LIMITS_MAX_IRD_SHIFT, CORE_LIMITS_MAX_IRD_MASK);
    }

    /** CORE_LIMITS.MAX_ORD: the largest ORD a QP can have. */
    public static int maxOrd(Registers regs) {
        return Registers.field(regs.read(CORE_LIMITS), CORE_LIMITS_MAX_ORD_SHIFT, CORE_LIMITS_MAX_ORD_MASK);
    }

    /** The free-running cycle counter: CORE_CYCLE_LO first (it latches CORE_CYCLE_HI). */
    public static long cycles(Registers regs) {
        long lo = regs.read(CORE_CYCLE_LO) & 0xFFFF_FFFFL;
        long hi = regs.read(CORE_CYCLE_HI) & 0xFFFF_FFFFL;
        return hi << 32 | lo;
    }
}
