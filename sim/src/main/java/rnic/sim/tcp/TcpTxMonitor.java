package rnic.sim.tcp;

import java.util.Arrays;
import rnic.sim.Agent;
import rnic.sim.Pacer;
import rnic.sim.Ports;
import rnic.sim.SimSignal;
import rnic.sim.Tb;

/**
 * Takes a core's {@code tcpTx_<q>} port (a stream of {@code AxisBeat}: {@code tdata}, {@code tkeep}, {@code tlast};
 * one TCP segment per {@code tlast}) into the send side of a {@link TcpEnd}: each finished segment goes on the wire
 * after every octet queued before it, the host's MPA startup octets first (MPA-26).
 *
 * <p>{@code ready} is high when the {@link Pacer} allows and the end has handed over and has send-buffer room
 * ({@link TcpEnd#coreCanSend}), so a full TCP window back-pressures the core, and a beat presented before the host
 * hands over waits for the hand-over. Checks the stream contract (a beat not taken stays presented, unchanged) and the
 * beat contract of {@link TcpTxAssembler}.
 *
 * <p><b>Binding.</b> The monitor serves one connection slot; the {@link TcpEnd} it feeds is {@link #bind bound} when a
 * connection hands over to the slot and may be rebound after that connection closed. <b>Unbound, or bound to an end
 * that can no longer send (closed, reset, buffer full), {@code ready} stays low</b>: the core's segment waits in the
 * core, nothing is dropped by the harness. Rebinding while a segment is half taken (its first beats taken, its
 * {@code tlast} not yet) takes and drops the rest of that segment before serving the new end: it belongs to the old
 * connection, which is gone ({@link #discardedOctets()} counts it), and must not start the new connection's stream.
 */
public final class TcpTxMonitor implements Agent {
    private final String name;
    private TcpEnd end;
    /** The end {@code ready} was raised for in the last {@link #drive()}. */
    private TcpEnd readyEnd;
    private boolean draining;
    private long discarded;
    private final Pacer pacer;
    private final SimSignal valid;
    private final SimSignal ready;
    private final SimSignal tdata;
    private final SimSignal tkeep;
    private final SimSignal tlast;
    private final TcpTxAssembler assembler;
    private boolean readyNow;
    private byte[] stalledData;
    private long stalledKeep;
    private boolean stalledLast;
    private long beats;

    /**
     * @param ports  the design's ports
     * @param stream the stream port's name, e.g. {@code "a_tcpTx_0"}
     */
    public TcpTxMonitor(Ports ports, String stream, TcpEnd end /* null: unbound */, Pacer pacer) {
        this.name = stream;
        this.end = end;
        this.pacer = pacer;
        this.valid = ports.streamValid(stream);
        this.ready = ports.streamReady(stream);
        this.tdata = ports.streamField(stream, "tdata");
        this.tkeep = ports.streamField(stream, "tkeep");
        this.tlast = ports.streamField(stream, "tlast");
        if (tkeep.width() != tdata.width() / 8) {
            throw new IllegalArgumentException(stream + " is not an AxisBeat stream: tdata " + tdata.width()
                    + " bits, tkeep " + tkeep.width());
        }
        this.assembler = new TcpTxAssembler(stream, tdata.width());
        ready.set(false);
    }

    private boolean armed;
    private ValidWord validWord;
    private int validBit;

    /**
     * The slots' {@code valid} bits of one core gathered in one output (bit {@code q} of {@code validWord} is this
     * slot's): read once per cycle for all the slots, instead of each slot reading its own {@code valid}.
     */
    public TcpTxMonitor validFrom(ValidWord word, int bit) {
        this.validWord = word;
        this.validBit = bit;
        return this;
    }

    /** An output word of {@code valid} bits, read at most once per cycle however many monitors ask. */
    public static final class ValidWord {
        private final Tb<?> tb;
        private final SimSignal word;
        private long cycle = -1;
        private long bits;

        public ValidWord(Tb<?> tb, SimSignal word) {
            this.tb = tb;
            this.word = word;
        }

        boolean bit(int i) {
            if (cycle != tb.cycle()) {
                bits = word.get();
                cycle = tb.cycle();
            }
            return (bits >>> i & 1) != 0;
        }
    }

    /** From now on the stream is checked and taken (before, e.g. during reset, it is ignored and not acknowledged). */
    public void arm() {
        armed = true;
    }

    @Override
    public void sample() {
        if (!armed) {
            return;
        }
        if (!(validWord != null ? validWord.bit(validBit) : valid.getBool())) {
            if (stalledData != null) {
                throw new AssertionError(name + ": valid dropped while a beat was waiting for ready");
            }
            return;
        }
        byte[] d = tdata.getOctets();
        long k = tkeep.get();
        boolean l = tlast.getBool();
        if (stalledData != null && (!Arrays.equals(d, stalledData) || k != stalledKeep || l != stalledLast)) {
            throw new AssertionError(name + ": payload changed while waiting for ready");
        }
        if (!readyNow) {
            stalledData = d;
            stalledKeep = k;
            stalledLast = l;
            return;
        }
        stalledData = null;
        beats++;
        byte[] segment = assembler.beat(d, k, l);
        if (segment != null) {
            if (draining || readyEnd != end) {
                discarded += segment.length; // the rest of a segment of a connection this slot no longer serves
                draining = false;
            } else {
                end.coreSend(segment);
            }
        }
    }

    @Override
    public void drive() {
        readyNow = armed && (draining || end != null && end.coreCanSend()) && pacer.allow();
        readyEnd = end;
        ready.set(readyNow);
    }

    @Override
    public boolean busy() {
        return assembler.pending() > 0;
    }

    /** Takes the slot's segments into {@code next} from the next cycle on ({@code null}: unbound, ready low). */
    public void bind(TcpEnd next) {
        if (next != end && assembler.pending() > 0) {
            draining = true;
        }
        this.end = next;
    }

    /** The end this slot is bound to, or {@code null}. */
    public TcpEnd end() {
        return end;
    }

    /** Octets of segments dropped because their slot was rebound while they were half taken. */
    public long discardedOctets() {
        return discarded;
    }

    /** Segments the core sent. */
    public long segments() {
        return assembler.segments();
    }

    /** Beats taken. */
    public long beats() {
        return beats;
    }

    @Override
    public String toString() {
        return name + " -> " + (end == null ? "(unbound)" : end.name());
    }
}
