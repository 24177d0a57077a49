package rnic.hw.rdmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.hw.ddp.DdpConfig;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.ddp.StagTable;
import rnic.model.ddp.StagTable.Access;
import rnic.model.rdmap.ReadRequest;
import rnic.model.rdmap.TaggedMessage;
import rnic.sim.HostMemory;
import rnic.sim.Pacer;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * Memory protection of the whole engine, as a property over {@value #SEGMENTS} random tagged accesses per width:
 * RDMA Write segments and Read Requests on 4 QPs (Protection Domains 1, 1, 2, 3) to random STags — registered ones,
 * the same index with another key, unknown ones — at TOs around each region's edges and anywhere in the 64-bit space,
 * with random lengths, against 16 random regions (PD, QP binding, rights, zero-based or VA-based, one ending at 2^64).
 *
 * <p>What is asserted, independently of the engine's design:
 * <ul>
 * <li>every octet the engine writes through its memory port lies inside an RDMA Write that this test's own region
 * list says grants remote write to that QP (checked on every write, as it happens), and every octet it reads lies
 * inside a region granting remote read to the QP that asked, rounded out to whole beats (AXI reads whole
 * beats);</li>
 * <li>after the run, host memory is exactly what the accepted Writes make of it (nothing missing, nothing extra);</li>
 * <li>every access the golden STag table ({@link StagTable}, outside the code under test) refuses gets exactly one
 * Terminate with that cause (the QP is then re-opened), every one it accepts gets none, and each Read Response
 * carries the source octets (for sources no Write can reach).</li>
 * </ul>
 * Requirements: DDP-19, DDP-30…DDP-34, RDMAP-09, RDMAP-19, RDMAP-26, E-D1…E-D6, E-R1…E-R5; ARCHITECTURE "no input from
 * the wire may place a byte outside a registered region".
 */
class RdmapEngineProtectionTest {
    static final int SEGMENTS = 100_000;
    static final int[] PD_OF_QP = {1, 1, 2, 3};

    /** A range [from, to) of host addresses (unsigned, to may be 0 for the top of the space). */
    record Range(long from, long length) {
        boolean contains(long address, int n) {
            long off = address - from;
            return Long.compareUnsigned(off, length) < 0 && Long.compareUnsigned(off + n, length) <= 0;
        }
    }

    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void noOctetOutsideAGrantingRegion(int width) {
        RdmapEngineTest.model(width).run("protection", 41, tb -> {
            DdpConfig cfg = tb.dut().config;
            Random rng = tb.random();
            EngineBench b = new EngineBench(tb, cfg, Pacer.random(rng, 0.9), Pacer.random(rng, 0.9), false);
            for (int q = 0; q < 4; q++) {
                b.openQp(q, PD_OF_QP[q], 8, 8, 4096);
            }
            StagTable model = new StagTable();
            List<StagTable.Region> regions = new ArrayList<>();
            for (int i = 1; i <= 16; i++) {
                Set<Access> rights = EnumSet.noneOf(Access.class);
                if (rng.nextInt(3) > 0) {
                    rights.add(Access.REMOTE_WRITE);
                }
                if (rng.nextInt(3) > 0) {
                    rights.add(Access.REMOTE_READ);
                }
                boolean top = i == 16;
                long length = top ? 4096 : 8 + rng.nextInt(4096);
                long va = top ? -4096L : 0x100_0000L * i;
                boolean zeroBased = !top && rng.nextBoolean();
                OptionalInt qp = rng.nextInt(4) == 0 ? OptionalInt.of(rng.nextInt(4)) : OptionalInt.empty();
                int pd = 1 + rng.nextInt(3);
                StagTable.Region r = new StagTable.Region(i << 8 | rng.nextInt(256), pd, qp, rights, va, length,
                        zeroBased);
                regions.add(r);
                model.register(r);
                b.register(r);
            }
            HostMemory expected = new HostMemory();
            b.startWithoutTwin();

            // The ranges each QP may currently touch: filled as accesses are accepted, checked on every port access.
            List<Range> writes = new ArrayList<>();
            List<Range> reads = new ArrayList<>();
            b.memory.onAccess((address, n, isWrite) -> {
                List<Range> ok = isWrite ? writes : reads;
                for (Range r : ok) {
                    if (r.contains(address, n)) {
                        return;
                    }
                }
                throw new AssertionError("cycle " + tb.cycle() + ": the engine " + (isWrite ? "wrote " : "read ") + n
                        + " octets at " + HostMemory.hex(address) + ", outside every access it was granted");
            });

            DdpSegmenter[] segmenter = new DdpSegmenter[4];
            for (int q = 0; q < 4; q++) {
                segmenter[q] = new DdpSegmenter();
            }
            List<byte[]> expectedResponses = new ArrayList<>();
            int accepted = 0;
            int refused = 0;
            int[] byCause = new int[TerminateCause.values().length];
            for (int i = 0; i < SEGMENTS; i++) {
                int q = rng.nextInt(4);
                StagTable.Stream stream = new StagTable.Stream(PD_OF_QP[q], q);
                StagTable.Region target = regions.get(rng.nextInt(regions.size()));
                int stag = switch (rng.nextInt(10)) {
                    case 0 -> target.stag() ^ (1 + rng.nextInt(255)); // another key
                    case 1 -> (20 + rng.nextInt(40)) << 8; // an index never registered
                    default -> target.stag();
                };
                long first = target.firstTo();
                long to = rng.nextInt(20) == 0 ? rng.nextLong()
                        : first + rng.nextInt((int) target.length() + 32) - 16;
                int len = rng.nextInt(8) == 0 ? 0 : 1 + rng.nextInt(rng.nextBoolean() ? 16 : 256);
                boolean write = rng.nextInt(5) > 0;
                Optional<TerminateCause> verdict;
                byte[] ulpdu;
                if (write) {
                    byte[] payload = RdmapEngineTest.pattern(rng, len);
                    ulpdu = TaggedMessage.write(stag, to, payload).segments(segmenter[q], 4096).get(0).encode();
                    verdict = model.checkPlacement(stream, stag, to, len);
                    if (verdict.isEmpty() && len > 0) {
                        long address = target.zeroBased() ? target.va() + (to - first) : to;
                        writes.add(new Range(address, len));
                        expected.write(address, payload);
                    }
                } else {
                    ReadRequest rr = new ReadRequest(0x0700, 0, len, stag, to);
                    ulpdu = rr.segments(segmenter[q], 4096).get(0).encode();
                    verdict = model.checkReadSource(stream, stag, to, len);
                    if (verdict.isEmpty() && len > 0) {
                        long address = target.zeroBased() ? target.va() + (to - first) : to;
                        // AXI reads whole beats: the granted range is the source rounded out to beats.
                        long n = cfg.octets();
                        long from = address & -n;
                        reads.add(new Range(from, ((address + len + n - 1) & -n) - from));
                        if (!target.access().contains(Access.REMOTE_WRITE)) {
                            expectedResponses.add(expected.read(address, len));
                        } else {
                            expectedResponses.add(null); // a Write may change it before it is fetched
                        }
                    } else if (verdict.isEmpty()) {
                        expectedResponses.add(new byte[0]);
                    }
                }
                int eventsBefore = b.events.size();
                if (verdict.isPresent()) {
                    b.settle(50_000, 24); // earlier Read Responses of the QP go out before it fails
                    eventsBefore = b.events.size();
                }
                b.receive(q, ulpdu);
                if (verdict.isPresent()) {
                    refused++;
                    byCause[verdict.get().ordinal()]++;
                    b.settle(50_000, 24);
                    List<EngineBench.Event> failures = b.events.subList(eventsBefore, b.events.size()).stream()
                            .filter(e -> e.kind() == RxEventKind.TERMINATE_SENT).toList();
                    assertEquals(1, failures.size(), "segment " + i + ": one Terminate for " + verdict.get());
                    assertEquals(verdict.get(), failures.get(0).cause(), "segment " + i);
                    b.reopen(q);
                    segmenter[q] = new DdpSegmenter();
                } else {
                    accepted++;
                }
                if (i % 2000 == 1999) {
                    b.settle(200_000);
                }
            }
            b.settle(500_000);

            assertEquals(refused, b.events.stream().filter(e -> e.kind() == RxEventKind.TERMINATE_SENT).count());
            b.memory.assertSameAs(expected, "host memory after " + SEGMENTS + " random tagged accesses");
            List<EngineBench.Segment> responses = b.sent.stream()
                    .filter(s -> (s.ulpdu()[1] & 0x0F) == RdmapOpcode.RDMA_READ_RESPONSE.code()).toList();
            assertEquals(expectedResponses.size(), responses.size(), "one Read Response per accepted Read");
            for (int k = 0; k < responses.size(); k++) {
                byte[] want = expectedResponses.get(k);
                if (want != null) {
                    byte[] got = java.util.Arrays.copyOfRange(responses.get(k).ulpdu(), 14,
                            responses.get(k).ulpdu().length);
                    assertArrayEquals(want, got, "Read Response " + k);
                }
            }
            assertTrue(accepted > SEGMENTS / 10 && refused > SEGMENTS / 10, accepted + " accepted, " + refused
                    + " refused");
            StringBuilder causes = new StringBuilder();
            for (TerminateCause c : TerminateCause.values()) {
                if (byCause[c.ordinal()] > 0) {
                    causes.append(' ').append(c.row()).append('=').append(byCause[c.ordinal()]);
                }
            }
            System.out.printf("protection W=%d: %d segments, %d accepted, %d refused (%s), %d cycles%n", width,
                    SEGMENTS, accepted, refused, causes.toString().trim(), tb.cycle());
        });
    }
}
