package rnic.model.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.model.ddp.StagTable.Access.REMOTE_ATOMIC;
import static rnic.model.ddp.StagTable.Access.REMOTE_READ;
import static rnic.model.ddp.StagTable.Access.REMOTE_WRITE;
import static rnic.model.rdmap.EndpointLink.le;
import static rnic.model.rdmap.EndpointLink.of;
import static rnic.model.rdmap.EndpointLink.qp;
import static rnic.model.rdmap.EndpointLink.random;
import static rnic.model.rdmap.EndpointLink.region;
import static rnic.model.rdmap.EndpointLink.sent;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.model.Hex;
import rnic.model.TestMemory;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.ddp.DdpTaggedHeader;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.rdmap.EndpointAction.Dropped;
import rnic.model.rdmap.EndpointAction.Failure;
import rnic.model.rdmap.EndpointAction.Outbound;
import rnic.model.rdmap.EndpointAction.Place;
import rnic.model.rdmap.EndpointAction.ReceiveCompletion;
import rnic.model.rdmap.EndpointAction.RequestCompletion;
import rnic.model.rdmap.EndpointAction.TerminateReceived;
import rnic.model.rdmap.RdmapEndpoint.Source;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * {@link RdmapEndpoint}, operation by operation: two endpoints back to back ({@link EndpointLink}) run every RDMAP
 * operation; memory is compared with an expectation the test builds itself, the wire with segment headers written out
 * here and with the docs/requirements.md §2.10 dumps; plus the ordering, ORD/IRD and Terminate-stream rules of the model's
 * decisions. Error causes are {@link RdmapEndpointErrorTest}'s, random mixes {@link RdmapEndpointRandomTest}'s.
 *
 * <p>Requirements: DDP-12, DDP-15, DDP-16, DDP-17, DDP-18, DDP-19, DDP-21, DDP-24, DDP-31, RDMAP-05 … RDMAP-14,
 * RDMAP-20 … RDMAP-24, RDMAP-30, RDMAP-32 … RDMAP-36, RDMAP-38 … RDMAP-40; T-15, T-21, T-23, T-26, T-29, T-31,
 * T-33; docs/requirements.md §2.8.2 (Atomic correlation example), §2.8.4, §2.9 (worked examples), §2.10 (golden FPDUs).
 */
class RdmapEndpointTest {

    static final String WRITE_DUMP = """
            0000: 00 12 c1 40 00 00 12 34 00 00 00 00 00 00 10 00
            0010: de ad be ef bd bc 30 f4""";
    static final String READ_REQUEST_DUMP = """
            0000: 00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01
            0010: 00 00 00 00 11 11 11 11 00 00 00 00 00 00 20 00
            0020: 00 00 01 00 22 22 22 22 00 00 00 00 00 00 30 00
            0030: d5 2e c5 b9""";
    static final String ATOMIC_REQUEST_DUMP = """
            0000: 00 46 41 4a 00 00 00 00 00 00 00 01 00 00 00 01
            0010: 00 00 00 00 00 00 00 00 ca fe 00 01 33 33 33 33
            0020: 00 00 00 00 00 00 40 00 00 00 00 00 00 00 00 01
            0030: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
            0040: ff ff ff ff ff ff ff ff 29 64 f3 c6""";
    static final String ATOMIC_RESPONSE_DUMP = """
            0000: 00 1e 41 4b 00 00 00 00 00 00 00 03 00 00 00 01
            0010: 00 00 00 00 ca fe 00 01 00 00 00 00 00 00 00 29
            0020: 33 a0 f5 39""";
    static final String IMMEDIATE_DUMP = """
            0000: 00 1a 41 48 00 00 00 00 00 00 00 00 00 00 00 01
            0010: 00 00 00 00 01 02 03 04 05 06 07 08 06 c2 28 05""";

    /** RDMAP Control Fields (RV 01b) as the wire carries them: Write 0x40, Read Response 0x42, Send 0x43 … */
    static final int WRITE = 0x40;
    static final int READ_RESPONSE = 0x42;

    static void assertMemory(TestMemory expected, TestMemory actual) {
        assertEquals(OptionalLong.empty(), actual.firstDifference(expected), "first address where memory differs");
    }

    static void assertNoErrors(EndpointLink l) {
        for (List<EndpointAction> log : List.of(l.logA, l.logB)) {
            assertEquals(List.of(), of(log, Failure.class));
            assertEquals(List.of(), of(log, TerminateReceived.class));
            assertEquals(List.of(), of(log, Dropped.class));
        }
    }

