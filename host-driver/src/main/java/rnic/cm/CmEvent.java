package rnic.cm;

/**
 * What a {@link CmEventChannel} reports (librdmacm's {@code rdma_cm_event}), one record per event type. Connections
 * started or accepted with a channel report here; the blocking forms ({@link ConnectionManager#connect},
 * {@link Listener#accept}) return or throw instead.
 */
public sealed interface CmEvent {

    /**
     * An MPA Request arrived at a listener and was validated (RDMA_CM_EVENT_CONNECT_REQUEST; RFC 5044 §7.1.2 rule 2,
     * MPA-34): answer it with {@link ConnectionRequest#accept} or {@link ConnectionRequest#reject}.
     */
    record ConnectRequest(Listener listener, ConnectionRequest request) implements CmEvent {
    }

    /**
     * The connection is in Full Operation, its queue pair in RTS (RDMA_CM_EVENT_ESTABLISHED): at the Initiator after
     * an accepting Reply (MPA-35), at the Responder after its Reply was sent (MPA-34).
     */
    record Established(Connection connection) implements CmEvent {
    }

    /** The Responder answered R=1 (RDMA_CM_EVENT_REJECTED, MPA-35): TCP stays open; its private data is in cause. */
    record Rejected(Connection connection, ConnectionRejectedException cause) implements CmEvent {
    }

    /** Nothing listens at the address and port (RDMA_CM_EVENT_UNREACHABLE): the TCP open was refused. */
    record Refused(Connection connection, ConnectionRefusedException cause) implements CmEvent {
    }

    /** No TCP connection or no MPA Reply within the timeout (MPA-39); TCP closed. */
    record TimedOut(Connection connection, ConnectionTimeoutException cause) implements CmEvent {
    }

    /**
     * The MPA startup failed (RDMA_CM_EVENT_CONNECT_ERROR): a malformed Reply (E-M4, TCP closed), a failed RFC 6581
     * negotiation (Terminate 2/0/5…7 sent, TCP closed, MPA-49, MPA-50), or the peer closed TCP first (E-M1).
     */
    record Failed(Connection connection, ConnectionException cause) implements CmEvent {
    }

    /**
     * The connection ended (RDMA_CM_EVENT_DISCONNECTED): this side disconnected, or the peer closed (FIN) or reset
     * its TCP connection (MPA-41).
     */
    record Disconnected(Connection connection, Connection.CloseReason reason) implements CmEvent {
    }
}
