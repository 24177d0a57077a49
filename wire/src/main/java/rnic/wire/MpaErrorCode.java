package rnic.wire;

/**
 * MPA error codes (RFC 5044 §8, RFC 6581 §8), reported as Terminate Layer 0x2 (LLP), EType 0x0 (MPA error), with this
 * Error Code (docs/requirements.md §3.1). One table shared by the hardware (elaboration constants), the models and the driver.
 */
public enum MpaErrorCode {
    /** E-M1: TCP connection closed, terminated or lost. */
    TCP_CLOSED(0x01),
    /** E-M2: received CRC differs from the computed one. */
    CRC_ERROR(0x02),
    /** E-M3: a CRC-valid FPDU whose Marker and ULPDU_Length disagree. */
    MARKER_ERROR(0x03),
    /** E-M4: invalid MPA Request or Reply frame (close TCP, no Terminate). */
    INVALID_STARTUP_FRAME(0x04),
    /** E-M5: local catastrophic error during enhanced connection setup. */
    ENHANCED_SETUP_FAILURE(0x05),
    /** E-M6: insufficient IRD resources. */
    INSUFFICIENT_IRD(0x06),
    /** E-M7: no matching RTR option. */
    NO_MATCHING_RTR(0x07);

    /** Terminate Layer of every MPA error. */
    public static final int LAYER = 0x2;
    /** Terminate EType of every MPA error. */
    public static final int ETYPE = 0x0;

    private final int code;

    MpaErrorCode(int code) {
        this.code = code;
    }

    /** The Error Code octet. */
    public int code() {
        return code;
    }

    /** Terminate octet 0: {@code (Layer << 4) | EType}. */
    public int layerEtype() {
        return (LAYER << 4) | ETYPE;
    }

    /** The code for a wire value. */
    public static MpaErrorCode of(int code) {
        for (MpaErrorCode c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        throw new IllegalArgumentException("no MPA error code " + code);
    }
}
