package rnic.cm;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import rnic.driver.MpaConnection;
import rnic.driver.MpaFailure;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;
import rnic.verbs.QueuePair;
import rnic.wire.MpaStartupFrame;

/**
 * A passive endpoint on an address and port (librdmacm's listening {@code rdma_cm_id}). Incoming TCP connections
 * are taken as they come; each must send a valid MPA Request within the request timeout (MPA-38: a Responder times
 * out, which also catches a Responder/Responder startup), else it is closed (a malformed Request: E-M4, MPA-28,
 * MPA-31, MPA-32) and recorded in {@link #droppedRequests()}. A valid Request becomes a {@link ConnectionRequest}:
 * posted as {@link CmEvent.ConnectRequest} when the listener has a channel, else queued for {@link #getRequest} and
 * {@link #accept}.
 */
public final class Listener implements AutoCloseable {
    private final ConnectionManager manager;
    private final TcpListener tcp;
    private final Duration requestTimeout;
    private final CmEventChannel channel;
    private final List<Incoming> incoming = new ArrayList<>();
    private final ArrayDeque<ConnectionRequest> requests = new ArrayDeque<>();
    private final List<ConnectionException> dropped = new ArrayList<>();
    private boolean closed;

    /** A TCP connection whose MPA Request has not arrived yet. */
    private record Incoming(MpaConnection mpa, long deadline) {
    }

    Listener(ConnectionManager manager, TcpListener tcp, Duration requestTimeout, CmEventChannel channel) {
        this.manager = manager;
        this.tcp = tcp;
        this.requestTimeout = requestTimeout;
        this.channel = channel;
    }

    CmEventChannel channel() {
        return channel;
    }

    /** The address and port listened on. */
    public InetSocketAddress localAddress() {
        return tcp.localAddress();
    }

    /** One round: takes new TCP connections and reads what arrived of their Requests. */
    void step() {
        if (closed) {
            return;
        }
        for (TcpConnection t = tcp.accept(); t != null; t = tcp.accept()) {
            incoming.add(new Incoming(new MpaConnection(t, manager::nanoTime, manager::advance),
                    manager.nanoTime() + requestTimeout.toNanos()));
        }
        for (Iterator<Incoming> it = incoming.iterator(); it.hasNext();) {
            Incoming in = it.next();
            try {
                MpaStartupFrame f = in.mpa().pollFrame(false);
                if (f == null) {
                    if (manager.nanoTime() > in.deadline()) {
                        throw in.mpa().timedOut(false, requestTimeout);
                    }
                    continue;
                }
                it.remove();
                ConnectionRequest r = new ConnectionRequest(manager, this, in.mpa(), f);
                if (channel != null) {
                    channel.post(new CmEvent.ConnectRequest(this, r));
                } else {
                    requests.add(r);
                }
            } catch (MpaFailure e) {
                it.remove();
                dropped.add(Connection.toException(e));
            }
        }
    }

    /**
     * The next Request, waiting up to {@code timeout} of device time (rdma_get_request). Only for a listener without
     * a channel.
     *
     * @throws ConnectionTimeoutException when none arrived in time
     */
    public ConnectionRequest getRequest(Duration timeout) {
        if (channel != null) {
            throw new IllegalStateException("this listener reports to an event channel: take ConnectRequest events");
        }
        ensureOpen();
        long start = manager.nanoTime();
        while (true) {
            manager.progress();
            ConnectionRequest r = requests.poll();
            if (r != null) {
                return r;
            }
            if (manager.nanoTime() - start > timeout.toNanos()) {
                throw new ConnectionTimeoutException("no MPA Request at " + localAddress() + " within " + timeout);
            }
            manager.advance();
        }
    }

    /** {@link #getRequest} then {@link ConnectionRequest#accept} with {@code qp}; waits up to params' timeout. */
    public Connection accept(QueuePair qp, ConnectParams params) {
        return accept(qp, params, params.timeout());
    }

    /** {@link #getRequest} waiting up to {@code wait}, then {@link ConnectionRequest#accept} with {@code qp}. */
    public Connection accept(QueuePair qp, ConnectParams params, Duration wait) {
        return getRequest(wait).accept(qp, params);
    }

    /** Incoming connections closed before their Request became a {@link ConnectionRequest}, with why. */
    public List<ConnectionException> droppedRequests() {
        return List.copyOf(dropped);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("listener on " + tcp.localAddress() + " is closed");
        }
    }

    /** Stops listening: later connects to the port are refused; Requests not yet read are closed. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        tcp.close();
        for (Incoming in : incoming) {
            in.mpa().tcp().close();
        }
        incoming.clear();
        manager.forget(this);
    }

    @Override
    public String toString() {
        return "Listener[" + localAddress() + (closed ? ", closed" : "") + "]";
    }
}
