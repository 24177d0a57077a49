package rnic.hw.ddp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.sim.Axi4MemorySlave;
import rnic.sim.HostMemory;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.StreamSource;
import rnic.sim.Tb;

/**
 * Verilator testbench of {@link DdpPlacer}, the receive side's placement of DDP segment payload into memory (DDP-18),
 * at W = 32, 64 and 512.
 *
 * <p>Random commands — destinations anywhere in the 64-bit space, next to 4 KiB boundaries, across the 2^64 wrap and
 * overlapping each other; payloads of 0 … 9000 octets behind headers of 0, 14 (tagged), 18 (untagged), 28 (Read
 * Request) or any length up to 127 octets, with octets after the payload; dropped segments — are checked against a
 * Java reference that copies {@code segment[skip, skip+length)} to {@code address} in a second {@link HostMemory}:
 * <ul>
 *   <li>at the end both memories hold the same octets everywhere (every octet written is checked);</li>
 *   <li>through the memory's access hook, each command's octets are written exactly once, in order, and nothing
 *       outside the commanded ranges is written — a dropped segment or a zero-length one writes nothing (DDP-31,
 *       DDP-35: no access outside the registered range);</li>
 *   <li>{@link Axi4MemorySlave} checks every burst (INCR, full-width size, no 4 KiB crossing, WLAST, contiguous strobes,
 *       W after AW, payload held while stalled);</li>
 *   <li>{@code done} answers every command once, in order, with its tag; with SLVERR from memory pages the error bit
 *       is set exactly for the commands that touch them.</li>
 * </ul>
 * Each runs with idle cycles on the command and segment inputs, back-pressure on AW, W, B and done, both, and at full
 * rate. The latency from the last payload beat to the last W beat is checked against {@link DdpPlacer#LATENCY}, and
 * the throughput of back-to-back segments is measured and printed.
 */
class DdpPlacerTest {
    static final int TAG_WIDTH = 8;
    static final int TAG_MASK = (1 << TAG_WIDTH) - 1;

    static SimModel<DdpPlacer> model(int w) {
        return SimModel.of("DdpPlacer-w" + w + "-t" + TAG_WIDTH,
                () -> new DdpPlacer(DdpConfig.defaults().withDataWidth(w), TAG_WIDTH));
    }

    /** A command and the segment it consumes. */
    record Placement(long address, int length, int skip, boolean drop, int tag, byte[] segment, int qp) {
        boolean writes() {
            return !drop && length > 0;
        }
    }

    /** One beat of a segment: octets {@code [off, off+n)} of it. */
    record SegmentBeat(byte[] segment, int off, int qp) {
    }


    /** The design, its memory, the reference memory, agents and checks. */
    static final class Bench {
        final Tb<DdpPlacer> tb;
        final int octets;
        final HostMemory memory = new HostMemory();
        final HostMemory reference = new HostMemory();
        final Axi4MemorySlave slave;
        final StreamSource<Placement> cmds;
        final StreamSource<SegmentBeat> segments;
        final Scoreboard<Done> done;
        /** Faulted pages (4 KiB numbers): bursts into them are answered SLVERR and write nothing. */
        final Set<Long> faultPages = new TreeSet<>(Long::compareUnsigned);
        /** Each writing command's range, to be written exactly once, in order, and nothing else. */
        final AccessOrder expectedWrites;
        /** Destination ranges whose octets the segment did not hold: {address, length}. */
        final List<long[]> unspecified = new java.util.ArrayList<>();
        long payloadOctets;
        long commands;
        private int nextTag;

        Bench(Tb<DdpPlacer> tb, Pacer cmdPacer, Pacer segmentPacer, Pacer awReady, Pacer wReady, Pacer bValid,
                Pacer donePacer, int writeLatency) {
            this.tb = tb;
            DdpPlacer.Io io = tb.dut().io;
            octets = io.config.octets();
            expectedWrites = new AccessOrder(tb, true, "the placer");
            memory.onAccess(expectedWrites);
            slave = Axi4MemorySlave.on(tb, io.axi, memory)
                    .withPacing(awReady, wReady, bValid, Pacer.always(), Pacer.always())
                    .withWriteLatency(writeLatency);
            DdpPlacer.Command c = io.cmd.payload();
            SimSignal address = tb.signal(c.address);
            SimSignal length = tb.signal(c.length);
            SimSignal skip = tb.signal(c.skip);
            SimSignal drop = tb.signal(c.drop);
            SimSignal tag = tb.signal(c.tag);
            cmds = tb.add(new StreamSource<>(tb.signal(io.cmd.valid()), tb.signal(io.cmd.ready()), p -> {
                address.set(p.address);
                length.set(p.length);
                skip.set(p.skip);
                drop.set(p.drop);
                tag.set(p.tag);
            }, cmdPacer));
            DdpBeat s = io.segment.payload();
            SimSignal data = tb.signal(s.data);
            SimSignal segLength = tb.signal(s.length);
            SimSignal qp = tb.signal(s.qp);
            segments = tb.add(new StreamSource<>(tb.signal(io.segment.valid()), tb.signal(io.segment.ready()), b -> {
                data.setOctets(b.segment, b.off, Math.min(octets, b.segment.length - b.off));
                segLength.set(b.segment.length);
                qp.set(b.qp);
            }, segmentPacer));
            done = Done.scoreboard(tb, io.done, donePacer);
            tb.reset(3);
        }

