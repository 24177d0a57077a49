package rnic.hw.ddp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.HexFormat;
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
import rnic.sim.StreamSink;
import rnic.sim.StreamSource;
import rnic.sim.Tb;

/**
 * Verilator testbench of {@link DdpSegmentBuilder}, the transmit side's assembly of a DDP segment from a header and
 * payload read from memory (DDP-17 segments handed to MPA; DDP-10 … DDP-16 headers as the engine built them), at
 * W = 32, 64 and 512.
 *
 * <p>Random commands — headers of 0, 14 (tagged), 18 (untagged), 46 (untagged + Read Request), 70 (untagged + Atomic
 * Request) or any 0 … 70 octets; payloads of 0 … 9000 octets anywhere in the
 * 64-bit space, next to 4 KiB boundaries and across the 2^64 wrap — are checked against a Java reference segment,
 * the header octets followed by the memory octets, in a scoreboard of whole segments:
 * <ul>
 *   <li>each segment is ⌈length/n⌉ beats, every beat carrying the segment's length (header + payload) and QP, and its
 *       first {@code length} octets equal the reference;</li>
 *   <li>through the memory's access hook, each command's payload is read in order, exactly over its beat-aligned
 *       range, and nothing else is read;</li>
 *   <li>{@link Axi4MemorySlave} checks every burst (INCR, full-width size, no 4 KiB crossing, payload held while
 *       stalled);</li>
 *   <li>{@code done} answers every command in order with its tag; with SLVERR from memory pages the error bit is set
 *       exactly for the commands whose payload touches them (and those octets come out zero).</li>
 * </ul>
 * Each runs with idle cycles on the commands, back-pressure on AR, idle cycles on R, random read latency,
 * back-pressure on the segment and done outputs, and at full rate. The throughput of back-to-back segments is
 * measured and printed.
 */
class DdpSegmentBuilderTest {
    static final int TAG_WIDTH = 8;
    static final int TAG_MASK = (1 << TAG_WIDTH) - 1;
    static final int H = DdpSegmentBuilder.HEADER_OCTETS;

    static SimModel<DdpSegmentBuilder> model(int w) {
        return SimModel.of("DdpSegmentBuilder-w" + w + "-t" + TAG_WIDTH,
                () -> new DdpSegmentBuilder(DdpConfig.defaults().withDataWidth(w), TAG_WIDTH));
    }

    /** A command as driven. */
    record Fetch(int qp, byte[] header, int headerLength, long address, int payloadLength, int tag) {
    }

