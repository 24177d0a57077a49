package rnic.bench;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Consumer;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.rdmap.RdmapEngine;
import rnic.hw.rdmap.RdmapRxControl;
import rnic.hw.rdmap.RxEventKind;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpSegmenter;
import rnic.model.rdmap.ReadRequest;
import rnic.model.rdmap.TaggedMessage;
import rnic.sim.Agent;
import rnic.sim.Axi4MemorySlave;
import rnic.sim.Fields;
import rnic.sim.HostMemory;
import rnic.sim.Pacer;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.StreamSink;
import rnic.sim.StreamSource;
import rnic.sim.Tb;
import rnic.wire.RdmapOpcode;

/**
 * {@code ./rnic bench rdmap}: throughput and latency of the DDP/RDMAP engines ({@link RdmapEngine}) in simulated clock
 * cycles (not wall time), at W = 64 and 512, for 64- and 4096-octet messages, every port at full rate and a full-rate
 * host memory ({@link Axi4MemorySlave} without pacing, read latency {@value #READ_LATENCY} cycles, write response 1
 * cycle after the last W beat).
 *
 * <p>Set-up: QP 0 open (PD {@value #PD}, IRD = the engine's maximum, MULPDU {@value #MULPDU} so that a 4096-octet
 * message is one segment), one VA-based region of 16 MiB granting remote write and read (RFC 5040 §8.1), its
 * memory filled with a pattern.
 *
 * <ol>
 *   <li><b>RDMA Write placement</b> (RFC 5040 §5.1, DDP-18): back-to-back inbound tagged RDMA Write segments built by
 *       the golden {@link DdpSegmenter}; payload octets placed per cycle, from the first rx beat taken to the last W
 *       beat accepted by the memory. Every placed octet is checked in {@link HostMemory} afterwards, and every write
 *       must fall inside the messages' target range: a bench that places wrongly fails.</li>
 *   <li><b>Read Response generation</b> (RFC 5040 §5.2, RDMAP-08, RDMAP-11): inbound RDMA Read Requests (untagged
 *       QN 1, MSN from 1), issued as fast as IRD allows (a new request only while fewer than IRD responses have
 *       not yet started their last segment on tx, the engine's own IRD release point); payload octets of Read
 *       Response segments taken from tx per cycle, from the first rx beat taken to the last tx beat. Every response
 *       segment is compared octet for octet with the golden segmenter's Read Response of the request.</li>
 *   <li><b>Placement latency</b>: for an isolated Write segment (nothing else in flight), cycles from its last beat
 *       taken on rx to the last W beat of its placement accepted by the memory, and to its B response. The issue's
 *       target is ≤ {@value #TARGET_LATENCY} cycles to placement; printed, not asserted.</li>
 * </ol>
 *
 * Any event the engine reports (a Terminate, say) fails the run: none is expected here.
 */
public final class RdmapBench {
    static final int[] WIDTHS = {64, 512};
    static final int[] SIZES = {64, 4096};
    /** DDP tagged header (14) + the largest message: one segment per message. */
    static final int MULPDU = 4096 + 14;
    static final int READ_LATENCY = 2;
    static final int TARGET_LATENCY = 16;
    static final int PD = 1;
    /** Index 1, key 0x42. */
    static final int STAG = 0x0142;
    static final long VA = 0x1000_0000L;
    static final long REGION = 16L << 20;
    /** Writes go to [VA, VA + 8 MiB); Reads read [READ_SOURCE, READ_SOURCE + SOURCE_SPAN). */
    static final long READ_SOURCE = VA + (8L << 20);
    static final int SOURCE_SPAN = 1 << 20;
    /** The requester's sink, copied into each Read Response without interpretation (RDMAP-08). */
    static final int SINK_STAG = 0x0500;
    static final long SINK_TO = 0x7000_0000L;
    /** Simulated cycles each throughput run aims at (the message count follows from the segment's beats). */
    static final long TARGET_CYCLES = 20_000;

