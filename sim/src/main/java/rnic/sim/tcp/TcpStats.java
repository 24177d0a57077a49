package rnic.sim.tcp;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Counters of one direction of a {@link TcpChannel}, from its sender to its receiver. In MODEL mode a "segment" is a
 * data segment put on the modelled wire; in KERNEL mode it is one read from the receiving socket — what Linux delivered
 * in one piece — which is also what the capture shows.
 */
public final class TcpStats {
    private final String name;
    long segments;
    long octets;
    long retransmissions;
    long retransmittedOctets;
    long lost;
    long duplicateOctets;
    long outOfOrder;
    long acks;
    long delivered;
    long maxInFlight;
    long writes;
    long zeroWindowCycles;
    private final long[] sizeLog2 = new long[17];
    private long minSize = Long.MAX_VALUE;
    private long maxSize;

    TcpStats(String name) {
        this.name = name;
    }

    void segment(int size) {
        segments++;
        sizeLog2[31 - Integer.numberOfLeadingZeros(size)]++;
        minSize = Math.min(minSize, size);
        maxSize = Math.max(maxSize, size);
    }

    /** The direction, e.g. "qp0 a→b". */
    public String name() {
        return name;
    }

    /** Data segments sent, retransmissions included (KERNEL: socket reads that returned data). */
    public long segments() {
        return segments;
    }

    /** Distinct payload octets sent (retransmissions not counted again). */
    public long octets() {
        return octets;
    }

    /** Segments sent again after a retransmission timeout. */
    public long retransmissions() {
        return retransmissions;
    }

    public long retransmittedOctets() {
        return retransmittedOctets;
    }

    /** Transmissions the model dropped (each is retransmitted later). */
    public long lost() {
        return lost;
    }

    /** Octets that reached the receiver again after it had them already, and were dropped (DDP-03). */
    public long duplicateOctets() {
        return duplicateOctets;
    }

    /** Segments that arrived ahead of a gap and were held until it was filled. */
    public long outOfOrder() {
        return outOfOrder;
    }

    /** Pure ACKs the receiver sent. */
    public long acks() {
        return acks;
    }

    /** Octets handed to the receiving end, in order. */
    public long delivered() {
        return delivered;
    }

    /** Most octets sent and not yet acknowledged at any time (MODEL). */
    public long maxInFlight() {
        return maxInFlight;
    }

    /** KERNEL: write calls that moved at least one octet into the sending socket. */
    public long writes() {
        return writes;
    }

    /** MODEL: cycles the sender had data but the receiver's window was too small for it (back-pressure). */
    public long zeroWindowCycles() {
        return zeroWindowCycles;
    }

    /** Smallest segment (0 when there was none). */
    public long minSegment() {
        return segments == 0 ? 0 : minSize;
    }

    public long maxSegment() {
        return maxSize;
    }

    /** Mean segment size. */
    public double meanSegment() {
        return segments == 0 ? 0 : (double) (octets + retransmittedOctets) / segments;
    }

    /** Segment counts by size range ("1", "2-3", "4-7", …), only the non-empty ranges. */
    public Map<String, Long> sizeHistogram() {
        Map<String, Long> h = new LinkedHashMap<>();
        for (int i = 0; i < sizeLog2.length; i++) {
            if (sizeLog2[i] != 0) {
                long lo = 1L << i;
                long hi = (1L << (i + 1)) - 1;
                h.put(lo == hi ? String.valueOf(lo) : lo + "-" + hi, sizeLog2[i]);
            }
        }
        return h;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(name).append(": ").append(octets).append(" octets in ").append(segments)
                .append(" segments (size ").append(minSegment()).append("..").append(maxSize)
                .append(String.format(", mean %.1f", meanSegment())).append(")");
        if (retransmissions > 0 || lost > 0) {
            s.append(", ").append(lost).append(" lost, ").append(retransmissions).append(" retransmitted");
        }
        if (duplicateOctets > 0) {
            s.append(", ").append(duplicateOctets).append(" duplicate octets dropped");
        }
        if (outOfOrder > 0) {
            s.append(", ").append(outOfOrder).append(" out of order");
        }
        if (writes > 0) {
            s.append(", ").append(writes).append(" socket writes");
        }
        s.append(", sizes ").append(sizeHistogram());
        return s.toString();
    }
}
