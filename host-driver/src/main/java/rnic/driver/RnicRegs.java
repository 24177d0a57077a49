// PLACEHOLDER until generated
package rnic.driver;

/**
 * Register map of RnicCore (issue 5 contract), written by hand with exactly the contract's names until the build
 * generates this class from the hardware's one register declaration ({@code rnic.hw.top.RegisterExport}); the lead
 * replaces this file by the generated one at merge. Only {@code rnic.driver} reads these constants.
 *
 * <p>CORE and STAG constants are absolute byte offsets; QP and CQ constants are offsets within the block of one QP or
 * CQ ({@code QP_BASE + q * QP_STRIDE + QP_x}). Offsets not given by the contract follow the declaration order, one
 * 32-bit register every 4 octets. Field masks are in place: {@code field = (value & MASK) >>> SHIFT}.
 */
public final class RnicRegs {
    private RnicRegs() {
    }

    // ---- CORE block -------------------------------------------------------------------------------------------
    public static final int CORE_BASE = 0x0000;
    public static final int CORE_TYPE = 0x0000;
    public static final int CORE_VERSION = 0x0004;
    public static final int CORE_NEXT = 0x0008;
    public static final int CORE_CONFIG = 0x000C;
    public static final int CORE_STATUS = 0x0010;
    public static final int CORE_CYCLE_LO = 0x0014;
    public static final int CORE_CYCLE_HI = 0x0018;

    public static final int CORE_CONFIG_QP_COUNT_SHIFT = 0;
    public static final int CORE_CONFIG_QP_COUNT_MASK = 0x0000_00FF;
    public static final int CORE_CONFIG_CQ_COUNT_SHIFT = 8;
    public static final int CORE_CONFIG_CQ_COUNT_MASK = 0x0000_FF00;
    public static final int CORE_CONFIG_STAG_COUNT_LOG2_SHIFT = 16;
    public static final int CORE_CONFIG_STAG_COUNT_LOG2_MASK = 0x00FF_0000;
    public static final int CORE_CONFIG_DATA_BYTES_SHIFT = 24;
    public static final int CORE_CONFIG_DATA_BYTES_MASK = 0xFF00_0000;

    public static final int CORE_STATUS_MEMORY_ERROR_SHIFT = 0;
    public static final int CORE_STATUS_MEMORY_ERROR_MASK = 0x0000_0001;

    // ---- STAG block -------------------------------------------------------------------------------------------
    public static final int STAG_BASE = 0x0100;
    public static final int STAG_TYPE = 0x0100;
    public static final int STAG_VERSION = 0x0104;
    public static final int STAG_NEXT = 0x0108;
    public static final int STAG_INDEX = 0x010C;
    public static final int STAG_KEY = 0x0110;
    public static final int STAG_PD = 0x0114;
    public static final int STAG_QP = 0x0118;
    public static final int STAG_FLAGS = 0x011C;
    public static final int STAG_VA_LO = 0x0120;
    public static final int STAG_VA_HI = 0x0124;
    public static final int STAG_LEN_LO = 0x0128;
    public static final int STAG_LEN_HI = 0x012C;
    public static final int STAG_COMMAND = 0x0130;
    public static final int STAG_STATUS = 0x0134;

    public static final int STAG_FLAGS_VALID_SHIFT = 0;
    public static final int STAG_FLAGS_VALID_MASK = 0x01;
    public static final int STAG_FLAGS_QP_BOUND_SHIFT = 1;
    public static final int STAG_FLAGS_QP_BOUND_MASK = 0x02;
    public static final int STAG_FLAGS_REMOTE_WRITE_SHIFT = 2;
    public static final int STAG_FLAGS_REMOTE_WRITE_MASK = 0x04;
    public static final int STAG_FLAGS_REMOTE_READ_SHIFT = 3;
    public static final int STAG_FLAGS_REMOTE_READ_MASK = 0x08;
    public static final int STAG_FLAGS_REMOTE_ATOMIC_SHIFT = 4;
    public static final int STAG_FLAGS_REMOTE_ATOMIC_MASK = 0x10;
    public static final int STAG_FLAGS_ZERO_BASED_SHIFT = 5;
    public static final int STAG_FLAGS_ZERO_BASED_MASK = 0x20;

    public static final int STAG_STATUS_BUSY_SHIFT = 0;
    public static final int STAG_STATUS_BUSY_MASK = 0x01;

    // ---- QP blocks (offsets within the block of one QP) ------------------------------------------------------------
    public static final int QP_BASE = 0x1000;
    public static final int QP_STRIDE = 0x0100;
    public static final int QP_TYPE = 0x00;
    public static final int QP_VERSION = 0x04;
    public static final int QP_NEXT = 0x08;
    public static final int QP_STATE = 0x0C;
    public static final int QP_PD = 0x10;
    public static final int QP_IRD = 0x14;
    public static final int QP_ORD = 0x18;
    public static final int QP_MPA = 0x1C;
    public static final int QP_EMSS = 0x20;
    public static final int QP_MULPDU = 0x24;
    public static final int QP_RX_SEQ_START = 0x28;
    public static final int QP_SQ_BASE_LO = 0x2C;
    public static final int QP_SQ_BASE_HI = 0x30;
    public static final int QP_SQ_SIZE = 0x34;
    public static final int QP_SQ_PROD = 0x38;
    public static final int QP_SQ_CONS = 0x3C;
    public static final int QP_RQ_BASE_LO = 0x40;
    public static final int QP_RQ_BASE_HI = 0x44;
    public static final int QP_RQ_SIZE = 0x48;
    public static final int QP_RQ_PROD = 0x4C;
    public static final int QP_RQ_CONS = 0x50;
    public static final int QP_SQ_CQ = 0x54;
    public static final int QP_RQ_CQ = 0x58;
    public static final int QP_ERROR = 0x5C;

    public static final int QP_MPA_TX_MARKERS_SHIFT = 0;
    public static final int QP_MPA_TX_MARKERS_MASK = 0x01;
    public static final int QP_MPA_RX_MARKERS_SHIFT = 1;
    public static final int QP_MPA_RX_MARKERS_MASK = 0x02;
    public static final int QP_MPA_CRC_SHIFT = 2;
    public static final int QP_MPA_CRC_MASK = 0x04;
    public static final int QP_MPA_HOLD_TX_UNTIL_RX_SHIFT = 3;
    public static final int QP_MPA_HOLD_TX_UNTIL_RX_MASK = 0x08;

    public static final int QP_ERROR_KIND_SHIFT = 0;
    public static final int QP_ERROR_KIND_MASK = 0x0000_00FF;
    public static final int QP_ERROR_STATUS_SHIFT = 8;
    public static final int QP_ERROR_STATUS_MASK = 0x0000_FF00;

    // ---- CQ blocks (offsets within the block of one CQ) ------------------------------------------------------------
    public static final int CQ_BASE = 0x2000;
    public static final int CQ_STRIDE = 0x0040;
    public static final int CQ_TYPE = 0x00;
    public static final int CQ_VERSION = 0x04;
    public static final int CQ_NEXT = 0x08;
    public static final int CQ_BASE_LO = 0x0C;
    public static final int CQ_BASE_HI = 0x10;
    public static final int CQ_SIZE = 0x14;
    public static final int CQ_PROD = 0x18;
    public static final int CQ_CONS = 0x1C;
}