    private RdmapBench() {
    }

    /**
     * One throughput measurement: payload octets moved in {@code cycles}; {@code busy}, the beats of the side that
     * sets the pace (rx for Writes, tx for Reads) taken per cycle; for Reads also the share of cycles rx was idle
     * because IRD requests were outstanding, and the cycles from the first request's last beat to the first beat of
     * its response (both -1 for Writes).
     */
    record Figure(int width, int size, long messages, long octets, long cycles, int segmentBeats, double busy,
            double irdHeld, long firstResponse) {
        double perCycle() {
            return (double) octets / cycles;
        }
    }

    /**
     * One latency measurement: a segment of {@code size} octets at TO ≡ {@code offset} (mod 64) placed four times,
     * each alone in the engine and at a fresh address; {min, max} cycles from its last rx beat to its last W beat and
     * to its B response.
     */
    record Latency(int width, int size, int offset, long beats, long[] toLastW, long[] toB) {
    }

    public static void main(String[] args) {
        List<Figure> writes = new ArrayList<>();
        List<Figure> reads = new ArrayList<>();
        List<Latency> latencies = new ArrayList<>();
        for (int w : WIDTHS) {
            DdpConfig cfg = DdpConfig.defaults().withDataWidth(w);
            SimModel<RdmapEngine> model = SimModel.of("RdmapEngine-w" + w, () -> new RdmapEngine(cfg));
            for (int size : SIZES) {
                writes.add(measureWrites(model, w, size));
                reads.add(measureReads(model, w, size));
                for (int offset : new int[] {0, 5}) {
                    latencies.add(measureLatency(model, w, size, offset));
                }
            }
        }
        String conditions = "\n  MULPDU " + MULPDU + " (one segment per message), IRD " + DdpConfig.defaults().maxIrd()
                + ", memory at full rate (read latency " + READ_LATENCY + "), all ports at full rate, cycles counted in"
                + " simulation";
        print("RDMA Write placement (inbound tagged Writes -> host memory)," + conditions, writes, false);
        print("Read Response generation (inbound Read Requests -> Read Responses on tx)," + conditions, reads, true);
        System.out.println("  busy: beats taken per cycle on the side that sets the pace; IRD-held: cycles rx was idle"
                + " because IRD Reads were outstanding;");
        System.out.println("  1st resp.: cycles from the first request's last beat on rx to its response's first beat"
                + " on tx");
        printLatency(latencies);
    }

    static void print(String title, List<Figure> figures, boolean reads) {
        System.out.println();
        System.out.println(title);
        System.out.printf(Locale.ROOT, "%4s %5s %8s %9s %7s %8s %7s %9s %8s", "W", "size", "messages", "octets",
                "cycles", "B/cycle", "of W/8", "seg beats", reads ? "tx busy" : "rx busy");
        System.out.printf(Locale.ROOT, reads ? " %9s %12s%n" : "%n", "IRD-held", "1st resp.");
        for (Figure f : figures) {
            System.out.printf(Locale.ROOT, "%4d %5d %8d %9d %7d %8.2f %7.3f %9d %7.1f%%", f.width, f.size,
                    f.messages, f.octets, f.cycles, f.perCycle(), f.perCycle() / (f.width / 8.0), f.segmentBeats,
                    100 * f.busy);
            if (reads) {
                System.out.printf(Locale.ROOT, " %8.1f%% %12d%n", 100 * f.irdHeld, f.firstResponse);
            } else {
                System.out.println();
            }
        }
    }

