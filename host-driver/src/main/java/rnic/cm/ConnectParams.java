package rnic.cm;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import rnic.driver.MpaNegotiation;
import rnic.wire.MpaStartupFrame;

/**
 * How to set up an MPA connection, for either role (RFC 5044 §7.1, RFC 6581 §§5–9; MPA-29…MPA-39, MPA-48…MPA-51). Immutable; options
 * are {@code withX} copies. Defaults: RFC 6581 enhanced (Rev 2) with automatic IRD/ORD negotiation, the peer-to-peer
 * model with every RTR form, no Markers required (Markers are asked for only when the application says so), CRC
 * wanted, IRD = ORD = 4, no private data, EMSS 1460, startup timeout {@link #DEFAULT_TIMEOUT}.
 */
public final class ConnectParams {
    /** The default startup timeout: 4 ms of device time (one million cycles at 250 MHz). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(4);

    private final boolean enhanced;
    private final boolean peerToPeer;
    private final Set<RtrForm> rtrForms;
    private final boolean receiveMarkers;
    private final boolean crc;
    private final int ird;
    private final int ord;
    private final boolean negotiateIrdOrd;
    private final int requiredOrd;
    private final byte[] privateData;
    private final int emss;
    private final Duration timeout;

    private ConnectParams(boolean enhanced, boolean peerToPeer, Set<RtrForm> rtrForms, boolean receiveMarkers,
            boolean crc, int ird, int ord, boolean negotiateIrdOrd, int requiredOrd, byte[] privateData, int emss,
            Duration timeout) {
        this.enhanced = enhanced;
        this.peerToPeer = peerToPeer;
        this.rtrForms = rtrForms.isEmpty() ? EnumSet.noneOf(RtrForm.class) : EnumSet.copyOf(rtrForms);
        this.receiveMarkers = receiveMarkers;
        this.crc = crc;
        this.ird = ird;
        this.ord = ord;
        this.negotiateIrdOrd = negotiateIrdOrd;
        this.requiredOrd = requiredOrd;
        this.privateData = privateData;
        this.emss = emss;
        this.timeout = timeout;
        // the same checks the negotiation applies, at the point of the mistake
        offer(true);
    }

    /** The defaults. */
    public static ConnectParams defaults() {
        return new ConnectParams(true, true, EnumSet.allOf(RtrForm.class), false, true, 4, 4, true, 0, new byte[0],
                1460, DEFAULT_TIMEOUT);
    }

    /** RFC 5044 Rev 1 frames: no enhanced data, no IRD/ORD negotiation, no RTR (the ULP arranges these). */
    public ConnectParams withRev1() {
        return new ConnectParams(false, false, rtrForms, receiveMarkers, crc, ird, ord, negotiateIrdOrd, requiredOrd,
                privateData, emss, timeout);
    }

    /** RFC 6581 Rev 2 frames with enhanced data; {@code peerToPeer} asks for an RTR message (flag A). */
    public ConnectParams withEnhanced(boolean peerToPeer) {
        return new ConnectParams(true, peerToPeer, rtrForms, receiveMarkers, crc, ird, ord, negotiateIrdOrd,
                requiredOrd, privateData, emss, timeout);
    }

    /** The RTR forms offered (Initiator) or supported (Responder); a Responder must support at least one. */
    public ConnectParams withRtrForms(Set<RtrForm> forms) {
        return new ConnectParams(enhanced, peerToPeer, forms, receiveMarkers, crc, ird, ord, negotiateIrdOrd,
                requiredOrd, privateData, emss, timeout);
    }

    /** Whether this side requires Markers in the FPDUs it receives (its frame's M bit, MPA-29). */
    public ConnectParams withReceiveMarkers(boolean on) {
        return new ConnectParams(enhanced, peerToPeer, rtrForms, on, crc, ird, ord, negotiateIrdOrd, requiredOrd,
                privateData, emss, timeout);
    }

    /** This side's CRC preference (C bit); CRC is used when either side wants it. */
    public ConnectParams withCrc(boolean on) {
        return new ConnectParams(enhanced, peerToPeer, rtrForms, receiveMarkers, on, ird, ord, negotiateIrdOrd,
                requiredOrd, privateData, emss, timeout);
    }

    /** Inbound Read/Atomic Requests this side can take at once, and outbound ones it wants outstanding (0 … 255). */
    public ConnectParams withIrdOrd(int ird, int ord) {
        return new ConnectParams(enhanced, peerToPeer, rtrForms, receiveMarkers, crc, ird, ord, negotiateIrdOrd,
                requiredOrd, privateData, emss, timeout);
    }

    /**
     * Initiator: send 0x3FFF instead of IRD/ORD, leaving them to the ULP; both sides then keep their local values
     * (RFC 6581 §9.1).
     */
    public ConnectParams withoutIrdOrdNegotiation() {
        return new ConnectParams(enhanced, peerToPeer, rtrForms, receiveMarkers, crc, ird, ord, false, requiredOrd,
                privateData, emss, timeout);
    }

