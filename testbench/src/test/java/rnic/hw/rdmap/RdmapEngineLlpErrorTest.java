package rnic.hw.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.ddp.StagTable;
import rnic.model.ddp.TerminateException;
import rnic.model.rdmap.RdmapDecoder;
import rnic.model.rdmap.TaggedMessage;
import rnic.model.rdmap.Terminate;
import rnic.model.rdmap.WorkRequest;
import rnic.sim.Pacer;
import rnic.wire.MpaErrorCode;
import rnic.wire.RdmapOpcode;

/**
 * An MPA receive error of a QP's connection after Full Operation ({@code llpError}, E-M2/E-M3) at W = 64 and 512,
 * checked against the golden twin ({@link EngineBench}, {@code RdmapEndpoint.llpError}): the QP sends the Terminate of
 * docs/requirements.md §3.1 — Layer LLP (2), EType 0, the MPA Error Code, M = D = R = 0, on QN 2 with MSN 1 and MO 0 — as its
 * next segment after the one already shown, and nothing after it; the rest of the Write in progress and the Send
 * behind it are discarded without completions; later inbound segments are dropped; a second error sends no second
 * Terminate; QP 0 goes on.
 *
 * <p>Requirements: MPA-44, MPA-45 (the receive half stops, the transmit half still sends the Terminate), DDP-27,
 * DDP-28 (an LLP error goes up and the stream's outstanding work ends), RDMAP-18, RDMAP-14 (one Terminate, the last
 * segment), RDMAP-25 (the erroneous stream stops all transfer).
 */
class RdmapEngineLlpErrorTest {
    static final int SINK = 0x0100;

    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void anMpaErrorSendsTheLlpTerminate(int width) {
        RdmapEngineTest.model(width).run("llp-error", 41, tb -> {
            EngineBench b = new EngineBench(tb, tb.dut().config, Pacer.always(), Pacer.always(), false);
            b.openQp(0, 1, 4, 4, 1500);
            b.openQp(1, 1, 4, 4, 1500);
            b.register(new StagTable.Region(SINK, 1, OptionalInt.empty(), EnumSet.of(StagTable.Access.REMOTE_WRITE),
                    0x80_0000L, 0x1000, true));
            b.fill(0x10_0000L, RdmapEngineTest.pattern(tb.random(), 0x4000));
            b.start();

            // QP 1 is in the middle of a long Write (its first segment shown, the transmit side held) when its MPA
            // receiver finds a CRC error.
            b.holdTx(true);
            b.postSend(1, new WorkRequest.Write(1, 0x10_0000L, 8000, 0x77, 0));
            b.postSend(1, new WorkRequest.Send(2, RdmapOpcode.SEND, 0x10_0000L, 100, 0));
            tb.step(2_000); // the builder fills up behind the held segment; the requester waits
            b.llpError(1, MpaErrorCode.CRC_ERROR);
            tb.step(2_000);
            b.holdTx(false);
            b.settle(50_000);

            List<EngineBench.Segment> mine = b.sent.stream().filter(s -> s.qp() == 1).toList();
            assertTrue(mine.size() >= 2 && mine.size() < 6, "the shown Write segment(s), then the Terminate: "
                    + mine.size() + " segments");
            long terminates = mine.stream().filter(s -> (s.ulpdu()[1] & 0x0F) == RdmapOpcode.TERMINATE.code()).count();
            assertEquals(1, terminates, "exactly one Terminate");
            DdpSegment seg;
            Terminate t;
            try {
                seg = DdpSegment.parse(mine.get(mine.size() - 1).ulpdu());
                t = (Terminate) new RdmapDecoder(true).decode(List.of(seg));
            } catch (TerminateException e) {
                throw new AssertionError("the Terminate does not parse: " + e.getMessage(), e);
            }
            assertEquals(new DdpUntaggedHeader(true, 0x47L << 32, 2, 1, 0), seg.header(), "QN 2, MSN 1, MO 0");
            assertEquals(MpaErrorCode.LAYER, t.layer(), "Layer LLP");
            assertEquals(MpaErrorCode.ETYPE, t.etype(), "EType MPA error");
            assertEquals(MpaErrorCode.CRC_ERROR.code(), t.errorCode(), "Error Code E-M2");
            assertEquals(false, t.segmentLengthValid(), "M");
            assertNull(t.ddpHeader(), "D");
            assertNull(t.rdmaHeader(), "R");
            assertTrue(b.events.stream().noneMatch(e -> e.qp() == 1), "no completion on QP 1: " + b.events);

            // Quiet: a second MPA error and an inbound Write change nothing; QP 0 places and sends.
            int sentAfter = b.sent.size();
            b.llpError(1, MpaErrorCode.MARKER_ERROR);
            b.receive(1, TaggedMessage.write(SINK, 0, new byte[] {0x11}).segments(new DdpSegmenter(), 1500).get(0)
                    .encode());
            b.settle(20_000);
            assertEquals(sentAfter, b.sent.size(), "nothing more sent");
            assertEquals(0, b.memory.read(0x80_0000L, 1)[0], "QP 1 placed nothing");
            b.receive(0, TaggedMessage.write(SINK, 0, new byte[] {0x5A}).segments(new DdpSegmenter(), 1500).get(0)
                    .encode());
            b.postSend(0, new WorkRequest.Write(3, 0x10_0000L, 3000, 0x77, 0));
            b.settle(20_000);
            assertEquals(0x5A, b.memory.read(0x80_0000L, 1)[0] & 0xFF, "QP 0 placed its Write");
            assertTrue(b.events.stream().anyMatch(e -> e.qp() == 0 && e.wrId() == 3
                    && e.kind() == RxEventKind.SEND_DONE), "QP 0's Write completed");
            b.checkEvents();
            b.checkMemory();
        });
    }
}