        /** Marks page {@code page} (a 4 KiB number) as faulting. */
        void fault(long page) {
            faultPages.add(page);
            slave.withFault(page << 12, (page << 12) + HostMemory.PAGE);
        }

        /** Queues a command, its segment ({@code skip + length + trail} octets) and the expected outcome. */
        void send(long address, int length, int skip, boolean drop, int trail) {
            sendWithSegment(address, length, skip, drop, skip + length + trail);
        }

        /**
         * Queues a command with a segment of {@code segLength} octets; when that is less than {@code skip + length}
         * the octets missing from it may be placed with any value (they are taken from the design's memory before
         * the comparison), but only inside the command's range.
         */
        void sendWithSegment(long address, int length, int skip, boolean drop, long segLength) {
            if (segLength < 1 || segLength > 65535) {
                throw new IllegalArgumentException("segment length " + segLength);
            }
            byte[] segment = new byte[(int) segLength];
            tb.random().nextBytes(segment);
            Placement p = new Placement(address, length, skip, drop, nextTag, segment, tb.random().nextInt(4));
            nextTag = (nextTag + 1) & TAG_MASK;
            cmds.push(p);
            for (int off = 0; off < segLength; off += octets) {
                segments.push(new SegmentBeat(segment, off, p.qp));
            }
            boolean error = false;
            if (p.writes()) {
                expectedWrites.expect(address, length);
                int present = (int) Math.max(0, Math.min(length, segLength - skip));
                if (present < length) {
                    unspecified.add(new long[] {address + present, length - present});
                }
                for (int k = 0; k < length; ) {
                    long a = address + k;
                    int n = (int) Math.min(length - k, HostMemory.PAGE - (a & 0xFFF));
                    if (faultPages.contains(a >>> 12)) {
                        error = true;
                    } else if (k < present) {
                        reference.write(a, segment, skip + k, Math.min(n, present - k));
                    }
                    k += n;
                }
                payloadOctets += length;
            }
            commands++;
            done.expect(new Done(p.tag, error));
        }

        /** Runs until everything is placed and answered, then compares the memories. */
        long finish(long maxCycles) {
            long cycles = tb.runUntilIdle(maxCycles);
            assertEquals(0, expectedWrites.pending(), "placements not (completely) written");
            for (long[] u : unspecified) {
                memory.copyTo(u[0], reference, u[0], (int) u[1]);
            }
            memory.assertSameAs(reference, "placed memory, seed " + tb.seed());
            assertEquals(commands, done.matched());
            return cycles;
        }
    }

    // ------------------------------------------------------------------------------------------ random stimulus

    /** A payload length: zero, short, around beat multiples, Ethernet-ish, or anything up to 9000. */
    static int randomLength(Random rng, int octets) {
        return switch (rng.nextInt(10)) {
            case 0 -> 0;
            case 1, 2 -> 1 + rng.nextInt(4 * octets);
            case 3 -> Math.max(0, octets * (1 + rng.nextInt(8)) + rng.nextInt(3) - 1);
            case 4 -> List.of(64, 512, 1460, 1500, 4096, 8192, 9000).get(rng.nextInt(7));
            case 5, 6 -> 1 + rng.nextInt(600);
            default -> rng.nextInt(9001);
        };
    }

    /** A header length: none, tagged (14), untagged (18), Read Request (28), or anything up to 127. */
    static int randomSkip(Random rng) {
        return switch (rng.nextInt(6)) {
            case 0 -> 0;
            case 1 -> 14;
            case 2 -> 18;
            case 3 -> 28;
            default -> rng.nextInt(128);
        };
    }

    /**
     * A destination: anywhere; a few octets before a 4 KiB boundary; just below 2^64 (the range wraps to 0); inside a
     * small window (commands overlap, so their order matters); beat-aligned.
     */
    static long randomAddress(Random rng, int octets, long window) {
        return switch (rng.nextInt(6)) {
            case 0 -> rng.nextLong();
            case 1 -> (rng.nextLong() & ~0xFFFL) - 1 - rng.nextInt(3 * octets);
            case 2 -> -1L - rng.nextInt(10_000);
            case 3, 4 -> window + rng.nextInt(64 * 1024);
            default -> rng.nextLong() & -(long) octets;
        };
    }

