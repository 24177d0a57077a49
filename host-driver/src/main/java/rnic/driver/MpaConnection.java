package rnic.driver;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.function.LongSupplier;
import rnic.transport.TcpConnection;
import rnic.wire.MpaErrorCode;
import rnic.wire.MpaStartupFrame;

/**
 * The MPA Request/Reply exchange over a connection's TCP byte stream, run by the host before the core takes the
 * stream over (RFC 5044 §7.1, RFC 6581; MPA-26…MPA-39, MPA-48…MPA-51, §3.1).
 *
 * <p>Frames are read octet-exact: 20 octets, then PD_Length octets, never more, so every octet the peer sends after
 * its frame (its first FPDUs) is still unread when the caller hands the stream to the core, and
 * {@link TcpConnection#receiveSequence()} is then the receive direction's SeqStart (MPA-26, T-02). Reading is
 * non-blocking underneath ({@link #pollFrame}), so the connection manager can run many setups at once; the blocking
 * forms ({@link #initiate}, {@link #awaitRequest}) wait with a {@link Duration} of device time.
 *
 * <p>Failures follow §3.1: a malformed frame (wrong Key, including Request/Request or Reply/Reply startup, MPA-28,
 * MPA-38; unsupported Rev, MPA-31, MPA-52; bad PD_Length or a truncated frame, MPA-32) closes TCP with no Terminate
 * (E-M4); a Reply with R=1 leaves TCP open (MPA-35); a frame that does not arrive within the timeout, measured in
 * device time, closes TCP (MPA-38, MPA-39); a failed enhanced negotiation at the Initiator sends a Terminate with
 * Layer 2 / EType 0 / Code 5…7 as the first FPDU of its direction and closes (MPA-49, MPA-50).
 */
public final class MpaConnection {
    private final TcpConnection tcp;
    private final LongSupplier nanoTime;
    private final Runnable advance;
    private final byte[] buf = new byte[MpaStartupFrame.HEADER_SIZE + MpaStartupFrame.MAX_PRIVATE_DATA];
    private int have;
    private int need = MpaStartupFrame.HEADER_SIZE;

    /**
     * @param tcp      the connection's byte stream, before the hand-over to the core
     * @param nanoTime device time in nanoseconds (timeouts; {@code Transport.nanoTime()})
     * @param advance  lets the device and the network make progress while waiting
     */
    public MpaConnection(TcpConnection tcp, LongSupplier nanoTime, Runnable advance) {
        this.tcp = tcp;
        this.nanoTime = nanoTime;
        this.advance = advance;
    }

    public TcpConnection tcp() {
        return tcp;
    }

    /**
     * Initiator: sends the Request for {@code offer}, reads the Reply, and negotiates.
     *
     * @return the outcome; the stream is positioned right after the Reply
     * @throws MpaFailure after doing what §3.1 requires for the failure (close, Terminate, or nothing for a reject)
     */
    public MpaNegotiation.Outcome initiate(MpaNegotiation.Offer offer, Duration timeout) throws MpaFailure {
        MpaStartupFrame request = sendRequest(offer);
        return complete(request, await(true, timeout), offer);
    }

    /** Initiator, first half: sends the Request for {@code offer} and returns it. */
    public MpaStartupFrame sendRequest(MpaNegotiation.Offer offer) {
        MpaStartupFrame request = MpaNegotiation.request(offer);
        tcp.send(request.encode());
        return request;
    }

    /**
     * Initiator, second half: what the Reply means. A reject (R=1) leaves TCP open (MPA-35); a failed enhanced
     * negotiation sends the Terminate and closes (E-M5…E-M7); a Reply in the wrong format closes (MPA-51).
     */
    public MpaNegotiation.Outcome complete(MpaStartupFrame request, MpaStartupFrame reply,
            MpaNegotiation.Offer offer) throws MpaFailure {
        if (reply.reject()) {
            throw new MpaFailure(MpaFailure.Kind.REJECTED, null, reply, "the Responder rejected the connection (R=1)"
                    + (reply.privateData().length > 0 ? " with " + reply.privateData().length
                            + " octets of private data" : ""));
        }
        try {
            return MpaNegotiation.complete(request, reply, offer);
        } catch (MpaFailure f) {
            if (f.kind() == MpaFailure.Kind.NEGOTIATION) {
                terminate(f.code(), reply.markers());
            } else {
                tcp.close();
            }
            throw f;
        }
    }

    /**
     * Responder: reads the Request (the stream is then positioned right after it).
     *
     * @throws MpaFailure TIMEOUT, TCP_CLOSED or INVALID_FRAME (TCP closed)
     */
    public MpaStartupFrame awaitRequest(Duration timeout) throws MpaFailure {
        return await(false, timeout);
    }

