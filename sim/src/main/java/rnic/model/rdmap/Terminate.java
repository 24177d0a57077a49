package rnic.model.rdmap;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import rnic.model.ddp.TerminateException;
import rnic.wire.Ddp;
import rnic.wire.MpaErrorCode;
import rnic.wire.Rdmap;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * A Terminate message (RFC 5040 §4.8 Fig. 7–8, §5.4, §7.1; docs/requirements.md §2.7.2; RDMAP-14 … RDMAP-17): untagged on QN 2,
 * MSN 1, its DDP message being this header.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * | Layer | EType |  Error Code   |M|D|R|       Reserved          |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |   DDP Segment Length (if D)   |                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 * |     Terminated DDP Header (if D): 14 octets if its T bit is   |
 * |     set, 18 otherwise                                         |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |     Terminated RDMA Header (if R): a Read Request, 28 octets  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * D is set exactly when {@code ddpHeader} is present and R exactly when {@code rdmaHeader} is; M is its own flag. The
 * Terminated DDP Header is kept as the octets received, so a header that failed parsing (a bad DV, E-D7/E-D13) is
 * echoed as it came.
 *
 * @param layer            Layer nibble (0 RDMAP, 1 DDP, 2 LLP)
 * @param etype            Error Type nibble
 * @param errorCode        Error Code octet
 * @param segmentLengthValid M: {@code ddpSegmentLength} is valid
 * @param ddpSegmentLength the length of the failing DDP segment, 0 when D = 0
 * @param ddpHeader        the failing segment's DDP header octets (14 or 18), or {@code null}
 * @param rdmaHeader       the failing Read Request, advanced by the progress of its Read (RDMAP-16), or {@code null}
 */