    static void printLatency(List<Latency> latencies) {
        System.out.println();
        System.out.println("Write placement latency, isolated segment, cycles from its last beat taken on rx (target <= "
                + TARGET_LATENCY + " to placement)");
        System.out.printf(Locale.ROOT, "%4s %6s %10s %6s %14s %12s %8s%n", "W", "size", "TO mod W/8", "beats",
                "to last W beat", "to B resp.", "target");
        for (Latency l : latencies) {
            System.out.printf(Locale.ROOT, "%4d %6d %10d %6d %14s %12s %8s%n", l.width, l.size, l.offset, l.beats,
                    range(l.toLastW), range(l.toB), l.toLastW[1] <= TARGET_LATENCY ? "met" : "MISSED");
        }
    }

    private static String range(long[] minMax) {
        return minMax[0] == minMax[1] ? Long.toString(minMax[0]) : minMax[0] + "-" + minMax[1];
    }

    // ------------------------------------------------------------------------------------------ measurements

    /** Back-to-back RDMA Writes of {@code size} octets to consecutive TOs; every placed octet checked. */
    static Figure measureWrites(SimModel<RdmapEngine> model, int w, int size) {
        Figure[] out = new Figure[1];
        model.run("bench-write-" + size, 1, tb -> {
            Engine e = new Engine(tb, 8);
            Random rng = new Random(size);
            byte[] pool = new byte[size * 8];
            rng.nextBytes(pool);
            int beats = beats(size + 14, e.octets);
            int n = (int) Math.max(64, TARGET_CYCLES / beats);
            long end = VA + (long) n * size;
            e.fillPattern(VA, (int) (end - VA) + 4096); // what was there before, so a missed octet shows
            long[] written = {0};
            e.memory.onAccess((address, length, isWrite) -> {
                if (!isWrite) {
                    throw new AssertionError("RDMA Writes read memory at " + HostMemory.hex(address));
                }
                if (Long.compareUnsigned(address, VA) < 0 || Long.compareUnsigned(address + length, end) > 0) {
                    throw new AssertionError("cycle " + tb.cycle() + ": " + length + " octets written at "
                            + HostMemory.hex(address) + ", outside the Writes' target range");
                }
                written[0] += length;
            });
            DdpSegmenter ddp = new DdpSegmenter();
            for (int i = 0; i < n; i++) {
                byte[] payload = Arrays.copyOfRange(pool, (i & 7) * size, ((i & 7) + 1) * size);
                for (DdpSegment s : TaggedMessage.write(STAG, VA + (long) i * size, payload).segments(ddp, MULPDU)) {
                    e.receive(s.encode());
                }
            }
            e.tb.runUntilIdle(200L * n * beats + 10_000);
            e.assertNoEvents();
            for (int i = 0; i < n; i++) {
                byte[] placed = e.memory.read(VA + (long) i * size, size);
                if (!Arrays.equals(placed, 0, size, pool, (i & 7) * size, ((i & 7) + 1) * size)) {
                    throw new AssertionError("W=" + w + ": Write " + i + " of " + size + " octets placed wrongly at "
                            + HostMemory.hex(VA + (long) i * size));
                }
            }
            if (written[0] != (long) n * size) {
                throw new AssertionError("W=" + w + ": " + written[0] + " octets written for " + n + " Writes of "
                        + size);
            }
            long cycles = e.lastW - e.firstRx + 1;
            out[0] = new Figure(w, size, n, (long) n * size, cycles, beats, (double) e.rx.sent() / cycles, -1, -1);
        });
        return out[0];
    }

