package rnic.cm;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import rnic.driver.MpaConnection;
import rnic.driver.MpaFailure;
import rnic.driver.MpaNegotiation;
import rnic.driver.MpaSettings;
import rnic.transport.TcpConnection;
import rnic.verbs.DeviceException;
import rnic.verbs.QueuePair;
import rnic.wire.MpaErrorCode;
import rnic.wire.MpaStartupFrame;
import rnic.wire.WqeOpcode;

/**
 * One RDMA connection (librdmacm's connected {@code rdma_cm_id}): a TCP connection between two addresses and ports,
 * the MPA startup over it (RFC 5044 §7.1; RFC 6581 §§5–9), and the queue pair bound to it. After the startup it
 * reports what was agreed (RFC 5044 §7.1, RFC 6581 §9: the peer's Rev, IRD/ORD and private data are passed to the ULP,
 * MPA-31, MPA-32, MPA-49).
 *
 * <p>An Initiator's connection is made by {@link ConnectionManager#connect} (blocking) or
 * {@link ConnectionManager#startConnect} (events); a Responder's by {@link ConnectionRequest#accept}. The queue
 * pair's number is the core's connection slot: the stream is handed to that slot at the octet after the startup
 * frames (MPA-26).
 *
 * <p>{@link #disconnect} is orderly: sends already posted complete (or are flushed when the wait is over), the queue
 * pair goes to ERR (flushing what is left), then TCP is closed with a FIN.
 */
public final class Connection {

    /** Where a connection is. */
    public enum State {
        /** TCP open or MPA startup under way. */
        CONNECTING,
        /** Full Operation: the queue pair is in RTS. */
        ESTABLISHED,
        /** The startup failed ({@link #failure()}); the queue pair stays in INIT. */
        FAILED,
        /** Ended by {@link #disconnect} or by the peer. */
        DISCONNECTED
    }

    /** Why a connection ended. */
    public enum CloseReason {
        /** This side called {@link #disconnect}. */
        LOCAL,
        /** The peer closed its TCP half (FIN). */
        PEER_CLOSED,
        /** The TCP connection was reset. */
        RESET
    }

    private final ConnectionManager manager;
    private final Endpoint endpoint;
    private final boolean initiator;
    private final ConnectParams params;
    private final CmEventChannel channel;
    private final InetSocketAddress remote;
    private final long deadline;
    private TcpConnection tcp;
    private MpaConnection mpa;
    private MpaStartupFrame request;
    private MpaNegotiation.Offer offer;
    private State state = State.CONNECTING;
    private boolean requestSent;
    private ConnectionException failure;
    private CloseReason closeReason;

    // what was agreed
    private MpaNegotiation.Outcome outcome;
    private long txSeqStart;
    private long rxSeqStart;
    private int mulpdu;

    /** Initiator: opens TCP to {@code remote}; {@link #step} does the rest. */
    Connection(ConnectionManager manager, Endpoint endpoint, InetSocketAddress remote, ConnectParams params,
            CmEventChannel channel) {
        this.manager = manager;
        this.endpoint = endpoint;
        this.initiator = true;
        this.params = params;
        this.channel = channel;
        this.remote = remote;
        this.deadline = manager.nanoTime() + params.timeout().toNanos();
        this.offer = params.offer(true, endpoint.irdLimit());
        this.tcp = manager.transport().connect(remote);
        this.mpa = new MpaConnection(tcp, manager::nanoTime, manager::advance);
    }

    /** Responder: the Request was read from {@code mpa}; accepting now. */
    Connection(ConnectionManager manager, Endpoint endpoint, MpaConnection mpa, ConnectParams params,
            CmEventChannel channel) {
        this.manager = manager;
        this.endpoint = endpoint;
        this.initiator = false;
        this.params = params;
        this.channel = channel;
        this.tcp = mpa.tcp();
        this.mpa = mpa;
        this.remote = tcp.remoteAddress();
        this.deadline = Long.MAX_VALUE;
    }

    // ---- Initiator progress ---------------------------------------------------------------------------------------

    /** One round of the Initiator's startup without waiting; true when the connection left CONNECTING. */
    boolean step() {
        if (state != State.CONNECTING) {
            return true;
        }
        try {
            if (!requestSent) {
                if (tcp.refused()) {
                    fail(new ConnectionRefusedException("connection to " + remote + " refused: nothing listens there"));
                    return true;
                }
                if (!tcp.established()) {
                    if (manager.nanoTime() > deadline) {
                        tcp.abort();
                        fail(new ConnectionTimeoutException("no TCP connection to " + remote + " within "
                                + params.timeout() + " of device time"));
                    }
                    return state != State.CONNECTING;
                }
                request = mpa.sendRequest(offer);
                requestSent = true;
            }
            MpaStartupFrame reply = mpa.pollFrame(true);
            if (reply == null) {
                if (manager.nanoTime() > deadline) {
                    throw mpa.timedOut(true, params.timeout());
                }
                return false;
            }
            enterFullOperation(mpa.complete(request, reply, offer));
        } catch (MpaFailure f) {
            fail(toException(f));
        } catch (ConnectionException e) {
            fail(e);
        }
        return true;
    }

