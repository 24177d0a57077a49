package rnic.cm;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import rnic.transport.Transport;
import rnic.verbs.Device;
import rnic.verbs.QueuePair;

/**
 * The connection manager of one device, modelled on librdmacm: listen on an address and port, connect to one, and
 * bind an independently created queue pair to the connection at connect or accept time. It runs the MPA startup
 * (RFC 5044 §7; RFC 6581 §§5–9) over the transport's TCP connections and hands each stream to the core's connection
 * slot of its queue pair (the QP number, an internal detail) at the exact octet (MPA-26).
 *
 * <p>Two ways to use it, as in librdmacm: blocking ({@link #connect}, {@link Listener#accept},
 * {@link Listener#getRequest}) or with an event channel ({@link #createEventChannel}, {@link #startConnect},
 * {@link #listen(InetSocketAddress, CmEventChannel)}, then {@link CmEventChannel#await}). Every wait is a
 * {@link Duration} of device time ({@code Transport.nanoTime()}) and lets the device run; every wait also drives
 * all other setups of this manager.
 *
 * <p>Interop defaults: Markers only when the application asks ({@link ConnectParams#withReceiveMarkers}); an RFC 6581
 * Responder that answers a different RTR form than offered, or an ORD above this side's IRD, is followed as RFC 6581
 * §9 allows (the form is adopted if the core can send it; the IRD is raised up to the device's MAX_IRD; the ORD is
 * always lowered to the peer's IRD); private data is checked against the 512-octet limit (508 with enhanced data)
 * before anything is sent.
 *
 * <p>Not thread-safe: one thread per device, like the transport.
 */
public final class ConnectionManager {
    /** How long {@link #connectWhenListening} waits between refused attempts. */
    static final Duration RETRY_PAUSE = Duration.ofNanos(2_000);

    private final Transport transport;
    private final List<Listener> listeners = new ArrayList<>();
    private final List<Connection> connecting = new ArrayList<>();
    private final List<Connection> established = new ArrayList<>();
    private boolean progressing;

    /** The connection manager of {@code device}. */
    public ConnectionManager(Device device) {
        this(device.transport());
    }

    ConnectionManager(Transport transport) {
        this.transport = transport;
    }

    Transport transport() {
        return transport;
    }

    long nanoTime() {
        return transport.nanoTime();
    }

    void advance() {
        transport.advance();
    }

    /** The device's own address (where its listeners are reached). */
    public InetAddress localAddress() {
        return transport.localAddress();
    }

    /** A new event channel; pass it to {@link #startConnect} and {@link #listen(InetSocketAddress, CmEventChannel)}. */
    public CmEventChannel createEventChannel() {
        return new CmEventChannel(this);
    }

    // ---- Passive side -----------------------------------------------------------------------------------------------

    /** Listens on {@code port} of this device's address; Requests are taken with {@link Listener#getRequest}. */
    public Listener listen(int port) {
        return listen(new InetSocketAddress(localAddress(), port));
    }

    /** Listens on {@code local}; Requests are taken with {@link Listener#getRequest} / {@link Listener#accept}. */
    public Listener listen(InetSocketAddress local) {
        return listen(local, ConnectParams.DEFAULT_TIMEOUT, null);
    }

    /** Listens on {@code local}; each validated Request is posted to {@code channel} as a ConnectRequest event. */
    public Listener listen(InetSocketAddress local, CmEventChannel channel) {
        return listen(local, ConnectParams.DEFAULT_TIMEOUT, channel);
    }

    /**
     * Listens on {@code local} (this device's address or the any-address).
     *
     * @param requestTimeout how long an incoming TCP connection may take to send its MPA Request (MPA-38)
     * @param channel        where ConnectRequest events go, or null for {@link Listener#getRequest}
     */
    public Listener listen(InetSocketAddress local, Duration requestTimeout, CmEventChannel channel) {
        if (local == null) {
            throw new IllegalArgumentException("address is null");
        }
        if (requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("request timeout must be positive, got " + requestTimeout);
        }
        checkChannel(channel);
        Listener l = new Listener(this, transport.listen(local), requestTimeout, channel);
        listeners.add(l);
        return l;
    }

    // ---- Active side -----------------------------------------------------------------------------------------------

    /**
     * Connects {@code qp} to a listener at {@code remote} and waits until the connection is established (rdma_connect
     * in synchronous mode): TCP open, the MPA Request with {@code params}, the Reply, the RFC 6581 negotiation, the RTR
     * message, and the queue pair in RTS. The whole setup takes at most {@link ConnectParams#timeout()}.
     *
     * @throws ConnectionRefusedException  nothing listens at {@code remote}
     * @throws ConnectionRejectedException the Responder answered R=1 (TCP left open, MPA-35; the queue pair in INIT)
     * @throws ConnectionTimeoutException  no TCP connection or Reply within the timeout (TCP closed, MPA-39)
     * @throws ConnectionException         an invalid Reply (E-M4, TCP closed) or a failed RFC 6581 negotiation
     *                                     (Terminate 2/0/5…7 sent, TCP closed)
     * @throws rnic.verbs.WrongStateException the queue pair is not in INIT or already bound (nothing sent)
     */
    public Connection connect(InetSocketAddress remote, QueuePair qp, ConnectParams params) {
        return connect(remote, new QpEndpoint(qp), params);
    }

