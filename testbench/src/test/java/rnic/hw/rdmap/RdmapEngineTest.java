package rnic.hw.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.hw.ddp.DdpConfig;
import rnic.model.ddp.StagTable;
import rnic.model.ddp.StagTable.Access;
import rnic.model.rdmap.EndpointAction;
import rnic.model.rdmap.RdmapEndpoint;
import rnic.model.rdmap.WorkRequest;
import rnic.sim.HostMemory;
import rnic.sim.Pacer;
import rnic.sim.SimModel;

/**
 * Verilator testbench of {@link RdmapEngine}: the engine talks to a golden peer ({@link RdmapEndpoint}) over its
 * segment ports while {@link EngineBench} checks it against its golden twin — every segment it sends octet for octet,
 * every event, the whole host memory, and that it writes nowhere it may not.
 *
 * <p>Requirements: DDP-05, DDP-12, DDP-14…DDP-18, DDP-21, DDP-23, DDP-24 (segments, TO and MO progression, MSNs,
 * placement), RDMAP-02…RDMAP-08, RDMAP-11, RDMAP-12, RDMAP-13 (Send with Invalidate), RDMAP-21 (Read completes at
 * its last Read Response), RDMAP-24 (ORD), RDMAP-28, RDMAP-30…RDMAP-38 (Atomics end to end), RDMAP-40 (Immediate
 * Data), T-15, T-23, T-31.
 */
class RdmapEngineTest {
    static final int PEER_PD = 7;
    static final int DUT_PD = 1;

    static SimModel<RdmapEngine> model(int width) {
        DdpConfig cfg = DdpConfig.defaults().withDataWidth(width);
        return SimModel.of("RdmapEngine-w" + width, () -> new RdmapEngine(cfg));
    }

    /** The engine, its twin and a golden peer, wired back to back. */
    static final class Pair {
        final EngineBench dut;
        final RdmapEndpoint peer;
        final HostMemory peerMemory = new HostMemory();
        final List<EndpointAction> peerActions = new ArrayList<>();

        Pair(EngineBench dut, int qps, int mulpdu) {
            this(dut, java.util.Collections.nCopies(qps, mulpdu).stream().mapToInt(Integer::intValue).toArray());
        }

        /** A peer whose QP {@code q} sends segments of at most {@code mulpdu[q]} octets. */
        Pair(EngineBench dut, int[] mulpdu) {
            this.dut = dut;
            List<RdmapEndpoint.QpConfig> cfgs = new ArrayList<>();
            for (int m : mulpdu) {
                cfgs.add(new RdmapEndpoint.QpConfig(PEER_PD, 8, 8, m));
            }
            peer = new RdmapEndpoint(peerMemory, cfgs);
        }

        /** Moves segments both ways until both sides are quiet. */
        void run(long maxCycles) {
            long end = dut.tb.cycle() + maxCycles;
            int quietRounds = 0;
            while (quietRounds < 3) {
                if (dut.tb.cycle() > end) {
                    throw new AssertionError("no quiet after " + maxCycles + " cycles");
                }
                dut.quiet(maxCycles);
                boolean moved = false;
                for (EngineBench.Segment s = dut.nextSent(); s != null; s = dut.nextSent()) {
                    peerActions.addAll(peer.receive(s.qp(), s.ulpdu()));
                    moved = true;
                }
                for (int q = 0; q < dut.cfg.qpCount(); q++) {
                    for (EndpointAction a : peer.transmitAll(q)) {
                        peerActions.add(a);
                        if (a instanceof EndpointAction.Outbound o) {
                            dut.receive(o.qp(), o.ulpdu());
                            moved = true;
                        }
                    }
                }
                quietRounds = moved ? 0 : quietRounds + 1;
            }
            if (!dut.inputsIdle()) {
                throw new AssertionError("the engine is quiet but has not taken all its inputs (deadlock): "
                        + dut.pendingInputs());
            }
        }

        List<EndpointAction> peerFailures() {
            return peerActions.stream().filter(a -> a instanceof EndpointAction.Failure
                    || a instanceof EndpointAction.TerminateReceived).toList();
        }
    }

