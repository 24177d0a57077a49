package rnic.hw.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import rnic.hw.ddp.DdpConfig;
import rnic.model.ddp.StagTable;
import rnic.model.ddp.StagTable.Access;
import rnic.model.rdmap.WorkRequest;
import rnic.sim.Pacer;

/**
 * Random mixes of every operation over the engine's 4 QPs in both directions, against the golden twin (octet for
 * octet on the wire, every event, the whole host memory) with a golden peer on the other side: Writes, Reads, the
 * Send family, Immediate Data and masked Atomics, lengths from 0 over several segments, a random MULPDU per QP, random
 * idle on every input, back-pressure on every output and a slow memory with random latency on the paced runs.
 *
 * <p>Each side's regions keep the twin's replay exact: what the peer reads is never written during the run, what it
 * writes is never read, and the atomic targets are touched only by Atomics (the engine fetches a Read Response's
 * source ahead of sending it; RDMAP-22 allows it to see later Writes, and the model reads it when it is sent).
 *
 * <p>Requirements: DDP-12, DDP-14…DDP-18, DDP-21, DDP-23, DDP-24, RDMAP-05…RDMAP-08, RDMAP-11, RDMAP-12, RDMAP-21,
 * RDMAP-24 (ORD), RDMAP-28, RDMAP-30…RDMAP-38, RDMAP-40; per-QP independence of MSNs and buffers.
 */
class RdmapEngineRandomTest {
    static final int OPS_PER_SIDE = 240;
    static final long DUT_WRITABLE = 0x100_0000L;
    static final long DUT_READABLE = 0x200_0000L;
    static final long DUT_ATOMIC = 0x300_0000L;
    static final long DUT_SOURCE = 0x400_0000L;
    static final long DUT_SINK = 0x500_0000L;
    static final long DUT_RECV = 0x600_0000L;
    static final long DUT_RESULTS = 0x700_0000L;
    static final long PEER_BASE = 0x1000_0000L;
    static final int REGION = 0x10000;