    /** Responder: sends the Reply for {@code frame} and enters Full Operation. */
    void acceptRequest(MpaStartupFrame frame) {
        boolean sendRtrPossible = endpoint.canTakeSendRtr();
        MpaNegotiation.Outcome o;
        try {
            o = mpa.accept(frame, params.offer(sendRtrPossible, endpoint.irdLimit()));
        } catch (MpaFailure f) {
            failure = toException(f);
            state = State.FAILED;
            throw failure;
        }
        try {
            enterFullOperation(o);
        } catch (ConnectionException e) {
            failure = e;
            state = State.FAILED;
            throw e;
        }
    }

    /**
     * Programs the negotiated settings, INIT→RTR, the RTR message (Initiator) or the receive for a Send RTR
     * (Responder), the hand-over of the stream to the queue pair's slot at the octet after the startup frames
     * (MPA-26), RTR→RTS.
     */
    private void enterFullOperation(MpaNegotiation.Outcome o) {
        rxSeqStart = tcp.receiveSequence();
        txSeqStart = tcp.sendSequence();
        MpaSettings s = new MpaSettings(o.txMarkers(), o.rxMarkers(), o.crc(), !initiator, o.ird(), o.ord(),
                params.emss(), rxSeqStart);
        boolean sendRtr = !initiator && o.rtrForms().equals(Set.of(WqeOpcode.SEND));
        try {
            mulpdu = endpoint.enterFullOperation(s, initiator ? o.rtr() : null, sendRtr, tcp);
        } catch (DeviceException e) {
            boolean enhanced = o.peerIrd() >= 0;
            if (enhanced && initiator) {
                mpa.terminate(MpaErrorCode.ENHANCED_SETUP_FAILURE, o.txMarkers());
            } else {
                tcp.close();
            }
            throw new ConnectionException(enhanced ? MpaErrorCode.ENHANCED_SETUP_FAILURE : null,
                    e.getMessage() + (enhanced && initiator ? "; Terminate 2/0/5 sent" : "") + ", TCP closed");
        }
        outcome = o;
        state = State.ESTABLISHED;
        manager.established(this);
        post(new CmEvent.Established(this));
    }

    private void fail(ConnectionException e) {
        failure = e;
        state = State.FAILED;
        manager.finished(this);
        if (e instanceof ConnectionRejectedException r) {
            post(new CmEvent.Rejected(this, r));
        } else if (e instanceof ConnectionRefusedException r) {
            post(new CmEvent.Refused(this, r));
        } else if (e instanceof ConnectionTimeoutException t) {
            post(new CmEvent.TimedOut(this, t));
        } else {
            post(new CmEvent.Failed(this, e));
        }
    }

    private void post(CmEvent e) {
        if (channel != null) {
            channel.post(e);
        }
    }

    static ConnectionException toException(MpaFailure f) {
        return switch (f.kind()) {
            case TIMEOUT -> new ConnectionTimeoutException(f.getMessage());
            case REJECTED -> {
                MpaStartupFrame reply = f.peerFrame();
                MpaStartupFrame.Enhanced e = reply.enhanced();
                yield new ConnectionRejectedException(f.getMessage(), reply.privateData(), reply.rev(),
                        e == null ? -1 : e.ird(), e == null ? -1 : e.ord());
            }
            default -> new ConnectionException(f.code(), f.getMessage());
        };
    }

    // ---- Established: watching the peer -----------------------------------------------------------------------------

    /** Notices a FIN or reset of the peer once; true when the connection ended. */
    boolean watch() {
        if (state != State.ESTABLISHED) {
            return true;
        }
        if (tcp.peerFinished() || tcp.closed()) {
            closeReason = tcp.peerFinished() ? CloseReason.PEER_CLOSED : CloseReason.RESET;
            state = State.DISCONNECTED;
            post(new CmEvent.Disconnected(this, closeReason));
            return true;
        }
        return false;
    }

    /** Another connection took this one's slot (the queue pair was reset and connected again). */
    void superseded() {
        if (state == State.ESTABLISHED) {
            state = State.DISCONNECTED;
            closeReason = CloseReason.LOCAL;
        }
    }

    Endpoint endpoint() {
        return endpoint;
    }

    // ---- Application view --------------------------------------------------------------------------------------------

    public State state() {
        return state;
    }

    /** Whether this side sent the MPA Request. */
    public boolean initiator() {
        return initiator;
    }

    /** The queue pair bound to this connection. */
    public QueuePair queuePair() {
        return endpoint.queuePair();
    }

    /** The peer's address and port. */
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    /** This side's address and port (once TCP is open). */
    public InetSocketAddress localAddress() {
        return tcp.localAddress();
    }

    /** Why the startup failed, or null. */
    public ConnectionException failure() {
        return failure;
    }

    /** Why the connection ended, or null while it has not. */
    public CloseReason closeReason() {
        return closeReason;
    }

    /** Whether the peer closed or reset its TCP connection (checks now). */
    public boolean peerClosed() {
        manager.progress();
        return closeReason == CloseReason.PEER_CLOSED || closeReason == CloseReason.RESET;
    }

