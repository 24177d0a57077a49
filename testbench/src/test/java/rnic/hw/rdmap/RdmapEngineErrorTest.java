package rnic.hw.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static rnic.model.ddp.StagTable.Access.REMOTE_ATOMIC;
import static rnic.model.ddp.StagTable.Access.REMOTE_READ;
import static rnic.model.ddp.StagTable.Access.REMOTE_WRITE;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import rnic.hw.ddp.DdpConfig;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.ddp.StagTable;
import rnic.model.ddp.TerminateException;
import rnic.model.rdmap.AtomicRequest;
import rnic.model.rdmap.AtomicResponse;
import rnic.model.rdmap.RdmapDecoder;
import rnic.model.rdmap.RdmapMessage;
import rnic.model.rdmap.ReadRequest;
import rnic.model.rdmap.TaggedMessage;
import rnic.model.rdmap.Terminate;
import rnic.model.rdmap.WorkRequest;
import rnic.sim.Pacer;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * Every Terminate the engine can be made to send from the wire, each from one bad segment on QP 1, at W = 64 and
 * 512. For each: the Terminate it sends is octet for octet the golden twin's ({@link EngineBench}), and its fields
 * are checked here against the docs/requirements.md §3 row as the table writes it ({@code "L/ET/EC MDR"}): Layer, EType,
 * Error Code, M, D, R, the DDP Segment Length (the whole segment), the Terminated DDP Header (the segment's first 14
 * or 18 octets) and, for E-R1…E-R5, the Read Request; its own header is QN 2, MSN 1, MO 0, L=1. Then the QP sends
 * nothing more and drops what arrives, a second bad segment gets no second Terminate, and QP 0 still places a Write.
 *
 * <table>
 * <caption>Rows reached</caption>
 * <tr><th>Row</th><th>L/ET/EC M D R</th><th>From</th></tr>
 * <tr><td>E-D0</td><td>1/0/00 000</td><td>a Send segment cut to 10 octets</td></tr>
 * <tr><td>E-D1</td><td>1/1/00 110</td><td>Write to an unknown STag</td></tr>
 * <tr><td>E-D2</td><td>1/1/00 110</td><td>Write to a read-only region (T-16)</td></tr>
 * <tr><td>E-D3</td><td>1/1/01 110</td><td>Write TO past the region</td></tr>
 * <tr><td>E-D4</td><td>1/1/01 110</td><td>Write running past the bound</td></tr>
 * <tr><td>E-D5</td><td>1/1/02 110</td><td>Write to another PD's region; to a region bound to QP 0</td></tr>
 * <tr><td>E-D6</td><td>1/1/03 110</td><td>Write whose TO + length wraps 2^64</td></tr>
 * <tr><td>E-D7</td><td>1/1/04 110</td><td>tagged segment with DV = 2</td></tr>
 * <tr><td>E-D8</td><td>1/2/01 110</td><td>QN 7</td></tr>
 * <tr><td>E-D9</td><td>1/2/02 110</td><td>Send with no receive buffer; Atomic Response with no Atomic outstanding</td></tr>
 * <tr><td>E-D10</td><td>1/2/03 110</td><td>Send with MSN 2</td></tr>
 * <tr><td>E-D11</td><td>1/2/04 110</td><td>Send with MO 4 first</td></tr>
 * <tr><td>E-D12</td><td>1/2/05 110</td><td>Send larger than its buffer</td></tr>
 * <tr><td>E-D13</td><td>1/2/06 110</td><td>untagged segment with DV = 0</td></tr>
 * <tr><td>E-R1…E-R5</td><td>0/1/00…04 111</td><td>Read Requests: unknown source, out of range, no read right,
 * other PD, wrapping</td></tr>
 * <tr><td>E-R6</td><td>0/1/09 110, 0/2/09 110</td><td>Send with Invalidate of another PD's STag; of an unknown
 * one (T-46)</td></tr>
 * <tr><td>E-R8</td><td>0/2/05 110</td><td>RV = 0</td></tr>
 * <tr><td>E-R9</td><td>0/2/06 110</td><td>opcode 0xC</td></tr>
 * <tr><td>E-R10</td><td>0/2/06 110</td><td>Send opcode in a tagged segment</td></tr>
 * <tr><td>E-R11</td><td>0/2/06 110</td><td>Read Response with no Read outstanding</td></tr>
 * <tr><td>E-R12</td><td>1/2/02 110</td><td>a Read Request while IRD = 2 responses wait (transmit held)</td></tr>
 * <tr><td>E-R15</td><td>0/2/FF 110</td><td>Read Request of 27 octets; a malformed Terminate</td></tr>
 * <tr><td>E-R16</td><td>0/2/07 110</td><td>Atomic Request to a misaligned host address</td></tr>
 * <tr><td>E-R17</td><td>0/2/06 110</td><td>AOpCode 1</td></tr>
 * <tr><td>E-R18</td><td>0/1/00…04 110</td><td>Atomic Requests: unknown, out of range, no atomic right, other PD,
 * wrapping</td></tr>
 * <tr><td>E-R19</td><td>0/2/06 110</td><td>Atomic Response with the wrong Request Identifier</td></tr>
 * <tr><td>E-R20</td><td>0/2/FF 110</td><td>Immediate Data of 7 octets</td></tr>
 * </table>
 * Not reachable from the wire (local faults): E-R0 is sent for a payload read error ({@code RdmapEngineCompletionTest});
 * E-R7, E-R13, E-R14, E-R21 have no local fault source in the engine yet.
 *
 * <p>Requirements: DDP-09, DDP-29…DDP-33, RDMAP-02, RDMAP-04, RDMAP-14…RDMAP-17, RDMAP-19, RDMAP-24, RDMAP-34,
 * RDMAP-41, RDMAP-42, RDMAP-44; T-16, T-17, T-19, T-21, T-26, T-27, T-28, T-46.
 */
