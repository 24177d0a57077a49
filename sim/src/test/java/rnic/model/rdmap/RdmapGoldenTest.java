package rnic.model.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static rnic.model.TerminateAssert.assertTerminates;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import rnic.model.Hex;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.ddp.TerminateException;
import rnic.wire.DdpQueue;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * Every RDMAP message of the docs/requirements.md §2.10 golden FPDUs (and the Send of RFC 5044 Fig. 5, §4.2) built from the
 * fields the text names, segmented as the first message of its queue, compared octet for octet with the dump's ULPDU,
 * and decoded back; the opcode table of §2.6.2 and the header sizes of §2.7.
 *
 * <p>Requirements: RDMAP-01, RDMAP-02, RDMAP-04, RDMAP-05, RDMAP-07, RDMAP-08, RDMAP-12, RDMAP-14, RDMAP-15,
 * RDMAP-16, RDMAP-29, RDMAP-31, RDMAP-36, RDMAP-40, DDP-10, DDP-13, DDP-15, DDP-32; row E-D8 (the Terminate vector).
 */
class RdmapGoldenTest {
    static final RdmapDecoder DECODER = new RdmapDecoder(true);

    /** Encodes {@code m} as the first message of a stream and checks it against {@code golden}, then decodes it. */
    static void assertGolden(byte[] golden, RdmapMessage m) throws TerminateException {
        List<DdpSegment> segments = m.segments(new DdpSegmenter(), 1500);
        assertEquals(1, segments.size());
        assertEquals(Hex.show(golden), Hex.show(segments.get(0).encode()), m.toString());
        assertEquals(m, DECODER.decode(List.of(DdpSegment.parse(golden))));
    }

    /** §2.10 RDMA Write: STag 0x1234, TO 0x1000, payload de ad be ef (RDMAP-04, RDMAP-05, DDP-10). */
    @Test
    void rdmaWrite() throws TerminateException {
        assertGolden(Hex.ulpdu("""
                0000: 00 12 c1 40 00 00 12 34 00 00 00 00 00 00 10 00
                0010: de ad be ef bd bc 30 f4"""), TaggedMessage.write(0x1234, 0x1000, Hex.of("de ad be ef")));
    }

    /**
     * §2.10 RDMA Read Request, QN 1 MSN 1: Sink 0x11111111/0x2000, size 0x100, Src 0x22222222/0x3000; its 28-octet
     * header (RDMAP-07, RDMAP-08); and the Read Response copying the Sink STag and TO (RDMAP-08, T-31).
     */
    @Test
    void readRequestAndItsResponse() throws TerminateException {
        ReadRequest request = new ReadRequest(0x11111111, 0x2000, 0x100, 0x22222222, 0x3000);
        assertGolden(Hex.ulpdu("""
                0000: 00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01
                0010: 00 00 00 00 11 11 11 11 00 00 00 00 00 00 20 00
                0020: 00 00 01 00 22 22 22 22 00 00 00 00 00 00 30 00
                0030: d5 2e c5 b9"""), request);
        TaggedMessage response = TaggedMessage.readResponse(request, new byte[0x100]);
        byte[] first = response.segments(new DdpSegmenter(), 1500).get(0).encode();
        assertEquals("c1 42 11 11 11 11 00 00 00 00 00 00 20 00", Hex.show(Arrays.copyOf(first, 14)));
    }

    /**
     * §2.10 Terminate for a Send (L=1) to QN 7, MSN 1, MO 0 of 34 octets: the decoder rejects that segment with Invalid
     * QN 1/2/01 (E-D8), and the Terminate built for it — M=1 D=1 R=0, DDP Segment Length 0x0022, the Send's header —
     * goes out on QN 2 with MSN 1 (RDMAP-14, RDMAP-15, RDMAP-16, DDP-32).
     */
    @Test
    void terminateForInvalidQn() throws TerminateException {
        byte[] badSend = new DdpSegment(new DdpUntaggedHeader(true, 0x43_0000_0000L, 7, 1, 0), new byte[16]).encode();
        TerminateException e = assertTerminates("1/2/01 110", TerminateCause.DDP_INVALID_QN,
                () -> DECODER.check(DdpSegment.parse(badSend).header()));
        Terminate t = Terminate.inbound(e.cause(), badSend);
        assertGolden(Hex.ulpdu("""
                0000: 00 2a 41 47 00 00 00 00 00 00 00 02 00 00 00 01
                0010: 00 00 00 00 12 01 c0 00 00 22 41 43 00 00 00 00
                0020: 00 00 00 07 00 00 00 01 00 00 00 00 9c 3a f7 b1"""), t);
    }

