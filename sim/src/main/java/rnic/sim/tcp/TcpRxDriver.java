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
 *
 * <p><b>End of stream.</b> When the end's connection is over — the peer's FIN arrived and the core took every octet
 * before it, or a RST — the driver shows one beat with {@code fin} set and no octets ({@code tkeep} 0, {@code seq} the
 * next sequence number), once: the core validates and delivers every FPDU before it and then moves the QP to ERR with
 * E-M1 (MPA-41, DDP-28). A design without a {@code fin} field never sees it.
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
    /** {@code fin} of the stream, or null when the design's beat has none. */
    private final SimSignal fin;
    private boolean currentFin;
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
        this.fin = ports.has(stream + "_payload_fin") ? ports.signal(stream + "_payload_fin")
                : ports.has(stream + "_fin") ? ports.signal(stream + "_fin") : null;
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
            if (currentFin) {
                currentEnd.coreEndTaken();
                currentFin = false;
                current = null;
                return;
            }
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
        if (b == null && end != null && fin != null && end.coreEndDue()) {
            b = new TcpRxPacker.Beat(new byte[tdata.width() / 8], 0, end.coreReceiveSequence());
            currentFin = true;
        }
        if (b == null) {
            valid.set(false);
            return;
        }
        current = b;
        currentEnd = end;
        tdata.setOctets(b.data(), 0, b.data().length);
        tkeep.set(b.keep());
        seq.set(b.seq() & 0xFFFF_FFFFL);
        if (fin != null) {
            fin.set(currentFin);
        }
        valid.set(true);
    }

    @Override
    public boolean busy() {
        return current != null && !currentFin || end != null && end.coreAvailable() > 0;
    }

    /** Feeds the slot from {@code next} from the next cycle on ({@code null}: unbound, idle). */
    public void bind(TcpEnd next) {
        if (currentFin && currentEnd != next) {
            // The old connection's end-of-stream beat was never taken (its QP was reset first, holding tcpRx): it
            // carries no octet and must not end the next connection's stream, so it is withdrawn.
            current = null;
            currentFin = false;
        }
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
