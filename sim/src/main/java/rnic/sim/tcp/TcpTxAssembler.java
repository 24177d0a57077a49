package rnic.sim.tcp;

import java.io.ByteArrayOutputStream;
import java.util.HexFormat;

/**
 * Gathers the beats of an {@code AxisBeat} port of width W (rnic.hw.axis; the core's {@code tcpTx_<q>}) into TCP
 * segments, one per {@code tlast}, and checks the beat contract of the project's packet streams: {@code tkeep}
 * contiguous from octet 0, never empty, all ones except on the last beat of a segment. A violation fails with the port
 * name and the beat.
 */
public final class TcpTxAssembler {
    private final String name;
    private final int octets;
    private final long full;
    private final ByteArrayOutputStream segment = new ByteArrayOutputStream();
    private long segments;

    /**
     * @param name      the port, for messages
     * @param dataWidth W in bits
     */
    public TcpTxAssembler(String name, int dataWidth) {
        this.name = name;
        this.octets = dataWidth / 8;
        this.full = TcpRxPacker.keep(octets);
    }

    /**
     * Takes one beat ({@code tdata} as at least W/8 octets, octet 0 first).
     *
     * @return the finished segment at {@code tlast}, else {@code null}
     */
    public byte[] beat(byte[] tdata, long tkeep, boolean tlast) {
        int n = Long.numberOfTrailingZeros(~tkeep);
        if (n == 0 || n > octets || (n < 64 && (tkeep >>> n) != 0)) {
            throw new AssertionError(name + ": tkeep " + Long.toHexString(tkeep)
                    + " is empty or not contiguous from octet 0 (beat " + HexFormat.of().formatHex(tdata) + ")");
        }
        if (!tlast && tkeep != full) {
            throw new AssertionError(name + ": partial beat (tkeep " + Long.toHexString(tkeep)
                    + ") before the end of a segment");
        }
        segment.write(tdata, 0, n);
        if (!tlast) {
            return null;
        }
        byte[] s = segment.toByteArray();
        segment.reset();
        segments++;
        return s;
    }

    /** Segments finished so far. */
    public long segments() {
        return segments;
    }

    /** Octets of an unfinished segment (0 between segments). */
    public int pending() {
        return segment.size();
    }
}
