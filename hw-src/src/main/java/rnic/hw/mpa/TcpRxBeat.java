package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * A beat of received TCP payload, in sequence order: {@code tkeep} octets from octet 0 of {@code tdata} (octet 0 in
 * bits 7:0; any count 0 … W/8, on any beat), the first of them at TCP sequence number {@code seq}. Segment boundaries
 * carry no meaning to MPA (RFC 5044 §5.1), so there is no {@code tlast}.
 *
 * <p>{@code fin} marks the end of the stream: the transport that owns TCP (TCP is not offloaded) shows one beat with
 * {@code fin} set after every octet the peer sent before its FIN — or, after a RST, after the octets the core had
 * already been shown (RFC 793: a reset discards what was not yet delivered) — usually with {@code tkeep} 0. Its octets,
 * if any, are the last ones; no beat follows. The receiver delivers every FPDU completed before it and then reports the
 * lost connection (E-M1, code 1: MPA-41, DDP-28), which moves the QP to ERR.
 */
public final class TcpRxBeat extends HwBundle {
    public final int dataWidth;
    public final Bits tdata;
    public final Bits tkeep;
    public final UInt seq;
    /** The stream ends after this beat's octets: the peer's FIN or RST. */
    public final Bool fin;

    public TcpRxBeat(int dataWidth) {
        this.dataWidth = dataWidth;
        tdata = field("tdata", bits(dataWidth));
        tkeep = field("tkeep", bits(dataWidth / 8));
        seq = field("seq", uint(32));
        fin = field("fin", bool());
    }
}