    static byte[] pattern(Random rng, int n) {
        byte[] b = new byte[n];
        rng.nextBytes(b);
        return b;
    }

    /**
     * Every operation in both directions on one QP: Write (multi-segment and empty), Read (multi-segment and empty),
     * the four Sends, both Immediate Data opcodes, FetchAdd and CmpSwap (masked), with the engine as requester and
     * as responder; at full rate with a fast memory and with idle, back-pressure and a slow memory.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {32, 64, 512})
    void everyOperationBothWays(int width) {
        for (boolean slow : new boolean[] {false, true}) {
            model(width).run("everyOperation-" + slow, slow ? 11 : 10, tb -> {
                DdpConfig cfg = tb.dut().config;
                Random rng = tb.random();
                EngineBench b = new EngineBench(tb, cfg, slow ? Pacer.randomMix(rng) : Pacer.always(),
                        slow ? Pacer.randomMix(rng) : Pacer.always(), slow);
                int mulpdu = 512;
                Pair p = new Pair(b, cfg.qpCount(), mulpdu);
                b.openQp(0, DUT_PD, 8, 8, mulpdu);
                // The engine's regions: one for everything remote, one sink for its Reads, one to be invalidated.
                StagTable.Region dutAll = new StagTable.Region(0x0100, DUT_PD, OptionalInt.empty(),
                        EnumSet.allOf(Access.class), 0x10_0000L, 0x4000, false);
                StagTable.Region dutSink = new StagTable.Region(0x0201, DUT_PD, OptionalInt.of(0),
                        EnumSet.of(Access.REMOTE_WRITE), 0x20_0000L, 0x4000, true);
                StagTable.Region dutDoomed = new StagTable.Region(0x0302, DUT_PD, OptionalInt.of(0),
                        EnumSet.of(Access.REMOTE_WRITE), 0x30_0000L, 0x100, true);
                b.register(dutAll);
                b.register(dutSink);
                b.register(dutDoomed);
                b.fill(0x10_0000L, pattern(rng, 0x4000));
                b.fill(0x40_0000L, pattern(rng, 0x4000)); // local source buffers
                b.start();
                StagTable.Region peerAll = new StagTable.Region(0x0500, PEER_PD, OptionalInt.empty(),
                        EnumSet.allOf(Access.class), 0x80_0000L, 0x4000, false);
                StagTable.Region peerSink = new StagTable.Region(0x0601, PEER_PD, OptionalInt.empty(),
                        EnumSet.of(Access.REMOTE_WRITE), 0x90_0000L, 0x4000, true);
                StagTable.Region peerDoomed = new StagTable.Region(0x0702, PEER_PD, OptionalInt.of(0),
                        EnumSet.of(Access.REMOTE_WRITE), 0xA0_0000L, 0x100, true);
                p.peer.register(peerAll);
                p.peer.register(peerSink);
                p.peer.register(peerDoomed);
                p.peer.register(new StagTable.Region(0x0803, PEER_PD, OptionalInt.of(0),
                        EnumSet.of(Access.REMOTE_READ), 0xA1_0000L, 0x100, false));
                p.peerMemory.write(0x80_0000L, pattern(rng, 0x4000));
                p.peerMemory.write(0xB0_0000L, pattern(rng, 0x4000));
                for (int i = 0; i < 6; i++) {
                    b.postReceive(0, 0x50_0000L + 0x1000L * i, 0x1000, 100 + i);
                    p.peer.postReceive(0, 0xC0_0000L + 0x1000L * i, 0x1000, 200 + i);
                }
                // The engine as requester.
                b.postSend(0, WorkRequest.write(1, 0x40_0000L, 1500, 0x0500, 0x80_0100L));
                b.postSend(0, WorkRequest.write(2, 0x40_0000L, 0, 0x0500, 0x80_0000L));
                b.postSend(0, WorkRequest.read(3, 0x0201, 0x10, 0x0500, 0x80_1000L, 2000));
                b.postSend(0, WorkRequest.read(4, 0x0201, 0, 0x0500, 0x80_0000L, 0));
                b.postSend(0, WorkRequest.send(5, 0x40_0800L, 700));
                b.postSend(0, WorkRequest.sendWithSe(6, 0x40_0900L, 0));
                b.postSend(0, WorkRequest.sendWithInvalidate(7, 0x40_0a00L, 33, 0x0702));
                b.postSend(0, WorkRequest.sendWithSeAndInvalidate(8, 0x40_0b00L, 1200, 0x0803));
                b.postSend(0, WorkRequest.immediate(9, 0x0123_4567_89ab_cdefL));
                b.postSend(0, WorkRequest.immediateWithSe(10, -2L));
                b.postSend(0, WorkRequest.fetchAdd(11, 0x0500, 0x80_2000L, 0x0101_0101_0101_0101L,
                        0x8080_8080_8080_8080L, 0x40_3000L));
                b.postSend(0, WorkRequest.cmpSwap(12, 0x0500, 0x80_2008L, 0x1111_2222_3333_4444L, -1L,
                        0, 0, 0x40_3008L));
                // The peer as requester.
                p.peer.postSend(0, WorkRequest.write(21, 0xB0_0000L, 3000, 0x0100, 0x10_0200L));
                p.peer.postSend(0, WorkRequest.read(22, 0x0601, 0, 0x0100, 0x10_0000L, 4096));
                p.peer.postSend(0, WorkRequest.send(23, 0xB0_1000L, 4000));
                p.peer.postSend(0, WorkRequest.sendWithInvalidate(24, 0xB0_2000L, 10, 0x0302));
                p.peer.postSend(0, WorkRequest.immediate(25, 42));
                p.peer.postSend(0, WorkRequest.fetchAdd(26, 0x0100, 0x10_3000L, 5, 0, 0xB0_3000L));
                p.peer.postSend(0, WorkRequest.cmpSwap(27, 0x0100, 0x10_3008L, 7, -1L, 0, 0, 0xB0_3008L));
                p.run(200_000);

                assertTrue(p.peerFailures().isEmpty(), () -> "peer saw " + p.peerFailures());
                b.checkEvents();
                b.checkMemory();
                assertFalse(b.events.isEmpty());
                assertTrue(b.writesChecked > 0);
                long requesterDone = b.events.stream().filter(e -> e.kind() == RxEventKind.SEND_DONE
                        || e.kind() == RxEventKind.READ_DONE || e.kind() == RxEventKind.ATOMIC_DONE).count();
                assertEquals(12, requesterDone, () -> "requester completions: " + b.events);
            });
        }
    }

    /**
     * A Terminate from the peer (RDMAP-14, RDMAP-15, RDMAP-16): each HdrCt shape — no headers, a tagged and an
     * untagged Terminated DDP Header, with the Read Request — is delivered as TERMINATE_RECEIVED with its first eight
     * octets, the QP fails without answering (no Terminate in reply) and drops what follows; another QP works on.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void terminateFromThePeer(int width) {
        byte[] tagged = rnic.model.rdmap.TaggedMessage.write(0x0100, 0, new byte[16])
                .segments(new rnic.model.ddp.DdpSegmenter(), 1500).get(0).encode();
        byte[] untagged = new rnic.model.ddp.DdpSegment(new rnic.model.ddp.DdpUntaggedHeader(true, 0x43L << 32, 0, 1,
                0), new byte[8]).encode();
        rnic.model.rdmap.ReadRequest request = new rnic.model.rdmap.ReadRequest(0x77, 0x10, 16, 0x0B00, 0);
        byte[] readSegment = request.segments(new rnic.model.ddp.DdpSegmenter(), 1500).get(0).encode();
        List<rnic.model.rdmap.Terminate> shapes = List.of(
                rnic.model.rdmap.Terminate.outbound(rnic.wire.TerminateCause.RDMAP_LOCAL_CATASTROPHIC),
                rnic.model.rdmap.Terminate.inbound(rnic.wire.TerminateCause.DDP_INVALID_STAG, tagged),
                rnic.model.rdmap.Terminate.inbound(rnic.wire.TerminateCause.DDP_NO_BUFFER, untagged),
                rnic.model.rdmap.Terminate.inbound(rnic.wire.TerminateCause.READ_INVALID_STAG, readSegment, request));
        for (int i = 0; i < shapes.size(); i++) {
            rnic.model.rdmap.Terminate t = shapes.get(i);
            model(width).run("peerTerminate-" + i, 50 + i, tb -> {
                EngineBench b = new EngineBench(tb, tb.dut().config, Pacer.always(), Pacer.always(), false);
                for (int q = 0; q < 2; q++) {
                    b.openQp(q, DUT_PD, 8, 8, 1500);
                }
                b.register(new StagTable.Region(0x0100, DUT_PD, OptionalInt.empty(), EnumSet.of(Access.REMOTE_WRITE),
                        0x10_0000L, 0x1000, true));
                b.start();
                byte[] segment = t.segments(new rnic.model.ddp.DdpSegmenter(), 1500).get(0).encode();
                b.receive(1, segment);
                b.settle(10_000);
                b.receive(1, tagged); // dropped
                b.receive(0, tagged); // placed
                b.settle(10_000);
                List<EngineBench.Event> got = b.events.stream()
                        .filter(e -> e.kind() == RxEventKind.TERMINATE_RECEIVED).toList();
                assertEquals(1, got.size(), () -> "one TERMINATE_RECEIVED: " + b.events);
                byte[] first8 = java.util.Arrays.copyOfRange(segment, 18, 26); // zero past a 4-octet Terminate
                assertEquals(java.nio.ByteBuffer.wrap(first8).getLong(), got.get(0).info(),
                        "the Terminate's first eight octets");
                assertTrue(b.sent.isEmpty(), () -> "nothing sent in reply: " + b.sent.size());
                b.checkEvents();
                b.checkMemory();
            });
        }
    }

    /**
     * Closing a QP flushes the receive buffers posted to it (they belonged to the connection that ended): after a
     * close and a reopen, the first Send lands in the buffer posted after the reopen, and a second finds no buffer
     * (E-D9, DDP-30) rather than one of the old ones.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void closingAQpFlushesItsReceiveBuffers(int width) {
        model(width).run("closeFlushes", 60, tb -> {
            EngineBench b = new EngineBench(tb, tb.dut().config, Pacer.always(), Pacer.always(), false);
            for (int q = 0; q < 2; q++) {
                b.openQp(q, DUT_PD, 8, 8, 1500);
            }
            b.startWithoutTwin();
            b.postReceiveToEngine(1, 0x50_0000L, 0x100, 11);
            b.postReceiveToEngine(1, 0x51_0000L, 0x100, 12);
            b.settle(10_000);
            b.close(1);
            b.reopen(1);
            b.settle(10_000); // the new buffer is posted after the close has been taken
            b.postReceiveToEngine(1, 0x60_0000L, 0x100, 21);
            b.settle(10_000);
            byte[] payload = new byte[16];
            new java.util.Random(5).nextBytes(payload);
            for (int msn = 1; msn <= 2; msn++) {
                b.receive(1, new rnic.model.ddp.DdpSegment(new rnic.model.ddp.DdpUntaggedHeader(true, 0x43L << 32, 0,
                        msn, 0), payload).encode());
            }
            b.settle(10_000);
            assertEquals(2, b.events.size(), () -> "events: " + b.events);
            EngineBench.Event first = b.events.get(0);
            assertEquals(RxEventKind.RECEIVE, first.kind());
            assertEquals(21, first.wrId(), "the Send consumed the buffer posted after the reopen");
            assertEquals(16, first.length());
            org.junit.jupiter.api.Assertions.assertArrayEquals(payload, b.memory.read(0x60_0000L, 16));
            EngineBench.Event second = b.events.get(1);
            assertEquals(RxEventKind.TERMINATE_SENT, second.kind());
            assertEquals(rnic.wire.TerminateCause.DDP_NO_BUFFER, second.cause());
        });
    }
}
