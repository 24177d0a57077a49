package rnic.cm;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Set;
import rnic.driver.MpaConnection;
import rnic.driver.MpaNegotiation;
import rnic.verbs.QueuePair;
import rnic.wire.MpaStartupFrame;

/**
 * An MPA Request a listener received and validated, waiting for the application's decision: {@link #accept} with a
 * queue pair or {@link #reject} (RFC 5044 §7.1.2 rules 2 and 6, MPA-34). Its private data, Rev, RFC 6581 IRD/ORD,
 * peer-to-peer flag and offered RTR forms, and the M and C wishes are the ULP's to examine (MPA-29, MPA-31, MPA-32,
 * MPA-49, MPA-50).
 */
public final class ConnectionRequest {
    private final ConnectionManager manager;
    private final Listener listener;
    private final MpaConnection mpa;
    private final MpaStartupFrame request;
    private boolean answered;

    ConnectionRequest(ConnectionManager manager, Listener listener, MpaConnection mpa, MpaStartupFrame request) {
        this.manager = manager;
        this.listener = listener;
        this.mpa = mpa;
        this.request = request;
    }

    /** The listener the Request came to. */
    public Listener listener() {
        return listener;
    }

    /** The Initiator's address and port. */
    public InetSocketAddress remoteAddress() {
        return mpa.tcp().remoteAddress();
    }

    /** This side's address and port of the connection. */
    public InetSocketAddress localAddress() {
        return mpa.tcp().localAddress();
    }

    /** The Initiator's private data (without the enhanced octets, MPA-32). */
    public byte[] privateData() {
        return request.privateData();
    }

    /** The Request's Rev (1 or 2, MPA-31). */
    public int rev() {
        return request.rev();
    }

    /** Whether the Request carries RFC 6581 enhanced data (S=1, MPA-48). */
    public boolean enhanced() {
        return request.enhanced() != null;
    }

    /** The Initiator's IRD (0x3FFF: left to the ULP), or -1 without enhanced data (MPA-49). */
    public int peerIrd() {
        return request.enhanced() == null ? -1 : request.enhanced().ird();
    }

    /** The Initiator's ORD, or -1. */
    public int peerOrd() {
        return request.enhanced() == null ? -1 : request.enhanced().ord();
    }

    /** Whether the Initiator asks for the peer-to-peer model (A, MPA-50). */
    public boolean peerToPeer() {
        return request.enhanced() != null && request.enhanced().peerToPeer();
    }

    /** The RTR forms the Initiator offers (B, C, D; empty when A=0). */
    public Set<RtrForm> offeredRtr() {
        EnumSet<RtrForm> s = EnumSet.noneOf(RtrForm.class);
        MpaStartupFrame.Enhanced e = request.enhanced();
        if (e != null && e.peerToPeer()) {
            if (e.sendRtr()) {
                s.add(RtrForm.SEND);
            }
            if (e.writeRtr()) {
                s.add(RtrForm.RDMA_WRITE);
            }
            if (e.readRtr()) {
                s.add(RtrForm.RDMA_READ);
            }
        }
        return s;
    }

    /** Whether the Initiator requires Markers in what it receives (M, MPA-29). */
    public boolean peerRequiresMarkers() {
        return request.markers();
    }

    /** The Initiator's CRC preference (C). */
    public boolean peerWantsCrc() {
        return request.crc();
    }

    /** Whether accept or reject was called. */
    public boolean answered() {
        return answered;
    }

    private void answer(String what) {
        if (answered) {
            throw new IllegalStateException("this connection request was already answered; cannot " + what);
        }
    }

    /**
     * Accepts with {@code qp}: sends the Reply, programs the queue pair, hands the stream to it and moves it to RTS
     * (rdma_accept). The queue pair must be in INIT and bound to no other connection; nothing is sent otherwise.
     * With a channel, an {@link CmEvent.Established} is posted too.
     *
     * @throws rnic.verbs.WrongStateException the queue pair is not in INIT (nothing sent; the request can still be
     *                                        answered)
     * @throws ConnectionException            the driver had to reject instead (Initiator IRD below the required ORD,
     *                                        MPA-49, E-M6: reject Reply sent, TCP open) or the queue pair did not
     *                                        enter RTR (TCP closed)
     */
    public Connection accept(QueuePair qp, ConnectParams params) {
        return accept(new QpEndpoint(qp), params);
    }

    Connection accept(Endpoint endpoint, ConnectParams params) {
        answer("accept");
        manager.checkBindable(endpoint, "accept");
        answered = true;
        Connection c = new Connection(manager, endpoint, mpa, params, listener.channel());
        c.acceptRequest(request);
        return c;
    }

    /**
     * Rejects with a Reply with R=1 carrying {@code privateData} in the Request's format (rdma_reject); TCP stays
     * open (MPA-34).
     *
     * @throws IllegalArgumentException when the private data does not fit (512 octets, 508 with enhanced data,
     *                                  MPA-32, MPA-48); nothing is sent and the request can still be answered
     */
    public void reject(byte[] privateData) {
        answer("reject");
        ConnectParams p = (enhanced() ? ConnectParams.defaults() : ConnectParams.defaults().withRev1())
                .withPrivateData(privateData);
        MpaNegotiation.Offer o = p.offer(false);
        answered = true;
        mpa.reject(request, o);
    }

    @Override
    public String toString() {
        return "ConnectionRequest[from " + remoteAddress() + ", " + request + "]";
    }
}
