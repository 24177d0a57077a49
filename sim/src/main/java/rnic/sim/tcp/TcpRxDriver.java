package rnic.sim.tcp;

import rnic.sim.Agent;
import rnic.sim.Pacer;
import rnic.sim.Ports;
import rnic.sim.SimSignal;

/**
 * Feeds a core's {@code tcpRx_<q>} port (a stream of {@code TcpRxBeat}: {@code tdata}, {@code tkeep}, {@code seq})
 * from the receive side of a {@link TcpEnd} once the host has handed over (MPA-26): beats cut by a
 * {@link TcpRxPacker}, presented when the {@link Pacer} allows (idle insertion), held stable until taken; the octets
 * leave the end's receive buffer — and free TCP window — only when the core takes them, so a core that stalls
 * back-pressures the sender.
 *
 * <p><b>Binding.</b> The driver serves one connection slot; which {@link TcpEnd} feeds it is {@link #bind bound} when
 * a connection hands over to the slot, and may be rebound to another end after that connection closed (a QP reused).
 * Unbound, the port is idle: {@code valid} stays low. A beat already presented when the slot is rebound is still
 * presented unchanged until taken (the stream contract) and is taken from the end it came from.
 */
public final class TcpRxDriver implements Agent {
    private final String name;
    private TcpEnd end;
    private TcpEnd currentEnd;
    private final TcpRxPacker packer;
    private final Pacer pacer;
    private final SimSignal valid;
    private final SimSignal ready;
    private final SimSignal tdata;
    private final SimSignal tkeep;
    private final SimSignal seq;
    private TcpRxPacker.Beat current;
    private long beats;
    private long octets;

    /**
     * @param ports  the design's ports
     * @param stream the stream port's name, e.g. {@code "a_tcpRx_0"} ({@code _valid}, {@code _ready},
     *               {@code _payload_tdata}, {@code _payload_tkeep}, {@code _payload_seq})
     */
    public TcpRxDriver(Ports ports, String stream, TcpEnd end /* null: unbound */, TcpRxPacker.Policy policy,
            Pacer pacer, java.util.Random rng) {
        this.name = stream;
        this.end = end;
        this.pacer = pacer;
        this.valid = ports.streamValid(stream);
        this.ready = ports.streamReady(stream);
        this.tdata = ports.streamField(stream, "tdata");
        this.tkeep = ports.streamField(stream, "tkeep");
        this.seq = ports.streamField(stream, "seq");
        this.packer = new TcpRxPacker(tdata.width(), policy, rng);
        if (tkeep.width() != tdata.width() / 8 || seq.width() != 32) {
            throw new IllegalArgumentException(stream + " is not a TcpRxBeat stream: tdata " + tdata.width()
                    + " bits, tkeep " + tkeep.width() + ", seq " + seq.width());
        }
        valid.set(false);
    }

    @Override
    public void sample() {
        if (current != null && ready.getBool()) {
            packer.taken(currentEnd, current);
            beats++;
            octets += current.len();
            current = null;
        }
    }

    @Override
    public void drive() {
        if (current != null) {
            return; // presented and not yet taken: keep valid and payload
        }
        TcpRxPacker.Beat b = end != null && pacer.allow() ? packer.next(end) : null;
        if (b == null) {
            valid.set(false);
            return;
        }
        current = b;
        currentEnd = end;
        tdata.setOctets(b.data(), 0, b.data().length);
        tkeep.set(b.keep());
        seq.set(b.seq() & 0xFFFF_FFFFL);
        valid.set(true);
    }

    @Override
    public boolean busy() {
        return current != null || end != null && end.coreAvailable() > 0;
    }

    /** Feeds the slot from {@code next} from the next cycle on ({@code null}: unbound, idle). */
    public void bind(TcpEnd next) {
        this.end = next;
    }

    /** The end this slot is bound to, or {@code null}. */
    public TcpEnd end() {
        return end;
    }

    /** Beats the core took. */
    public long beats() {
        return beats;
    }

    /** Octets the core took. */
    public long octets() {
        return octets;
    }

    @Override
    public String toString() {
        return name + " <- " + (end == null ? "(unbound)" : end.name());
    }
}
