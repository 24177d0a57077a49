package rnic.model.mpa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import rnic.model.Hex;
import rnic.wire.MpaErrorCode;
import rnic.wire.MpaStartupFrame;

/**
 * MPA Request/Reply encode and decode against docs/requirements.md §2.4.4, and the E-M4 cases of §3.1.
 *
 * <p>Requirements: MPA-27, MPA-28, MPA-30, MPA-31, MPA-32, MPA-48, MPA-51 (frame level), MPA-52.
 */
class MpaStartupFrameTest {

    static MpaStartupFrame decode(byte[] b, boolean reply) throws MpaStartupFrame.InvalidFrameException {
        return MpaStartupFrame.decode(ByteBuffer.wrap(b), reply, true);
    }

    @Test
    void conformanceByteVectors() throws Exception {
        byte[] req = Hex.of("4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65  40 01 00 00");
        byte[] rep = Hex.of("4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65  40 01 00 00");
        byte[] enh = Hex.of("4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65  50 02 00 04  c0 10 00 10");
        MpaStartupFrame request = new MpaStartupFrame(false, false, true, false, 1, null, null);
        MpaStartupFrame reply = new MpaStartupFrame(true, false, true, false, 1, null, null);
        MpaStartupFrame enhanced = new MpaStartupFrame(false, false, true, false, 2,
                new MpaStartupFrame.Enhanced(true, true, 16, false, false, 16), null);
        assertArrayEquals(req, request.encode());
        assertArrayEquals(rep, reply.encode());
        assertArrayEquals(enh, enhanced.encode());
        assertEquals(request, decode(req, false));
        assertEquals(reply, decode(rep, true));
        assertEquals(enhanced, decode(enh, false));
        assertEquals(4, enhanced.pdLength());
    }

    @Test
    void privateDataUpTo512OctetsRoundTripsAndDecodeConsumesExactlyTheFrame() throws Exception {
        byte[] pd = new byte[508];
        new java.util.Random(1).nextBytes(pd);
        MpaStartupFrame f = new MpaStartupFrame(true, true, true, false, 2,
                new MpaStartupFrame.Enhanced(false, false, 0x3FFF, false, false, 0x3FFF), pd);
        assertEquals(512, f.pdLength());
        ByteBuffer b = ByteBuffer.allocate(f.size() + 3);
        f.writeTo(b);
        b.put(new byte[] {1, 2, 3}).flip();
        assertEquals(f, MpaStartupFrame.decode(b, true, false));
        assertEquals(3, b.remaining(), "what follows the frame is Full Operation data");
    }

    @Test
    void partialFrameAsksForMoreOctets() throws Exception {
        byte[] full = new MpaStartupFrame(false, true, true, false, 1, null, new byte[10]).encode();
        for (int n = 0; n < full.length; n++) {
            ByteBuffer b = ByteBuffer.wrap(full, 0, n);
            assertNull(MpaStartupFrame.decode(b, false, false), "prefix of " + n);
            assertEquals(0, b.position(), "nothing consumed");
        }
    }

    @Test
    void requestRBitAndResBitsAreNotChecked() throws Exception {
        byte[] b = new MpaStartupFrame(false, false, true, false, 1, null, null).encode();
        b[16] |= 0x20 | 0x0F;
        MpaStartupFrame f = decode(b, false);
        assertTrue(f.crc());
    }

    /** Every malformed frame of E-M4 is MPA error 4 (MPA-28, MPA-31, MPA-32, MPA-48, MPA-52). */
    @Test
    void malformedFramesAreError4() {
        byte[] req = new MpaStartupFrame(false, false, true, false, 1, null, new byte[8]).encode();
        expectInvalid(req, true, "Req key where Rep expected");
        expectInvalid(new MpaStartupFrame(true, false, true, false, 1, null, null).encode(), false,
                "Rep key where Req expected (Responder/Responder)");
        for (int rev : new int[] {0, 3}) {
            byte[] b = req.clone();
            b[17] = (byte) rev;
            expectInvalid(b, false, "Rev " + rev);
        }
        byte[] big = req.clone();
        big[18] = 0x02;
        big[19] = 0x01; // PD_Length 513
        expectInvalid(big, false, "PD_Length 513");
        byte[] truncated = java.util.Arrays.copyOf(req, req.length - 4);
        expectInvalid(truncated, false, "PD_Length 8 with 4 octets then FIN");
        byte[] s1 = req.clone();
        s1[16] |= 0x10;
        expectInvalid(s1, false, "S=1 with Rev 1");
        byte[] key = req.clone();
        key[0] = 'm';
        expectInvalid(key, false, "lower-case key");
    }

    private static void expectInvalid(byte[] b, boolean reply, String what) {
        MpaStartupFrame.InvalidFrameException e = assertThrows(MpaStartupFrame.InvalidFrameException.class,
                () -> decode(b, reply), what);
        assertEquals(MpaErrorCode.INVALID_STARTUP_FRAME, e.code());
        assertEquals(4, e.code().code());
        assertEquals(0x20, e.code().layerEtype());
    }
}
