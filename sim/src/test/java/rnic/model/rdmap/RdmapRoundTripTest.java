package rnic.model.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.ddp.DdpUntaggedReceiver;
import rnic.model.ddp.TerminateException;
import rnic.wire.AtomicOpcode;
import rnic.wire.DdpQueue;
import rnic.wire.RdmapOpcode;

/**
 * Random RDMAP messages of every opcode through the whole model as a scoreboard would use it — segmenter, wire octets,
 * segment parser, RDMAP checks, untagged receive checks, decoder — and the MSN sequences docs/requirements.md §2.8.2 gives for
 * the shared queues.
 *
 * <p>Requirements: RDMAP-01, RDMAP-04, RDMAP-06, RDMAP-29, RDMAP-30, RDMAP-35, RDMAP-40, DDP-14, DDP-15, DDP-17,
 * DDP-23, DDP-24.
 */
class RdmapRoundTripTest {
    static final RdmapDecoder DECODER = new RdmapDecoder(true);

    static byte[] bytes(Random rng, int max) {
        byte[] b = new byte[rng.nextInt(4) == 0 ? 0 : rng.nextInt(max)];
        rng.nextBytes(b);
        return b;
    }

    static RdmapMessage random(Random rng) {
        return switch (rng.nextInt(8)) {
            case 0 -> TaggedMessage.write(rng.nextInt(), rng.nextLong(), bytes(rng, 5000));
            case 1 -> new TaggedMessage(RdmapOpcode.RDMA_READ_RESPONSE, rng.nextInt(), rng.nextLong(),
                    bytes(rng, 5000));
            case 2 -> {
                RdmapOpcode op = RdmapOpcode.decode(3 + rng.nextInt(4)).orElseThrow();
                yield new SendMessage(op, op.invalidates() ? rng.nextInt() : 0, bytes(rng, 5000));
            }
            case 3 -> new ReadRequest(rng.nextInt(), rng.nextLong(), rng.nextLong() >>> 32, rng.nextInt(),
                    rng.nextLong());
            case 4 -> randomTerminate(rng);
            case 5 -> new ImmediateData(rng.nextBoolean() ? RdmapOpcode.IMMEDIATE_DATA
                    : RdmapOpcode.IMMEDIATE_DATA_WITH_SE, rng.nextLong());
            case 6 -> new AtomicRequest(rng.nextBoolean() ? AtomicOpcode.FETCH_ADD : AtomicOpcode.CMP_SWAP,
                    rng.nextInt(), rng.nextInt(), rng.nextLong(), rng.nextLong(), rng.nextLong(), rng.nextLong(),
                    rng.nextLong());
            default -> new AtomicResponse(rng.nextInt(), rng.nextLong());
        };
    }

    static Terminate randomTerminate(Random rng) {
        byte[] header = null;
        if (rng.nextBoolean()) {
            header = new byte[rng.nextBoolean() ? 14 : 18];
            rng.nextBytes(header);
            header[0] = (byte) (header.length == 14 ? header[0] | 0x80 : header[0] & 0x7F);
        }
        ReadRequest rdma = rng.nextBoolean() ? new ReadRequest(rng.nextInt(), rng.nextLong(), rng.nextLong() >>> 32,
                rng.nextInt(), rng.nextLong()) : null;
        return new Terminate(rng.nextInt(16), rng.nextInt(16), rng.nextInt(256), rng.nextBoolean(),
                header != null ? rng.nextInt(65536) : 0, header, rdma);
    }

