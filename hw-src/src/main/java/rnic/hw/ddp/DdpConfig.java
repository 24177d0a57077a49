package rnic.hw.ddp;

import java.util.List;

/**
 * Elaboration parameters shared by the DDP and RDMAP engines ({@code rnic.hw.ddp}, {@code rnic.hw.rdmap}).
 *
 * <p>STags are 32 bits: bits 31:8 are the <b>index</b> into the STag table, bits 7:0 the <b>key</b> the consumer
 * chooses at registration (as InfiniBand's lkey/rkey and Linux siw do), so a re-registered index with a new key does
 * not honour an old STag. An STag whose index does not fit the table is not valid.
 *
 * @param dataWidth  data-path width W in bits: 32, 64, 128, 256 or 512 (one beat per cycle everywhere)
 * @param qpCount    queue pairs (one DDP stream each): a power of two, 1 … 256
 * @param stagCount  entries of the STag table: a power of two, 2 … 4096
 * @param pdWidth    bits of a Protection Domain number, 1 … 32
 * @param recvDepth  receive buffers each QP can have posted at once (queue 0): a power of two, 1 … 256
 * @param maxIrd     the largest IRD (inbound Read and Atomic Requests outstanding per QP) the responder has room for
 * @param maxOrd     the largest ORD (outbound Read and Atomic Requests outstanding per QP)
 */
public record DdpConfig(int dataWidth, int qpCount, int stagCount, int pdWidth, int recvDepth, int maxIrd,
        int maxOrd) {
    /** The widths the engines are built and verified for. */
    public static final List<Integer> WIDTHS = List.of(32, 64, 128, 256, 512);
    /** Bits of an STag below its index: the key. */
    public static final int KEY_BITS = 8;
    /** Octets of a DDP/RDMAP header the receive side captures: an untagged header (18) + an Atomic Request (52). */
    public static final int HEADER_OCTETS = 70;

    public DdpConfig {
        if (!WIDTHS.contains(dataWidth)) {
            throw new IllegalArgumentException("data width must be one of " + WIDTHS + ", got " + dataWidth);
        }
        requirePowerOfTwo("qpCount", qpCount, 1, 256);
        requirePowerOfTwo("stagCount", stagCount, 2, 4096);
        requirePowerOfTwo("recvDepth", recvDepth, 1, 256);
        if (pdWidth < 1 || pdWidth > 32) {
            throw new IllegalArgumentException("pdWidth must be 1 … 32, got " + pdWidth);
        }
        if (maxIrd < 1 || maxIrd > 255 || maxOrd < 1 || maxOrd > 255) {
            throw new IllegalArgumentException("maxIrd and maxOrd must be 1 … 255, got " + maxIrd + ", " + maxOrd);
        }
    }

    private static void requirePowerOfTwo(String name, int value, int min, int max) {
        if (value < min || value > max || Integer.bitCount(value) != 1) {
            throw new IllegalArgumentException(name + " must be a power of two in " + min + " … " + max + ", got "
                    + value);
        }
    }

    /** The default preset: W = 64, 4 QPs, 64 STags, 16-bit PDs, 16 receive buffers per QP, IRD/ORD up to 8. */
    public static DdpConfig defaults() {
        return new DdpConfig(64, 4, 64, 16, 16, 8, 8);
    }

    /** The same configuration at another width. */
    public DdpConfig withDataWidth(int w) {
        return new DdpConfig(w, qpCount, stagCount, pdWidth, recvDepth, maxIrd, maxOrd);
    }

    /** The same configuration with another number of QPs. */
    public DdpConfig withQpCount(int n) {
        return new DdpConfig(dataWidth, n, stagCount, pdWidth, recvDepth, maxIrd, maxOrd);
    }

    /** The same configuration with another STag table size. */
    public DdpConfig withStagCount(int n) {
        return new DdpConfig(dataWidth, qpCount, n, pdWidth, recvDepth, maxIrd, maxOrd);
    }

    /** Octets per beat, W / 8. */
    public int octets() {
        return dataWidth / 8;
    }

    /** Bits of a QP number (at least 1, so a one-QP engine still has a port). */
    public int qpBits() {
        return Math.max(1, Integer.numberOfTrailingZeros(qpCount));
    }

    /** Bits of an STag table index. */
    public int stagIndexBits() {
        return Integer.numberOfTrailingZeros(stagCount);
    }

    /** The table index of {@code stag}, or -1 when it does not fit the table. */
    public int stagIndex(int stag) {
        int index = stag >>> KEY_BITS;
        return index < stagCount ? index : -1;
    }
}
