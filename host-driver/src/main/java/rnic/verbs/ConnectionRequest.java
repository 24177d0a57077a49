package rnic.verbs;

import java.util.EnumSet;
import java.util.Set;
import rnic.driver.MpaConnection;
import rnic.wire.MpaStartupFrame;

/**
 * An MPA Request a Responder received and validated ({@link QueuePair#listen}), waiting for the application's
 * decision: {@link #accept} or {@link #reject} (RFC 5044 §7.1.2 rules 2 and 6, MPA-34). Its private data, Rev and
 * RFC 6581 IRD/ORD are the ULP's to examine (MPA-31, MPA-32, MPA-49).
 */
public final class ConnectionRequest {
    private final QueuePair qp;
    private final MpaConnection mpa;
    private final MpaStartupFrame request;
    private boolean answered;

    ConnectionRequest(QueuePair qp, MpaConnection mpa, MpaStartupFrame request) {
        this.qp = qp;
        this.mpa = mpa;
        this.request = request;
    }

    MpaConnection mpa() {
        return mpa;
    }

    MpaStartupFrame frame() {
        return request;
    }

    /** The Initiator's private data (without the enhanced octets). */
    public byte[] privateData() {
        return request.privateData();
    }

    /** The Request's Rev (1 or 2). */
    public int rev() {
        return request.rev();
    }

    /** Whether the Request carries RFC 6581 enhanced data (S=1). */
    public boolean enhanced() {
        return request.enhanced() != null;
    }

    /** The Initiator's IRD (0x3FFF: left to the ULP), or -1 without enhanced data. */
    public int peerIrd() {
        return request.enhanced() == null ? -1 : request.enhanced().ird();
    }

    /** The Initiator's ORD, or -1. */
    public int peerOrd() {
        return request.enhanced() == null ? -1 : request.enhanced().ord();
    }

    /** Whether the Initiator asks for the peer-to-peer model (A). */
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

    /** Whether the Initiator requires Markers in what it receives (M). */
    public boolean peerRequiresMarkers() {
        return request.markers();
    }

    /** The Initiator's CRC preference (C). */
    public boolean peerWantsCrc() {
        return request.crc();
    }

    public QueuePair queuePair() {
        return qp;
    }

    void answered() {
        if (answered) {
            throw new IllegalStateException("this connection request was already answered");
        }
        answered = true;
    }

    /**
     * Accepts: sends the Reply, programs the queue pair and moves it to RTS (see {@link QueuePair#accept}).
     *
     * @throws ConnectionException when the driver had to reject instead (Initiator IRD below the required ORD)
     */
    public Connection accept(ConnectParams params) {
        return qp.acceptRequest(this, params);
    }

    /**
     * Rejects with a Reply with R=1 carrying {@code privateData}; TCP stays open and the queue pair in INIT (MPA-34).
     */
    public void reject(byte[] privateData) {
        ConnectParams p = enhanced() ? ConnectParams.defaults() : ConnectParams.defaults().withRev1();
        qp.rejectRequest(this, p.withPrivateData(privateData));
    }

    @Override
    public String toString() {
        return "ConnectionRequest[QP " + qp.number() + ", " + request + "]";
    }
}