    /**
     * RDMAP-05, DDP-12, DDP-17, DDP-18, DDP-19: a 3000-octet Write at MULPDU 128 goes out as 27 segments of 114 octets
     * (the last 36) with the TO advancing and L only on the last; each is placed as it arrives, nothing else in memory
     * changes, and the sink reports nothing (no receive buffer, no completion). A zero-length Write to STag 0xFFFFFFFF
     * at TO 2^64−1 is not checked. The requester completes both when sent.
     */
    @Test
    void rdmaWrite() {
        Random rng = new Random(1);
        EndpointLink l = new EndpointLink(List.of(qp(1, 2, 2, 128)), List.of(qp(1, 2, 2, 1500)));
        l.b.register(region(0x100, 1, OptionalInt.of(0), 0x10000, 8192, true, REMOTE_WRITE));
        byte[] data = random(rng, 3000);
        l.memA.write(0x1000, data);
        TestMemory expectedA = new TestMemory();
        expectedA.write(0x1000, data);
        TestMemory expectedB = new TestMemory();
        expectedB.write(0x10000 + 100, data);

        assertTrue(l.a.postSend(0, WorkRequest.write(1, 0x1000, 3000, 0x100, 100)));
        assertTrue(l.a.postSend(0, WorkRequest.write(2, 0x1000, 0, 0xFFFFFFFF, -1L)));
        l.pump();

        List<DdpSegment> wire = sent(l.logA);
        assertEquals(28, wire.size());
        for (int i = 0; i < 27; i++) {
            assertEquals(new DdpTaggedHeader(i == 26, WRITE, 0x100, 100 + 114L * i), wire.get(i).header());
            assertArrayEquals(Arrays.copyOfRange(data, 114 * i, Math.min(3000, 114 * i + 114)),
                    wire.get(i).payload());
        }
        assertEquals(new DdpTaggedHeader(true, WRITE, 0xFFFFFFFF, -1L), wire.get(27).header());
        assertEquals(0, wire.get(27).payload().length);
        assertEquals(List.of(new RequestCompletion(0, 1, RdmapOpcode.RDMA_WRITE, 3000),
                new RequestCompletion(0, 2, RdmapOpcode.RDMA_WRITE, 0)), of(l.logA, RequestCompletion.class));
        assertEquals(27, l.logB.size(), "B only places: " + l.logB);
        assertEquals(new Place(0x10000 + 100 + 114 * 26, Arrays.copyOfRange(data, 2964, 3000)), l.logB.get(26));
        assertMemory(expectedA, l.memA);
        assertMemory(expectedB, l.memB);
        assertNoErrors(l);
    }

    /**
     * RDMAP-06 … RDMAP-11, RDMAP-21, T-31: a 1000-octet Read answered at MULPDU 200 comes back as 6 Read Response
     * segments of 186 octets (the last 70) to the Sink STag with the Sink TO advancing, is placed into the requester's
     * sink region, and completes at the last segment; a zero-length Read with a garbage source is not checked and gets
     * one empty L=1 segment (RDMAP-09). The two Read Requests carry QN 1 MSNs 1 and 2 (DDP-15).
     */
    @Test
    void rdmaRead() {
        Random rng = new Random(2);
        EndpointLink l = new EndpointLink(List.of(qp(1, 2, 2, 1500)), List.of(qp(1, 2, 2, 200)));
        byte[] source = random(rng, 4096);
        l.memB.write(0x20000, source);
        l.b.register(region(0x200, 1, OptionalInt.of(0), 0x20000, 4096, false, REMOTE_READ));
        l.a.register(region(0x300, 1, OptionalInt.of(0), 0x30000, 4096, true, REMOTE_WRITE));
        TestMemory expectedA = new TestMemory();
        expectedA.write(0x30010, Arrays.copyOfRange(source, 5, 1005));

        l.a.postSend(0, WorkRequest.read(7, 0x300, 16, 0x200, 0x20005, 1000));
        l.a.postSend(0, WorkRequest.read(8, 0x300, 0, 0xDEAD, -1L, 0));
        l.pump();

        List<DdpSegment> requests = sent(l.logA);
        assertEquals(List.of(new ReadRequest(0x300, 16, 1000, 0x200, 0x20005), new ReadRequest(0x300, 0, 0, 0xDEAD,
                -1L)), requests.stream().map(s -> ReadRequest.read(java.nio.ByteBuffer.wrap(s.payload()))).toList());
        assertEquals(new DdpUntaggedHeader(true, 0x41L << 32, 1, 2, 0), requests.get(1).header());
        List<DdpSegment> responses = sent(l.logB);
        assertEquals(7, responses.size());
        for (int i = 0; i < 6; i++) {
            assertEquals(new DdpTaggedHeader(i == 5, READ_RESPONSE, 0x300, 16 + 186L * i), responses.get(i).header());
            assertArrayEquals(Arrays.copyOfRange(source, 5 + 186 * i, Math.min(1005, 5 + 186 * i + 186)),
                    responses.get(i).payload());
        }
        assertEquals(new DdpTaggedHeader(true, READ_RESPONSE, 0x300, 0), responses.get(6).header());
        assertEquals(0, responses.get(6).payload().length);
        assertEquals(List.of(new RequestCompletion(0, 7, RdmapOpcode.RDMA_READ_REQUEST, 1000),
                new RequestCompletion(0, 8, RdmapOpcode.RDMA_READ_REQUEST, 0)), of(l.logA, RequestCompletion.class));
        assertMemory(expectedA, l.memA);
        assertNoErrors(l);
    }

