package rnic.model.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static rnic.model.TerminateAssert.assertTerminates;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import rnic.model.Hex;
import rnic.model.ddp.DdpHeader;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.ddp.DdpTaggedHeader;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.ddp.TerminateException;
import rnic.wire.DdpQueue;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * The RDMAP receive checks that need no connection state, each producing its docs/requirements.md §3 row, and the Terminate
 * sent for the failing segment checked octet by octet; fields a receiver must ignore (Rsv, Invalidate STag, AOpCode
 * Reserved) and zero-length messages.
 *
 * <p>Requirements: RDMAP-02, RDMAP-03, RDMAP-04, RDMAP-09, RDMAP-15, RDMAP-17, RDMAP-19, RDMAP-29, RDMAP-30,
 * RDMAP-31, RDMAP-41, RDMAP-42, RDMAP-43, DDP-19, DDP-32; rows E-D8, E-R8, E-R9, E-R10, E-R15, E-R17, E-R20.
 */
class RdmapDecoderTest {
    static final RdmapDecoder DECODER = new RdmapDecoder(true);

    static byte[] untagged(int control, long invalidateStag, long qn, byte[] payload) {
        return new DdpSegment(new DdpUntaggedHeader(true, (long) control << 32 | invalidateStag, qn, 1, 0), payload)
                .encode();
    }

    static byte[] tagged(int control, byte[] payload) {
        return new DdpSegment(new DdpTaggedHeader(true, control, 0x1234, 0x1000), payload).encode();
    }

    static RdmapMessage decode(RdmapDecoder decoder, byte[] ulpdu) throws TerminateException {
        return decoder.decode(List.of(DdpSegment.parse(ulpdu)));
    }

    /**
     * Asserts that {@code ulpdu} fails with {@code cause} ({@code table} as docs/requirements.md §3 writes it) and that the
     * Terminate for it starts with {@code control} (Layer/EType, Error Code, HdrCt, reserved) followed by the whole
     * segment's length and its DDP header as received (RDMAP-15, RDMAP-16, RDMAP-17 rule 2, T-19).
     */
    static void assertRejected(RdmapDecoder decoder, String table, TerminateCause cause, String control, byte[] ulpdu) {
        TerminateException e = assertTerminates(table, cause, () -> decode(decoder, ulpdu));
        byte[] t = Terminate.inbound(e.cause(), ulpdu).ddpPayload();
        int headerSize = (ulpdu[0] & 0x80) != 0 ? 14 : 18;
        assertEquals(control, Hex.show(Arrays.copyOf(t, 4)));
        assertEquals(6 + headerSize, t.length);
        assertEquals(ulpdu.length, ByteBuffer.wrap(t, 4, 2).getShort() & 0xFFFF);
        assertArrayEquals(Arrays.copyOf(ulpdu, headerSize), Arrays.copyOfRange(t, 6, t.length));
    }

    static void assertRejected(String table, TerminateCause cause, String control, byte[] ulpdu) {
        assertRejected(DECODER, table, cause, control, ulpdu);
    }

    /** E-R8: RV 00b (RDMAC), 10b, 11b on a tagged or untagged segment is 0/2/05, Terminate 02 05 c0 00 (RDMAP-02). */
    @Test
    void invalidRdmapVersion() {
        for (int rv : new int[] {0, 2, 3}) {
            assertRejected("0/2/05 110", TerminateCause.INVALID_RDMAP_VERSION, "02 05 c0 00",
                    untagged(rv << 6 | 3, 0, 0, new byte[4]));
            assertRejected("0/2/05 110", TerminateCause.INVALID_RDMAP_VERSION, "02 05 c0 00",
                    tagged(rv << 6, new byte[4]));
        }
    }

    /** RDMAP-02: the Rsv bits of the Control Field are not checked. */
    @Test
    void rsvBitsAreIgnored() throws TerminateException {
        assertEquals(SendMessage.send(Hex.of("01")), decode(DECODER, untagged(0x73, 0, 0, Hex.of("01"))));
    }

    /** E-R9: opcodes 0xC–0xF are Unexpected OpCode, 0/2/06, Terminate 02 06 c0 00 (RDMAP-04, RDMAP-19). */
    @Test
    void unassignedOpcodes() {
        for (int op = 0xC; op <= 0xF; op++) {
            assertRejected("0/2/06 110", TerminateCause.UNEXPECTED_OPCODE, "02 06 c0 00",
                    untagged(0x40 | op, 0, 0, new byte[8]));
        }
    }