    static void sendRandom(Bench bench, int count, long window) {
        Random rng = bench.tb.random();
        for (int i = 0; i < count; i++) {
            int length = randomLength(rng, bench.octets);
            int skip = randomSkip(rng);
            int trail = rng.nextInt(3) == 0 ? 0 : rng.nextInt(3 * bench.octets);
            if (skip + length + trail == 0) {
                trail = 1;
            }
            bench.send(randomAddress(rng, bench.octets, window), length, skip, rng.nextInt(10) == 0, trail);
        }
    }

    /**
     * Random placements at one width under one pacing: idle on the inputs, back-pressure on AW/W/B/done, both, or none
     * at all (full rate).
     */
    @ParameterizedTest(name = "W={0} {1}")
    @CsvSource({"32,both", "64,full", "64,idle", "64,backPressure", "64,both", "512,full", "512,idle",
        "512,backPressure", "512,both"})
    void randomPlacementsMatchTheReference(int w, String pacing) {
        model(w).run("random-" + pacing, w * 31L + pacing.hashCode(), tb -> {
            Random rng = tb.random();
            boolean idle = pacing.equals("idle") || pacing.equals("both");
            boolean back = pacing.equals("backPressure") || pacing.equals("both");
            Bench bench = new Bench(tb,
                    idle ? Pacer.randomMix(rng) : Pacer.always(), idle ? Pacer.randomMix(rng) : Pacer.always(),
                    back ? Pacer.randomMix(rng) : Pacer.always(), back ? Pacer.randomMix(rng) : Pacer.always(),
                    back ? Pacer.randomMix(rng) : Pacer.always(), back ? Pacer.bursty(rng, 8) : Pacer.always(),
                    back ? 1 + rng.nextInt(40) : 1);
            int count = w == 32 ? 300 : 500;
            sendRandom(bench, count, rng.nextLong() & ~0xFFFFL);
            long cycles = bench.finish(4_000_000);
            System.out.printf("DdpPlacer W=%d %s: %d commands, %d payload octets, %d bursts, %d W beats in %d cycles%n",
                    w, pacing, bench.commands, bench.payloadOctets, bench.slave.writeBursts(),
                    bench.slave.writeBeats(), cycles);
        });
    }