    /** A whole segment as received, or as expected. */
    record Segment(byte[] octets, int qp) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Segment s && s.qp == qp && Arrays.equals(s.octets, octets);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(octets);
        }

        @Override
        public String toString() {
            String hex = HexFormat.of().formatHex(octets, 0, Math.min(octets.length, 40));
            return octets.length + " octets, QP " + qp + " [" + hex + (octets.length > 40 ? "…" : "") + "]";
        }
    }

    /** One segment beat as seen on the port. */
    record Beat(byte[] data, int length, int qp) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Beat b && b.length == length && b.qp == qp && Arrays.equals(b.data, data);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(data);
        }
    }


    /** The design, its memory, agents and checks. */
    static final class Bench {
        final Tb<DdpSegmentBuilder> tb;
        final int octets;
        final HostMemory memory = new HostMemory();
        final Axi4MemorySlave slave;
        final StreamSource<Fetch> cmds;
        final Scoreboard<Segment> segments;
        final Scoreboard<Done> done;
        final Set<Long> faultPages = new TreeSet<>(Long::compareUnsigned);
        /** Each payload's beat-aligned range, to be read exactly once, in order, and nothing else. */
        final AccessOrder expectedReads;
        final long salt;
        long payloadOctets;
        long commands;
        private int nextTag;
        private final ByteArrayOutputStream current = new ByteArrayOutputStream();
        private int currentLength = -1;
        private int currentQp;

        Bench(Tb<DdpSegmentBuilder> tb, Pacer cmdPacer, Pacer arReady, Pacer rValid, int readLatency,
                Pacer segmentReady, Pacer doneReady) {
            this.tb = tb;
            DdpSegmentBuilder.Io io = tb.dut().io;
            octets = io.config.octets();
            salt = tb.random().nextLong();
            expectedReads = new AccessOrder(tb, false, "the segment builder");
            memory.onAccess(expectedReads);
            slave = Axi4MemorySlave.on(tb, io.axi, memory)
                    .withPacing(Pacer.always(), Pacer.always(), Pacer.always(), arReady, rValid)
                    .withReadLatency(readLatency);
            DdpSegmentBuilder.Command c = io.cmd.payload();
            SimSignal qp = tb.signal(c.qp);
            SimSignal header = tb.signal(c.header);
            SimSignal headerLength = tb.signal(c.headerLength);
            SimSignal address = tb.signal(c.address);
            SimSignal payloadLength = tb.signal(c.payloadLength);
            SimSignal tag = tb.signal(c.tag);
            cmds = tb.add(new StreamSource<>(tb.signal(io.cmd.valid()), tb.signal(io.cmd.ready()), f -> {
                qp.set(f.qp);
                header.setOctets(f.header, 0, H);
                headerLength.set(f.headerLength);
                address.set(f.address);
                payloadLength.set(f.payloadLength);
                tag.set(f.tag);
            }, cmdPacer));
            segments = tb.add(new Scoreboard<>("segments, seed " + tb.seed()));
            DdpBeat s = io.segment.payload();
            SimSignal data = tb.signal(s.data);
            SimSignal length = tb.signal(s.length);
            SimSignal beatQp = tb.signal(s.qp);
            tb.add(new StreamSink<>("segment", tb.signal(io.segment.valid()), tb.signal(io.segment.ready()),
                    () -> new Beat(data.getOctets(), (int) length.get(), (int) beatQp.get()), segmentReady,
                    this::beat));
            done = Done.scoreboard(tb, io.done, doneReady);
            tb.reset(3);
        }

        /** Marks page {@code page} (a 4 KiB number) as faulting. */
        void fault(long page) {
            faultPages.add(page);
            slave.withFault(page << 12, (page << 12) + HostMemory.PAGE);
        }

        /** Collects beats into segments: every beat of a segment has its length and QP; ⌈length/n⌉ beats. */
        private void beat(Beat b) {
            if (currentLength < 0) {
                if (b.length < 1) {
                    throw new AssertionError("segment beat with length 0 (seed " + tb.seed() + ")");
                }
                currentLength = b.length;
                currentQp = b.qp;
            } else if (b.length != currentLength || b.qp != currentQp) {
                throw new AssertionError("beat of a " + currentLength + "-octet segment on QP " + currentQp
                        + " says length " + b.length + ", QP " + b.qp + " (seed " + tb.seed() + ")");
            }
            int take = Math.min(octets, currentLength - current.size());
            current.write(b.data, 0, take);
            if (current.size() == currentLength) {
                segments.actual(new Segment(current.toByteArray(), currentQp));
                current.reset();
                currentLength = -1;
            }
        }

        /** The memory's octet at {@code a}: a fixed function of the address, so filling twice changes nothing. */
        byte pattern(long a) {
            long x = (a ^ salt) * 0x9E37_79B9_7F4A_7C15L;
            return (byte) (x >>> 56);
        }

        /** Queues a command, fills its payload's memory and expects its segment and done. */
        void send(int headerLength, long address, int payloadLength) {
            int segLength = headerLength + payloadLength;
            if (segLength < 1 || segLength > 65535 || headerLength > H) {
                throw new IllegalArgumentException("header " + headerLength + ", payload " + payloadLength);
            }
            Random rng = tb.random();
            byte[] header = new byte[H];
            rng.nextBytes(header); // octets past headerLength must not leak into the segment
            Fetch f = new Fetch(rng.nextInt(4), header, headerLength, address, payloadLength, nextTag);
            nextTag = (nextTag + 1) & TAG_MASK;
            byte[] payload = new byte[payloadLength];
            for (int k = 0; k < payloadLength; k++) {
                payload[k] = pattern(address + k);
            }
            memory.write(address, payload);
            boolean error = false;
            for (int k = 0; k < payloadLength; k++) {
                if (faultPages.contains((address + k) >>> 12)) {
                    payload[k] = 0;
                    error = true;
                }
            }
            byte[] expected = Arrays.copyOf(header, segLength);
            System.arraycopy(payload, 0, expected, headerLength, payloadLength);
            cmds.push(f);
            segments.expect(new Segment(expected, f.qp));
            done.expect(new Done(f.tag, error));
            if (payloadLength > 0) {
                long end = address + payloadLength;
                long alignedEnd = (end + octets - 1) & -(long) octets;
                expectedReads.expect(address, alignedEnd - address);
            }
            payloadOctets += payloadLength;
            commands++;
        }

        long finish(long maxCycles) {
            long cycles = tb.runUntilIdle(maxCycles);
            assertEquals(0, expectedReads.pending(), "payloads not (completely) read");
            assertEquals(-1, currentLength, "a segment was left incomplete");
            assertEquals(commands, segments.matched());
            assertEquals(commands, done.matched());
            return cycles;
        }
    }

    // ------------------------------------------------------------------------------------------ random stimulus

    /** A header length: none, tagged (14), untagged (18), Read Request (46), Atomic Request (70), or 0 … 70. */
    static int randomHeader(Random rng) {
        return switch (rng.nextInt(7)) {
            case 0 -> 0;
            case 1 -> 14;
            case 2 -> 18;
            case 3 -> 46;
            case 4 -> H;
            default -> rng.nextInt(H + 1);
        };
    }

    static void sendRandom(Bench bench, int count, long window) {
        Random rng = bench.tb.random();
        for (int i = 0; i < count; i++) {
            int header = randomHeader(rng);
            int payload = DdpPlacerTest.randomLength(rng, bench.octets);
            if (header + payload == 0) {
                payload = 1 + rng.nextInt(3);
            }
            bench.send(header, DdpPlacerTest.randomAddress(rng, bench.octets, window), payload);
        }
    }

    /**
     * Random segments at one width under one pacing: idle on commands, back-pressure on AR, idle on R with random
     * read latency, back-pressure on segment and done; both; or full rate.
     */
    @ParameterizedTest(name = "W={0} {1}")
    @CsvSource({"32,both", "64,full", "64,idle", "64,backPressure", "64,both", "512,full", "512,idle",
        "512,backPressure", "512,both"})
    void randomSegmentsMatchTheReference(int w, String pacing) {
        model(w).run("random-" + pacing, w * 17L + pacing.hashCode(), tb -> {
            Random rng = tb.random();
            boolean idle = pacing.equals("idle") || pacing.equals("both");
            boolean back = pacing.equals("backPressure") || pacing.equals("both");
            Bench bench = new Bench(tb, idle ? Pacer.randomMix(rng) : Pacer.always(),
                    back ? Pacer.randomMix(rng) : Pacer.always(), idle ? Pacer.randomMix(rng) : Pacer.always(),
                    pacing.equals("full") ? 1 : 1 + rng.nextInt(60),
                    back ? Pacer.randomMix(rng) : Pacer.always(), back ? Pacer.bursty(rng, 8) : Pacer.always());
            int count = w == 32 ? 300 : 500;
            sendRandom(bench, count, rng.nextLong() & ~0xFFFFL);
            long cycles = bench.finish(4_000_000);
            System.out.printf("DdpSegmentBuilder W=%d %s: %d segments, %d payload octets, %d bursts, %d R beats in "
                    + "%d cycles%n", w, pacing, bench.commands, bench.payloadOctets, bench.slave.readBursts(),
                    bench.slave.readBeats(), cycles);
        });
    }

    /**
     * Edge shapes at every destination alignment: header 0 and 70, payload 0, 1, n−1, n, n+1 and a few beats, so
     * every combination of header-only beats, the early read beat (address lane above the header length) and a
     * header ending inside a beat occurs.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {32, 64, 512})
    void edgeShapes(int w) {
        model(w).run("edges", 21, tb -> {
            Random rng = tb.random();
            Bench bench = new Bench(tb, Pacer.random(rng, 0.7), Pacer.random(rng, 0.8), Pacer.random(rng, 0.8), 3,
                    Pacer.random(rng, 0.7), Pacer.always());
            int n = bench.octets;
            long address = 0x5555_0000L;
            for (int o = 0; o < n; o += Math.max(1, n / 8)) {
                for (int h : new int[] {0, 1, 13, 14, 18, n - 1, n, 69, H}) {
                    for (int len : new int[] {0, 1, n - 1, n, n + 1, 3 * n + 5}) {
                        if (h > H || h + len == 0) {
                            continue;
                        }
                        bench.send(h, address + o, len);
                        address += 0x100;
                    }
                }
            }
            bench.finish(1_000_000);
        });
    }

    /**
     * SLVERR: pages of a window answer every read burst with SLVERR (zero data); {@code done.error} is set for exactly
     * the commands whose payload touches them, their segments still come out whole, later commands are unaffected.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void slaveErrorsReachDone(int w) {
        model(w).run("slverr", 31 + w, tb -> {
            Random rng = tb.random();
            Bench bench = new Bench(tb, Pacer.always(), Pacer.random(rng, 0.8), Pacer.random(rng, 0.8), 7,
                    Pacer.random(rng, 0.7), Pacer.random(rng, 0.6));
            long window = 0x1234_5678_0000L;
            bench.fault((window >>> 12) + 2);
            bench.fault((window >>> 12) + 7);
            for (int i = 0; i < 200; i++) {
                int length = rng.nextInt(3) == 0 ? rng.nextInt(9000) : 1 + rng.nextInt(300);
                bench.send(randomHeader(rng), window + rng.nextInt(12 * 4096), length);
            }
            bench.finish(2_000_000);
        });
    }

    /**
     * Throughput of back-to-back segments with a 14-octet (tagged) header, payload from consecutive memory, memory at
     * full rate (no idle, no back-pressure) with a read latency of 1 and of 24 cycles: payload octets per cycle
     * from the first command to the last {@code done}, printed. At latency 1 it must reach the bound of one segment
     * beat per cycle (plus a few cycles to fill and drain the pipeline); at 24 the reads of later segments are in
     * flight while earlier ones are assembled, so the latency is paid about once, not per segment.
     */
    @ParameterizedTest(name = "W={0} payload {1} latency {2}")
    @CsvSource({"64,64,1", "64,4096,1", "512,64,1", "512,4096,1", "64,64,24", "64,4096,24", "512,64,24",
        "512,4096,24"})
    void backToBackThroughput(int w, int payload, int latency) {
        model(w).run("throughput-" + payload + "-" + latency, 11, tb -> {
            Bench bench = new Bench(tb, Pacer.always(), Pacer.always(), Pacer.always(), latency, Pacer.always(),
                    Pacer.always());
            int n = bench.octets;
            int count = payload == 64 ? 400 : 40;
            long bound = 0;
            for (int i = 0; i < count; i++) {
                bench.send(14, 0x8000_0000L + (long) i * payload, payload);
                bound += (14 + payload + n - 1) / n;
            }
            long cycles = bench.finish(10_000_000);
            double perCycle = (double) bench.payloadOctets / cycles;
            System.out.printf("DdpSegmentBuilder W=%d latency %d: %d x %d B payload (14 B header) in %d cycles = "
                    + "%.2f B/cycle (%.3f of W/8; one segment beat per cycle: %d cycles)%n", w, latency, count,
                    payload, cycles, perCycle, perCycle / n, bound);
            assertTrue(cycles <= bound + 3L * latency + 12, cycles + " cycles, bound " + bound);
        });
    }
}