    /**
     * Responder: answers {@code request} for {@code offer} and sends the Reply.
     *
     * @throws MpaFailure NEGOTIATION when the driver had to reject (E-M6); the reject Reply was sent, TCP stays open
     */
    public MpaNegotiation.Outcome accept(MpaStartupFrame request, MpaNegotiation.Offer offer) throws MpaFailure {
        MpaNegotiation.Answer a = MpaNegotiation.answer(request, offer);
        tcp.send(a.reply().encode());
        if (a.outcome() == null) {
            throw new MpaFailure(MpaFailure.Kind.NEGOTIATION, a.refusal(), request, "rejected: " + a.reason());
        }
        return a.outcome();
    }

    /** Responder: sends a Reply with R=1 and the ULP's private data; TCP stays open (MPA-34). */
    public void reject(MpaStartupFrame request, MpaNegotiation.Offer offer) {
        tcp.send(MpaNegotiation.reject(request, offer).encode());
    }

    /**
     * Sends a Terminate with Layer 2 (LLP), EType 0 (MPA), {@code code} and no headers as the first FPDU of this
     * direction, then closes TCP (RFC 6581 §9; E-M5…E-M7).
     */
    public void terminate(MpaErrorCode code, boolean txMarkers) {
        byte[] ulpdu = MpaFpdu.terminateUlpdu(code.layerEtype(), code.code(), 0, new byte[0]);
        tcp.send(MpaFpdu.first(ulpdu, txMarkers));
        tcp.close();
    }

    /**
     * Takes what has arrived of the peer's frame without waiting: the frame once complete, else null. Never reads an
     * octet past the frame (MPA-26).
     *
     * @param reply whether the frame expected is a Reply (else a Request)
     * @throws MpaFailure INVALID_FRAME (TCP closed) or TCP_CLOSED (the peer closed before its frame)
     */
    public MpaStartupFrame pollFrame(boolean reply) throws MpaFailure {
        String what = reply ? "MPA Reply" : "MPA Request";
        while (have < need) {
            int n = tcp.receive(buf, have, need - have);
            if (n > 0) {
                have += n;
                if (have == MpaStartupFrame.HEADER_SIZE) {
                    decode(reply, false); // Key, Rev, PD_Length and S checked before the private data
                    need = MpaStartupFrame.HEADER_SIZE + ((buf[18] & 0xFF) << 8 | buf[19] & 0xFF);
                }
                continue;
            }
            if (tcp.closed()) {
                if (have == 0) {
                    throw new MpaFailure(MpaFailure.Kind.TCP_CLOSED, MpaErrorCode.TCP_CLOSED, null,
                            "TCP connection closed by the peer before its " + what + " (E-M1)");
                }
                decode(reply, true); // throws: truncated
            }
            return null;
        }
        return decode(reply, true);
    }

    /** Closes TCP after a startup timeout and describes it (MPA-38, MPA-39). */
    public MpaFailure timedOut(boolean reply, Duration timeout) {
        tcp.close();
        String what = reply ? "MPA Reply" : "MPA Request";
        return new MpaFailure(MpaFailure.Kind.TIMEOUT, null, null, "no complete " + what + " within " + timeout
                + " of device time (" + have + " of " + need + " octets arrived); TCP closed ("
                + (reply ? "MPA-39" : "MPA-38: is the peer a Responder too?") + ")");
    }

    private MpaStartupFrame await(boolean reply, Duration timeout) throws MpaFailure {
        long start = nanoTime.getAsLong();
        long limit = timeout.toNanos();
        while (true) {
            MpaStartupFrame f = pollFrame(reply);
            if (f != null) {
                return f;
            }
            if (nanoTime.getAsLong() - start > limit) {
                throw timedOut(reply, timeout);
            }
            advance.run();
        }
    }

    private MpaStartupFrame decode(boolean reply, boolean endOfStream) throws MpaFailure {
        try {
            return MpaStartupFrame.decode(ByteBuffer.wrap(buf, 0, have), reply, endOfStream);
        } catch (MpaStartupFrame.InvalidFrameException e) {
            tcp.close();
            String hint = sameRole(buf, have, reply)
                    ? (reply ? " (the peer is an Initiator too, MPA-38)" : " (the peer is a Responder, MPA-38)") : "";
            throw new MpaFailure(MpaFailure.Kind.INVALID_FRAME, MpaErrorCode.INVALID_STARTUP_FRAME, null,
                    "invalid MPA " + (reply ? "Reply" : "Request") + ": " + e.getMessage() + hint
                            + "; TCP closed (E-M4)");
        }
    }

    /** Whether the octets start with the key of the frame this side sends itself. */
    private static boolean sameRole(byte[] buf, int length, boolean reply) {
        byte[] own = reply ? MpaStartupFrame.REQUEST_KEY : MpaStartupFrame.REPLY_KEY;
        if (length < own.length) {
            return false;
        }
        for (int i = 0; i < own.length; i++) {
            if (buf[i] != own[i]) {
                return false;
            }
        }
        return true;
    }
}