    /**
     * {@link #connect}, trying again while the TCP open is refused, for up to {@code patience} of device time: for a
     * peer that is still starting its listener (hosts started together). Other failures are not retried.
     *
     * @throws ConnectionRefusedException when the peer still refuses after {@code patience}
     */
    public Connection connectWhenListening(InetSocketAddress remote, QueuePair qp, ConnectParams params,
            Duration patience) {
        return connectWhenListening(remote, new QpEndpoint(qp), params, patience);
    }

    Connection connectWhenListening(InetSocketAddress remote, Endpoint endpoint, ConnectParams params,
            Duration patience) {
        long start = nanoTime();
        while (true) {
            try {
                return connect(remote, endpoint, params);
            } catch (ConnectionRefusedException e) {
                if (nanoTime() - start > patience.toNanos()) {
                    throw e;
                }
                long pause = nanoTime();
                while (nanoTime() - pause < RETRY_PAUSE.toNanos()) {
                    progress();
                    advance();
                }
            }
        }
    }

    Connection connect(InetSocketAddress remote, Endpoint endpoint, ConnectParams params) {
        Connection c = start(remote, endpoint, params, null);
        while (!c.step()) {
            progress();
            if (c.state() == Connection.State.CONNECTING) {
                advance();
            }
        }
        if (c.state() == Connection.State.FAILED) {
            throw c.failure();
        }
        return c;
    }

    /**
     * Starts connecting {@code qp} to {@code remote} (rdma_connect in asynchronous mode); the outcome comes to
     * {@code channel}: {@link CmEvent.Established}, {@link CmEvent.Rejected}, {@link CmEvent.Refused},
     * {@link CmEvent.TimedOut} or {@link CmEvent.Failed}.
     *
     * @throws rnic.verbs.WrongStateException the queue pair is not in INIT or already bound (nothing sent)
     */
    public Connection startConnect(InetSocketAddress remote, QueuePair qp, ConnectParams params,
            CmEventChannel channel) {
        if (channel == null) {
            throw new IllegalArgumentException("startConnect reports to an event channel; use connect() to block");
        }
        return start(remote, new QpEndpoint(qp), params, channel);
    }

    Connection start(InetSocketAddress remote, Endpoint endpoint, ConnectParams params, CmEventChannel channel) {
        if (remote == null || params == null) {
            throw new IllegalArgumentException("remote address and parameters are needed");
        }
        checkChannel(channel);
        checkBindable(endpoint, "connect");
        Connection c = new Connection(this, endpoint, remote, params, channel);
        connecting.add(c);
        return c;
    }

    // ---- Bookkeeping -----------------------------------------------------------------------------------------------

    /** The queue pair must be in INIT and not in a setup under way (checked before anything is sent). */
    void checkBindable(Endpoint endpoint, String what) {
        endpoint.requireInit(what);
        for (Connection c : connecting) {
            if (c.endpoint().slot() == endpoint.slot()) {
                throw new IllegalStateException(endpoint.describe() + " is already being connected (" + c + ")");
            }
        }
    }

    private void checkChannel(CmEventChannel channel) {
        if (channel != null && channel.manager() != this) {
            throw new IllegalArgumentException("the event channel belongs to another connection manager");
        }
    }

    void established(Connection c) {
        connecting.remove(c);
        for (Connection old : established) {
            if (old.endpoint().slot() == c.endpoint().slot()) {
                old.superseded();
            }
        }
        established.removeIf(old -> old.state() != Connection.State.ESTABLISHED);
        established.add(c);
    }

    void finished(Connection c) {
        connecting.remove(c);
        established.remove(c);
    }

    void forget(Listener l) {
        listeners.remove(l);
    }

    /** One round of every setup under way: listeners, Initiators, and the established connections' TCP state. */
    void progress() {
        if (progressing) {
            return; // a blocking wait inside a step (never expected) must not re-enter
        }
        progressing = true;
        try {
            for (Listener l : List.copyOf(listeners)) {
                l.step();
            }
            for (Connection c : List.copyOf(connecting)) {
                if (c.step()) {
                    connecting.remove(c);
                }
            }
            for (Connection c : List.copyOf(established)) {
                if (c.watch()) {
                    established.remove(c);
                }
            }
        } finally {
            progressing = false;
        }
    }
}