    /**
     * SLVERR: pages of a small window answer every burst with SLVERR (and write nothing); {@code done.error} is set for
     * exactly the commands that touch them, later commands complete normally.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void slaveErrorsReachDone(int w) {
        model(w).run("slverr", 77 + w, tb -> {
            Random rng = tb.random();
            Bench bench = new Bench(tb, Pacer.always(), Pacer.random(rng, 0.8), Pacer.random(rng, 0.7),
                    Pacer.random(rng, 0.8), Pacer.random(rng, 0.6), Pacer.random(rng, 0.7), 5);
            long window = 0x7654_3210_0000L;
            bench.fault((window >>> 12) + 3);
            bench.fault((window >>> 12) + 9);
            for (int i = 0; i < 200; i++) {
                int length = rng.nextInt(3) == 0 ? rng.nextInt(9000) : rng.nextInt(300);
                bench.send(window + rng.nextInt(16 * 4096), length, randomSkip(rng), rng.nextInt(8) == 0,
                        rng.nextInt(5));
            }
            bench.finish(2_000_000);
            System.out.printf("DdpPlacer W=%d SLVERR: %d commands done%n", w, bench.done.matched());
        });
    }

    /**
     * {@link DdpPlacer#LATENCY}: at full rate, the last W beat is taken that many cycles after the segment beat with
     * the last payload octet — one more when the payload's end needs a flush beat (its last destination beat lies
     * past the segment's last beat) — for every destination lane and header length at small sizes. Zero-length
     * and dropped segments are consumed without a W beat.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {32, 64, 512})
    void lastWriteBeatFollowsTheLastSegmentBeat(int w) {
        model(w).run("latency", 5, tb -> {
            Bench bench = new Bench(tb, Pacer.always(), Pacer.always(), Pacer.always(), Pacer.always(),
                    Pacer.always(), Pacer.always(), 1);
            int n = bench.octets;
            int checked = 0;
            for (int o : new int[] {0, 1, n / 2, n - 1}) {
                for (int skip : new int[] {0, 3, 14, 18, n, 127}) {
                    for (int length : new int[] {1, n - 1, n, 2 * n + 1, 100}) {
                        long address = 0x10_0000L + 0x1000L * checked + o;
                        long beatsBefore = bench.segments.sent();
                        long wBefore = bench.slave.writeBeats();
                        bench.send(address, length, skip, false, 0);
                        long segBeats = (skip + length + n - 1) / n;
                        long lead = Math.floorDiv(skip - o + n - 1, n);
                        long outBeats = (o + length + n - 1) / n;
                        boolean flush = outBeats + lead > segBeats;
                        long[] at = new long[2];
                        tb.runUntil(() -> {
                            if (at[0] == 0 && bench.segments.sent() == beatsBefore + segBeats) {
                                at[0] = tb.cycle();
                            }
                            if (at[1] == 0 && bench.slave.writeBeats() == wBefore + outBeats) {
                                at[1] = tb.cycle();
                            }
                            return at[0] != 0 && at[1] != 0;
                        }, 1000, "the placement");
                        assertEquals(DdpPlacer.LATENCY + (flush ? 1 : 0), at[1] - at[0],
                                "o=" + o + " skip=" + skip + " length=" + length);
                        tb.runUntilIdle(100);
                        checked++;
                    }
                }
            }
            long w0 = bench.slave.writeBeats();
            bench.send(0x40_0000, 0, 14, false, 7);
            bench.send(0x40_0000, 100, 14, true, 0);
            bench.finish(1000);
            assertEquals(w0, bench.slave.writeBeats(), "zero-length and dropped segments write nothing");
        });
    }

    /**
     * A command whose segment is shorter than {@code skip + length} (the caller broke its promise): the block still
     * writes exactly the commanded range (the missing octets with any value), consumes exactly that segment, answers
     * {@code done}, and the commands after it are placed correctly. Destinations are disjoint so the unspecified
     * octets can be taken over from the design's memory before the comparison.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {32, 64, 512})
    void shortSegmentsStillWriteOnlyTheCommandedRange(int w) {
        model(w).run("short", 13, tb -> {
            Random rng = tb.random();
            Bench bench = new Bench(tb, Pacer.randomMix(rng), Pacer.randomMix(rng), Pacer.randomMix(rng),
                    Pacer.randomMix(rng), Pacer.randomMix(rng), Pacer.randomMix(rng), 3);
            long address = 0x3000_0000L;
            int shortOnes = 0;
            for (int i = 0; i < 150; i++) {
                int length = 1 + rng.nextInt(rng.nextBoolean() ? 200 : 5000);
                int skip = randomSkip(rng);
                long segLength = skip + length;
                if (rng.nextInt(3) == 0) {
                    segLength = Math.max(1, segLength - 1 - rng.nextInt(length + skip));
                    shortOnes++;
                }
                bench.sendWithSegment(address + rng.nextInt(bench.octets), length, skip, false, segLength);
                address += 0x4000;
            }
            bench.finish(1_000_000);
            assertTrue(shortOnes > 20);
        });
    }

    /**
     * Throughput of back-to-back segments with a 14-octet (tagged) header into consecutive memory, memory at full
     * rate: payload octets per cycle from the first command to the last {@code done}. Printed, and checked against
     * the bound the segment stream itself sets: ⌈(14 + payload)/n⌉ segment beats per segment, plus a flush beat
     * when the payload's end needs one.
     */
    @ParameterizedTest(name = "W={0} payload {1}")
    @CsvSource({"64,64", "64,4096", "512,64", "512,4096"})
    void backToBackThroughput(int w, int payload) {
        model(w).run("throughput-" + payload, 9, tb -> {
            Bench bench = new Bench(tb, Pacer.always(), Pacer.always(), Pacer.always(), Pacer.always(),
                    Pacer.always(), Pacer.always(), 1);
            int n = bench.octets;
            int count = payload == 64 ? 400 : 40;
            long base = 0x2000_0000L;
            long bound = 0;
            for (int i = 0; i < count; i++) {
                long address = base + (long) i * payload;
                bench.send(address, payload, 14, false, 0);
                long segBeats = (14 + payload + n - 1) / n;
                long lead = Math.floorDiv(14 - (address % n) + n - 1, n);
                long outBeats = (address % n + payload + n - 1) / n;
                bound += segBeats + (outBeats + lead > segBeats ? 1 : 0);
            }
            long cycles = bench.finish(10_000_000);
            double perCycle = (double) bench.payloadOctets / cycles;
            System.out.printf("DdpPlacer W=%d: %d x %d B payload (14 B header) in %d cycles = %.2f B/cycle "
                    + "(%.3f of W/8; segment-beat bound %d cycles)%n", w, count, payload, cycles, perCycle,
                    perCycle / n, bound);
            // The pipeline adds a few cycles at the start and the end (command, AW, W register, B, done register).
            assertTrue(cycles <= bound + 12, cycles + " cycles, bound " + bound);
        });
    }
}
