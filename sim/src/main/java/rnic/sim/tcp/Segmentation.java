package rnic.sim.tcp;

import java.util.Random;
import java.util.function.IntSupplier;
import rnic.sim.TcpPayloadSource;

/**
 * How a sender cuts its byte stream into TCP segments — or, equivalently for the receiver, how a middlebox
 * re-segments it. MPA receivers must not depend on segment boundaries (MPA-23, RFC 5044 §5.1, App. A.4):
 * FPDUs may straddle segments, several may share one, and a segment may carry a single octet.
 *
 * <p>{@link #next} is asked for the size of each new segment; the result is clamped to {@code 1 … min(available,
 * mss)} by the channel, so a policy may ignore the limits.
 */
@FunctionalInterface
public interface Segmentation {
    /**
     * Size of the next segment.
     *
     * @param rng       the channel's random source
     * @param boundary  octets up to the end of the current write (a host {@code send} or one core tcpTx segment)
     * @param available octets queued in all
     * @param mss       the maximum segment size
     */
    int next(Random rng, int boundary, int available, int mss);

    /** Each write (host send, core segment) becomes its own segment(s), cut only at the MSS: an optimized MPA sender. */
    static Segmentation asSent() {
        return named("asSent", (rng, boundary, available, mss) -> boundary);
    }

    /** Fixed-size segments of {@code n} octets across write boundaries (the last one shorter when nothing more waits). */
    static Segmentation fixed(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("segment size must be at least 1, got " + n);
        }
        return named("fixed(" + n + ")", (rng, boundary, available, mss) -> n);
    }

    /** One octet per segment: the harshest re-segmentation MPA-23 allows. */
    static Segmentation oneOctet() {
        return named("oneOctet", (rng, boundary, available, mss) -> 1);
    }

    /** Sizes uniform in {@code [min, max]}, across write boundaries. */
    static Segmentation random(int min, int max) {
        if (min < 1 || max < min) {
            throw new IllegalArgumentException("need 1 <= min <= max, got " + min + ", " + max);
        }
        return named("random(" + min + ".." + max + ")",
                (rng, boundary, available, mss) -> min + rng.nextInt(max - min + 1));
    }

    /**
     * A middlebox that re-segments at random: the sizes of {@link TcpPayloadSource#resegmenting} over the MSS (runs of
     * 1-octet segments, random sizes, full MSS), half of the full ones replaced by "as sent".
     */
    static Segmentation mixed() {
        IntSupplier[] sizes = {null};
        int[] forMss = {0};
        return named("mixed", (rng, boundary, available, mss) -> {
            if (sizes[0] == null || forMss[0] != mss) {
                sizes[0] = TcpPayloadSource.resegmenting(rng, mss);
                forMss[0] = mss;
            }
            int n = sizes[0].getAsInt();
            return n == mss && rng.nextBoolean() ? boundary : n;
        });
    }

    /** {@code policy} with a readable {@code toString()} (for test names and statistics). */
    static Segmentation named(String name, Segmentation policy) {
        return new Segmentation() {
            @Override
            public int next(Random rng, int boundary, int available, int mss) {
                return policy.next(rng, boundary, available, mss);
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }
}