    /**
     * RDMAP-43: an endpoint without RFC 7306 answers 0x8–0xB with Unexpected OpCode 0/2/06 (E-R9), and QN 3 is no
     * queue of its streams (E-D8).
     */
    @Test
    void endpointWithoutExtensions() {
        RdmapDecoder base = new RdmapDecoder(false);
        assertEquals(List.of(DdpQueue.SEND, DdpQueue.READ_REQUEST, DdpQueue.TERMINATE), base.queues());
        assertEquals(List.of(DdpQueue.values()), DECODER.queues());
        int[][] opQn = {{0x8, 0}, {0x9, 0}, {0xA, 1}};
        for (int[] p : opQn) {
            assertRejected(base, "0/2/06 110", TerminateCause.UNEXPECTED_OPCODE, "02 06 c0 00",
                    untagged(0x40 | p[0], 0, p[1], new byte[p[0] == 0xA ? 52 : 8]));
        }
        assertRejected(base, "1/2/01 110", TerminateCause.DDP_INVALID_QN, "12 01 c0 00",
                untagged(0x4B, 0, 3, new byte[12]));
    }

    /** E-D8: QN 4 and QN 0xFFFFFFFF are no RDMAP queue, 1/2/01, before the opcode is looked at (RDMAP-01). */
    @Test
    void invalidQueueNumbers() {
        assertRejected("1/2/01 110", TerminateCause.DDP_INVALID_QN, "12 01 c0 00", untagged(0x43, 0, 4, new byte[1]));
        assertRejected("1/2/01 110", TerminateCause.DDP_INVALID_QN, "12 01 c0 00",
                untagged(0x4F, 0, 0xFFFF_FFFFL, new byte[1]));
    }

    /**
     * E-R10: an opcode with the wrong T flag (Send tagged, Write untagged) or on another valid QN (Send on QN 1, Read
     * Request on QN 0, Atomic Response on QN 1, Terminate on QN 0) is 0/2/06 (RDMAP-04; Appendix B item 3).
     */
    @Test
    void opcodeInconsistentWithTOrQn() {
        byte[][] cases = {
            tagged(0x43, new byte[4]),
            untagged(0x40, 0, 0, new byte[4]),
            untagged(0x43, 0, 1, new byte[4]),
            untagged(0x41, 0, 0, new byte[28]),
            untagged(0x4B, 0, 1, new byte[12]),
            untagged(0x47, 0, 0, new byte[4]),
        };
        for (byte[] ulpdu : cases) {
            assertRejected("0/2/06 110", TerminateCause.OPCODE_MISMATCH, "02 06 c0 00", ulpdu);
        }
    }

    /** E-R20: Immediate Data of 0, 7 or 9 octets is 0/2/FF (RDMAP-41, Appendix B item 5). */
    @Test
    void immediateDataLength() {
        for (int n : new int[] {0, 7, 9}) {
            assertRejected("0/2/ff 110", TerminateCause.IMMEDIATE_DATA_LENGTH, "02 ff c0 00",
                    untagged(0x48, 0, 0, new byte[n]));
            assertRejected("0/2/ff 110", TerminateCause.IMMEDIATE_DATA_LENGTH, "02 ff c0 00",
                    untagged(0x49, 0, 0, new byte[n]));
        }
    }

    /** E-R15: a Read Request, Atomic Request or Atomic Response one octet short or long is 0/2/FF. */
    @Test
    void fixedHeaderMessagesOfTheWrongLength() {
        int[][] opQnSize = {{0x1, 1, 28}, {0xA, 1, 52}, {0xB, 3, 12}};
        for (int[] c : opQnSize) {
            for (int n : new int[] {c[2] - 1, c[2] + 1}) {
                assertRejected("0/2/ff 110", TerminateCause.UNSPECIFIED_REMOTE_OPERATION, "02 ff c0 00",
                        untagged(0x40 | c[0], 0, c[1], new byte[n]));
            }
        }
    }

    /**
     * E-R15: a Terminate shorter than its control, with D=1 but no room for the length and header, with its
     * Terminated DDP Header cut, with R=1 and no RDMA header, or with octets beyond what HdrCt announces.
     */
    @Test
    void malformedTerminates() {
        String[] payloads = {
            "12 01 c0",
            "12 01 c0 00 00",
            "12 01 c0 00 0022 c1 40 00001234 000000000000",
            "01 00 e0 00 0022 41 41 00000000 00000001 00000001 00000000",
            "02 05 00 00 00",
        };
        for (String p : payloads) {
            assertRejected("0/2/ff 110", TerminateCause.UNSPECIFIED_REMOTE_OPERATION, "02 ff c0 00",
                    untagged(0x47, 0, 2, Hex.of(p)));
        }
    }

