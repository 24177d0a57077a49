package rnic.model.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.model.TerminateAssert.assertCause;
import static rnic.model.ddp.StagTable.Access.REMOTE_ATOMIC;
import static rnic.model.ddp.StagTable.Access.REMOTE_READ;
import static rnic.model.ddp.StagTable.Access.REMOTE_WRITE;
import static rnic.model.rdmap.EndpointLink.parse;
import static rnic.model.rdmap.EndpointLink.qp;
import static rnic.model.rdmap.EndpointLink.region;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import rnic.model.Hex;
import rnic.model.TestMemory;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.ddp.TerminateException;
import rnic.model.rdmap.EndpointAction.Dropped;
import rnic.model.rdmap.EndpointAction.Failure;
import rnic.model.rdmap.EndpointAction.Outbound;
import rnic.model.rdmap.EndpointAction.Place;
import rnic.model.rdmap.RdmapEndpoint.Source;
import rnic.wire.AtomicOpcode;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * Every Terminate cause that can come from the wire, produced once by {@link RdmapEndpoint} from one bad inbound
 * segment, and the Terminate it sends checked field by field against the docs/requirements.md §3 row as the table writes it
 * ({@code "L/ET/EC MDR"}): Layer, EType, Error Code, M, D, R; the DDP Segment Length (the whole segment, Appendix B
 * item 6); the Terminated DDP Header (the bad segment's first 14 or 18 octets, T-19); the Terminated RDMA Header (the
 * Read Request, E-R1 … E-R5); the Terminate's own header (QN 2, MSN 1, MO 0, L=1, T-21). After it: the QP sends nothing
 * more, drops later segments, and the other QPs keep working.
 *
 * <p>Rows reached: E-D0 (segment shorter than its header), E-D1, E-D2, E-D3, E-D4, E-D5 (other PD; STag bound to
 * another QP), E-D6, E-D7, E-D8 (the §2.10 Terminate vector, octet for octet), E-D9 (no receive buffer; Atomic
 * Response without an Atomic outstanding), E-D10, E-D11, E-D12, E-D13, E-R1, E-R2, E-R3, E-R4, E-R5, E-R6 (protection
 * 0/1/09 and operation 0/2/09), E-R8, E-R9, E-R10, E-R11, E-R12, E-R15 (Read Request of 27 octets; malformed
 * Terminate), E-R16, E-R17, E-R18 (all five codes), E-R19, E-R20. Not reachable from the wire in this model (no local
 * fault source, decision 18): E-R0, E-R7, E-R13, E-R14, E-R21.
 *
 * <p>Requirements: DDP-09, DDP-19 (contrast), DDP-29 … DDP-33, RDMAP-02, RDMAP-04, RDMAP-09, RDMAP-13, RDMAP-14 …
 * RDMAP-17, RDMAP-19, RDMAP-24, RDMAP-34, RDMAP-41, RDMAP-42, RDMAP-44; T-16, T-17, T-19, T-21, T-26, T-27, T-28, T-46.
 */
class RdmapEndpointErrorTest {
    /** The QP the bad segments arrive on. */
    static final int QP = 1;

    static final int W = 0x1000;
    static final int RO = 0x2000;
    static final int OTHER_PD = 0x3000;
    static final int TOP = 0x4000;
    static final int AT = 0x5000;
    static final int MISALIGNED = 0x6000;
    static final int QP0_ONLY = 0x7000;
    static final int UNKNOWN = 0x0BAD00;

    /** The segment that fails and, for E-R1 … E-R5, the Read Request it carried. */
    record Bad(byte[] ulpdu, ReadRequest request) {
        Bad(byte[] ulpdu) {
            this(ulpdu, null);
        }
    }

    /** Prepares the endpoint (posting buffers, sending requests) and returns the bad segment for QP {@link #QP}. */
    interface Scenario {
        Bad prepare(RdmapEndpoint e);
    }

