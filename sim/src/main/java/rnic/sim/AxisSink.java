package rnic.sim;

import java.io.ByteArrayOutputStream;
import java.util.function.Consumer;
import rnic.hw.axis.AxisBeat;
import spinal.lib.Stream;

/**
 * Receives whole packets from an AXI-Stream port ({@code tdata}, {@code tkeep}, {@code tlast}) with back-pressure from
 * a {@link Pacer}, and checks the beat contract the project's packet streams keep: {@code tkeep} contiguous from octet
 * 0, all ones except on the last beat, never empty.
 */
public final class AxisSink {
    private AxisSink() {
    }

    /** One received beat. */
    record Beat(byte[] data, long keep, boolean last) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Beat b && b.keep == keep && b.last == last && java.util.Arrays.equals(b.data, data);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(data);
        }
    }

    /** A sink agent on a design's master stream of {@link AxisBeat}; {@code onPacket} gets each packet's octets. */
    public static StreamSink<?> on(Tb<?> tb, Stream<AxisBeat> port, Pacer pacer, Consumer<byte[]> onPacket) {
        AxisBeat p = port.payload();
        SimSignal tdata = tb.signal(p.tdata);
        SimSignal tkeep = tb.signal(p.tkeep);
        SimSignal tlast = tb.signal(p.tlast);
        int octets = p.dataWidth / 8;
        long full = octets == 64 ? -1L : (1L << octets) - 1;
        ByteArrayOutputStream packet = new ByteArrayOutputStream();
        String name = port.getName();
        return tb.add(new StreamSink<Beat>(name, tb.signal(port.valid()), tb.signal(port.ready()),
                () -> new Beat(tdata.getOctets(), tkeep.get(), tlast.getBool()), pacer, b -> {
                    int n = Long.numberOfTrailingZeros(~b.keep);
                    if (n == 0 || (n < 64 && (b.keep >>> n) != 0)) {
                        throw new AssertionError(name + ": tkeep " + Long.toHexString(b.keep)
                                + " is empty or not contiguous from octet 0");
                    }
                    if (!b.last && b.keep != full) {
                        throw new AssertionError(name + ": partial beat (tkeep " + Long.toHexString(b.keep)
                                + ") before the end of a packet");
                    }
                    packet.write(b.data, 0, Math.min(n, octets));
                    if (b.last) {
                        onPacket.accept(packet.toByteArray());
                        packet.reset();
                    }
                }));
    }
}
