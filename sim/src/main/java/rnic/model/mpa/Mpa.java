package rnic.model.mpa;

/**
 * MPA constants and sizing rules (RFC 5044 §4), written from the RFC text for the golden model.
 */
public final class Mpa {
    /** Markers every 512 octets of TCP sequence space (§4.3). */
    public static final int MARKER_PERIOD = 512;
    /** A Marker: 16-bit RESERVED and 16-bit FPDUPTR. */
    public static final int MARKER_SIZE = 4;
    /** Largest ULPDU MPA carries (§3, MPA-03). */
    public static final int MAX_ULPDU = 64768;
    /** MULPDU never goes below this (§4.5, MPA-21). */
    public static final int MIN_MULPDU = 128;

    private Mpa() {
    }

    /** PAD octets after an L-octet ULPDU: the FPDU without Markers is a multiple of 4 (computed on 2+L, T-05). */
    public static int pad(int ulpduLength) {
        return (4 - ((2 + ulpduLength) & 3)) & 3;
    }

    /**
     * MULPDU for an EMSS (§4.5): with Markers {@code EMSS − (6 + 4·⌈EMSS/512⌉ + EMSS mod 4)}, without
     * {@code EMSS − (6 + EMSS mod 4)}; never below 128 nor above 64768.
     */
    public static int mulpdu(int emss, boolean markers) {
        if (emss <= 0) {
            throw new IllegalArgumentException("EMSS must be positive, got " + emss);
        }
        int overhead = 6 + (emss % 4) + (markers ? 4 * ((emss + MARKER_PERIOD - 1) / MARKER_PERIOD) : 0);
        return Math.min(MAX_ULPDU, Math.max(MIN_MULPDU, emss - overhead));
    }

    /** Octets from {@code from} to {@code to} in 32-bit sequence space. */
    static long distance(long from, long to) {
        return (to - from) & 0xFFFF_FFFFL;
    }
}