    /**
     * The endpoint under test: 4 QPs in PD 1 with IRD 2, ORD 2, MULPDU 1500, and regions: W (remote write, 4 KiB,
     * zero-based), RO (remote read only), OTHER_PD (every right, PD 2), TOP (every right, VA-based, the last 16 octets
     * of the address space), AT (remote atomic), MISALIGNED (remote atomic at host address 0x60004), QP0_ONLY (remote
     * write, bound to QP 0).
     */
    static RdmapEndpoint endpoint() {
        RdmapEndpoint e = new RdmapEndpoint(new TestMemory(), List.of(qp(1, 2, 2, 1500), qp(1, 2, 2, 1500),
                qp(1, 2, 2, 1500), qp(1, 2, 2, 1500)));
        OptionalInt any = OptionalInt.empty();
        e.register(region(W, 1, any, 0x10000, 0x1000, true, REMOTE_WRITE));
        e.register(region(RO, 1, any, 0x20000, 0x1000, true, REMOTE_READ));
        e.register(region(OTHER_PD, 2, any, 0x30000, 0x1000, true, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC));
        e.register(region(TOP, 1, any, -16L, 16, false, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC));
        e.register(region(AT, 1, any, 0x50000, 64, true, REMOTE_ATOMIC));
        e.register(region(MISALIGNED, 1, any, 0x60004, 64, true, REMOTE_ATOMIC));
        e.register(region(QP0_ONLY, 1, OptionalInt.of(0), 0x70000, 64, true, REMOTE_WRITE));
        return e;
    }

    static byte[] write(int stag, long to, int length) {
        return TaggedMessage.write(stag, to, new byte[length]).segments(new DdpSegmenter(), 1500).get(0).encode();
    }

    static byte[] untagged(int control, int invalidateStag, long qn, long msn, long mo, byte[] payload) {
        return new DdpSegment(new DdpUntaggedHeader(true, (long) control << 32 | (invalidateStag & 0xFFFF_FFFFL), qn,
                msn, mo), payload).encode();
    }

    /** {@link #untagged} with L = 0: the first segment of a message split over segments. */
    static byte[] notLast(int control, long qn, long msn, byte[] payload) {
        return new DdpSegment(new DdpUntaggedHeader(false, (long) control << 32, qn, msn, 0), payload).encode();
    }

    static byte[] send(int length) {
        return untagged(0x43, 0, 0, 1, 0, new byte[length]);
    }

    static byte[] first(RdmapMessage m) {
        return m.segments(new DdpSegmenter(), 1500).get(0).encode();
    }

    static Bad read(ReadRequest r) {
        return new Bad(first(r), r);
    }

    static Bad atomic(int stag, long to) {
        return new Bad(first(AtomicRequest.fetchAdd(1, stag, to, 1, 0)));
    }

    static byte[] withControl(byte[] ulpdu, int octet0) {
        byte[] b = ulpdu.clone();
        b[0] = (byte) octet0;
        return b;
    }

    static byte[] withRsvdUlp(byte[] ulpdu, int octet1) {
        byte[] b = ulpdu.clone();
        b[1] = (byte) octet1;
        return b;
    }

    static Bad postedSend(RdmapEndpoint e, int capacity, byte[] segment) {
        e.postReceive(QP, 0x80000, capacity, 1);
        return new Bad(segment);
    }

    static Arguments error(String row, String table, TerminateCause cause, Scenario scenario) {
        return Arguments.of(row, table, cause, scenario);
    }

