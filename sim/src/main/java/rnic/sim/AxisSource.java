package rnic.sim;

import rnic.hw.axis.AxisBeat;
import spinal.lib.Stream;

/**
 * Sends whole messages on an AXI-Stream port ({@code tdata}, {@code tkeep}, {@code tlast}): octet 0 of each beat in
 * {@code tdata[7:0]}, {@code tkeep} all ones except on the last beat, where it covers the remaining octets.
 */
public final class AxisSource extends StreamSource<AxisSource.Beat> {
    /** One beat: {@code len} valid octets of {@code data} starting at {@code off}. */
    public record Beat(byte[] data, int off, int len, boolean last) {
    }

    private final int octets;

    private AxisSource(SimSignal valid, SimSignal ready, SimSignal tdata, SimSignal tkeep, SimSignal tlast,
            int octets, Pacer pacer) {
        super(valid, ready, b -> {
            tdata.setOctets(b.data, b.off, b.len);
            tkeep.set(b.len == 64 ? -1L : (1L << b.len) - 1);
            tlast.set(b.last);
        }, pacer);
        this.octets = octets;
    }

    /** A source on a design's slave stream of {@link AxisBeat}. */
    public static AxisSource on(Tb<?> tb, Stream<AxisBeat> port, Pacer pacer) {
        AxisBeat p = port.payload();
        return new AxisSource(tb.signal(port.valid()), tb.signal(port.ready()), tb.signal(p.tdata),
                tb.signal(p.tkeep), tb.signal(p.tlast), p.dataWidth / 8, pacer);
    }

    /** Queues {@code message} as ceil(len / octets) beats (an empty message is one beat with no octet). */
    public void send(byte[] message) {
        if (message.length == 0) {
            push(new Beat(message, 0, 0, true));
            return;
        }
        for (int off = 0; off < message.length; off += octets) {
            int len = Math.min(octets, message.length - off);
            push(new Beat(message, off, len, off + len == message.length));
        }
    }

    /** Octets per beat. */
    public int octets() {
        return octets;
    }
}
