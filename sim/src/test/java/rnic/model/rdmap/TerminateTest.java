package rnic.model.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.model.TerminateAssert.assertCause;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import rnic.model.Hex;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.ddp.DdpTaggedHeader;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.ddp.StagTable;
import rnic.model.ddp.TerminateException;
import rnic.wire.MpaErrorCode;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * The Terminate message: every row of docs/requirements.md §3.2 and §3.3 as a cause with the table's Layer/EType/Code and HdrCt,
 * the optional fields and their sizes (§2.7.2), the progress update of the Terminated RDMA Header, outbound and LLP
 * Terminates, and decoding what was sent.
 *
 * <p>Requirements: RDMAP-13, RDMAP-14, RDMAP-15, RDMAP-16, RDMAP-17, RDMAP-42, DDP-32; rows E-D0 … E-D13,
 * E-R0 … E-R21 (their code points), E-R6 (Send with Invalidate), E-R21 (outbound).
 */
class TerminateTest {
    static final RdmapDecoder DECODER = new RdmapDecoder(true);

    /** docs/requirements.md §3.2 and §3.3 as "row constant L/ET/EC MDR", the two-valued rows as this project resolved them. */
    static final String TABLE = """
            E-D0 DDP_LOCAL_CATASTROPHIC 1/0/00 000
            E-D1 DDP_INVALID_STAG 1/1/00 110
            E-D2 DDP_PLACEMENT_NOT_ALLOWED 1/1/00 110
            E-D3 DDP_TO_OUT_OF_BOUNDS 1/1/01 110
            E-D4 DDP_END_OUT_OF_BOUNDS 1/1/01 110
            E-D5 DDP_STAG_NOT_ASSOCIATED 1/1/02 110
            E-D6 DDP_TO_WRAP 1/1/03 110
            E-D7 DDP_TAGGED_INVALID_VERSION 1/1/04 110
            E-D8 DDP_INVALID_QN 1/2/01 110
            E-D9 DDP_NO_BUFFER 1/2/02 110
            E-D10 DDP_INVALID_MSN 1/2/03 110
            E-D11 DDP_INVALID_MO 1/2/04 110
            E-D12 DDP_MESSAGE_TOO_LONG 1/2/05 110
            E-D13 DDP_UNTAGGED_INVALID_VERSION 1/2/06 110
            E-R0 RDMAP_LOCAL_CATASTROPHIC 0/0/00 000
            E-R1 READ_INVALID_STAG 0/1/00 111
            E-R2 READ_BASE_BOUNDS 0/1/01 111
            E-R3 READ_ACCESS_RIGHTS 0/1/02 111
            E-R4 READ_STAG_NOT_ASSOCIATED 0/1/03 111
            E-R5 READ_TO_WRAP 0/1/04 111
            E-R6 INVALIDATE_PROTECTION 0/1/09 110
            E-R6 INVALIDATE_OPERATION 0/2/09 110
            E-R7 UNSPECIFIED_PROTECTION_READ 0/1/ff 111
            E-R7 UNSPECIFIED_PROTECTION_INVALIDATE 0/1/ff 110
            E-R8 INVALID_RDMAP_VERSION 0/2/05 110
            E-R9 UNEXPECTED_OPCODE 0/2/06 110
            E-R10 OPCODE_MISMATCH 0/2/06 110
            E-R11 UNEXPECTED_READ_RESPONSE 0/2/06 110
            E-R12 IRD_EXCEEDED 1/2/02 110
            E-R13 STREAM_CATASTROPHIC 0/2/07 110
            E-R14 GLOBAL_CATASTROPHIC 0/2/08 000
            E-R15 UNSPECIFIED_REMOTE_OPERATION 0/2/ff 110
            E-R16 ATOMIC_MISALIGNED 0/2/07 110
            E-R17 ATOMIC_UNSUPPORTED_OPCODE 0/2/06 110
            E-R18 ATOMIC_INVALID_STAG 0/1/00 110
            E-R18 ATOMIC_BASE_BOUNDS 0/1/01 110
            E-R18 ATOMIC_ACCESS_RIGHTS 0/1/02 110
            E-R18 ATOMIC_STAG_NOT_ASSOCIATED 0/1/03 110
            E-R18 ATOMIC_TO_WRAP 0/1/04 110
            E-R19 UNEXPECTED_ATOMIC_RESPONSE 0/2/06 110
            E-R20 IMMEDIATE_DATA_LENGTH 0/2/ff 110
            E-R21 OUTBOUND_MESSAGE_ERROR 0/0/00 000
            """;