    static Stream<Arguments> errors() {
        return Stream.of(
                error("E-D0", "1/0/00 000", TerminateCause.DDP_LOCAL_CATASTROPHIC,
                        e -> new Bad(Arrays.copyOf(send(8), 10))),
                error("E-D1", "1/1/00 110", TerminateCause.DDP_INVALID_STAG, e -> new Bad(write(UNKNOWN, 0, 16))),
                error("E-D2", "1/1/00 110", TerminateCause.DDP_PLACEMENT_NOT_ALLOWED, e -> new Bad(write(RO, 0, 16))),
                error("E-D3", "1/1/01 110", TerminateCause.DDP_TO_OUT_OF_BOUNDS, e -> new Bad(write(W, 0x1000, 16))),
                error("E-D4", "1/1/01 110", TerminateCause.DDP_END_OUT_OF_BOUNDS, e -> new Bad(write(W, 0xFF0, 32))),
                error("E-D5 other PD", "1/1/02 110", TerminateCause.DDP_STAG_NOT_ASSOCIATED,
                        e -> new Bad(write(OTHER_PD, 0, 16))),
                error("E-D5 other QP", "1/1/02 110", TerminateCause.DDP_STAG_NOT_ASSOCIATED,
                        e -> new Bad(write(QP0_ONLY, 0, 16))),
                error("E-D6", "1/1/03 110", TerminateCause.DDP_TO_WRAP, e -> new Bad(write(TOP, -2L, 4))),
                error("E-D7", "1/1/04 110", TerminateCause.DDP_TAGGED_INVALID_VERSION,
                        e -> new Bad(withControl(write(W, 0, 16), 0xC2))),
                error("E-D8", "1/2/01 110", TerminateCause.DDP_INVALID_QN,
                        e -> new Bad(untagged(0x43, 0, 7, 1, 0, new byte[16]))),
                error("E-D9 receive queue", "1/2/02 110", TerminateCause.DDP_NO_BUFFER, e -> new Bad(send(8))),
                error("E-D9 QN 3", "1/2/02 110", TerminateCause.DDP_NO_BUFFER,
                        e -> new Bad(first(new AtomicResponse(1, 0)))),
                error("E-D10", "1/2/03 110", TerminateCause.DDP_INVALID_MSN,
                        e -> postedSend(e, 64, untagged(0x43, 0, 0, 2, 0, new byte[8]))),
                error("E-D11", "1/2/04 110", TerminateCause.DDP_INVALID_MO,
                        e -> postedSend(e, 64, untagged(0x43, 0, 0, 1, 4, new byte[8]))),
                error("E-D12", "1/2/05 110", TerminateCause.DDP_MESSAGE_TOO_LONG, e -> postedSend(e, 64, send(100))),
                error("E-D13", "1/2/06 110", TerminateCause.DDP_UNTAGGED_INVALID_VERSION,
                        e -> postedSend(e, 64, withControl(send(8), 0x40))),
                error("E-R1", "0/1/00 111", TerminateCause.READ_INVALID_STAG,
                        e -> read(new ReadRequest(0x77, 0x10, 16, UNKNOWN, 0))),
                error("E-R2", "0/1/01 111", TerminateCause.READ_BASE_BOUNDS,
                        e -> read(new ReadRequest(0x77, 0x10, 32, RO, 0xFF0))),
                error("E-R3", "0/1/02 111", TerminateCause.READ_ACCESS_RIGHTS,
                        e -> read(new ReadRequest(0x77, 0x10, 16, W, 0))),
                error("E-R4", "0/1/03 111", TerminateCause.READ_STAG_NOT_ASSOCIATED,
                        e -> read(new ReadRequest(0x77, 0x10, 16, OTHER_PD, 0))),
                error("E-R5", "0/1/04 111", TerminateCause.READ_TO_WRAP,
                        e -> read(new ReadRequest(0x77, 0x10, 4, TOP, -2L))),
                error("E-R6 protection", "0/1/09 110", TerminateCause.INVALIDATE_PROTECTION,
                        e -> postedSend(e, 64, untagged(0x44, OTHER_PD, 0, 1, 0, new byte[8]))),
                error("E-R6 operation", "0/2/09 110", TerminateCause.INVALIDATE_OPERATION,
                        e -> postedSend(e, 64, untagged(0x44, UNKNOWN, 0, 1, 0, new byte[8]))),
                error("E-R8", "0/2/05 110", TerminateCause.INVALID_RDMAP_VERSION,
                        e -> postedSend(e, 64, untagged(0x03, 0, 0, 1, 0, new byte[8]))),
                error("E-R9", "0/2/06 110", TerminateCause.UNEXPECTED_OPCODE,
                        e -> postedSend(e, 64, untagged(0x4C, 0, 0, 1, 0, new byte[8]))),
                error("E-R10", "0/2/06 110", TerminateCause.OPCODE_MISMATCH,
                        e -> new Bad(withRsvdUlp(write(W, 0, 8), 0x43))),
                error("E-R11", "0/2/06 110", TerminateCause.UNEXPECTED_READ_RESPONSE,
                        e -> new Bad(first(new TaggedMessage(RdmapOpcode.RDMA_READ_RESPONSE, W, 0, new byte[8])))),
                error("E-R12", "1/2/02 110", TerminateCause.IRD_EXCEEDED, e -> {
                    DdpSegmenter peer = new DdpSegmenter();
                    for (int i = 0; i < 2; i++) {
                        assertEquals(List.of(), e.receive(QP, new ReadRequest(0x77, 0, 8, RO, 8 * i).segments(peer,
                                1500).get(0).encode()));
                    }
                    return new Bad(new ReadRequest(0x77, 0, 8, RO, 16).segments(peer, 1500).get(0).encode());
                }),
                error("E-R15 Read Request", "0/2/ff 110", TerminateCause.UNSPECIFIED_REMOTE_OPERATION,
                        e -> new Bad(untagged(0x41, 0, 1, 1, 0, new byte[27]))),
                error("E-R15 Terminate", "0/2/ff 110", TerminateCause.UNSPECIFIED_REMOTE_OPERATION,
                        e -> new Bad(untagged(0x47, 0, 2, 1, 0, Hex.of("11 01 40 00")))),
                error("E-R15 Read Request split (L = 0)", "0/2/ff 110", TerminateCause.UNSPECIFIED_REMOTE_OPERATION,
                        e -> new Bad(notLast(0x41, 1, 1, new ReadRequest(0x77, 0, 8, RO, 0).ddpPayload()))),
                error("E-R15 Terminate split (L = 0)", "0/2/ff 110", TerminateCause.UNSPECIFIED_REMOTE_OPERATION,
                        e -> new Bad(notLast(0x47, 2, 1, Hex.of("00 02 ff 00")))),
                error("E-R16", "0/2/07 110", TerminateCause.ATOMIC_MISALIGNED, e -> atomic(MISALIGNED, 0)),
                error("E-R17", "0/2/06 110", TerminateCause.ATOMIC_UNSUPPORTED_OPCODE, e -> {
                    byte[] b = first(AtomicRequest.fetchAdd(1, AT, 0, 1, 0));
                    b[18 + 3] = 0x01;
                    return new Bad(b);
                }),
                error("E-R18 invalid", "0/1/00 110", TerminateCause.ATOMIC_INVALID_STAG, e -> atomic(UNKNOWN, 0)),
                error("E-R18 bounds", "0/1/01 110", TerminateCause.ATOMIC_BASE_BOUNDS, e -> atomic(AT, 64)),
                error("E-R18 rights", "0/1/02 110", TerminateCause.ATOMIC_ACCESS_RIGHTS, e -> atomic(W, 0)),
                error("E-R18 association", "0/1/03 110", TerminateCause.ATOMIC_STAG_NOT_ASSOCIATED,
                        e -> atomic(OTHER_PD, 0)),
                error("E-R18 wrap", "0/1/04 110", TerminateCause.ATOMIC_TO_WRAP, e -> atomic(TOP, -8L)),
                error("E-R19", "0/2/06 110", TerminateCause.UNEXPECTED_ATOMIC_RESPONSE, e -> {
                    e.postSend(QP, WorkRequest.fetchAdd(5, 0x99, 0, 1, 0, 0x100));
                    assertEquals(1, e.transmitAll(QP).size(), "the Atomic Request, Request Identifier 1");
                    return new Bad(first(new AtomicResponse(0x99, 0)));
                }),
                error("E-R20", "0/2/ff 110", TerminateCause.IMMEDIATE_DATA_LENGTH,
                        e -> postedSend(e, 64, untagged(0x48, 0, 0, 1, 0, new byte[7]))),
                error("E-R20 split (L = 0)", "0/2/ff 110", TerminateCause.IMMEDIATE_DATA_LENGTH,
                        e -> postedSend(e, 64, notLast(0x48, 0, 1, new byte[8]))));
    }