public record Terminate(int layer, int etype, int errorCode, boolean segmentLengthValid, int ddpSegmentLength,
        byte[] ddpHeader, ReadRequest rdmaHeader) implements RdmapMessage {

    public Terminate {
        if (layer < 0 || layer > 0xF || etype < 0 || etype > 0xF || errorCode < 0 || errorCode > 0xFF) {
            throw new IllegalArgumentException("Layer/EType are 4 bits and the Error Code 8: " + layer + "/" + etype
                    + "/" + errorCode);
        }
        if (ddpHeader != null) {
            ddpHeader = ddpHeader.clone();
            if (ddpHeader.length == 0 || ddpHeader.length != Ddp.headerSize(ddpHeader[0] & 0xFF)) {
                throw new IllegalArgumentException("a Terminated DDP Header is 14 octets if its T bit is set and 18"
                        + " otherwise, not " + ddpHeader.length);
            }
        }
        if (ddpSegmentLength < 0 || ddpSegmentLength > 0xFFFF || ddpHeader == null && ddpSegmentLength != 0) {
            throw new IllegalArgumentException("DDP Segment Length " + ddpSegmentLength + " needs D=1 and 16 bits");
        }
    }

    /**
     * The Terminate for a received segment that failed with {@code cause}, whose HdrCt it follows (RDMAP-17 rule 2):
     * with D, the segment's length — the whole DDP segment, header included (T-19, Appendix B item 6) — and its DDP
     * header. A cause with R needs the Read Request: use {@link #inbound(TerminateCause, byte[], ReadRequest)}.
     *
     * @param ulpdu the failing DDP segment as received
     */
    public static Terminate inbound(TerminateCause cause, byte[] ulpdu) {
        if (cause.r()) {
            throw new IllegalArgumentException(cause + " sends the failing Read Request as Terminated RDMA Header");
        }
        return build(cause, ulpdu, null);
    }

    /**
     * The Terminate for a received Read Request that failed with {@code cause} (RDMAP-17 rule 3): as
     * {@link #inbound(TerminateCause, byte[])} plus the Terminated RDMA Header when the cause has R.
     *
     * @param ulpdu   the Read Request's DDP segment as received
     * @param request the request, {@link ReadRequest#advancedBy advanced} by what the response already sent
     */
    public static Terminate inbound(TerminateCause cause, byte[] ulpdu, ReadRequest request) {
        return build(cause, ulpdu, cause.r() ? Objects.requireNonNull(request) : null);
    }

    /**
     * The Terminate sent instead of an outbound message whose building failed with {@code cause}: no DDP segment, no
     * headers, HdrCt all zero whatever the cause's table entry (RDMAP-17 rule 1, RDMAP-42, E-R21, T-20).
     */
    public static Terminate outbound(TerminateCause cause) {
        return new Terminate(cause.layer().code(), cause.etype(), cause.code(), false, 0, null, null);
    }

    /** The Terminate for an MPA error (Layer 2, EType 0, docs/requirements.md §3.1): no headers. */
    public static Terminate llp(MpaErrorCode code) {
        return new Terminate(MpaErrorCode.LAYER, MpaErrorCode.ETYPE, code.code(), false, 0, null, null);
    }

    private static Terminate build(TerminateCause cause, byte[] ulpdu, ReadRequest rdmaHeader) {
        byte[] header = null;
        if (cause.d()) {
            int size = Ddp.headerSize(ulpdu[0] & 0xFF);
            if (ulpdu.length < size) {
                throw new IllegalArgumentException(ulpdu.length + " octets hold no whole DDP header to terminate");
            }
            header = Arrays.copyOf(ulpdu, size);
        }
        return new Terminate(cause.layer().code(), cause.etype(), cause.code(), cause.m(),
                cause.d() ? ulpdu.length : 0, header, rdmaHeader);
    }

    /** Whether this Terminate reports {@code cause}: same Layer, EType and Error Code. */
    public boolean reports(TerminateCause cause) {
        return layer == cause.layer().code() && etype == cause.etype() && errorCode == cause.code();
    }

    @Override
    public RdmapOpcode opcode() {
        return RdmapOpcode.TERMINATE;
    }

    @Override
    public byte[] ddpHeader() {
        return ddpHeader == null ? null : ddpHeader.clone();
    }

    @Override
    public int ddpPayloadLength() {
        return Rdmap.TERMINATE_CONTROL_SIZE
                + (ddpHeader != null ? Rdmap.TERMINATE_SEGMENT_LENGTH_SIZE + ddpHeader.length : 0)
                + (rdmaHeader != null ? Rdmap.READ_REQUEST_HEADER_SIZE : 0);
    }

    @Override
    public void writeTo(ByteBuffer b) {
        int hdrCt = (segmentLengthValid ? Rdmap.TERMINATE_M : 0) | (ddpHeader != null ? Rdmap.TERMINATE_D : 0)
                | (rdmaHeader != null ? Rdmap.TERMINATE_R : 0);
        b.put((byte) (layer << 4 | etype)).put((byte) errorCode).put((byte) hdrCt).put((byte) 0);
        if (ddpHeader != null) {
            b.putShort((short) ddpSegmentLength).put(ddpHeader);
        }
        if (rdmaHeader != null) {
            rdmaHeader.writeTo(b);
        }
    }

    /**
     * Parses a Terminate's whole DDP payload. HdrCt decides which optional fields follow, the T bit of the Terminated
     * DDP Header its length (T-19); the reserved bits are ignored. A payload shorter or longer than that is
     * {@link TerminateCause#UNSPECIFIED_REMOTE_OPERATION} (E-R15: RFC 5040 names no code for a malformed Terminate).
     */
    static Terminate parse(ByteBuffer b) throws TerminateException {
        if (b.remaining() < Rdmap.TERMINATE_CONTROL_SIZE) {
            throw malformed(b.remaining() + " octets");
        }
        int layerEtype = b.get() & 0xFF;
        int errorCode = b.get() & 0xFF;
        int hdrCt = b.get() & 0xFF;
        b.get();
        int segmentLength = 0;
        byte[] ddpHeader = null;
        if ((hdrCt & Rdmap.TERMINATE_D) != 0) {
            if (b.remaining() < Rdmap.TERMINATE_SEGMENT_LENGTH_SIZE + 1) {
                throw malformed("D=1 without a DDP Segment Length and header");
            }
            segmentLength = b.getShort() & 0xFFFF;
            ddpHeader = new byte[Ddp.headerSize(b.get(b.position()) & 0xFF)];
            if (b.remaining() < ddpHeader.length) {
                throw malformed("Terminated DDP Header cut at " + b.remaining() + " of " + ddpHeader.length
                        + " octets");
            }
            b.get(ddpHeader);
        }
        ReadRequest rdmaHeader = null;
        if ((hdrCt & Rdmap.TERMINATE_R) != 0) {
            if (b.remaining() < Rdmap.READ_REQUEST_HEADER_SIZE) {
                throw malformed("Terminated RDMA Header cut at " + b.remaining() + " octets");
            }
            rdmaHeader = ReadRequest.read(b);
        }
        if (b.hasRemaining()) {
            throw malformed(b.remaining() + " octets after the fields HdrCt announces");
        }
        return new Terminate(layerEtype >>> 4, layerEtype & 0xF, errorCode, (hdrCt & Rdmap.TERMINATE_M) != 0,
                segmentLength, ddpHeader, rdmaHeader);
    }

    private static TerminateException malformed(String detail) {
        return new TerminateException(TerminateCause.UNSPECIFIED_REMOTE_OPERATION, "malformed Terminate: " + detail);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Terminate t && t.layer == layer && t.etype == etype && t.errorCode == errorCode
                && t.segmentLengthValid == segmentLengthValid && t.ddpSegmentLength == ddpSegmentLength
                && Arrays.equals(t.ddpHeader, ddpHeader) && Objects.equals(t.rdmaHeader, rdmaHeader);
    }

    @Override
    public int hashCode() {
        return Objects.hash(layer, etype, errorCode, segmentLengthValid, ddpSegmentLength, rdmaHeader) * 31
                + Arrays.hashCode(ddpHeader);
    }

    @Override
    public String toString() {
        return String.format("Terminate[%x/%x/%02x M=%d D=%d R=%d len=%d %s %s]", layer, etype, errorCode,
                segmentLengthValid ? 1 : 0, ddpHeader != null ? 1 : 0, rdmaHeader != null ? 1 : 0, ddpSegmentLength,
                ddpHeader != null ? HexFormat.of().formatHex(ddpHeader) : "-", rdmaHeader != null ? rdmaHeader : "-");
    }
}