    private MpaNegotiation.Outcome agreed() {
        if (outcome == null) {
            throw new IllegalStateException("connection to " + remote + " is " + state
                    + ": nothing was agreed" + (failure != null ? " (" + failure.getMessage() + ")" : ""));
        }
        return outcome;
    }

    /** Rev of the peer's frame (MPA-31). */
    public int peerRev() {
        return agreed().peerRev();
    }

    /** Whether RFC 6581 enhanced frames were exchanged. */
    public boolean enhanced() {
        return agreed().peerIrd() >= 0;
    }

    /** Whether this side inserts Markers (the peer's frame had M=1, MPA-29). */
    public boolean txMarkers() {
        return agreed().txMarkers();
    }

    /** Whether the peer inserts Markers. */
    public boolean rxMarkers() {
        return agreed().rxMarkers();
    }

    /** Whether CRC32c is on in both directions. */
    public boolean crc() {
        return agreed().crc();
    }

    /** This side's IRD (QP_IRD). */
    public int ird() {
        return agreed().ird();
    }

    /** This side's ORD (QP_ORD): at most the peer's IRD (MPA-49). */
    public int ord() {
        return agreed().ord();
    }

    /** IRD in the peer's enhanced data (0x3FFF: left to the ULP), or -1. */
    public int peerIrd() {
        return agreed().peerIrd();
    }

    /** ORD in the peer's enhanced data, or -1. */
    public int peerOrd() {
        return agreed().peerOrd();
    }

    /** The A flag: an RTR message was exchanged (MPA-50). */
    public boolean peerToPeer() {
        return agreed().peerToPeer();
    }

    /** Initiator: the RTR it sent; Responder: the forms it accepted (empty without RTR). */
    public Set<RtrForm> rtrForms() {
        EnumSet<RtrForm> forms = EnumSet.noneOf(RtrForm.class);
        for (WqeOpcode op : agreed().rtrForms()) {
            forms.add(RtrForm.of(op));
        }
        return forms;
    }

    /** The peer's private data (without the enhanced octets, MPA-32). */
    public byte[] peerPrivateData() {
        return agreed().peerPrivateData();
    }

    /** TCP sequence number of this side's first Full-Operation octet (MPA-26). */
    public long txSeqStart() {
        agreed();
        return txSeqStart;
    }

    /** TCP sequence number of the peer's first Full-Operation octet (QP_RX_SEQ_START, MPA-26). */
    public long rxSeqStart() {
        agreed();
        return rxSeqStart;
    }

    /** QP_MULPDU the core derived. */
    public int mulpdu() {
        agreed();
        return mulpdu;
    }

    /** {@link #disconnect(Duration)} with the connection's startup timeout as the wait for outstanding sends. */
    public void disconnect() {
        disconnect(params.timeout());
    }

    /**
     * Ends the connection in order (rdma_disconnect): waits up to {@code drain} of device time for the sends already
     * posted to complete, moves the queue pair to ERR (what is still outstanding is flushed, receives included), and
     * closes TCP with a FIN (MPA-41). A connection whose startup failed just closes its TCP connection (a rejected one
     * was left open, MPA-35). Idempotent.
     */
    public void disconnect(Duration drain) {
        if (state == State.CONNECTING) {
            tcp.abort();
            fail(new ConnectionException(null, "connection to " + remote + " abandoned by the application"));
            return;
        }
        if (state == State.FAILED) {
            tcp.close();
            return;
        }
        if (state == State.ESTABLISHED) {
            long start = manager.nanoTime();
            while (endpoint.sendOutstanding() > 0 && manager.nanoTime() - start <= drain.toNanos()) {
                manager.advance();
            }
            endpoint.stop();
            tcp.close();
            state = State.DISCONNECTED;
            closeReason = CloseReason.LOCAL;
            manager.finished(this);
            post(new CmEvent.Disconnected(this, CloseReason.LOCAL));
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("Connection[").append(initiator ? "Initiator" : "Responder")
                .append(" → ").append(remote).append(", ").append(endpoint.describe()).append(", ").append(state);
        if (outcome != null) {
            MpaNegotiation.Outcome o = outcome;
            b.append(", peer Rev ").append(o.peerRev()).append(o.peerIrd() >= 0 ? ", enhanced" : "")
                    .append(", markers tx/rx ").append(o.txMarkers()).append('/').append(o.rxMarkers())
                    .append(", CRC ").append(o.crc()).append(", IRD ").append(o.ird()).append(" ORD ").append(o.ord());
            if (o.peerIrd() >= 0) {
                b.append(" (peer IRD ").append(o.peerIrd()).append(" ORD ").append(o.peerOrd()).append(')');
            }
            if (o.peerToPeer()) {
                b.append(", RTR ").append(rtrForms());
            }
            b.append(", PD ").append(o.peerPrivateData().length).append(", seq tx ").append(txSeqStart)
                    .append(" rx ").append(rxSeqStart).append(", MULPDU ").append(mulpdu);
        }
        if (failure != null) {
            b.append(", ").append(failure.getMessage());
        }
        return b.append(']').toString();
    }
}
