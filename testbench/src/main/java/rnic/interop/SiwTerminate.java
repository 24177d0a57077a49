package rnic.interop;

import java.util.HexFormat;

/**
 * A lenient decoding of a Terminate's control field as Linux siw sends it on little-endian hosts (x86).
 *
 * <p>RFC 5040 §4.8 puts Layer in the high four bits of the first octet and EType in the low four, and the HdrCt flags
 * M, D, R in the three high bits of the third octet. siw declares these as C bit-fields ({@code layer:4, etype:4, ecode:8,
 * flag_m:1, flag_d:1, flag_r:1}) inside a big-endian word, which a little-endian compiler lays out from the low bits:
 * Layer lands in the low nibble, EType in the high one, and M/D/R in the three low bits of the third octet. This class
 * reads both layouts and picks siw's when its flags sit in the low bits (and the high ones are clear), or when only
 * the swapped reading names a defined Layer/EType; {@link #swapped()} flags it as non-conformant, and
 * {@link #layer()}/{@link #etype()}/{@link #errorCode()} give the cause siw meant.
 *
 * @param layer     the Layer siw meant: 0 RDMAP, 1 DDP, 2 LLP (MPA)
 * @param etype     the EType siw meant
 * @param errorCode the Error Code (octet 2, the same in both layouts)
 * @param m         HdrCt M: DDP Segment Length valid
 * @param d         HdrCt D: DDP header included
 * @param r         HdrCt R: RDMA header included
 * @param swapped   the control field is in siw's little-endian bit-field layout, not RFC 5040's
 * @param raw       the Terminate's ULPDU
 */
public record SiwTerminate(int layer, int etype, int errorCode, boolean m, boolean d, boolean r, boolean swapped,
        byte[] raw) {
    /** Octets before the Terminate control field: the untagged DDP header with the RDMAP control octets. */
    public static final int CONTROL_OFFSET = 18;

    /** Decodes the Terminate in {@code ulpdu} (a DDP segment on QN 2, as MPA delivered it). */
    public static SiwTerminate decode(byte[] ulpdu) {
        if (ulpdu.length < CONTROL_OFFSET + 4) {
            throw new IllegalArgumentException("a Terminate has at least " + (CONTROL_OFFSET + 4) + " octets, got "
                    + ulpdu.length);
        }
        return decode(ulpdu[CONTROL_OFFSET] & 0xFF, ulpdu[CONTROL_OFFSET + 1] & 0xFF,
                ulpdu[CONTROL_OFFSET + 2] & 0xFF, ulpdu);
    }

    /**
     * Decodes a Terminate from its first three control octets as a completion reports them
     * ({@code rnic.verbs.Completion#terminateLayerEtype()}, {@code terminateErrorCode()}, {@code terminateHdrCt()}):
     * what the application has when the core received it. {@link #raw()} is then the control field alone, at
     * {@link #CONTROL_OFFSET}.
     */
    public static SiwTerminate fromControl(int layerEtype, int errorCode, int hdrCt) {
        byte[] raw = new byte[CONTROL_OFFSET + 4];
        raw[CONTROL_OFFSET] = (byte) layerEtype;
        raw[CONTROL_OFFSET + 1] = (byte) errorCode;
        raw[CONTROL_OFFSET + 2] = (byte) hdrCt;
        return decode(layerEtype & 0xFF, errorCode & 0xFF, hdrCt & 0xFF, raw);
    }

    private static SiwTerminate decode(int b0, int code, int b2, byte[] ulpdu) {
        boolean lowFlags = (b2 & 0x07) != 0 && (b2 & 0xE0) == 0;
        boolean rfcDefined = defined(b0 >>> 4, b0 & 0xF, code);
        boolean siwDefined = defined(b0 & 0xF, b0 >>> 4, code);
        boolean swapped = lowFlags || !rfcDefined && siwDefined;
        if (swapped) {
            return new SiwTerminate(b0 & 0xF, b0 >>> 4, code, (b2 & 1) != 0, (b2 & 2) != 0, (b2 & 4) != 0, true,
                    ulpdu.clone());
        }
        return new SiwTerminate(b0 >>> 4, b0 & 0xF, code, (b2 & 0x80) != 0, (b2 & 0x40) != 0, (b2 & 0x20) != 0,
                false, ulpdu.clone());
    }

    /** {@code Layer << 4 | EType} as meant: octet 0 in RFC 5040's layout. */
    public int layerEtype() {
        return layer << 4 | etype;
    }

    /**
     * Layer/EType pairs RFC 5040 §4.8 defines (RDMAP 0–2, DDP 0–2), and MPA's 2/0 only with its Error Codes 1–4
     * (RFC 5044 §8): siw's RDMAP 0/2 reads as 0x20, which RFC 5040's layout would take for LLP 2/0.
     */
    private static boolean defined(int layer, int etype, int code) {
        return switch (layer) {
            case 0, 1 -> etype <= 2;
            case 2 -> etype == 0 && code >= 1 && code <= 4;
            default -> false;
        };
    }

    @Override
    public String toString() {
        return String.format("Terminate %d/%d/%02X M=%d D=%d R=%d%s (%d octets, control %s)", layer, etype,
                errorCode, m ? 1 : 0, d ? 1 : 0, r ? 1 : 0,
                swapped ? ", NON-CONFORMANT: siw's little-endian bit-field layout" : "", raw.length,
                HexFormat.of().formatHex(raw, CONTROL_OFFSET, Math.min(raw.length, CONTROL_OFFSET + 4)));
    }
}
