package rnic.verbs;

import rnic.wire.CqeKind;
import rnic.wire.MpaErrorCode;
import rnic.wire.TerminateCause;

/**
 * One asynchronous event of a {@link Device} (verbs {@code ibv_async_event}), from its {@link AsyncEventChannel}.
 *
 * @param type       what happened
 * @param queuePair  the queue pair it concerns; null for {@link Type#CQ_ERROR}
 * @param cause      {@link Type#QP_ERROR}: the error as a completion ({@link CompletionOpcode#QP_ERROR}, with the
 *                   Terminate's octets for a received one when its entry could be read); null for
 *                   {@link Type#TCP_CLOSED}
 * @param deviceNanos device time when the driver saw it ({@link Device#nanoTime()})
 * @param completionQueue {@link Type#CQ_ERROR}: the completion queue; else null
 */
public record AsyncEvent(Type type, QueuePair queuePair, Completion cause, long deviceNanos,
        CompletionQueue completionQueue) {

    /** Kinds of asynchronous events. */
    public enum Type {
        /** The core moved the queue pair to ERR: a Terminate sent or received, or an MPA error (verbs QP_FATAL). */
        QP_ERROR,
        /** The peer closed the queue pair's TCP connection (FIN or reset). */
        TCP_CLOSED,
        /**
         * The core dropped an entry that met the completion queue full (verbs CQ_ERR, a CQ overrun): entries of it
         * are lost from then on until it is recreated. The driver's reservations keep this from happening through
         * the verbs; it reports a core driven past them.
         */
        CQ_ERROR
    }

    public AsyncEvent {
        cause = cause == null ? null : cause.copy();
    }

    /** An event of a queue pair. */
    public AsyncEvent(Type type, QueuePair queuePair, Completion cause, long deviceNanos) {
        this(type, queuePair, cause, deviceNanos, null);
    }

    @Override
    public Completion cause() {
        return cause == null ? null : cause.copy();
    }

    /** TERMINATE_SENT, TERMINATE_RECEIVED or MPA_ERROR for a {@link Type#QP_ERROR}; else null. */
    public CqeKind kind() {
        return cause == null ? null : cause.cqeKind();
    }

    /** The Terminate's cause (exact when sent; the first table row with its Layer/EType/Code when received). */
    public TerminateCause terminateCause() {
        return cause == null ? null : cause.terminateCause();
    }

    /** The Terminate's Layer (RFC 5040 §4.8: 0 RDMAP, 1 DDP, 2 LLP/MPA), or -1. */
    public int terminateLayer() {
        int le = cause == null ? -1 : cause.terminateLayerEtype();
        return le < 0 ? -1 : le >>> 4;
    }

    /** The Terminate's Error Type, or -1. */
    public int terminateEtype() {
        int le = cause == null ? -1 : cause.terminateLayerEtype();
        return le < 0 ? -1 : le & 0xF;
    }

    /** The Terminate's Error Code, or -1. */
    public int terminateErrorCode() {
        return cause == null ? -1 : cause.terminateErrorCode();
    }

    /** The MPA error (an MPA_ERROR, or a received Terminate with Layer LLP), or null. */
    public MpaErrorCode mpaError() {
        return cause == null ? null : cause.mpaError();
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("AsyncEvent[").append(type);
        if (queuePair != null) {
            s.append(" QP ").append(queuePair.number());
        }
        if (completionQueue != null) {
            s.append(" CQ ").append(completionQueue.number());
        }
        if (cause != null) {
            s.append(' ').append(kind());
            if (terminateLayer() >= 0) {
                s.append(String.format(" %d/%d/%02x", terminateLayer(), terminateEtype(), terminateErrorCode()));
            }
            if (mpaError() != null) {
                s.append(' ').append(mpaError());
            }
        }
        return s.append(" at ").append(deviceNanos).append(" ns]").toString();
    }
}