    /**
     * Every §3.2 row E-D0 … E-D13 and every §3.3 row E-R0 … E-R21 has a cause, and each cause has its row's values
     * (DDP-32, RDMAP-15).
     */
    @Test
    void everyRowOfTheErrorTables() {
        List<String> lines = TABLE.lines().toList();
        assertEquals(TerminateCause.values().length, lines.size(), "one line per constant");
        List<String> rows = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.split(" ", 3);
            TerminateCause c = TerminateCause.valueOf(f[1]);
            assertEquals(f[0], c.row());
            assertCause(f[2], c, c);
            if (!rows.contains(f[0])) {
                rows.add(f[0]);
            }
        }
        List<String> expected = Stream.concat(IntStream.rangeClosed(0, 13).mapToObj(i -> "E-D" + i),
                IntStream.rangeClosed(0, 21).mapToObj(i -> "E-R" + i)).toList();
        assertEquals(expected, rows);
    }

    /**
     * §2.7.2: Terminate DDP payloads are 4 (no headers), 20 (tagged DDP header), 24 (untagged) or 52 (untagged plus RDMA
     * header) octets; the T bit of the Terminated DDP Header, not the EType, tells 14 from 18 (T-19); each decodes
     * back to what was sent (RDMAP-15, RDMAP-16).
     */
    @Test
    void optionalFieldsAndTheirSizes() throws TerminateException {
        byte[] write = new DdpSegment(new DdpTaggedHeader(true, 0x40, 0x99, 0x5000), new byte[100]).encode();
        byte[] send = new DdpSegment(new DdpUntaggedHeader(true, 0x43_0000_0000L, 0, 9, 0), new byte[10]).encode();
        ReadRequest read = new ReadRequest(0x11, 0x2000, 0x100, 0x22, 0x3000);
        byte[] readSegment = read.segments(new DdpSegmenter(), 1500).get(0).encode();
        Terminate[] terminates = {
            Terminate.outbound(TerminateCause.STREAM_CATASTROPHIC),
            Terminate.inbound(TerminateCause.DDP_TO_OUT_OF_BOUNDS, write),
            Terminate.inbound(TerminateCause.DDP_INVALID_MSN, send),
            Terminate.inbound(TerminateCause.READ_BASE_BOUNDS, readSegment, read),
        };
        int[] sizes = {4, 20, 24, 52};
        String[] heads = {"02 07 00 00", "11 01 c0 00 00 72 c1 40", "12 03 c0 00 00 1c 41 43", "01 01 e0 00 00 2e 41 41"};
        for (int i = 0; i < terminates.length; i++) {
            Terminate t = terminates[i];
            byte[] payload = t.ddpPayload();
            assertEquals(sizes[i], payload.length, t.toString());
            assertTrue(Hex.show(payload).startsWith(heads[i]), Hex.show(payload));
            List<DdpSegment> segments = t.segments(new DdpSegmenter(), 128);
            assertEquals(1, segments.size());
            assertEquals(new DdpUntaggedHeader(true, 0x47_0000_0000L, 2, 1, 0), segments.get(0).header(),
                    "QN 2, MSN 1, MO 0, Invalidate STag 0 (T-21)");
            assertEquals(t, DECODER.decode(segments));
        }
        assertEquals(Hex.show(read.ddpPayload()), Hex.show(Arrays.copyOfRange(
                terminates[3].ddpPayload(), 24, 52)), "the Terminated RDMA Header is the Read Request");
    }

    /**
     * RDMAP-16, T-22: a Read failing after 2048 octets of its response reports SinkTO and SrcTO advanced by 2048 and
     * RDMARDSZ reduced by 2048, the STags unchanged.
     */
    @Test
    void terminatedRdmaHeaderShowsProgress() {
        ReadRequest read = new ReadRequest(0xAAAA, 0x10000, 8192, 0xBBBB, 0x70000);
        assertEquals(new ReadRequest(0xAAAA, 0x10800, 6144, 0xBBBB, 0x70800), read.advancedBy(2048));
        assertEquals(read, read.advancedBy(0));
        assertEquals(0, read.advancedBy(8192).readSize());
        assertThrows(IllegalArgumentException.class, () -> read.advancedBy(8193));
    }

    /**
     * RDMAP-17 rule 1, RDMAP-42, E-R21, T-20: a Terminate sent instead of an outbound message has HdrCt 000 and no
     * optional field, whatever its cause's table entry; a cause with R needs the Read Request (rule 3), one without R
     * drops it.
     */
    @Test
    void outboundAndReadRequestTerminates() {
        assertEquals("00 00 00 00", Hex.show(Terminate.outbound(TerminateCause.OUTBOUND_MESSAGE_ERROR).ddpPayload()));
        assertEquals("01 01 00 00", Hex.show(Terminate.outbound(TerminateCause.READ_BASE_BOUNDS).ddpPayload()));
        byte[] readSegment = new ReadRequest(1, 2, 3, 4, 5).segments(new DdpSegmenter(), 128).get(0).encode();
        assertThrows(IllegalArgumentException.class, () -> Terminate.inbound(TerminateCause.READ_TO_WRAP, readSegment));
        Terminate ddpError = Terminate.inbound(TerminateCause.DDP_INVALID_MSN, readSegment, new ReadRequest(1, 2, 3, 4,
                5));
        assertNull(ddpError.rdmaHeader(), "DDP errors carry no RDMA header (Fig. 10)");
        assertEquals("12 03 c0 00", Hex.show(Arrays.copyOf(ddpError.ddpPayload(), 4)));
    }

    /**
     * RDMAP-13, T-46: a Send with Invalidate naming an STag of another PD is answered with 0/1/09, M=1 D=1 R=0, whose
     * Terminated DDP Header carries the Invalidate STag; the STag stays valid.
     */
    @Test
    void sendWithInvalidateOfAForeignStag() throws TerminateException {
        StagTable stags = new StagTable();
        stags.register(new StagTable.Region(0x5678, 2, OptionalInt.empty(), Set.of(StagTable.Access.REMOTE_WRITE),
                0, 0x100, true));
        SendMessage send = new SendMessage(RdmapOpcode.SEND_WITH_INVALIDATE, 0x5678, Hex.of("01 02"));
        byte[] ulpdu = send.segments(new DdpSegmenter(), 128).get(0).encode();
        SendMessage received = (SendMessage) DECODER.decode(List.of(DdpSegment.parse(ulpdu)));
        TerminateCause cause = stags.invalidateRemote(new StagTable.Stream(1, 7), received.invalidateStag())
                .orElseThrow();
        assertEquals("01 09 c0 00 00 14 41 44 00 00 56 78 00 00 00 00 00 00 00 01 00 00 00 00",
                Hex.show(Terminate.inbound(cause, ulpdu).ddpPayload()));
        assertTrue(stags.isValid(0x5678));
    }

    /** §3.1, RDMAP-15: an MPA error is Layer 2, EType 0 with HdrCt 000, e.g. CRC error 20 02 00 00. */
    @Test
    void llpTerminate() {
        assertEquals("20 02 00 00", Hex.show(Terminate.llp(MpaErrorCode.CRC_ERROR).ddpPayload()));
        assertEquals("20 06 00 00", Hex.show(Terminate.llp(MpaErrorCode.INSUFFICIENT_IRD).ddpPayload()));
    }

    /**
     * RDMAP-15, T-18: the 13 reserved bits are ignored on receive, and a Local Catastrophic Terminate with any code is
     * accepted; {@link Terminate#reports} compares the wire values, which distinct causes may share.
     */
    @Test
    void receiveIgnoresReservedBits() throws TerminateException {
        List<DdpSegment> received = new DdpSegmenter().untagged(0x47_0000_0000L, 2, Hex.of("00 5a 1f ff"), 128);
        assertEquals(new Terminate(0, 0, 0x5A, false, 0, null, null), DECODER.decode(received));
        Terminate t = Terminate.outbound(TerminateCause.IMMEDIATE_DATA_LENGTH);
        assertTrue(t.reports(TerminateCause.UNSPECIFIED_REMOTE_OPERATION), "E-R20 and E-R15 are both 0/2/FF");
        assertFalse(t.reports(TerminateCause.UNEXPECTED_OPCODE));
    }
}
