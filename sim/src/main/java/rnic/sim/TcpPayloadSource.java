package rnic.sim;

import java.util.Random;
import java.util.function.IntSupplier;
import rnic.hw.mpa.TcpRxBeat;
import spinal.lib.Stream;

/**
 * Sends received TCP payload into a design's {@link TcpRxBeat} port: each beat carries {@code len} octets (0 … W/8,
 * {@code tkeep} contiguous from octet 0) and the sequence number of its first octet. How a byte stream is cut into beats
 * is the caller's choice ({@link #send(long, byte[], IntSupplier)}), so tests can re-segment it the way a middlebox
 * would, down to one octet per beat.
 */
public final class TcpPayloadSource extends StreamSource<TcpPayloadSource.Beat> {
    /** {@code len} octets of {@code data} from {@code off}, the first at sequence number {@code seq}. */
    public record Beat(byte[] data, int off, int len, long seq) {
    }

    /** The data of the end-of-stream beat ({@link #end}): no octets, {@code fin} set. */
    private static final byte[] END = new byte[0];

    private final int octets;

    private TcpPayloadSource(SimSignal valid, SimSignal ready, SimSignal tdata, SimSignal tkeep, SimSignal seq,
            SimSignal fin, int octets, Pacer pacer) {
        super(valid, ready, b -> {
            tdata.setOctets(b.data, b.off, b.len);
            tkeep.set(b.len == 64 ? -1L : (1L << b.len) - 1);
            seq.set(b.seq & 0xFFFF_FFFFL);
            fin.set(b.data == END);
        }, pacer);
        this.octets = octets;
    }

    /** Queues the end of the stream after everything queued so far: one beat, no octets, {@code fin} set (the FIN). */
    public void end(long seq) {
        push(new Beat(END, 0, 0, seq));
    }

    /** A source on a design's slave stream of {@link TcpRxBeat}, added to {@code tb}. */
    public static TcpPayloadSource on(Tb<?> tb, Stream<TcpRxBeat> port, Pacer pacer) {
        TcpRxBeat p = port.payload();
        return tb.add(new TcpPayloadSource(tb.signal(port.valid()), tb.signal(port.ready()), tb.signal(p.tdata),
                tb.signal(p.tkeep), tb.signal(p.seq), tb.signal(p.fin), p.dataWidth / 8, pacer));
    }

    /** Octets per beat. */
    public int octets() {
        return octets;
    }

    /**
     * Queues {@code data}, the first octet at {@code seq}, as beats of {@code beatSize.getAsInt()} octets each (clamped
     * to 1 … W/8 and to what is left).
     */
    public void send(long seq, byte[] data, IntSupplier beatSize) {
        for (int off = 0; off < data.length; ) {
            int len = Math.max(1, Math.min(Math.min(octets, beatSize.getAsInt()), data.length - off));
            push(new Beat(data, off, len, seq + off));
            off += len;
        }
    }

    /**
     * Beat sizes of a middlebox that re-segments at random: mostly full beats, with runs of 1-octet beats and random
     * partial ones mixed in.
     */
    public static IntSupplier resegmenting(Random rng, int octets) {
        int[] run = {0};
        return () -> {
            if (run[0] > 0) {
                run[0]--;
                return 1;
            }
            int pick = rng.nextInt(16);
            if (pick == 0) {
                run[0] = rng.nextInt(24);
                return 1;
            }
            return pick < 6 ? 1 + rng.nextInt(octets) : octets;
        };
    }
}
