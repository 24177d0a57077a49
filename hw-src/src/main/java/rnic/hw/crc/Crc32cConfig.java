package rnic.hw.crc;

import java.util.List;

/**
 * Elaboration parameters of {@link Crc32c}.
 *
 * @param dataWidth bus width W in bits: 8, 16, 32, 64, 128, 256 or 512
 */
public record Crc32cConfig(int dataWidth) {
    /** The widths the block is built and verified for. */
    public static final List<Integer> WIDTHS = List.of(8, 16, 32, 64, 128, 256, 512);

    public Crc32cConfig {
        if (!WIDTHS.contains(dataWidth)) {
            throw new IllegalArgumentException("Crc32c data width must be one of " + WIDTHS + ", got " + dataWidth);
        }
    }

    /** The default preset: a 64-bit bus. */
    public static Crc32cConfig defaults() {
        return new Crc32cConfig(64);
    }

    /** The same configuration at another width. */
    public Crc32cConfig withDataWidth(int w) {
        return new Crc32cConfig(w);
    }

    /** Octets per beat. */
    public int octets() {
        return dataWidth / 8;
    }
}