    /**
     * One bad segment on QP 1 gives exactly {@link Failure} (after the placement of its own payload for E-R6, whose
     * check comes at delivery), then exactly one Terminate whose every field is the row's; the QP is then silent and
     * drops what comes (DDP-31), while QP 0 still places a Write.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("errors")
    void terminateFor(String row, String table, TerminateCause cause, Scenario scenario) throws TerminateException {
        assertCause(table, cause, cause);
        assertEquals(row.split(" ")[0], cause.row());
        RdmapEndpoint e = endpoint();
        Bad bad = scenario.prepare(e);
        List<EndpointAction> got = e.receive(QP, bad.ulpdu());
        List<EndpointAction> expected = new ArrayList<>();
        if (cause == TerminateCause.INVALIDATE_OPERATION || cause == TerminateCause.INVALIDATE_PROTECTION) {
            expected.add(new Place(0x80000, new byte[8]));
        }
        expected.add(new Failure(QP, cause));
        assertEquals(expected, got);
        assertTrue(e.failed(QP));
        assertFalse(e.canTransmit(QP, Source.REQUEST));
        assertFalse(e.canTransmit(QP, Source.RESPONSE));

        List<EndpointAction> sent = e.transmitAll(QP);
        assertEquals(1, sent.size(), "exactly one Terminate: " + sent);
        byte[] terminate = ((Outbound) sent.get(0)).ulpdu();
        DdpSegment segment = parse(terminate);
        assertEquals(new DdpUntaggedHeader(true, 0x47L << 32, 2, 1, 0), segment.header(), "QN 2, MSN 1, MO 0");
        Terminate t = (Terminate) new RdmapDecoder(true).decode(List.of(segment));
        String[] f = table.split("[/ ]");
        assertEquals(Integer.parseInt(f[0], 16), t.layer(), "Layer");
        assertEquals(Integer.parseInt(f[1], 16), t.etype(), "EType");
        assertEquals(Integer.parseInt(f[2], 16), t.errorCode(), "Error Code");
        assertEquals(f[3].charAt(0) == '1', t.segmentLengthValid(), "M");
        assertEquals(f[3].charAt(1) == '1', t.ddpHeader() != null, "D");
        assertEquals(f[3].charAt(2) == '1', t.rdmaHeader() != null, "R");
        if (t.ddpHeader() != null) {
            assertEquals(bad.ulpdu().length, t.ddpSegmentLength(), "DDP Segment Length: the whole segment");
            int size = (bad.ulpdu()[0] & 0x80) != 0 ? 14 : 18;
            assertArrayEquals(Arrays.copyOf(bad.ulpdu(), size), t.ddpHeader(), "Terminated DDP Header");
        } else {
            assertEquals(0, t.ddpSegmentLength());
        }
        if (t.rdmaHeader() != null) {
            assertEquals(bad.request(), t.rdmaHeader(), "Terminated RDMA Header");
        } else {
            assertNull(bad.request());
        }
        if (cause == TerminateCause.DDP_INVALID_QN) {
            assertEquals(Hex.show(Hex.ulpdu("""
                    0000: 00 2a 41 47 00 00 00 00 00 00 00 02 00 00 00 01
                    0010: 00 00 00 00 12 01 c0 00 00 22 41 43 00 00 00 00
                    0020: 00 00 00 07 00 00 00 01 00 00 00 00 9c 3a f7 b1""")), Hex.show(terminate),
                    "docs/requirements.md §2.10 Terminate");
        }

        assertEquals(List.of(), e.transmitAll(QP));
        byte[] valid = write(W, 0, 4);
        assertEquals(List.of(new Dropped(QP, valid.length)), e.receive(QP, valid));
        assertEquals(List.of(new Dropped(QP, bad.ulpdu().length)), e.receive(QP, bad.ulpdu()), "no second Terminate");
        assertEquals(List.of(), e.transmitAll(QP));
        assertEquals(List.of(new Place(0x10000, new byte[4])), e.receive(0, valid), "QP 0 unaffected");
        assertFalse(e.failed(0));
    }

    /**
     * Decision 1: where a segment has two faults, the first check in the model's order decides — the DDP header before
     * RDMAP's fields, the decoder's QN before RV and opcode, the opcode before the receive buffer, E-R11 before the
     * STag, the STag table's and the receiver's own orders, DDP's length checks before RDMAP's (E-D12 before E-R20),
     * the IRD slot size deciding between E-D12 and E-R15.
     */
    @Test
    void firstFailingCheckDecides() {
        assertFirst(TerminateCause.DDP_TAGGED_INVALID_VERSION,
                e -> new Bad(withControl(withRsvdUlp(write(W, 0, 8), 0x03), 0xC2)));
        assertFirst(TerminateCause.DDP_INVALID_QN, e -> new Bad(untagged(0x4C, 0, 7, 1, 0, new byte[8])));
        assertFirst(TerminateCause.INVALID_RDMAP_VERSION, e -> new Bad(untagged(0x03, 0, 0, 1, 0, new byte[8])));
        assertFirst(TerminateCause.OPCODE_MISMATCH, e -> new Bad(untagged(0x43, 0, 1, 5, 0, new byte[80])));
        assertFirst(TerminateCause.UNEXPECTED_READ_RESPONSE,
                e -> new Bad(first(new TaggedMessage(RdmapOpcode.RDMA_READ_RESPONSE, UNKNOWN, -2L, new byte[8]))));
        assertFirst(TerminateCause.DDP_INVALID_STAG, e -> new Bad(write(UNKNOWN, -2L, 8)));
        assertFirst(TerminateCause.DDP_NO_BUFFER, e -> new Bad(untagged(0x43, 0, 0, 2, 4, new byte[8])));
        assertFirst(TerminateCause.ATOMIC_INVALID_STAG, e -> new Bad(first(new AtomicRequest(AtomicOpcode.CMP_SWAP,
                1, UNKNOWN, 3, 0, 0, 0, 0))));
        assertFirst(TerminateCause.DDP_MESSAGE_TOO_LONG, e -> postedSend(e, 4, untagged(0x48, 0, 0, 1, 0,
                new byte[9])));
        assertFirst(TerminateCause.DDP_MESSAGE_TOO_LONG, e -> new Bad(untagged(0x41, 0, 1, 1, 0, new byte[53])));
        assertFirst(TerminateCause.UNSPECIFIED_REMOTE_OPERATION, e -> new Bad(untagged(0x41, 0, 1, 1, 0,
                new byte[52])));
    }

    static void assertFirst(TerminateCause expected, Scenario scenario) {
        RdmapEndpoint e = endpoint();
        assertEquals(List.of(new Failure(QP, expected)), e.receive(QP, scenario.prepare(e).ulpdu()));
    }
}