    /** Read Requests of {@code size} octets, issued as fast as IRD allows; every response segment checked. */
    static Figure measureReads(SimModel<RdmapEngine> model, int w, int size) {
        Figure[] out = new Figure[1];
        model.run("bench-read-" + size, 1, tb -> {
            DdpConfig cfg = tb.dut().config;
            int ird = cfg.maxIrd();
            Engine e = new Engine(tb, ird);
            int beats = beats(size + 14, e.octets);
            int n = (int) Math.max(64, TARGET_CYCLES / beats);
            DdpSegmenter ddp = new DdpSegmenter();
            DdpSegmenter golden = new DdpSegmenter();
            java.util.ArrayDeque<byte[]> expected = new java.util.ArrayDeque<>();
            long[] payload = {0};
            e.onSegment = seg -> {
                byte[] want = expected.poll();
                if (want == null || !Arrays.equals(want, seg)) {
                    int at = want == null ? 0 : Arrays.mismatch(want, seg);
                    throw new AssertionError("W=" + w + " cycle " + tb.cycle() + ": segment " + e.txSegments
                            + " on tx differs from the golden Read Response at octet " + at + " (" + seg.length
                            + " octets, expected " + (want == null ? "none" : want.length) + ")");
                }
                payload[0] += seg.length - 14;
            };
            int issued = 0;
            long irdWait = 0;
            long limit = 200L * n * beats + 10_000;
            while (e.responsesDone < n) {
                while (issued < n && issued - e.lastResponsesStarted < ird) {
                    long src = READ_SOURCE + (long) issued * size % SOURCE_SPAN;
                    ReadRequest r = new ReadRequest(SINK_STAG, SINK_TO + (long) issued * size, size, STAG, src);
                    for (DdpSegment s : r.segments(ddp, MULPDU)) {
                        e.receive(s.encode());
                    }
                    byte[] data = e.memory.read(src, size);
                    for (DdpSegment s : TaggedMessage.readResponse(r, data).segments(golden, MULPDU)) {
                        expected.add(s.encode());
                    }
                    issued++;
                }
                tb.step();
                if (issued < n && e.rxIdle()) {
                    irdWait++;
                }
                if (tb.cycle() > limit) {
                    throw new AssertionError("W=" + w + ": " + e.responsesDone + " of " + n + " Read Responses after "
                            + limit + " cycles");
                }
            }
            tb.runUntilIdle(10_000);
            e.assertNoEvents();
            if (!expected.isEmpty()) {
                throw new AssertionError(expected.size() + " Read Response segments missing");
            }
            long cycles = e.lastTx - e.firstRx + 1;
            out[0] = new Figure(w, size, n, payload[0], cycles, beats, (double) e.txBeats / cycles,
                    (double) irdWait / cycles, e.firstTx - e.firstRxEnd);
        });
        return out[0];
    }

    /** One Write segment at a time, each alone in the engine; latency from its last rx beat to W and B. */
    static Latency measureLatency(SimModel<RdmapEngine> model, int w, int size, int offset) {
        Latency[] out = new Latency[1];
        model.run("bench-latency-" + size + "-" + offset, 1, tb -> {
            Engine e = new Engine(tb, 8);
            Random rng = new Random(size);
            long[] toW = {Long.MAX_VALUE, Long.MIN_VALUE};
            long[] toB = {Long.MAX_VALUE, Long.MIN_VALUE};
            DdpSegmenter ddp = new DdpSegmenter();
            int runs = 4;
            long beats = 0;
            for (int i = 0; i < runs; i++) {
                byte[] payload = new byte[size];
                rng.nextBytes(payload);
                long to = VA + 0x10_0000L * i + offset;
                List<DdpSegment> segs = TaggedMessage.write(STAG, to, payload).segments(ddp, MULPDU);
                if (segs.size() != 1) {
                    throw new AssertionError("one segment expected");
                }
                byte[] ulpdu = segs.get(0).encode();
                beats = beats(ulpdu.length, e.octets);
                long bBefore = e.bCount;
                e.receive(ulpdu);
                tb.runUntilIdle(100_000);
                tb.step(20);
                if (!Arrays.equals(e.memory.read(to, size), payload)) {
                    throw new AssertionError("W=" + w + ": isolated Write placed wrongly at " + HostMemory.hex(to));
                }
                if (e.bCount == bBefore || e.lastW < e.lastRxEnd) {
                    throw new AssertionError("W=" + w + ": no placement after the segment's last beat");
                }
                long dw = e.lastW - e.lastRxEnd;
                long db = e.lastB - e.lastRxEnd;
                toW[0] = Math.min(toW[0], dw);
                toW[1] = Math.max(toW[1], dw);
                toB[0] = Math.min(toB[0], db);
                toB[1] = Math.max(toB[1], db);
            }
            e.assertNoEvents();
            out[0] = new Latency(w, size, offset, beats, toW, toB);
        });
        return out[0];
    }

