package rnic.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * MPA Request and Reply frames (RFC 5044 §7.1.1) with the RFC 6581 enhanced connection data (Rev 2, S bit).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  Key: "MPA ID Req Frame" or "MPA ID Rep Frame" (16 octets)  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |M|C|R|S| Res   |     Rev       |          PD_Length            |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  Private Data (PD_Length octets; with S=1 it starts with      |
 * |  |A|B|      IRD (14)         |C|D|       ORD (14)         |   |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * Shared by the simulation (capture, models) and the host driver, which runs the exchange
 * ({@code rnic.driver.MpaConnection}).
 *
 * <p>No CRC, no Markers. Decoding enforces docs/requirements.md §3.1 E-M4: wrong Key, unsupported Rev (only 1 and 2 are
 * supported; Rev 0 is RDMAC), PD_Length over 512, a truncated frame, or S=1 without Rev ≥ 2 or without the 4 enhanced
 * octets are {@link MpaErrorCode#INVALID_STARTUP_FRAME}. R in a Request and the Res bits are not checked (MPA-30).
 *
 * @param reply       Reply ("MPA ID Rep Frame") rather than Request
 * @param markers     M: the sender of this frame requires Markers in the FPDUs it receives
 * @param crc         C: the sender prefers CRC (CRC is used if either frame has C=1)
 * @param reject      R: in a Reply, the connection is rejected
 * @param rev         1 (RFC 5044) or 2 (RFC 6581 features)
 * @param enhanced    RFC 6581 connection data (sets S=1), or {@code null}
 * @param privateData the ULP's private data (after the enhanced octets), at most 512 octets in all
 */
public record MpaStartupFrame(boolean reply, boolean markers, boolean crc, boolean reject, int rev,
        Enhanced enhanced, byte[] privateData) {

    /** Request key, ASCII "MPA ID Req Frame". */
    public static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    /** Reply key, ASCII "MPA ID Rep Frame". */
    public static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    /** Largest PD_Length (MPA-32). */
    public static final int MAX_PRIVATE_DATA = 512;
    /** Octets before the private data. */
    public static final int HEADER_SIZE = 20;

    /**
     * RFC 6581 Enhanced Connection Data (docs/requirements.md §2.4.3).
     *
     * @param peerToPeer A: peer-to-peer model, an RTR message follows the Reply
     * @param sendRtr    B: zero-length Send RTR
     * @param ird        14-bit IRD (0x3FFF: leave to the ULP)
     * @param writeRtr   C: zero-length RDMA Write RTR
     * @param readRtr    D: zero-length RDMA Read RTR
     * @param ord        14-bit ORD (0x3FFF: leave to the ULP)
     */
    public record Enhanced(boolean peerToPeer, boolean sendRtr, int ird, boolean writeRtr, boolean readRtr, int ord) {
        /** IRD/ORD value meaning "no automatic negotiation". */
        public static final int NO_NEGOTIATION = 0x3FFF;

        public Enhanced {
            if (ird < 0 || ird > 0x3FFF || ord < 0 || ord > 0x3FFF) {
                throw new IllegalArgumentException("IRD and ORD are 14-bit values: " + ird + ", " + ord);
            }
        }
    }

    public MpaStartupFrame {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (rev < 0 || rev > 255) {
            throw new IllegalArgumentException("Rev is one octet: " + rev);
        }
        if (privateData.length + (enhanced != null ? 4 : 0) > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("private data over " + MAX_PRIVATE_DATA + " octets");
        }
        if (enhanced != null && rev < 2) {
            throw new IllegalArgumentException("enhanced connection data needs Rev 2 (RFC 6581)");
        }
    }

    /** The PD_Length field: private data plus the 4 enhanced octets. */
    public int pdLength() {
        return privateData.length + (enhanced != null ? 4 : 0);
    }

    /** Encoded size: 20 + PD_Length. */
    public int size() {
        return HEADER_SIZE + pdLength();
    }

    /** The frame's octets. */
    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(size());
        writeTo(b);
        return b.array();
    }

    /** Writes the frame at the buffer's position. */
    public void writeTo(ByteBuffer b) {
        b.put(reply ? REPLY_KEY : REQUEST_KEY);
        int flags = (markers ? 0x80 : 0) | (crc ? 0x40 : 0) | (reject ? 0x20 : 0) | (enhanced != null ? 0x10 : 0);
        b.put((byte) flags);
        b.put((byte) rev);
        b.putShort((short) pdLength());
        if (enhanced != null) {
            b.putShort((short) ((enhanced.peerToPeer ? 0x8000 : 0) | (enhanced.sendRtr ? 0x4000 : 0) | enhanced.ird));
            b.putShort((short) ((enhanced.writeRtr ? 0x8000 : 0) | (enhanced.readRtr ? 0x4000 : 0) | enhanced.ord));
        }
        b.put(privateData);
    }

    /** A startup frame that fails validation: close TCP and report MPA error 4 locally (E-M4). */
    public static final class InvalidFrameException extends Exception {
        private static final long serialVersionUID = 1L;

        public InvalidFrameException(String message) {
            super(message);
        }

        /** Always {@link MpaErrorCode#INVALID_STARTUP_FRAME}. */
        public MpaErrorCode code() {
            return MpaErrorCode.INVALID_STARTUP_FRAME;
        }
    }

    /**
     * Decodes the frame at the buffer's position and consumes exactly its 20 + PD_Length octets (what follows is Full
     * Operation data).
     *
     * @param expectReply true for an Initiator reading the Reply, false for a Responder reading the Request
     * @param endOfStream true when no more octets will arrive (a frame still incomplete is then truncated)
     * @return the frame, or {@code null} when more octets are needed
     */
    public static MpaStartupFrame decode(ByteBuffer b, boolean expectReply, boolean endOfStream)
            throws InvalidFrameException {
        int start = b.position();
        if (b.remaining() < HEADER_SIZE) {
            if (endOfStream) {
                throw new InvalidFrameException("truncated frame: " + b.remaining() + " octets");
            }
            return null;
        }
        byte[] key = new byte[16];
        b.get(key);
        byte[] want = expectReply ? REPLY_KEY : REQUEST_KEY;
        if (!Arrays.equals(key, want)) {
            b.position(start);
            throw new InvalidFrameException("wrong key '" + new String(key, StandardCharsets.ISO_8859_1)
                    + "', expected '" + new String(want, StandardCharsets.US_ASCII) + "'");
        }
        int flags = b.get() & 0xFF;
        int rev = b.get() & 0xFF;
        int pdLength = b.getShort() & 0xFFFF;
        if (rev != 1 && rev != 2) {
            b.position(start);
            throw new InvalidFrameException("unsupported Rev " + rev + (rev == 0 ? " (RDMAC)" : ""));
        }
        if (pdLength > MAX_PRIVATE_DATA) {
            b.position(start);
            throw new InvalidFrameException("PD_Length " + pdLength + " over " + MAX_PRIVATE_DATA);
        }
        boolean s = (flags & 0x10) != 0;
        if (s && (rev < 2 || pdLength < 4)) {
            b.position(start);
            throw new InvalidFrameException("S=1 needs Rev 2 and 4 enhanced octets (Rev " + rev + ", PD_Length "
                    + pdLength + ")");
        }
        if (b.remaining() < pdLength) {
            b.position(start);
            if (endOfStream) {
                throw new InvalidFrameException("truncated private data: PD_Length " + pdLength + ", "
                        + (b.remaining() - HEADER_SIZE) + " octets present");
            }
            return null;
        }
        Enhanced enhanced = null;
        int ulp = pdLength;
        if (s) {
            int w0 = b.getShort() & 0xFFFF;
            int w1 = b.getShort() & 0xFFFF;
            enhanced = new Enhanced((w0 & 0x8000) != 0, (w0 & 0x4000) != 0, w0 & 0x3FFF,
                    (w1 & 0x8000) != 0, (w1 & 0x4000) != 0, w1 & 0x3FFF);
            ulp -= 4;
        }
        byte[] pd = new byte[ulp];
        b.get(pd);
        boolean reject = expectReply && (flags & 0x20) != 0; // R is not checked in a Request (MPA-30)
        return new MpaStartupFrame(expectReply, (flags & 0x80) != 0, (flags & 0x40) != 0, reject, rev, enhanced, pd);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MpaStartupFrame f && f.reply == reply && f.markers == markers && f.crc == crc
                && f.reject == reject && f.rev == rev && java.util.Objects.equals(f.enhanced, enhanced)
                && Arrays.equals(f.privateData, privateData);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(reply, markers, crc, reject, rev, enhanced) * 31 + Arrays.hashCode(privateData);
    }

    @Override
    public String toString() {
        return (reply ? "Reply" : "Request") + "[M=" + (markers ? 1 : 0) + " C=" + (crc ? 1 : 0) + " R="
                + (reject ? 1 : 0) + " Rev=" + rev + (enhanced != null ? " " + enhanced : "") + " PD="
                + privateData.length + "]";
    }
}