class RdmapEngineErrorTest {
    static final int QP = 1;
    static final int W = 0x1000;
    static final int RO = 0x2000;
    static final int OTHER_PD = 0x3000;
    static final int TOP = 0x0400;
    static final int AT = 0x0500;
    static final int MISALIGNED = 0x0600;
    static final int QP0_ONLY = 0x0700;
    static final int UNKNOWN = 0x0B00;

    /** The segment that fails and, for E-R1 … E-R5, its Read Request. */
    record Bad(byte[] ulpdu, ReadRequest request) {
        Bad(byte[] ulpdu) {
            this(ulpdu, null);
        }
    }

    static StagTable.Region region(int stag, int pd, OptionalInt qp, long va, long length, boolean zeroBased,
            StagTable.Access... rights) {
        return new StagTable.Region(stag, pd, qp, rights.length == 0 ? Set.of() : EnumSet.of(rights[0], rights),
                va, length, zeroBased);
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

    static byte[] with(byte[] ulpdu, int index, int octet) {
        byte[] b = ulpdu.clone();
        b[index] = (byte) octet;
        return b;
    }

    static Bad posted(EngineBench b, int capacity, byte[] segment) {
        b.postReceive(QP, 0x80000, capacity, 1);
        return new Bad(segment);
    }

    static Arguments error(String row, String table, TerminateCause cause, Function<EngineBench, Bad> scenario) {
        return Arguments.of(row, table, cause, scenario);
    }

    static Stream<Arguments> errors() {
        return Stream.of(
                error("E-D0", "1/0/00 000", TerminateCause.DDP_LOCAL_CATASTROPHIC,
                        b -> new Bad(Arrays.copyOf(send(8), 10))),
                error("E-D1", "1/1/00 110", TerminateCause.DDP_INVALID_STAG, b -> new Bad(write(UNKNOWN, 0, 16))),
                error("E-D2", "1/1/00 110", TerminateCause.DDP_PLACEMENT_NOT_ALLOWED, b -> new Bad(write(RO, 0, 16))),
                error("E-D3", "1/1/01 110", TerminateCause.DDP_TO_OUT_OF_BOUNDS, b -> new Bad(write(W, 0x1000, 16))),
                error("E-D4", "1/1/01 110", TerminateCause.DDP_END_OUT_OF_BOUNDS, b -> new Bad(write(W, 0xFF0, 32))),
                error("E-D5 other PD", "1/1/02 110", TerminateCause.DDP_STAG_NOT_ASSOCIATED,
                        b -> new Bad(write(OTHER_PD, 0, 16))),
                error("E-D5 other QP", "1/1/02 110", TerminateCause.DDP_STAG_NOT_ASSOCIATED,
                        b -> new Bad(write(QP0_ONLY, 0, 16))),
                error("E-D6", "1/1/03 110", TerminateCause.DDP_TO_WRAP, b -> new Bad(write(TOP, -2L, 4))),
                error("E-D7", "1/1/04 110", TerminateCause.DDP_TAGGED_INVALID_VERSION,
                        b -> new Bad(with(write(W, 0, 16), 0, 0xC2))),
                error("E-D8", "1/2/01 110", TerminateCause.DDP_INVALID_QN,
                        b -> new Bad(untagged(0x43, 0, 7, 1, 0, new byte[16]))),
                error("E-D9 receive queue", "1/2/02 110", TerminateCause.DDP_NO_BUFFER, b -> new Bad(send(8))),
                error("E-D9 QN 3", "1/2/02 110", TerminateCause.DDP_NO_BUFFER,
                        b -> new Bad(first(new AtomicResponse(1, 0)))),
                error("E-D10", "1/2/03 110", TerminateCause.DDP_INVALID_MSN,
                        b -> posted(b, 64, untagged(0x43, 0, 0, 2, 0, new byte[8]))),
                error("E-D11", "1/2/04 110", TerminateCause.DDP_INVALID_MO,
                        b -> posted(b, 64, untagged(0x43, 0, 0, 1, 4, new byte[8]))),
                error("E-D12", "1/2/05 110", TerminateCause.DDP_MESSAGE_TOO_LONG, b -> posted(b, 64, send(100))),
                error("E-D13", "1/2/06 110", TerminateCause.DDP_UNTAGGED_INVALID_VERSION,
                        b -> posted(b, 64, with(send(8), 0, 0x40))),
                error("E-R1", "0/1/00 111", TerminateCause.READ_INVALID_STAG,
                        b -> read(new ReadRequest(0x77, 0x10, 16, UNKNOWN, 0))),
                error("E-R2", "0/1/01 111", TerminateCause.READ_BASE_BOUNDS,
                        b -> read(new ReadRequest(0x77, 0x10, 32, RO, 0xFF0))),
                error("E-R3", "0/1/02 111", TerminateCause.READ_ACCESS_RIGHTS,
                        b -> read(new ReadRequest(0x77, 0x10, 16, W, 0))),
                error("E-R4", "0/1/03 111", TerminateCause.READ_STAG_NOT_ASSOCIATED,
                        b -> read(new ReadRequest(0x77, 0x10, 16, OTHER_PD, 0))),
                error("E-R5", "0/1/04 111", TerminateCause.READ_TO_WRAP,
                        b -> read(new ReadRequest(0x77, 0x10, 4, TOP, -2L))),
                error("E-R6 protection", "0/1/09 110", TerminateCause.INVALIDATE_PROTECTION,
                        b -> posted(b, 64, untagged(0x44, OTHER_PD, 0, 1, 0, new byte[8]))),
                error("E-R6 operation", "0/2/09 110", TerminateCause.INVALIDATE_OPERATION,
                        b -> posted(b, 64, untagged(0x44, UNKNOWN, 0, 1, 0, new byte[8]))),
                error("E-R8", "0/2/05 110", TerminateCause.INVALID_RDMAP_VERSION,
                        b -> posted(b, 64, untagged(0x03, 0, 0, 1, 0, new byte[8]))),
                error("E-R9", "0/2/06 110", TerminateCause.UNEXPECTED_OPCODE,
                        b -> posted(b, 64, untagged(0x4C, 0, 0, 1, 0, new byte[8]))),
                error("E-R10", "0/2/06 110", TerminateCause.OPCODE_MISMATCH,
                        b -> new Bad(with(write(W, 0, 8), 1, 0x43))),
                error("E-R11", "0/2/06 110", TerminateCause.UNEXPECTED_READ_RESPONSE,
                        b -> new Bad(first(new TaggedMessage(RdmapOpcode.RDMA_READ_RESPONSE, W, 0, new byte[8])))),
                error("E-R12", "1/2/02 110", TerminateCause.IRD_EXCEEDED, b -> {
                    b.holdTx(true); // responses cannot go, so their IRD slots stay held
                    DdpSegmenter peer = new DdpSegmenter();
                    // The first response is shown on tx (committed, its slot free); the next two hold IRD = 2.
                    for (int i = 0; i < 3; i++) {
                        b.receive(QP, new ReadRequest(0x77, 0, 8, RO, 8 * i).segments(peer, 1500).get(0).encode());
                        b.settle(10_000);
                    }
                    return new Bad(new ReadRequest(0x77, 0, 8, RO, 24).segments(peer, 1500).get(0).encode());
                }),
                error("E-R15 Read Request", "0/2/ff 110", TerminateCause.UNSPECIFIED_REMOTE_OPERATION,
                        b -> new Bad(untagged(0x41, 0, 1, 1, 0, new byte[27]))),
                error("E-R15 Terminate", "0/2/ff 110", TerminateCause.UNSPECIFIED_REMOTE_OPERATION,
                        b -> new Bad(untagged(0x47, 0, 2, 1, 0, new byte[] {0x11, 0x01, 0x40, 0x00}))),
                error("E-R15 Read Request split (L = 0)", "0/2/ff 110", TerminateCause.UNSPECIFIED_REMOTE_OPERATION,
                        b -> new Bad(notLast(0x41, 1, 1, new ReadRequest(0x77, 0, 8, RO, 0).ddpPayload()))),
                error("E-R15 Terminate split (L = 0)", "0/2/ff 110", TerminateCause.UNSPECIFIED_REMOTE_OPERATION,
                        b -> new Bad(notLast(0x47, 2, 1, new byte[] {0x00, 0x02, (byte) 0xff, 0x00}))),
                error("E-R16", "0/2/07 110", TerminateCause.ATOMIC_MISALIGNED, b -> atomic(MISALIGNED, 0)),
                error("E-R17", "0/2/06 110", TerminateCause.ATOMIC_UNSUPPORTED_OPCODE,
                        b -> new Bad(with(first(AtomicRequest.fetchAdd(1, AT, 0, 1, 0)), 18 + 3, 0x01))),
                error("E-R18 invalid", "0/1/00 110", TerminateCause.ATOMIC_INVALID_STAG, b -> atomic(UNKNOWN, 0)),
                error("E-R18 bounds", "0/1/01 110", TerminateCause.ATOMIC_BASE_BOUNDS, b -> atomic(AT, 64)),
                error("E-R18 rights", "0/1/02 110", TerminateCause.ATOMIC_ACCESS_RIGHTS, b -> atomic(W, 0)),
                error("E-R18 association", "0/1/03 110", TerminateCause.ATOMIC_STAG_NOT_ASSOCIATED,
                        b -> atomic(OTHER_PD, 0)),
                error("E-R18 wrap", "0/1/04 110", TerminateCause.ATOMIC_TO_WRAP, b -> atomic(TOP, -8L)),
                error("E-R19", "0/2/06 110", TerminateCause.UNEXPECTED_ATOMIC_RESPONSE, b -> {
                    b.postSend(QP, WorkRequest.fetchAdd(5, 0x99, 0, 1, 0, 0x9_0000L));
                    b.settle(10_000); // the Atomic Request goes out (Request Identifier 1)
                    return new Bad(first(new AtomicResponse(0x99, 0)));
                }),
                error("E-R20", "0/2/ff 110", TerminateCause.IMMEDIATE_DATA_LENGTH,
                        b -> posted(b, 64, untagged(0x48, 0, 0, 1, 0, new byte[7]))),
                error("E-R20 split (L = 0)", "0/2/ff 110", TerminateCause.IMMEDIATE_DATA_LENGTH,
                        b -> posted(b, 64, notLast(0x48, 0, 1, new byte[8]))));
    }

    /** One bad segment on QP 1: exactly one Terminate with every field of the row, then silence on that QP. */
    @ParameterizedTest(name = "W={0} {1} {2}")
    @MethodSource("cases")
    void terminateFor(int width, String row, String table, TerminateCause cause, Function<EngineBench, Bad> scenario) {
        RdmapEngineTest.model(width).run("terminate-" + row.replace(' ', '_'), 21, tb -> {
            EngineBench b = new EngineBench(tb, tb.dut().config, Pacer.always(), Pacer.always(), false);
            for (int q = 0; q < 4; q++) {
                b.openQp(q, 1, 2, 2, 1500);
            }
            OptionalInt any = OptionalInt.empty();
            b.register(region(W, 1, any, 0x10000, 0x1000, true, REMOTE_WRITE));
            b.register(region(RO, 1, any, 0x20000, 0x1000, true, REMOTE_READ));
            b.register(region(OTHER_PD, 2, any, 0x30000, 0x1000, true, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC));
            b.register(region(TOP, 1, any, -16L, 16, false, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC));
            b.register(region(AT, 1, any, 0x50000, 64, true, REMOTE_ATOMIC));
            b.register(region(MISALIGNED, 1, any, 0x60004, 64, true, REMOTE_ATOMIC));
            b.register(region(QP0_ONLY, 1, OptionalInt.of(0), 0x70000, 64, true, REMOTE_WRITE));
            b.start();
            Bad bad = scenario.apply(b);
            int sentBefore = b.sent.size();
            b.receive(QP, bad.ulpdu());
            b.settle(20_000);
            b.holdTx(false);
            b.settle(20_000);

            // One Terminate, the last segment of the QP (a segment already shown on tx before the failure still goes
            // first, and the twin agrees octet for octet).
            List<EngineBench.Segment> mine = b.sent.subList(sentBefore, b.sent.size()).stream()
                    .filter(s -> s.qp() == QP).toList();
            long terminates = mine.stream().filter(s -> (s.ulpdu()[1] & 0x0F) == RdmapOpcode.TERMINATE.code()).count();
            assertEquals(1, terminates, () -> "exactly one Terminate among " + mine.size() + " segments");
            byte[] terminate = mine.get(mine.size() - 1).ulpdu();
            DdpSegment segment;
            Terminate t;
            try {
                segment = DdpSegment.parse(terminate);
                t = (Terminate) new RdmapDecoder(true).decode(List.of(segment));
            } catch (TerminateException e) {
                throw new AssertionError("the engine's Terminate does not parse: " + e.getMessage(), e);
            }
            assertEquals(new DdpUntaggedHeader(true, 0x47L << 32, 2, 1, 0), segment.header(), "QN 2, MSN 1, MO 0");
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
            }
            if (t.rdmaHeader() != null) {
                assertEquals(bad.request(), t.rdmaHeader(), "Terminated RDMA Header");
            } else {
                assertNull(bad.request());
            }
            List<EngineBench.Event> failures = b.events.stream()
                    .filter(e -> e.kind() == RxEventKind.TERMINATE_SENT).toList();
            assertEquals(1, failures.size());
            assertEquals(cause, failures.get(0).cause());

            // Silence on QP 1 (a valid Write and the bad segment again are dropped), QP 0 unaffected.
            int sentAfter = b.sent.size();
            b.receive(QP, write(W, 0, 4));
            b.receive(QP, bad.ulpdu());
            b.receive(0, with(write(W, 0, 4), 14, 0x5A));
            b.settle(20_000);
            assertEquals(sentAfter, b.sent.size(), "nothing more sent");
            assertEquals(0x5A, b.memory.read(0x10000, 1)[0] & 0xFF, "QP 0 placed its Write");
            b.checkEvents();
            b.checkMemory();
        });
    }

    static Stream<Arguments> cases() {
        return Stream.of(64, 512).flatMap(w -> errors().map(a -> {
            Object[] x = a.get();
            return Arguments.of(w, x[0], x[1], x[2], x[3]);
        }));
    }
}
