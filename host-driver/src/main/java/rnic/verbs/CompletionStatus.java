package rnic.verbs;

import rnic.wire.CqeKind;
import rnic.wire.MpaErrorCode;
import rnic.wire.TerminateCause;

/**
 * How a work request or a queue pair ended (verbs {@code ibv_wc_status}, in iWARP terms), mapped from the completion
 * entry's kind and status and, for Terminates, from the cause or the Terminate's Layer/EType/Code (RFC 5040 §4.8,
 * docs/requirements.md §3). The raw values stay available on {@link Completion}.
 *
 * <table>
 *   <caption>Mapping</caption>
 *   <tr><th>entry</th><th>status</th></tr>
 *   <tr><td>SEND_DONE, READ_DONE, ATOMIC_DONE, LOCAL_INVALIDATE_DONE, RECEIVE, RECEIVE_IMMEDIATE, status 0</td>
 *       <td>{@link #SUCCESS}</td></tr>
 *   <tr><td>the same kinds with a status ≠ 0; an unknown kind or cause</td>
 *       <td>{@link #LOCAL_QP_OPERATION_ERROR}</td></tr>
 *   <tr><td>TERMINATE_RECEIVED, Layer RDMA EType 1 (remote protection) or DDP EType 1 (tagged buffer)</td>
 *       <td>{@link #REMOTE_ACCESS_ERROR}</td></tr>
 *   <tr><td>TERMINATE_RECEIVED, RDMA EType 2 (remote operation)</td><td>{@link #REMOTE_OPERATION_ERROR}</td></tr>
 *   <tr><td>TERMINATE_RECEIVED, DDP EType 2 (untagged buffer)</td><td>{@link #REMOTE_INVALID_REQUEST}</td></tr>
 *   <tr><td>TERMINATE_RECEIVED, LLP (MPA) EType 0</td><td>{@link #MPA_ERROR}</td></tr>
 *   <tr><td>TERMINATE_RECEIVED, anything else (local catastrophic at the peer)</td>
 *       <td>{@link #TERMINATED_BY_PEER}</td></tr>
 *   <tr><td>TERMINATE_SENT: E-D1…E-D6, E-R1…E-R7, E-R18</td><td>{@link #PEER_ACCESS_VIOLATION}</td></tr>
 *   <tr><td>TERMINATE_SENT: E-D9</td><td>{@link #NO_RECEIVE_BUFFER}</td></tr>
 *   <tr><td>TERMINATE_SENT: E-D12</td><td>{@link #LOCAL_LENGTH_ERROR}</td></tr>
 *   <tr><td>TERMINATE_SENT: E-D7, E-D8, E-D10, E-D11, E-D13, E-R8…E-R12, E-R15…E-R17, E-R19, E-R20</td>
 *       <td>{@link #PEER_PROTOCOL_ERROR}</td></tr>
 *   <tr><td>TERMINATE_SENT: E-D0, E-R0, E-R13, E-R14</td><td>{@link #LOCAL_CATASTROPHIC_ERROR}</td></tr>
 *   <tr><td>TERMINATE_SENT: E-R21</td><td>{@link #LOCAL_PROTECTION_ERROR}</td></tr>
 *   <tr><td>MPA_ERROR</td><td>{@link #MPA_ERROR}</td></tr>
 *   <tr><td>(driver) a work request not completed when its queue pair entered ERR</td>
 *       <td>{@link #FLUSH_ERROR}</td></tr>
 * </table>
 */
public enum CompletionStatus {
    /** Completed. */
    SUCCESS,
    /** Not executed: the queue pair went to ERR first; every request not completed is flushed with this. */
    FLUSH_ERROR,
    /**
     * The peer refused a request of this side for protection: invalid STag, bounds, access rights, PD or stream
     * (its Terminate has Layer RDMA or DDP with EType 1).
     */
    REMOTE_ACCESS_ERROR,
    /** The peer refused a message of this side as an invalid operation (Terminate Layer RDMA, EType 2). */
    REMOTE_OPERATION_ERROR,
    /**
     * The peer refused an untagged message of this side: no receive buffer, a Send larger than the buffer, an invalid
     * QN, MSN or MO (Terminate Layer DDP, EType 2).
     */
    REMOTE_INVALID_REQUEST,
    /** The peer terminated the stream for its own reasons (a local catastrophic error there, or an unknown cause). */
    TERMINATED_BY_PEER,
    /**
     * A message of the peer broke this side's protection (an invalid, foreign or out-of-bounds STag, a missing right,
     * an invalidation it may not do); this side sent a Terminate.
     */
    PEER_ACCESS_VIOLATION,
    /** A message of the peer broke the protocol (version, opcode, queue, MSN, MO, length); a Terminate was sent. */
    PEER_PROTOCOL_ERROR,
    /** The peer sent a Send or Immediate Data while no receive buffer was posted here (E-D9). */
    NO_RECEIVE_BUFFER,
    /** The peer sent a Send larger than the receive buffer posted here (E-D12). */
    LOCAL_LENGTH_ERROR,
    /** This side could not build an outbound message (a local protection fault, E-R21). */
    LOCAL_PROTECTION_ERROR,
    /** A catastrophic error of this side's core (E-D0, E-R0, E-R13, E-R14). */
    LOCAL_CATASTROPHIC_ERROR,
    /** The MPA layer failed: CRC or Marker error here, the TCP connection lost, or the peer's MPA Terminate. */
    MPA_ERROR,
    /** A completion the driver cannot classify (a status on a success kind, an unknown kind or cause code). */
    LOCAL_QP_OPERATION_ERROR;