    /**
     * RDMAP-12, RDMAP-13, RDMAP-40, DDP-16, DDP-24, T-15, T-29, T-30: the four Send opcodes and the two Immediate
     * Data opcodes each consume one receive buffer in order and complete with their length, opcode, Solicited Event,
     * invalidated STag or immediate value; a 1000-octet Send at MULPDU 128 is 10 segments with the MO advancing (110
     * payload octets each), the Invalidate STag rides in every segment of its message; a
     * zero-length Send still consumes a buffer; Immediate Data's 8 octets land at the start of its buffer (decision 5).
     * The invalidated STags are no longer valid, and a Write to one afterwards is E-D1.
     */
    @Test
    void sendFamilyAndImmediateData() {
        Random rng = new Random(3);
        EndpointLink l = new EndpointLink(List.of(qp(1, 2, 2, 128)), List.of(qp(1, 2, 2, 1500)));
        l.b.register(region(0x501, 1, OptionalInt.of(0), 0x70000, 256, true, REMOTE_WRITE));
        l.b.register(region(0x502, 1, OptionalInt.of(0), 0x71000, 256, true, REMOTE_WRITE));
        byte[] p1 = random(rng, 1000);
        byte[] p3 = random(rng, 200);
        byte[] p4 = random(rng, 10);
        l.memA.write(0x1000, p1);
        l.memA.write(0x2000, p3);
        l.memA.write(0x3000, p4);
        long[][] buffers = {{0x40000, 1024}, {0x41000, 0}, {0x42000, 256}, {0x43000, 16}, {0x44000, 8},
            {0x45000, 64}};
        for (int i = 0; i < buffers.length; i++) {
            assertTrue(l.b.postReceive(0, buffers[i][0], buffers[i][1], 100 + i));
        }
        l.a.postSend(0, WorkRequest.send(1, 0x1000, 1000));
        l.a.postSend(0, WorkRequest.sendWithSe(2, 0x1000, 0));
        l.a.postSend(0, WorkRequest.sendWithInvalidate(3, 0x2000, 200, 0x501));
        l.a.postSend(0, WorkRequest.sendWithSeAndInvalidate(4, 0x3000, 10, 0x502));
        l.a.postSend(0, WorkRequest.immediate(5, 0x0102030405060708L));
        l.a.postSend(0, WorkRequest.immediateWithSe(6, 0x8877665544332211L));
        l.pump();

        OptionalLong none = OptionalLong.empty();
        OptionalInt noStag = OptionalInt.empty();
        assertEquals(List.of(
                new ReceiveCompletion(0, 100, RdmapOpcode.SEND, 1000, false, none, noStag),
                new ReceiveCompletion(0, 101, RdmapOpcode.SEND_WITH_SE, 0, true, none, noStag),
                new ReceiveCompletion(0, 102, RdmapOpcode.SEND_WITH_INVALIDATE, 200, false, none,
                        OptionalInt.of(0x501)),
                new ReceiveCompletion(0, 103, RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE, 10, true, none,
                        OptionalInt.of(0x502)),
                new ReceiveCompletion(0, 104, RdmapOpcode.IMMEDIATE_DATA, 8, false,
                        OptionalLong.of(0x0102030405060708L), noStag),
                new ReceiveCompletion(0, 105, RdmapOpcode.IMMEDIATE_DATA_WITH_SE, 8, true,
                        OptionalLong.of(0x8877665544332211L), noStag)), of(l.logB, ReceiveCompletion.class));
        TestMemory expectedB = new TestMemory();
        expectedB.write(0x40000, p1);
        expectedB.write(0x42000, p3);
        expectedB.write(0x43000, p4);
        expectedB.write(0x44000, Hex.of("01 02 03 04 05 06 07 08"));
        expectedB.write(0x45000, Hex.of("88 77 66 55 44 33 22 11"));
        assertMemory(expectedB, l.memB);
        assertFalse(l.b.isValid(0x501));
        assertFalse(l.b.isValid(0x502));
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L),
                of(l.logA, RequestCompletion.class).stream().map(RequestCompletion::wrId).toList());

        List<DdpSegment> wire = sent(l.logA);
        assertEquals(10 + 1 + 2 + 1 + 1 + 1, wire.size());
        for (int i = 0; i < 10; i++) {
            assertEquals(new DdpUntaggedHeader(i == 9, 0x43L << 32, 0, 1, 110L * i), wire.get(i).header());
        }
        assertEquals(new DdpUntaggedHeader(false, 0x44_0000_0501L, 0, 3, 0), wire.get(11).header());
        assertEquals(new DdpUntaggedHeader(true, 0x44_0000_0501L, 0, 3, 110), wire.get(12).header());
        assertEquals(new DdpUntaggedHeader(true, 0x49L << 32, 0, 6, 0), wire.get(15).header());
        assertNoErrors(l);

        l.a.postSend(0, WorkRequest.write(9, 0x1000, 16, 0x501, 0));
        l.pump();
        assertEquals(List.of(new Failure(0, TerminateCause.DDP_INVALID_STAG)), of(l.logB, Failure.class));
        assertEquals(1, of(l.logA, TerminateReceived.class).size());
    }

    /**
     * RDMAP-32, RDMAP-33, RDMAP-36, RDMAP-38, T-23, T-26, docs/requirements.md §2.9: the ten worked examples F1 … F6 and
     * C1 … C4 run over the wire; the target holds the document's new value (little-endian), is written only where the
     * document changes it (C2 is not written), and the requester stores the original value at its local address. The
     * k-th Atomic Response is QN 3 MSN k and echoes Request Identifier k, the request's QN 1 MSN (decision 12).
     */
    @Test
    void atomicWorkedExamples() {
        EndpointLink l = new EndpointLink(List.of(qp(1, 4, 4, 1500)));
        l.b.register(region(0x600, 1, OptionalInt.of(0), 0x40000, 80, true, REMOTE_ATOMIC));
        List<AtomicExamples.Example> examples = AtomicExamples.conformance();
        TestMemory expectedA = new TestMemory();
        TestMemory expectedB = new TestMemory();
        for (int i = 0; i < examples.size(); i++) {
            AtomicOp op = examples.get(i).op();
            l.memB.write(0x40000 + 8 * i, le(op.original()));
            expectedB.write(0x40000 + 8 * i, le(examples.get(i).newValue()));
            expectedA.write(0x50000 + 8 * i, le(op.original()));
            l.a.postSend(0, new WorkRequest.Atomic(i, op.opcode(), 0x600, 8 * i, op.addOrSwapData(),
                    op.addOrSwapMask(), op.compareData(), op.compareMask(), 0x50000 + 8 * i));
        }
        l.pump();

        assertMemory(expectedA, l.memA);
        assertMemory(expectedB, l.memB);
        List<Long> written = of(l.logB, Place.class).stream().map(Place::address).toList();
        for (int i = 0; i < examples.size(); i++) {
            assertEquals(examples.get(i).write(), written.contains(0x40000L + 8 * i), examples.get(i).id());
        }
        List<DdpSegment> responses = sent(l.logB);
        for (int i = 0; i < examples.size(); i++) {
            assertEquals(new DdpUntaggedHeader(true, 0x4BL << 32, 3, i + 1, 0), responses.get(i).header());
            assertEquals(Hex.show(Hex.cat(Hex.of(String.format("%08x", i + 1)),
                    Hex.of(String.format("%016x", examples.get(i).op().original())))),
                    Hex.show(responses.get(i).payload()), "Original Request Identifier and value, big-endian");
        }
        assertEquals(10, of(l.logA, RequestCompletion.class).size());
        assertNoErrors(l);
    }

    /**
     * RDMAP-04, docs/requirements.md §2.10: the requester sends the Write, Read Request and Immediate Data of the golden dumps
     * octet for octet; the responder answers the golden Read Request with the Read Response to Sink 0x11111111/0x2000
     * and the golden Atomic Request (0x29 at TO 0x4000) with the golden Atomic Response, leaving 0x2A; it places the
     * golden Write and delivers the golden Immediate Data.
     */
    @Test
    void goldenDumps() {
        TestMemory memory = new TestMemory();
        RdmapEndpoint a = new RdmapEndpoint(memory, List.of(qp(1, 1, 1, 1500)));
        memory.write(0x100, Hex.of("de ad be ef"));
        a.postSend(0, WorkRequest.write(1, 0x100, 4, 0x1234, 0x1000));
        a.postSend(0, WorkRequest.read(2, 0x11111111, 0x2000, 0x22222222, 0x3000, 0x100));
        a.postSend(0, WorkRequest.immediate(3, 0x0102030405060708L));
        List<String> wire = of(a.transmitAll(0), Outbound.class).stream().map(o -> Hex.show(o.ulpdu())).toList();
        assertEquals(List.of(Hex.show(Hex.ulpdu(WRITE_DUMP)), Hex.show(Hex.ulpdu(READ_REQUEST_DUMP)),
                Hex.show(Hex.ulpdu(IMMEDIATE_DUMP))), wire);

        TestMemory mem = new TestMemory();
        List<RdmapEndpoint.QpConfig> four = List.of(qp(1, 1, 1, 1500), qp(1, 1, 1, 1500), qp(1, 1, 1, 1500),
                qp(1, 1, 1, 1500));
        RdmapEndpoint b = new RdmapEndpoint(mem, four);
        b.register(region(0x1234, 1, OptionalInt.empty(), 0x1000, 0x100, false, REMOTE_WRITE));
        b.register(region(0x22222222, 1, OptionalInt.empty(), 0x3000, 0x100, false, REMOTE_READ));
        b.register(region(0x33333333, 1, OptionalInt.empty(), 0x4000, 8, false, REMOTE_ATOMIC));
        byte[] source = random(new Random(4), 0x100);
        mem.write(0x3000, source);
        mem.write(0x4000, Hex.of("29 00 00 00 00 00 00 00"));
        b.postReceive(3, 0x8000, 8, 9);

        assertEquals(List.of(new Place(0x1000, Hex.of("de ad be ef"))), b.receive(0, Hex.ulpdu(WRITE_DUMP)));
        assertEquals(List.of(), b.receive(1, Hex.ulpdu(READ_REQUEST_DUMP)));
        assertEquals(List.of(new Outbound(1, Hex.cat(Hex.of("c1 42 11 11 11 11 00 00 00 00 00 00 20 00"), source))),
                b.transmitAll(1));
        assertEquals(List.of(), b.receive(2, Hex.ulpdu(ATOMIC_REQUEST_DUMP)));
        assertEquals(List.of(new Place(0x4000, Hex.of("2a 00 00 00 00 00 00 00")),
                new Outbound(2, Hex.ulpdu(ATOMIC_RESPONSE_DUMP))), b.transmitAll(2));
        assertEquals(List.of(new Place(0x8000, Hex.of("01 02 03 04 05 06 07 08")),
                new ReceiveCompletion(3, 9, RdmapOpcode.IMMEDIATE_DATA, 8, false,
                        OptionalLong.of(0x0102030405060708L), OptionalInt.empty())),
                b.receive(3, Hex.ulpdu(IMMEDIATE_DUMP)));
    }

    /**
     * RDMAP-23, T-33: a Send posted behind a Read is sent (and done) before the Read's response arrives, but completes
     * after the Read, in submission order.
     */
    @Test
    void completionsInSubmissionOrder() {
        EndpointLink l = new EndpointLink(List.of(qp(1, 2, 2, 1500)));
        l.a.register(region(0x300, 1, OptionalInt.of(0), 0x30000, 64, true, REMOTE_WRITE));
        l.b.register(region(0x200, 1, OptionalInt.of(0), 0x20000, 64, true, REMOTE_READ));
        l.b.postReceive(0, 0x40000, 64, 50);
        l.a.postSend(0, WorkRequest.read(1, 0x300, 0, 0x200, 0, 32));
        l.a.postSend(0, WorkRequest.send(2, 0x1000, 8));
        assertTrue(l.step(true, 0, Source.REQUEST));
        assertTrue(l.step(true, 0, Source.REQUEST));
        assertEquals(List.of(), of(l.logA, RequestCompletion.class), "the Send waits for the Read");
        assertEquals(1, of(l.logB, ReceiveCompletion.class).size());
        assertTrue(l.step(false, 0, Source.RESPONSE));
        assertEquals(List.of(new RequestCompletion(0, 1, RdmapOpcode.RDMA_READ_REQUEST, 32),
                new RequestCompletion(0, 2, RdmapOpcode.SEND, 8)), of(l.logA, RequestCompletion.class));
    }

    /**
     * RDMAP-24, RDMAP-30, decision 11: with ORD 1 the second Read waits at the head of the send queue, holding back
     * nothing before it (the Send behind the first Read goes out) and everything after it; the first Read's response
     * frees the slot and the second Read goes out with QN 1 MSN 2.
     */
    @Test
    void ordBlocksTheSendQueue() {
        EndpointLink l = new EndpointLink(List.of(qp(1, 1, 1, 1500)));
        l.a.register(region(0x300, 1, OptionalInt.of(0), 0x30000, 64, true, REMOTE_WRITE));
        l.b.register(region(0x200, 1, OptionalInt.of(0), 0x20000, 64, true, REMOTE_READ));
        l.b.postReceive(0, 0x40000, 64, 50);
        l.b.postReceive(0, 0x41000, 64, 51);
        l.a.postSend(0, WorkRequest.read(1, 0x300, 0, 0x200, 0, 8));
        l.a.postSend(0, WorkRequest.send(2, 0x1000, 8));
        l.a.postSend(0, WorkRequest.read(3, 0x300, 8, 0x200, 8, 8));
        l.a.postSend(0, WorkRequest.send(4, 0x1000, 8));
        assertTrue(l.step(true, 0, null));
        assertTrue(l.step(true, 0, null));
        assertFalse(l.a.canTransmit(0, Source.REQUEST), "the second Read waits for an ORD slot");
        assertEquals(2, sent(l.logA).size());
        assertTrue(l.step(false, 0, null));
        assertEquals(List.of(1L, 2L), of(l.logA, RequestCompletion.class).stream().map(c -> c.wrId()).toList());
        l.pump();
        List<DdpSegment> wire = sent(l.logA);
        assertEquals(new DdpUntaggedHeader(true, 0x41L << 32, 1, 2, 0), wire.get(2).header());
        assertEquals(new DdpUntaggedHeader(true, 0x43L << 32, 0, 2, 0), wire.get(3).header());
        assertEquals(List.of(1L, 2L, 3L, 4L), of(l.logA, RequestCompletion.class).stream().map(c -> c.wrId()).toList());
        assertNoErrors(l);
    }

    /**
     * RDMAP-11, RDMAP-30, RDMAP-35, RDMAP-39, docs/requirements.md §2.8.2 example and §2.8.4: Read, Atomic A, Read, Atomic B
     * carry QN 1 MSNs 1 … 4; the responder answers in request order, A on QN 3 MSN 1 (Request Identifier 2) and B on
     * QN 3 MSN 2 (Request Identifier 4), and executes B after A: B's FetchAdd sees A's result.
     */
    @Test
    void responsesInRequestOrder() {
        EndpointLink l = new EndpointLink(List.of(qp(1, 4, 4, 1500)));
        l.a.register(region(0x300, 1, OptionalInt.of(0), 0x30000, 64, true, REMOTE_WRITE));
        l.b.register(region(0x200, 1, OptionalInt.of(0), 0x20000, 64, true, REMOTE_READ, REMOTE_ATOMIC));
        l.memB.write(0x20000, le(100));
        l.a.postSend(0, WorkRequest.read(1, 0x300, 0, 0x200, 8, 8));
        l.a.postSend(0, WorkRequest.fetchAdd(2, 0x200, 0, 5, 0, 0x50000));
        l.a.postSend(0, WorkRequest.read(3, 0x300, 8, 0x200, 16, 8));
        l.a.postSend(0, WorkRequest.fetchAdd(4, 0x200, 0, 7, 0, 0x50008));
        l.a.transmitAll(0).forEach(x -> l.logB.addAll(l.b.receive(0, ((Outbound) x).ulpdu())));
        List<EndpointAction> responses = l.b.transmitAll(0);
        List<DdpSegment> wire = sent(responses);
        assertEquals(4, wire.size());
        assertEquals(new DdpTaggedHeader(true, READ_RESPONSE, 0x300, 0), wire.get(0).header());
        assertEquals(new DdpUntaggedHeader(true, 0x4BL << 32, 3, 1, 0), wire.get(1).header());
        assertEquals("00 00 00 02 00 00 00 00 00 00 00 64", Hex.show(wire.get(1).payload()));
        assertEquals(new DdpTaggedHeader(true, READ_RESPONSE, 0x300, 8), wire.get(2).header());
        assertEquals(new DdpUntaggedHeader(true, 0x4BL << 32, 3, 2, 0), wire.get(3).header());
        assertEquals("00 00 00 04 00 00 00 00 00 00 00 69", Hex.show(wire.get(3).payload()));
        responses.forEach(x -> {
            if (x instanceof Outbound o) {
                l.logA.addAll(l.a.receive(0, o.ulpdu()));
            }
        });
        assertArrayEquals(le(112), l.memB.read(0x20000, 8));
        assertArrayEquals(Hex.cat(le(100), le(105)), l.memA.read(0x50000, 16));
        assertEquals(List.of(1L, 2L, 3L, 4L), of(l.logA, RequestCompletion.class).stream().map(c -> c.wrId()).toList());
    }

    /**
     * RDMAP-24, E-R12, decision 9: with IRD 1, a second Read Request arriving while the first one's response still has
     * a segment to go exceeds IRD (1/2/02); once the last segment is generated the slot is free again.
     */
    @Test
    void irdSlotHeldUntilTheLastResponseSegment() {
        for (int before : new int[] {8, 9}) {
            EndpointLink l = new EndpointLink(List.of(qp(1, 1, 2, 1500)), List.of(qp(1, 1, 1, 128)));
            l.a.register(region(0x300, 1, OptionalInt.of(0), 0x30000, 4096, true, REMOTE_WRITE));
            l.b.register(region(0x200, 1, OptionalInt.of(0), 0x20000, 4096, true, REMOTE_READ));
            l.a.postSend(0, WorkRequest.read(1, 0x300, 0, 0x200, 0, 1000));
            l.a.postSend(0, WorkRequest.read(2, 0x300, 1000, 0x200, 1000, 100));
            assertTrue(l.step(true, 0, Source.REQUEST));
            for (int i = 0; i < before; i++) {
                assertTrue(l.step(false, 0, Source.RESPONSE));
            }
            assertEquals(before == 9, of(l.logA, RequestCompletion.class).size() == 1, "9 segments of 114");
            assertTrue(l.step(true, 0, Source.REQUEST));
            if (before == 8) {
                assertEquals(List.of(new Failure(0, TerminateCause.IRD_EXCEEDED)), of(l.logB, Failure.class));
            } else {
                l.pump();
                assertNoErrors(l);
                assertEquals(2, of(l.logA, RequestCompletion.class).size());
            }
        }
    }

    /**
     * RDMAP-14, RDMAP-17, DDP-31, decision 15–16: an error while a Write is half sent discards the rest of it; the
     * Terminate is the next and last segment; the peer delivers it as {@link TerminateReceived} with the fields sent,
     * fails its QP without answering, and drops what follows; neither side accepts new work on the QP.
     */
    @Test
    void terminateCutsInAndEndsTheStream() {
        Random rng = new Random(5);
        EndpointLink l = new EndpointLink(List.of(qp(1, 1, 1, 128)));
        l.a.register(region(0x100, 1, OptionalInt.of(0), 0x10000, 4096, true, REMOTE_WRITE));
        byte[] data = random(rng, 1000);
        l.memB.write(0x1000, data);
        l.b.postSend(0, WorkRequest.write(1, 0x1000, 1000, 0x100, 0));
        assertTrue(l.step(false, 0, Source.REQUEST));
        byte[] bad = new DdpSegmenter().untagged(0x43L << 32, 0, new byte[4], 128).get(0).encode();
        assertEquals(List.of(new Failure(0, TerminateCause.DDP_NO_BUFFER)), l.b.receive(0, bad));
        assertFalse(l.b.canTransmit(0, Source.REQUEST));
        assertFalse(l.b.postSend(0, WorkRequest.send(2, 0, 0)));
        assertFalse(l.b.postReceive(0, 0, 8, 3));
        assertTrue(l.step(false, 0, null));
        assertFalse(l.step(false, 0, null));
        assertEquals(List.of(new Dropped(0, bad.length)), l.b.receive(0, bad));

        Terminate expected = Terminate.inbound(TerminateCause.DDP_NO_BUFFER, bad);
        assertEquals(List.of(new Place(0x10000, Arrays.copyOf(data, 114)), new TerminateReceived(0, expected)),
                l.logA);
        assertTrue(l.a.failed(0));
        assertFalse(l.a.canTransmit(0, Source.TERMINATE));
        assertEquals(List.of(new Dropped(0, bad.length)), l.a.receive(0, bad));
        assertEquals(List.of(), l.a.transmitAll(0));
    }

    /**
     * Decisions 2 and 4: a Read Request arrives whole, one L=1 segment, and is answered; one split over two segments
     * fails the QP at its first segment with E-R15 (0/2/FF), and its second segment is dropped; a Send whose
     * second (last) segment names another Send opcode is delivered as that last segment's opcode (DDP-13).
     */
    @Test
    void headerOnlyMessagesAreWholeAndASendTakesItsLastSegmentsOpcode() {
        TestMemory memory = new TestMemory();
        RdmapEndpoint e = new RdmapEndpoint(memory, List.of(qp(1, 1, 1, 1500)));
        e.register(region(0x200, 1, OptionalInt.empty(), 0x20000, 64, true, REMOTE_READ));
        memory.write(0x20000, Hex.of("0a 0b 0c 0d"));
        byte[] request = new ReadRequest(0x77, 0x5000, 4, 0x200, 0).ddpPayload();
        assertEquals(List.of(), e.receive(0, new DdpSegment(new DdpUntaggedHeader(true, 0x41L << 32, 1, 1, 0),
                request).encode()));
        assertEquals(List.of(new Outbound(0, Hex.of("c1 42 00 00 00 77 00 00 00 00 00 00 50 00 0a 0b 0c 0d"))),
                e.transmitAll(0));

        RdmapEndpoint split = new RdmapEndpoint(memory, List.of(qp(1, 1, 1, 1500)));
        split.register(region(0x200, 1, OptionalInt.empty(), 0x20000, 64, true, REMOTE_READ));
        byte[] head = new DdpSegment(new DdpUntaggedHeader(false, 0x41L << 32, 1, 1, 0), Arrays.copyOf(request, 14))
                .encode();
        assertEquals(List.of(new Failure(0, TerminateCause.UNSPECIFIED_REMOTE_OPERATION)), split.receive(0, head));
        assertEquals(1, split.transmitAll(0).size(), "its one Terminate (RdmapEndpointErrorTest checks its fields)");
        assertEquals(List.of(new Dropped(0, 32)), split.receive(0, new DdpSegment(new DdpUntaggedHeader(true,
                0x41L << 32, 1, 1, 14), Arrays.copyOfRange(request, 14, 28)).encode()));

        e.postReceive(0, 0x9000, 16, 1);
        assertEquals(List.of(new Place(0x9000, Hex.of("01 02"))), e.receive(0, new DdpSegment(
                new DdpUntaggedHeader(false, 0x43L << 32, 0, 1, 0), Hex.of("01 02")).encode()));
        assertEquals(List.of(new Place(0x9002, Hex.of("03")), new ReceiveCompletion(0, 1, RdmapOpcode.SEND_WITH_SE,
                3, true, OptionalLong.empty(), OptionalInt.empty())), e.receive(0, new DdpSegment(
                        new DdpUntaggedHeader(true, 0x45L << 32, 0, 1, 2), Hex.of("03")).encode()));

        // A first segment naming Send with Invalidate of an STag that does not exist, a last one naming Send: a Send.
        e.postReceive(0, 0xa000, 16, 2);
        assertEquals(List.of(new Place(0xa000, Hex.of("04"))), e.receive(0, new DdpSegment(
                new DdpUntaggedHeader(false, 0x44L << 32 | 0x0bad, 0, 2, 0), Hex.of("04")).encode()));
        assertEquals(List.of(new Place(0xa001, Hex.of("05")), new ReceiveCompletion(0, 2, RdmapOpcode.SEND, 2,
                false, OptionalLong.empty(), OptionalInt.empty())), e.receive(0, new DdpSegment(
                        new DdpUntaggedHeader(true, 0x43L << 32, 0, 2, 1), Hex.of("05")).encode()));
    }

    /**
     * The actions are plain values a scoreboard can compare: equal when their contents are, hash alike, and read as
     * what they mean.
     */
    @Test
    void actionsArePlainValues() {
        Place place = new Place(0x1000, Hex.of("de ad be ef"));
        assertEquals(place, new Place(0x1000, Hex.of("de ad be ef")));
        assertEquals(place.hashCode(), new Place(0x1000, Hex.of("de ad be ef")).hashCode());
        assertFalse(place.equals(new Place(0x1000, Hex.of("de ad be ee"))));
        assertEquals("Place[0x1000 +4: de ad be ef]", place.toString());
        Outbound out = new Outbound(2, Hex.ulpdu(WRITE_DUMP));
        assertEquals(out, new Outbound(2, Hex.ulpdu(WRITE_DUMP)));
        assertEquals("Outbound[qp=2 18 octets Tagged[L=1 ulp=40 stag=00001234 to=0000000000001000]:"
                + " c1 40 00 00 12 34 00 00 00 00 00 00 10 00 de ad be ef]", out.toString());
        assertEquals("ReceiveCompletion[qp=1 wr=7 SEND_WITH_SE_AND_INVALIDATE len=10 SE invalidated=00000501]",
                new ReceiveCompletion(1, 7, RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE, 10, true, OptionalLong.empty(),
                        OptionalInt.of(0x501)).toString());
        assertEquals("RequestCompletion[qp=0 wr=3 RDMA_READ_REQUEST len=100]",
                new RequestCompletion(0, 3, RdmapOpcode.RDMA_READ_REQUEST, 100).toString());
        assertEquals(new Failure(1, TerminateCause.DDP_INVALID_MSN), new Failure(1, TerminateCause.DDP_INVALID_MSN));
        assertThrows(IllegalArgumentException.class, () -> new Place(0, new byte[0]));
    }

    /** The API refuses what no hardware could do: a segment MPA cannot carry, a QP that does not exist. */
    @Test
    void apiLimits() {
        RdmapEndpoint e = new RdmapEndpoint(new TestMemory(), List.of(qp(1, 1, 1, 1500)));
        assertThrows(IllegalArgumentException.class, () -> e.receive(0, new byte[64769]));
        assertThrows(IllegalArgumentException.class, () -> e.receive(1, new byte[20]));
        assertThrows(IllegalArgumentException.class, () -> qp(1, 1, 1, 127));
        assertThrows(IllegalStateException.class, () -> e.transmit(0, Source.REQUEST));
        assertThrows(IllegalArgumentException.class, () -> WorkRequest.sendWithSe(1, 0, -1));
        assertEquals(Source.TERMINATE, RdmapEndpoint.sourceOf(Hex.of("41 47 00000000 00000002 00000001 00000000")));
        assertEquals(Source.RESPONSE, RdmapEndpoint.sourceOf(Hex.of("41 4b 00000000 00000003 00000001 00000000")));
        assertEquals(Source.RESPONSE, RdmapEndpoint.sourceOf(Hex.of("c1 42 00000001 0000000000000000")));
        assertEquals(Source.REQUEST, RdmapEndpoint.sourceOf(Hex.of("c1 40 00000001 0000000000000000")));
        assertEquals(Source.REQUEST, RdmapEndpoint.sourceOf(Hex.of("41 41 00000000 00000001 00000001 00000000")));
    }
}