    /**
     * E-R17: AOpCode 0x1 (Reserved), 0x3 and 0xF is 0/2/06 (RDMAP-30, Appendix B item 5); the 28 Reserved bits above
     * it are ignored (RDMAP-31).
     */
    @Test
    void atomicOpcodes() throws TerminateException {
        byte[] header = AtomicRequest.cmpSwap(7, 0x33, 0x4000, 1, 2, 3, 4).ddpPayload();
        for (int aop : new int[] {0x1, 0x3, 0xF}) {
            header[3] = (byte) aop;
            assertRejected("0/2/06 110", TerminateCause.ATOMIC_UNSUPPORTED_OPCODE, "02 06 c0 00",
                    untagged(0x4A, 0, 1, header));
        }
        header[0] = (byte) 0xFF;
        header[3] = (byte) 0xF2;
        assertEquals(AtomicRequest.cmpSwap(7, 0x33, 0x4000, 1, 2, 3, 4), decode(DECODER, untagged(0x4A, 0, 1, header)));
    }

    /**
     * RDMAP-03, RDMAP-29, T-30: the Invalidate STag is kept only for Send with (SE and) Invalidate; a Send, Read
     * Request, Terminate or Immediate Data with non-zero octets 2–5 is accepted and carries none.
     */
    @Test
    void invalidateStagOnlyForTheInvalidateOpcodes() throws TerminateException {
        long stag = 0x8765_4321L;
        assertEquals(new SendMessage(RdmapOpcode.SEND_WITH_INVALIDATE, (int) stag, Hex.of("aa")),
                decode(DECODER, untagged(0x44, stag, 0, Hex.of("aa"))));
        assertEquals(new SendMessage(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE, (int) stag, new byte[0]),
                decode(DECODER, untagged(0x46, stag, 0, new byte[0])));
        assertEquals(SendMessage.send(Hex.of("aa")), decode(DECODER, untagged(0x43, stag, 0, Hex.of("aa"))));
        assertEquals(new SendMessage(RdmapOpcode.SEND_WITH_SE, 0, Hex.of("aa")),
                decode(DECODER, untagged(0x45, stag, 0, Hex.of("aa"))));
        ReadRequest read = new ReadRequest(1, 2, 3, 4, 5);
        assertEquals(read, decode(DECODER, untagged(0x41, stag, 1, read.ddpPayload())));
        assertEquals(new ImmediateData(RdmapOpcode.IMMEDIATE_DATA_WITH_SE, -1L),
                decode(DECODER, untagged(0x49, stag, 0, Hex.of("ffffffffffffffff"))));
        assertEquals(Terminate.outbound(TerminateCause.RDMAP_LOCAL_CATASTROPHIC),
                decode(DECODER, untagged(0x47, stag, 2, Hex.of("00 00 00 00"))));
        assertThrows(IllegalArgumentException.class, () -> new SendMessage(RdmapOpcode.SEND, 1, new byte[0]),
                "a sender writes zero (RDMAP-03)");
    }

    /**
     * DDP-19, RDMAP-09: a zero-length RDMA Write with STag 0xFFFFFFFF and TO 2^64−1 passes the checks; a zero-length
     * Read gets a zero-length Read Response, one segment.
     */
    @Test
    void zeroLengthMessages() throws TerminateException {
        byte[] write = new DdpSegment(new DdpTaggedHeader(true, 0x40, 0xFFFF_FFFF, -1L), new byte[0]).encode();
        assertEquals(TaggedMessage.write(0xFFFF_FFFF, -1L, new byte[0]), decode(DECODER, write));
        ReadRequest zero = new ReadRequest(0x11, 0x2000, 0, 0xBAD, -1L);
        List<DdpSegment> response = TaggedMessage.readResponse(zero, new byte[0]).segments(new DdpSegmenter(), 128);
        assertEquals(List.of(new DdpSegment(new DdpTaggedHeader(true, 0x42, 0x11, 0x2000), new byte[0])), response);
    }

    /** The segments of one message decode only whole and in order; L, TO/MO and MSN must line up. */
    @Test
    void decodeTakesOneWholeMessage() {
        List<DdpSegment> s = SendMessage.send(new byte[300]).segments(new DdpSegmenter(), 128);
        assertEquals(3, s.size());
        List<List<DdpSegment>> broken = List.of(List.of(), s.subList(0, 2), List.of(s.get(0), s.get(2), s.get(1)),
                List.of(s.get(0), s.get(1), withMsn(s.get(2), 2)));
        for (List<DdpSegment> b : broken) {
            assertThrows(IllegalArgumentException.class, () -> DECODER.decode(b));
        }
    }

    static DdpSegment withMsn(DdpSegment s, long msn) {
        DdpUntaggedHeader h = (DdpUntaggedHeader) s.header();
        DdpHeader changed = new DdpUntaggedHeader(h.last(), h.rsvdUlp(), h.qn(), msn, h.mo());
        return new DdpSegment(changed, s.payload());
    }
}