    private static final TerminateCause[] CAUSES = TerminateCause.values();

    /** Whether this is {@link #SUCCESS}. */
    public boolean ok() {
        return this == SUCCESS;
    }

    /**
     * The status of a completion entry.
     *
     * @param kind   the entry's kind, or null for an unknown code
     * @param status the entry's status octet
     * @param info   the entry's info field (a received Terminate's octets 0–7, octet 0 most significant)
     */
    public static CompletionStatus of(CqeKind kind, int status, long info) {
        if (kind == null) {
            return LOCAL_QP_OPERATION_ERROR;
        }
        return switch (kind) {
            case RECEIVE, RECEIVE_IMMEDIATE, READ_DONE, ATOMIC_DONE, SEND_DONE, LOCAL_INVALIDATE_DONE ->
                    status == 0 ? SUCCESS : LOCAL_QP_OPERATION_ERROR;
            case TERMINATE_RECEIVED -> ofTerminateReceived(terminateOctet(info, 0));
            case TERMINATE_SENT -> {
                TerminateCause c = cause(status);
                yield c == null ? LOCAL_QP_OPERATION_ERROR : ofTerminateSent(c);
            }
            case MPA_ERROR -> MPA_ERROR;
        };
    }

    /** The status of a Terminate the peer sent, from its octet 0 ({@code Layer << 4 | EType}). */
    public static CompletionStatus ofTerminateReceived(int layerEtype) {
        int layer = layerEtype >>> 4 & 0xF;
        int etype = layerEtype & 0xF;
        if (layer == TerminateCause.Layer.LLP.code()) {
            return etype == MpaErrorCode.ETYPE ? MPA_ERROR : TERMINATED_BY_PEER;
        }
        if (layer == TerminateCause.Layer.RDMA.code() || layer == TerminateCause.Layer.DDP.code()) {
            boolean ddp = layer == TerminateCause.Layer.DDP.code();
            return switch (etype) {
                case 1 -> REMOTE_ACCESS_ERROR;
                case 2 -> ddp ? REMOTE_INVALID_REQUEST : REMOTE_OPERATION_ERROR;
                default -> TERMINATED_BY_PEER;
            };
        }
        return TERMINATED_BY_PEER;
    }

    /** The status of a Terminate this side sent for {@code cause}. */
    public static CompletionStatus ofTerminateSent(TerminateCause cause) {
        return switch (cause) {
            case DDP_LOCAL_CATASTROPHIC, RDMAP_LOCAL_CATASTROPHIC, STREAM_CATASTROPHIC, GLOBAL_CATASTROPHIC ->
                    LOCAL_CATASTROPHIC_ERROR;
            case DDP_INVALID_STAG, DDP_PLACEMENT_NOT_ALLOWED, DDP_TO_OUT_OF_BOUNDS, DDP_END_OUT_OF_BOUNDS,
                    DDP_STAG_NOT_ASSOCIATED, DDP_TO_WRAP, READ_INVALID_STAG, READ_BASE_BOUNDS, READ_ACCESS_RIGHTS,
                    READ_STAG_NOT_ASSOCIATED, READ_TO_WRAP, INVALIDATE_PROTECTION, INVALIDATE_OPERATION,
                    UNSPECIFIED_PROTECTION_READ, UNSPECIFIED_PROTECTION_INVALIDATE, ATOMIC_INVALID_STAG,
                    ATOMIC_BASE_BOUNDS, ATOMIC_ACCESS_RIGHTS, ATOMIC_STAG_NOT_ASSOCIATED, ATOMIC_TO_WRAP ->
                    PEER_ACCESS_VIOLATION;
            case DDP_NO_BUFFER -> NO_RECEIVE_BUFFER;
            case DDP_MESSAGE_TOO_LONG -> LOCAL_LENGTH_ERROR;
            case DDP_TAGGED_INVALID_VERSION, DDP_INVALID_QN, DDP_INVALID_MSN, DDP_INVALID_MO,
                    DDP_UNTAGGED_INVALID_VERSION, INVALID_RDMAP_VERSION, UNEXPECTED_OPCODE, OPCODE_MISMATCH,
                    UNEXPECTED_READ_RESPONSE, IRD_EXCEEDED, UNSPECIFIED_REMOTE_OPERATION, ATOMIC_MISALIGNED,
                    ATOMIC_UNSUPPORTED_OPCODE, UNEXPECTED_ATOMIC_RESPONSE, IMMEDIATE_DATA_LENGTH ->
                    PEER_PROTOCOL_ERROR;
            case OUTBOUND_MESSAGE_ERROR -> LOCAL_PROTECTION_ERROR;
        };
    }

    /** The cause of a TERMINATE_SENT status octet ({@code ordinal() + 1}), or null for 0 or an unknown value. */
    public static TerminateCause cause(int status) {
        return status >= 1 && status <= CAUSES.length ? CAUSES[status - 1] : null;
    }

    /** Octet {@code i} (0–7) of a received Terminate held in a completion's info field. */
    public static int terminateOctet(long info, int i) {
        return (int) (info >>> (8 * (7 - i))) & 0xFF;
    }
}