    /**
     * §2.10 Atomic Request FetchAdd, QN 1 MSN 1: ReqID 0xCAFE0001, STag 0x33333333, TO 0x4000, Add 1, Add Mask 0,
     * Compare Data 0, Compare Mask all ones (RDMAP-29, RDMAP-30, RDMAP-31).
     */
    @Test
    void atomicRequest() throws TerminateException {
        assertGolden(Hex.ulpdu("""
                0000: 00 46 41 4a 00 00 00 00 00 00 00 01 00 00 00 01
                0010: 00 00 00 00 00 00 00 00 ca fe 00 01 33 33 33 33
                0020: 00 00 00 00 00 00 40 00 00 00 00 00 00 00 00 01
                0030: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
                0040: ff ff ff ff ff ff ff ff 29 64 f3 c6"""),
                AtomicRequest.fetchAdd(0xCAFE0001, 0x33333333, 0x4000, 1, 0));
    }

    /** §2.10 Atomic Response, QN 3 MSN 1: original value 0x29 for ReqID 0xCAFE0001 (RDMAP-29, RDMAP-36, T-23). */
    @Test
    void atomicResponse() throws TerminateException {
        assertGolden(Hex.ulpdu("""
                0000: 00 1e 41 4b 00 00 00 00 00 00 00 03 00 00 00 01
                0010: 00 00 00 00 ca fe 00 01 00 00 00 00 00 00 00 29
                0020: 33 a0 f5 39"""), new AtomicResponse(0xCAFE0001, 0x29));
    }

    /** §2.10 Immediate Data 0x0102030405060708, QN 0 MSN 1 (RDMAP-29, RDMAP-40). */
    @Test
    void immediateData() throws TerminateException {
        assertGolden(Hex.ulpdu("""
                0000: 00 1a 41 48 00 00 00 00 00 00 00 00 00 00 00 01
                0010: 00 00 00 00 01 02 03 04 05 06 07 08 06 c2 28 05"""),
                new ImmediateData(RdmapOpcode.IMMEDIATE_DATA, 0x0102030405060708L));
    }

    /** §4.2 (RFC 5044 Fig. 5): the Send with 24 zero octets, MSN 1 (RDMAP-12, DDP-15). */
    @Test
    void send() throws TerminateException {
        assertGolden(Hex.cat(Hex.of("41 43 00000000 00000000 00000001 00000000"), new byte[24]),
                SendMessage.send(new byte[24]));
    }

    /**
     * §2.6.2 opcode table as docs/requirements.md writes it: opcode, T, QN, RDMAP header octets (§2.7), ULP payload, valid
     * Invalidate STag, Solicited Event; and the Control octet 0x40 | opcode of §2.6.1 (RDMAP-01, RDMAP-02, RDMAP-03,
     * RDMAP-04, RDMAP-29).
     */
    @Test
    void opcodeTable() {
        String table = """
                0 RDMA_WRITE 1 - 0 payload - -
                1 RDMA_READ_REQUEST 0 1 28 - - -
                2 RDMA_READ_RESPONSE 1 - 0 payload - -
                3 SEND 0 0 0 payload - -
                4 SEND_WITH_INVALIDATE 0 0 0 payload inval -
                5 SEND_WITH_SE 0 0 0 payload - SE
                6 SEND_WITH_SE_AND_INVALIDATE 0 0 0 payload inval SE
                7 TERMINATE 0 2 4 - - -
                8 IMMEDIATE_DATA 0 0 8 - - -
                9 IMMEDIATE_DATA_WITH_SE 0 0 8 - - SE
                a ATOMIC_REQUEST 0 1 52 - - -
                b ATOMIC_RESPONSE 0 3 12 - - -
                """;
        List<String> rows = table.lines().toList();
        assertEquals(RdmapOpcode.values().length, rows.size());
        for (String row : rows) {
            String[] f = row.split(" ");
            int code = Integer.parseInt(f[0], 16);
            RdmapOpcode op = RdmapOpcode.decode(code).orElseThrow();
            assertEquals(f[1], op.name());
            assertEquals(0x40 | code, op.control(), row);
            assertEquals(f[2].equals("1"), op.tagged(), row);
            assertEquals(f[3].equals("-") ? Optional.empty() : Optional.of(Integer.parseInt(f[3])),
                    op.queue().map(DdpQueue::qn), row);
            assertEquals(Integer.parseInt(f[4]), op.headerSize(), row);
            assertEquals(f[5].equals("payload"), op.ulpPayload(), row);
            assertEquals(f[6].equals("inval"), op.invalidates(), row);
            assertEquals(f[7].equals("SE"), op.solicitedEvent(), row);
            assertEquals(code >= 8, op.extension(), row);
        }
        for (int code = 0xC; code <= 0xF; code++) {
            assertEquals(Optional.empty(), RdmapOpcode.decode(code));
        }
        assertEquals(0x43, RdmapOpcode.SEND.control());
        assertEquals(0x47, RdmapOpcode.TERMINATE.control());
        assertEquals(0x4A, RdmapOpcode.ATOMIC_REQUEST.control());
    }
}
