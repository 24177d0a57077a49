package rnic.verbs;

import java.util.Set;

/**
 * What an MPA connection setup agreed, for the application (RFC 5044 §7.1; RFC 6581 §9: the peer's IRD/ORD and Rev
 * are passed to the ULP, MPA-31, MPA-49).
 *
 * @param initiator       this side sent the Request
 * @param peerRev         Rev of the peer's frame
 * @param enhanced        RFC 6581 enhanced frames were exchanged
 * @param txMarkers       this side inserts Markers (MPA-29)
 * @param rxMarkers       the peer inserts Markers
 * @param crc             CRC32c in both directions
 * @param ird             this side's IRD (QP_IRD)
 * @param ord             this side's ORD (QP_ORD)
 * @param peerIrd         IRD in the peer's enhanced data (0x3FFF: left to the ULP), or -1
 * @param peerOrd         ORD in the peer's enhanced data, or -1
 * @param peerToPeer      the A flag: an RTR message was exchanged
 * @param rtrForms        Initiator: the RTR it sent; Responder: the forms it accepted (empty without RTR)
 * @param peerPrivateData the peer's private data (without the enhanced octets)
 * @param txSeqStart      TCP sequence number of this side's first Full-Operation octet (T-02)
 * @param rxSeqStart      TCP sequence number of the peer's first Full-Operation octet (QP_RX_SEQ_START)
 * @param mulpdu          QP_MULPDU the core derived
 */
public record Connection(boolean initiator, int peerRev, boolean enhanced, boolean txMarkers, boolean rxMarkers,
        boolean crc, int ird, int ord, int peerIrd, int peerOrd, boolean peerToPeer, Set<RtrForm> rtrForms,
        byte[] peerPrivateData, long txSeqStart, long rxSeqStart, int mulpdu) {

    public Connection {
        rtrForms = Set.copyOf(rtrForms);
        peerPrivateData = peerPrivateData.clone();
    }

    @Override
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    @Override
    public String toString() {
        return "Connection[" + (initiator ? "Initiator" : "Responder") + ", peer Rev " + peerRev
                + (enhanced ? ", enhanced" : "") + ", markers tx/rx " + txMarkers + "/" + rxMarkers + ", CRC " + crc
                + ", IRD " + ird + " ORD " + ord + (peerIrd >= 0 ? " (peer IRD " + peerIrd + " ORD " + peerOrd + ")"
                        : "") + (peerToPeer ? ", RTR " + rtrForms : "") + ", PD " + peerPrivateData.length
                + ", seq tx " + txSeqStart + " rx " + rxSeqStart + ", MULPDU " + mulpdu + "]";
    }
}
