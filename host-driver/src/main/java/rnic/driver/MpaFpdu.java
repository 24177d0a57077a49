package rnic.driver;

import java.io.ByteArrayOutputStream;
import java.util.zip.CRC32C;
import rnic.wire.Ddp;
import rnic.wire.DdpQueue;
import rnic.wire.Rdmap;
import rnic.wire.RdmapOpcode;

/**
 * Frames the one FPDU the driver itself ever sends: the Terminate an Initiator owes the peer when RFC 6581 enhanced
 * setup fails after the Reply (E-M5 / E-M6 / E-M7: Layer 2, EType 0, Code 5/6/7, no headers), which must go out before
 * the connection is handed to the core (RFC 5044 §4, docs/requirements.md §2.2–§2.3, §2.7.2, §4.1).
 *
 * <p>The FPDU is the first of its direction, so it starts at SeqStart: with Markers, a Marker {@code 00 00 00 00}
 * comes first (MPA-37) and one every 512 octets of the stream after it, FPDUPTR pointing back at the FPDU's
 * ULPDU_Length. The CRC32c covers the leading Marker, ULPDU_Length, ULPDU, inner Markers and PAD and is sent least
 * significant octet first (T-06, T-07).
 */
public final class MpaFpdu {
    /** Marker spacing in stream octets (RFC 5044 §4.2). */
    public static final int MARKER_INTERVAL = 512;

    private MpaFpdu() {
    }

    /** The octets of {@code ulpdu} framed as the first FPDU of a direction. */
    public static byte[] first(byte[] ulpdu, boolean markers) {
        if (ulpdu.length < 1 || ulpdu.length > 0xFFFF) {
            throw new IllegalArgumentException("ULPDU_Length " + ulpdu.length + " out of 1 … 65535");
        }
        int pad = (4 - (2 + ulpdu.length) % 4) % 4;
        byte[] body = new byte[2 + ulpdu.length + pad];
        body[0] = (byte) (ulpdu.length >>> 8);
        body[1] = (byte) ulpdu.length;
        System.arraycopy(ulpdu, 0, body, 2, ulpdu.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 16);
        int header = markers ? 4 : 0;
        for (byte b : body) {
            marker(out, markers, header);
            out.write(b);
        }
        marker(out, markers, header);
        CRC32C crc = new CRC32C();
        byte[] covered = out.toByteArray();
        crc.update(covered);
        long v = crc.getValue();
        for (int i = 0; i < 4; i++) {
            out.write((int) (v >>> (8 * i)));
        }
        return out.toByteArray();
    }

    private static void marker(ByteArrayOutputStream out, boolean markers, int header) {
        int pos = out.size();
        if (markers && pos % MARKER_INTERVAL == 0) {
            int fpduPtr = pos == 0 ? 0 : pos - header;
            out.write(0);
            out.write(0);
            out.write(fpduPtr >>> 8);
            out.write(fpduPtr);
        }
    }

    /**
     * The ULPDU of a Terminate (RFC 5040 §4.8, docs/requirements.md §2.7.2): untagged DDP header on queue 2, MSN 1, MO 0, L=1;
     * RDMAP opcode Terminate; Terminate Control {@code layerEtype}, {@code errorCode}, {@code hdrCt}; then
     * {@code optional} (DDP Segment Length and Terminated headers, empty when HdrCt has no bits).
     */
    public static byte[] terminateUlpdu(int layerEtype, int errorCode, int hdrCt, byte[] optional) {
        byte[] u = new byte[Ddp.UNTAGGED_HEADER_SIZE + Rdmap.TERMINATE_CONTROL_SIZE + optional.length];
        u[0] = (byte) Ddp.control(false, true);
        u[1] = (byte) RdmapOpcode.TERMINATE.control();
        // octets 2–5: Invalidate STag 0; 6–9 QN; 10–13 MSN; 14–17 MO 0 (all big-endian)
        u[9] = (byte) DdpQueue.TERMINATE.qn();
        u[13] = (byte) Ddp.FIRST_MSN;
        u[18] = (byte) layerEtype;
        u[19] = (byte) errorCode;
        u[20] = (byte) hdrCt;
        System.arraycopy(optional, 0, u, 22, optional.length);
        return u;
    }
}