    static int beats(int length, int octets) {
        return (length + octets - 1) / octets;
    }

    // ------------------------------------------------------------------------------------------ the harness

    /** A beat of a received segment as driven: the ULPDU and the beat's index in it. */
    private record RxBeat(byte[] ulpdu, int index) {
    }

    /**
     * The engine with QP 0 open and the region registered, its ports driven at full rate, and the cycles of the
     * handshakes the figures are made of: rx beats, W beats, B responses, tx beats.
     */
    private static final class Engine implements Agent {
        final Tb<RdmapEngine> tb;
        final int octets;
        final HostMemory memory = new HostMemory();
        final Axi4MemorySlave slave;
        final StreamSource<RxBeat> rx;
        final List<String> events = new ArrayList<>();
        private final SimSignal wValid;
        private final SimSignal wReady;
        private final SimSignal bValid;
        private final SimSignal bReady;
        long firstRx = -1;
        long lastRxEnd = -1;
        long firstRxEnd = -1;
        long segments;
        long lastW = -1;
        long bCount;
        long lastB = -1;
        long firstTx = -1;
        long lastTx = -1;
        long txBeats;
        long txSegments;
        /** Read Responses whose last segment's first beat was taken on tx: the engine's IRD release. */
        long lastResponsesStarted;
        /** Read Responses whose last segment is wholly taken. */
        long responsesDone;
        Consumer<byte[]> onSegment = seg -> {
            throw new AssertionError("unexpected segment on tx: " + seg.length + " octets, opcode octet "
                    + Integer.toHexString(seg[1] & 0xFF));
        };
        private final ByteArrayOutputStream txSegment = new ByteArrayOutputStream();
        private boolean txLast;

