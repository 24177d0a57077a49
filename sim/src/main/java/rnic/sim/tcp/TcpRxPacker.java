package rnic.sim.tcp;

import java.util.Random;
import java.util.function.IntSupplier;
import rnic.sim.TcpPayloadSource;

/**
 * Cuts the octets an end has for its core into the beats of a {@code TcpRxBeat} port of width W (rnic.hw.mpa): each
 * beat carries 1 … W/8 octets from octet 0 of {@code tdata} ({@code tkeep} contiguous) and the sequence number of its
 * first octet. Segment boundaries carry no meaning to MPA (RFC 5044 §5.1), so how the stream is cut is a test choice
 * ({@link Policy}) — MPA-23 on the core's side of the channel.
 */
public final class TcpRxPacker {
    /** How beats are cut. */
    public enum Policy {
        /** As many octets as are waiting, up to W/8: full beats whenever possible. */
        PACKED,
        /** Beats follow the segments as they arrived: each segment's last beat may be partial, as a NIC delivers. */
        PER_SEGMENT,
        /** Random sizes 1 … W/8 with runs of 1-octet beats ({@link TcpPayloadSource#resegmenting}). */
        RANDOM
    }

    /**
     * One beat.
     *
     * @param data W/8 octets, octet 0 first, zero beyond {@code len}
     * @param len  valid octets (1 … W/8)
     * @param seq  TCP sequence number of octet 0 (32 bits)
     */
    public record Beat(byte[] data, int len, long seq) {
        /** {@code tkeep}: {@code len} ones from bit 0. */
        public long keep() {
            return TcpRxPacker.keep(len);
        }
    }

    private final int octets;
    private final Policy policy;
    private final IntSupplier randomSizes;

    /**
     * @param dataWidth W in bits (32 … 512)
     * @param rng       used by {@link Policy#RANDOM}
     */
    public TcpRxPacker(int dataWidth, Policy policy, Random rng) {
        if (dataWidth < 8 || dataWidth > 512 || dataWidth % 8 != 0) {
            throw new IllegalArgumentException("data width must be 8 … 512 bits in octets, got " + dataWidth);
        }
        this.octets = dataWidth / 8;
        this.policy = policy;
        this.randomSizes = TcpPayloadSource.resegmenting(rng, octets);
    }

    /** Octets per beat. */
    public int octets() {
        return octets;
    }

    /** {@code tkeep} of {@code n} octets. */
    public static long keep(int n) {
        return n >= 64 ? -1L : (1L << n) - 1;
    }

    /** The next beat for {@code end}'s core, or {@code null} when nothing waits; nothing is taken (see {@link #taken}). */
    public Beat next(TcpEnd end) {
        int avail = end.coreAvailable();
        if (avail == 0) {
            return null;
        }
        int n = Math.min(avail, octets);
        switch (policy) {
            case PER_SEGMENT -> n = Math.min(n, end.coreUntilSegmentEnd());
            case RANDOM -> n = Math.min(n, randomSizes.getAsInt());
            default -> {
            }
        }
        byte[] data = new byte[octets];
        end.corePeek(data, 0, n);
        return new Beat(data, n, end.coreReceiveSequence());
    }

    /** The core took {@code beat}: its octets leave {@code end}'s receive buffer. */
    public void taken(TcpEnd end, Beat beat) {
        end.coreConsume(beat.len);
    }
}
