package rnic.hw.mpa;

import java.util.List;

/**
 * Elaboration parameters of one {@link MpaRxDeframer}: the data-path width and the TCP MSS this core advertises, which
 * bounds the largest FPDU it accepts and so sizes its receive buffer.
 *
 * <p>A peer's effective MSS is at most the MSS this end advertises, and its MPA sender keeps every FPDU within that
 * EMSS (MPA-02/MPA-03: FPDU = 2 + ULPDU_Length + PAD + 4 CRC + Markers ≤ EMSS). The loosest such FPDU has no Marker and
 * no PAD, so the largest ULPDU_Length a conforming peer sends is {@code mss − 6}, and never less than the MULPDU floor
 * of 128 (T-10). The receive buffer holds one whole ULPDU of that length (a ULPDU is released only once its FPDU is
 * checked, MPA-25); an FPDU announcing a longer ULPDU_Length is reported as an MPA error at its header, before any of it
 * is buffered (see {@link #maxUlpdu()}), so it can never wedge the receiver.
 *
 * @param dataWidth data-path width W in bits: 32, 64, 128, 256 or 512
 * @param mss       the TCP MSS the core advertises, in octets: {@value #MIN_MSS} … 65535 (default {@value #DEFAULT_MSS},
 *                  a jumbo-frame MSS)
 */
public record MpaRxConfig(int dataWidth, int mss) {
    /** The widths the receiver is built and verified for. */
    public static final List<Integer> WIDTHS = List.of(32, 64, 128, 256, 512);
    /** Default MSS: a 9000-octet jumbo MSS. */
    public static final int DEFAULT_MSS = 9000;
    /** Smallest MSS accepted: one that still carries a 128-octet MULPDU's FPDU without Markers (T-10). */
    public static final int MIN_MSS = 134;
    /**
     * Beats a shared receiver admits for one connection ahead of its writer (docs/shared-mpa.md §3.2): the region of
     * {@link MpaRxHold} has room for this many rows of {@code 2·W/32} half-words behind one largest ULPDU.
     */
    public static final int INFLIGHT_BEATS = 9;

    public MpaRxConfig {
        if (!WIDTHS.contains(dataWidth)) {
            throw new IllegalArgumentException("data width must be one of " + WIDTHS + ", got " + dataWidth);
        }
        if (mss < MIN_MSS || mss > 65535) {
            throw new IllegalArgumentException("mss must be " + MIN_MSS + " … 65535, got " + mss);
        }
    }

    /** W and the default jumbo MSS. */
    public static MpaRxConfig defaults(int dataWidth) {
        return new MpaRxConfig(dataWidth, DEFAULT_MSS);
    }

    /** The same configuration at another width. */
    public MpaRxConfig withDataWidth(int w) {
        return new MpaRxConfig(w, mss);
    }

    /** The same configuration for another advertised MSS. */
    public MpaRxConfig withMss(int m) {
        return new MpaRxConfig(dataWidth, m);
    }

    /**
     * The largest ULPDU_Length accepted: {@code mss − 6} (an FPDU without Markers or PAD that fills the MSS), capped at
     * 65535. A longer one is an MPA error (E-M2, see {@link MpaRxDeframer}).
     */
    public int maxUlpdu() {
        return Math.min(65535, mss - 6);
    }

    /**
     * Content words of an FPDU whose ULPDU has {@code ulpduLength} octets: ULPDU_Length (2 octets), the ULPDU and its
     * PAD to a multiple of 4 octets (RFC 5044 §4.1), {@code ⌈(2 + L) / 4⌉}.
     */
    public static int contentWords(int ulpduLength) {
        return (2 + ulpduLength + 3) / 4;
    }

    /**
     * Half-words {@link MpaRxHold} stores for such an FPDU: its content without the ULPDU_Length half-word,
     * {@code 2·contentWords(L) − 1} (the ULPDU and its PAD).
     */
    public static int storedHalfWords(int ulpduLength) {
        return 2 * contentWords(ulpduLength) - 1;
    }

    /**
     * Half-words of one connection's region in {@link MpaRxHold} (docs/shared-mpa.md §3.2): one largest ULPDU with its PAD
     * ({@link #storedHalfWords}({@link #maxUlpdu()})) plus {@link #INFLIGHT_BEATS} rows of {@code 2·W/32} half-words.
     */
    public int regionHalfWords() {
        return storedHalfWords(maxUlpdu()) + 2 * (dataWidth / 32) * INFLIGHT_BEATS;
    }

    /** Rows of one connection's region: {@link #regionHalfWords()} in rows of {@code 2·W/32} half-words, rounded up. */
    public int regionRows() {
        int lanes = 2 * (dataWidth / 32);
        return (regionHalfWords() + lanes - 1) / lanes;
    }
}