        Engine(Tb<RdmapEngine> tb, int ird) {
            this.tb = tb;
            RdmapEngine.Io io = tb.dut().io;
            this.octets = tb.dut().config.octets();
            slave = Axi4MemorySlave.on(tb, io.axi, memory).withReadLatency(READ_LATENCY); // on() adds it
            wValid = tb.signal(io.axi.w().valid());
            wReady = tb.signal(io.axi.w().ready());
            bValid = tb.signal(io.axi.b().valid());
            bReady = tb.signal(io.axi.b().ready());
            tb.add(this);

            Fields rxf = Fields.of(tb, io.rx.payload());
            SimSignal rxData = rxf.signal("data");
            rx = tb.add(new StreamSource<RxBeat>(tb.signal(io.rx.valid()), tb.signal(io.rx.ready()), b -> {
                int from = b.index * octets;
                rxData.setOctets(b.ulpdu, from, Math.min(octets, b.ulpdu.length - from));
                rxf.set("length", b.ulpdu.length).set("qp", 0);
            }, Pacer.always())).onAccepted(b -> {
                if (firstRx < 0) {
                    firstRx = tb.cycle();
                }
                if ((b.index + 1) * octets >= b.ulpdu.length) {
                    lastRxEnd = tb.cycle();
                    if (firstRxEnd < 0) {
                        firstRxEnd = tb.cycle();
                    }
                    segments++;
                }
            });

            Fields txf = Fields.of(tb, io.tx.payload());
            // Always ready, so a beat is read and taken in the same cycle: length and QP are read with it.
            tb.add(new StreamSink<byte[]>("tx", tb.signal(io.tx.valid()), tb.signal(io.tx.ready()),
                    () -> txf.octets("data"), Pacer.always(),
                    beat -> txBeat(beat, (int) txf.get("length"), (int) txf.get("qp"))));

            Fields ev = Fields.of(tb, io.events.payload());
            tb.add(new StreamSink<String>("events", tb.signal(io.events.valid()), tb.signal(io.events.ready()),
                    () -> RxEventKind.of((int) ev.get("kind")) + " qp " + ev.get("qp") + " cause "
                            + RdmapRxControl.cause((int) ev.get("cause")), Pacer.always(), events::add));
            for (spinal.core.Bool valid : new spinal.core.Bool[] {io.requests.valid(), io.recv.valid(),
                    io.stagInvalidate.valid()}) {
                tb.signal(valid).set(false);
            }
            Fields su = Fields.of(tb, io.setup.payload());
            StreamSource<Runnable> setup = tb.add(new StreamSource<Runnable>(tb.signal(io.setup.valid()),
                    tb.signal(io.setup.ready()), Runnable::run, Pacer.always()));
            Fields pr = Fields.of(tb, io.stagProgram.payload());
            StreamSource<Runnable> program = tb.add(new StreamSource<Runnable>(tb.signal(io.stagProgram.valid()),
                    tb.signal(io.stagProgram.ready()), Runnable::run, Pacer.always()));
            tb.reset(3);

            setup.push(() -> su.set("qp", 0).set("open", true).set("pd", PD).set("ird", ird).set("ord", 8)
                    .set("mulpdu", MULPDU));
            program.push(() -> pr.set("index", STAG >>> 8).set("valid", true).set("key", STAG & 0xFF).set("pd", PD)
                    .set("qpBound", false).set("qp", 0).set("remoteWrite", true).set("remoteRead", true)
                    .set("remoteAtomic", false).set("zeroBased", false).set("va", VA).set("length", REGION));
            fillPattern(READ_SOURCE, SOURCE_SPAN);
            tb.runUntil(() -> !setup.busy() && !program.busy(), 1_000, "setup");
            tb.step(5);
        }

        /** Queues a received segment. */
        void receive(byte[] ulpdu) {
            for (int i = 0; i < beats(ulpdu.length, octets); i++) {
                rx.push(new RxBeat(ulpdu, i));
            }
        }

        /** Nothing queued on rx: the source presents nothing in the next cycle. */
        boolean rxIdle() {
            return rx.pending() == 0;
        }

        void fillPattern(long address, int length) {
            byte[] b = new byte[length];
            for (int i = 0; i < length; i++) {
                b[i] = (byte) (i * 131 + (i >>> 9) * 7 + 1);
            }
            memory.write(address, b);
        }

        void assertNoEvents() {
            if (!events.isEmpty()) {
                throw new AssertionError("the engine reported " + events);
            }
        }

        private void txBeat(byte[] beat, int length, int qp) {
            lastTx = tb.cycle();
            if (firstTx < 0) {
                firstTx = tb.cycle();
            }
            txBeats++;
            if (qp != 0) {
                throw new AssertionError("segment on QP " + qp);
            }
            if (txSegment.size() == 0) {
                boolean response = (beat[1] & 0x0F) == RdmapOpcode.RDMA_READ_RESPONSE.code();
                txLast = response && (beat[0] & 0x40) != 0;
                if (txLast) {
                    lastResponsesStarted++;
                }
            }
            txSegment.write(beat, 0, Math.min(octets, length - txSegment.size()));
            if (txSegment.size() >= length) {
                byte[] seg = txSegment.toByteArray();
                txSegment.reset();
                txSegments++;
                if (txLast) {
                    responsesDone++;
                }
                onSegment.accept(seg);
            }
        }

        @Override
        public void sample() {
            if (wValid.getBool() && wReady.getBool()) {
                lastW = tb.cycle();
            }
            if (bValid.getBool() && bReady.getBool()) {
                bCount++;
                lastB = tb.cycle();
            }
        }
    }
}
