package rnic.driver;

/**
 * What the MPA startup negotiated for one connection, as the QP registers take it at INIT→RTR (QP_MPA, QP_EMSS,
 * QP_IRD, QP_ORD, QP_RX_SEQ_START; issue 5 contract).
 *
 * @param txMarkers     this side inserts Markers (the peer's frame had M=1, MPA-29)
 * @param rxMarkers     the peer inserts Markers (this side's frame had M=1)
 * @param crc           CRC on in both directions (C=1 in either frame, §2.4.2)
 * @param holdTxUntilRx the Responder sends nothing before one valid FPDU arrived (MPA-36)
 * @param ird           inbound Read/Atomic Requests this side accepts at once
 * @param ord           outbound Read/Atomic Requests this side has outstanding at most
 * @param emss          TCP effective MSS of the connection (MULPDU is derived by the core, §2.3.4)
 * @param rxSeqStart    TCP sequence number of the first Full-Operation octet received (MPA-26, T-02)
 */
public record MpaSettings(boolean txMarkers, boolean rxMarkers, boolean crc, boolean holdTxUntilRx, int ird, int ord,
        int emss, long rxSeqStart) {
}