    /** Responder: reject an Initiator whose IRD is below {@code ord} (MPA-49, E-M6). */
    public ConnectParams withRequiredOrd(int ord) {
        return new ConnectParams(enhanced, peerToPeer, rtrForms, receiveMarkers, crc, ird, this.ord,
                negotiateIrdOrd, ord, privateData, emss, timeout);
    }

    /**
     * Private data for the peer: up to 512 octets, 508 with enhanced data (MPA-32, MPA-48). Checked here, before
     * anything is sent.
     *
     * @throws IllegalArgumentException when it does not fit
     */
    public ConnectParams withPrivateData(byte[] data) {
        return new ConnectParams(enhanced, peerToPeer, rtrForms, receiveMarkers, crc, ird, ord, negotiateIrdOrd,
                requiredOrd, data == null ? new byte[0] : data.clone(), emss, timeout);
    }

    /** The connection's TCP effective MSS (QP_EMSS; the core derives MULPDU from it, §2.3.4). */
    public ConnectParams withEmss(int emss) {
        if (emss < 1 || emss > 0xFFFF) {
            throw new IllegalArgumentException("EMSS must be 1 … 65535, got " + emss);
        }
        return new ConnectParams(enhanced, peerToPeer, rtrForms, receiveMarkers, crc, ird, ord, negotiateIrdOrd,
                requiredOrd, privateData, emss, timeout);
    }

    /**
     * How long the whole startup may take in device time ({@code Transport.nanoTime()}): the TCP open and the peer's
     * MPA frame (MPA-38, MPA-39); also how long an orderly disconnect waits for outstanding sends.
     */
    public ConnectParams withTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        return new ConnectParams(enhanced, peerToPeer, rtrForms, receiveMarkers, crc, ird, ord, negotiateIrdOrd,
                requiredOrd, privateData, emss, timeout);
    }

    public boolean enhanced() {
        return enhanced;
    }

    public boolean peerToPeer() {
        return enhanced && peerToPeer;
    }

    public Set<RtrForm> rtrForms() {
        return EnumSet.copyOf(rtrForms.isEmpty() ? EnumSet.noneOf(RtrForm.class) : rtrForms);
    }

    public boolean receiveMarkers() {
        return receiveMarkers;
    }

    public boolean crc() {
        return crc;
    }

    public int ird() {
        return ird;
    }

    public int ord() {
        return ord;
    }

    public int requiredOrd() {
        return requiredOrd;
    }

    public byte[] privateData() {
        return privateData.clone();
    }

    public int emss() {
        return emss;
    }

    public Duration timeout() {
        return timeout;
    }

    /**
     * The driver's view; {@code sendRtrPossible} is false for a Responder that cannot take a Send RTR now (receive
     * buffers of the application already posted: the RTR would consume the first of them).
     */
    MpaNegotiation.Offer offer(boolean sendRtrPossible) {
        return new MpaNegotiation.Offer(receiveMarkers, crc, enhanced, enhanced && peerToPeer,
                rtrForms.contains(RtrForm.SEND) && sendRtrPossible,
                rtrForms.contains(RtrForm.RDMA_WRITE), rtrForms.contains(RtrForm.RDMA_READ), ird, ord,
                negotiateIrdOrd, requiredOrd, privateData);
    }

    /**
     * The driver's view with the device's IRD limit: an Initiator raises its IRD up to {@code irdLimit} for a
     * Responder ORD above it, and adopts an RTR form the Responder named instead of the offered ones (RFC 6581 §9.1,
     * §9.2) — what real peers answer is handled, not failed.
     */
    MpaNegotiation.Offer offer(boolean sendRtrPossible, int irdLimit) {
        return new MpaNegotiation.Offer(receiveMarkers, crc, enhanced, enhanced && peerToPeer,
                rtrForms.contains(RtrForm.SEND) && sendRtrPossible,
                rtrForms.contains(RtrForm.RDMA_WRITE), rtrForms.contains(RtrForm.RDMA_READ), ird, ord,
                negotiateIrdOrd, requiredOrd, privateData, Math.max(ird, Math.min(255, irdLimit)), true);
    }

    /** Octets of ULP private data that fit (MPA-48). */
    public int maxPrivateData() {
        return MpaStartupFrame.MAX_PRIVATE_DATA - (enhanced ? 4 : 0);
    }

    @Override
    public String toString() {
        return "ConnectParams[" + (enhanced ? "Rev 2" + (peerToPeer ? " p2p " + rtrForms : "") : "Rev 1")
                + ", M=" + (receiveMarkers ? 1 : 0) + " C=" + (crc ? 1 : 0) + ", IRD " + ird + " ORD " + ord
                + (negotiateIrdOrd ? "" : " (ULP)") + (requiredOrd > 0 ? ", required ORD " + requiredOrd : "")
                + ", PD " + privateData.length + ", EMSS " + emss + ", timeout " + timeout + "]";
    }
}