    /**
     * RDMAP-01, RDMAP-04, DDP-17, DDP-23, DDP-24: 3000 random messages on one stream, with random MULPDUs, come back
     * equal after segmenting, encoding, parsing, the RDMAP checks and reassembly; every untagged one is delivered by
     * the DDP receiver with its length and queue, into a buffer of exactly its size.
     */
    @Test
    void randomMessagesThroughTheModel() throws TerminateException {
        Random rng = new Random(5040);
        DdpSegmenter tx = new DdpSegmenter();
        DdpUntaggedReceiver rx = new DdpUntaggedReceiver();
        DECODER.queues().forEach(q -> rx.open(q.qn()));
        for (int i = 0; i < 3000; i++) {
            RdmapMessage m = random(rng);
            Optional<DdpQueue> queue = m.opcode().queue();
            queue.ifPresent(q -> rx.post(q.qn(), m.ddpPayloadLength()));
            List<DdpSegment> received = new ArrayList<>();
            Optional<DdpUntaggedReceiver.Delivery> delivery = Optional.empty();
            for (DdpSegment s : m.segments(tx, 128 + rng.nextInt(3000))) {
                DdpSegment parsed = DdpSegment.parse(s.encode());
                assertEquals(s, parsed);
                assertEquals(m.opcode(), DECODER.check(parsed.header()));
                if (parsed.header() instanceof DdpUntaggedHeader u) {
                    delivery = rx.receive(u, parsed.payload().length);
                }
                received.add(parsed);
            }
            assertEquals(m, DECODER.decode(received));
            if (queue.isPresent()) {
                DdpUntaggedReceiver.Delivery d = delivery.orElseThrow();
                assertEquals(queue.get().qn(), d.qn());
                assertEquals(m.ddpPayloadLength(), d.length());
                assertEquals(m.opcode().control(), (int) (d.rsvdUlp() >>> 32));
            } else {
                assertEquals(Optional.empty(), delivery);
            }
        }
    }

    static long msn(List<DdpSegment> segments) {
        return ((DdpUntaggedHeader) segments.get(0).header()).msn();
    }

    /**
     * §2.8.2 example, RDMAP-30, RDMAP-35, T-23: Read, Atomic A, Read, Atomic B share the QN 1 MSNs 1–4; the responses
     * to A and B are QN 3 MSN 1 and 2, the Read Responses tagged and counting no MSN.
     */
    @Test
    void readsAndAtomicsShareQueueOne() {
        DdpSegmenter requester = new DdpSegmenter();
        ReadRequest read = new ReadRequest(1, 0, 8, 2, 0);
        AtomicRequest a = AtomicRequest.fetchAdd(0xA, 3, 0, 1, 0);
        AtomicRequest b = AtomicRequest.cmpSwap(0xB, 3, 8, 1, -1L, 0, -1L);
        assertEquals(List.of(1L, 2L, 3L, 4L), List.of(msn(read.segments(requester, 1500)),
                msn(a.segments(requester, 1500)), msn(read.segments(requester, 1500)),
                msn(b.segments(requester, 1500))));
        DdpSegmenter responder = new DdpSegmenter();
        TaggedMessage.readResponse(read, new byte[8]).segments(responder, 1500);
        long first = msn(new AtomicResponse(0xA, 0).segments(responder, 1500));
        TaggedMessage.readResponse(read, new byte[8]).segments(responder, 1500);
        long second = msn(new AtomicResponse(0xB, 0).segments(responder, 1500));
        assertEquals(List.of(1L, 2L), List.of(first, second));
        assertEquals(1, responder.nextMsn(DdpQueue.READ_REQUEST.qn()));
    }

    /** DDP-14, DDP-15, T-14, RDMAP-40: the Send family and Immediate Data share the QN 0 MSNs. */
    @Test
    void sendsAndImmediateDataShareQueueZero() {
        DdpSegmenter tx = new DdpSegmenter();
        List<Long> msns = List.of(msn(SendMessage.send(new byte[3]).segments(tx, 128)),
                msn(new ImmediateData(RdmapOpcode.IMMEDIATE_DATA_WITH_SE, 7).segments(tx, 128)),
                msn(new SendMessage(RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE, 9, new byte[0]).segments(tx, 128)),
                msn(new ImmediateData(RdmapOpcode.IMMEDIATE_DATA, 8).segments(tx, 128)));
        assertEquals(List.of(1L, 2L, 3L, 4L), msns);
    }
}