    @ParameterizedTest(name = "W={0} paced={1}")
    @CsvSource({"64,false", "64,true", "512,false", "512,true"})
    void randomMix(int width, boolean paced) {
        RdmapEngineTest.model(width).run("random-" + paced, paced ? 32 : 31, tb -> {
            DdpConfig cfg = tb.dut().config;
            Random rng = tb.random();
            EngineBench b = new EngineBench(tb, cfg, paced ? Pacer.randomMix(rng) : Pacer.always(),
                    paced ? Pacer.randomMix(rng) : Pacer.always(), paced);
            int qps = cfg.qpCount();
            int[] mulpdu = new int[qps];
            RdmapEngineTest.Pair p;
            {
                for (int q = 0; q < qps; q++) {
                    mulpdu[q] = 128 + rng.nextInt(1400);
                    b.openQp(q, RdmapEngineTest.DUT_PD, 8, 8, mulpdu[q]);
                }
                // The engine's regions (VA-based) and the peer's (zero-based), one set for all QPs.
                b.register(region(0x0100, RdmapEngineTest.DUT_PD, DUT_WRITABLE, false, Access.REMOTE_WRITE));
                b.register(region(0x0201, RdmapEngineTest.DUT_PD, DUT_READABLE, false, Access.REMOTE_READ));
                b.register(region(0x0302, RdmapEngineTest.DUT_PD, DUT_ATOMIC, false, Access.REMOTE_ATOMIC));
                b.register(region(0x0403, RdmapEngineTest.DUT_PD, DUT_SINK, true, Access.REMOTE_WRITE));
                b.fill(DUT_READABLE, RdmapEngineTest.pattern(rng, REGION));
                b.fill(DUT_ATOMIC, RdmapEngineTest.pattern(rng, 256));
                b.fill(DUT_SOURCE, RdmapEngineTest.pattern(rng, REGION));
                b.start();
                p = new RdmapEngineTest.Pair(b, mulpdu);
            }
            RdmapEngineTest.Pair pair = p;
            pair.peer.register(region(0x0500, RdmapEngineTest.PEER_PD, PEER_BASE, true, Access.REMOTE_WRITE));
            pair.peer.register(region(0x0601, RdmapEngineTest.PEER_PD, PEER_BASE + REGION, true,
                    Access.REMOTE_READ));
            pair.peer.register(region(0x0702, RdmapEngineTest.PEER_PD, PEER_BASE + 2 * REGION, true,
                    Access.REMOTE_ATOMIC));
            pair.peer.register(region(0x0803, RdmapEngineTest.PEER_PD, PEER_BASE + 3 * REGION, true,
                    Access.REMOTE_WRITE));
            pair.peerMemory.write(PEER_BASE + REGION, RdmapEngineTest.pattern(rng, REGION));
            pair.peerMemory.write(PEER_BASE + 2 * REGION, RdmapEngineTest.pattern(rng, 256));
            pair.peerMemory.write(PEER_BASE + 4 * REGION, RdmapEngineTest.pattern(rng, REGION));

            int[] peerSends = new int[qps];
            long wr = 1;
            int engineOps = 0;
            for (int i = 0; i < 2 * OPS_PER_SIDE; i++) {
                int q = rng.nextInt(qps);
                boolean engineSide = i % 2 == 0;
                int kind = rng.nextInt(7);
                int length = rng.nextInt(4) == 0 ? rng.nextInt(16) : rng.nextInt(3000);
                long off = rng.nextInt(REGION - length);
                long atomicOff = 8L * rng.nextInt(32);
                long id = wr++;
                if (engineSide) {
                    engineOps++;
                    WorkRequest r = switch (kind) {
                        case 0 -> WorkRequest.write(id, DUT_SOURCE + off, length, 0x0500, off);
                        case 1 -> WorkRequest.read(id, 0x0403, off, 0x0601, off, length);
                        case 2 -> WorkRequest.send(id, DUT_SOURCE + off, Math.min(length, 4096));
                        case 3 -> WorkRequest.sendWithSe(id, DUT_SOURCE + off, Math.min(length, 4096));
                        case 4 -> rng.nextBoolean() ? WorkRequest.immediate(id, rng.nextLong())
                                : WorkRequest.immediateWithSe(id, rng.nextLong());
                        case 5 -> WorkRequest.fetchAdd(id, 0x0702, atomicOff, rng.nextLong(),
                                rng.nextBoolean() ? 0 : rng.nextLong(), DUT_RESULTS + 8 * id);
                        default -> WorkRequest.cmpSwap(id, 0x0702, atomicOff, rng.nextLong(), rng.nextLong(),
                                rng.nextBoolean() ? 0 : rng.nextLong(), rng.nextLong(), DUT_RESULTS + 8 * id);
                    };
                    b.postSend(q, r);
                } else {
                    if ((kind == 2 || kind == 3 || kind == 4) && peerSends[q] >= cfg.recvDepth() - 2) {
                        kind = 0;
                    }
                    WorkRequest r = switch (kind) {
                        case 0 -> WorkRequest.write(id, PEER_BASE + 4 * REGION + off, length, 0x0100,
                                DUT_WRITABLE + off);
                        case 1 -> WorkRequest.read(id, 0x0803, off, 0x0201, DUT_READABLE + off, length);
                        case 2 -> WorkRequest.send(id, PEER_BASE + 4 * REGION + off, Math.min(length, 4096));
                        case 3 -> WorkRequest.sendWithSe(id, PEER_BASE + 4 * REGION + off, Math.min(length, 4096));
                        case 4 -> WorkRequest.immediate(id, rng.nextLong());
                        case 5 -> WorkRequest.fetchAdd(id, 0x0302, DUT_ATOMIC + atomicOff, rng.nextLong(),
                                rng.nextBoolean() ? 0 : rng.nextLong(), PEER_BASE + 5 * REGION + 8 * id);
                        default -> WorkRequest.cmpSwap(id, 0x0302, DUT_ATOMIC + atomicOff, rng.nextLong(),
                                rng.nextLong(), rng.nextBoolean() ? 0 : rng.nextLong(), rng.nextLong(),
                                PEER_BASE + 5 * REGION + 8 * id);
                    };
                    if (kind == 2 || kind == 3 || kind == 4) {
                        b.postReceive(q, DUT_RECV + 0x10000L * q + 0x1000L * peerSends[q], 4096, 1000 + id);
                        peerSends[q]++;
                    }
                    assertTrue(pair.peer.postSend(q, r));
                }
                if (kind == 2 || kind == 3 || kind == 4) {
                    if (engineSide) {
                        pair.peer.postReceive(q, PEER_BASE + 6 * REGION + 0x1000L * id, 4096, 2000 + id);
                    }
                }
            }
            pair.run(3_000_000);

            assertTrue(pair.peerFailures().isEmpty(), () -> "peer saw " + pair.peerFailures());
            b.checkEvents();
            b.checkMemory();
            long requesterDone = b.events.stream().filter(e -> e.kind() == RxEventKind.SEND_DONE
                    || e.kind() == RxEventKind.READ_DONE || e.kind() == RxEventKind.ATOMIC_DONE).count();
            assertEquals(engineOps, requesterDone, "every work request of the engine completed");
            System.out.printf("random mix W=%d paced=%b: %d segments sent, %d events, %d cycles%n", width, paced,
                    b.sent.size(), b.events.size(), tb.cycle());
        });
    }

    static StagTable.Region region(int stag, int pd, long va, boolean zeroBased, Access right) {
        return new StagTable.Region(stag, pd, OptionalInt.empty(), EnumSet.of(right), va, REGION, zeroBased);
    }
}
