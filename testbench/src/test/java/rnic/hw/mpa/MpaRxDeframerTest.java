package rnic.hw.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.IntSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import rnic.model.mpa.MpaDeframer;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.sim.AxisSink;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.Tb;
import rnic.sim.TcpPayloadSource;

/**
 * {@link MpaRxDeframer} against the golden receiver {@link MpaDeframer} at W = 32 … 512, Markers off/on × CRC off/on:
 * the golden framer's stream of random ULPDUs (1 … MULPDU octets, EMSS 256 … 9000, sequence numbers wrapping 2^32) is
 * re-cut into beats of any size — as the transmitter segmented it, at random down to runs of 1-octet beats — and sent
 * with idle on the TCP side and back-pressure on the ULPDU side; every ULPDU must come out unchanged and in order.
 *
 * <p>Requirements: MPA-01, MPA-10, MPA-13, MPA-16, MPA-19, MPA-20, MPA-23, MPA-24, MPA-25, MPA-37.
 */
class MpaRxDeframerTest {
    static final int ULPDUS = 20_000;
    /** Cycles to let the pipeline settle after the input is consumed and every expected ULPDU seen. */
    static final int DRAIN = 200;
    /** The largest ULPDU_Length the default receiver accepts (advertised MSS 9000). */
    static final int MAX_ULPDU = MpaRxConfig.defaults(64).maxUlpdu();

    static List<Integer> widths() {
        return List.of(32, 64, 128, 256, 512);
    }

    static SimModel<MpaRxDeframer> model(int w) {
        return SimModel.of("MpaRxDeframer-w" + w, () -> new MpaRxDeframer(w));
    }

    /** What one run of the receiver saw. */
    record Outcome(long delivered, boolean failed, int code, long seq, long cycles) {
    }

    /**
     * Runs {@code stream} (starting at {@code dir.seqStart()}) through the RTL with the given beat sizes and pacing,
     * compares every delivered ULPDU with {@code expected}, and returns what happened.
     */
    static Outcome receive(Tb<MpaRxDeframer> tb, MpaDirection dir, byte[] stream, IntSupplier beats, Pacer in,
            Pacer out, List<byte[]> expected) {
        MpaRxDeframer dut = tb.dut();
        tb.signal(dut.io.markers).set(dir.markers());
        tb.signal(dut.io.crc).set(dir.crc());
        tb.signal(dut.io.seqStart).set(dir.seqStart());
        Scoreboard<byte[]> sb = tb.add(new Scoreboard<byte[]>("rx W=" + dut.io.dataWidth + " " + dir
                + " seed=" + tb.seed(), java.util.Arrays::equals,
                b -> b.length + " octets " + HexFormat.of().formatHex(b, 0, Math.min(b.length, 48))));
        TcpPayloadSource src = TcpPayloadSource.on(tb, dut.io.tcp, in);
        // ulpduLength rides along every beat: each beat of a ULPDU must show that ULPDU's length.
        SimSignal valid = tb.signal(dut.io.ulpdu.valid());
        SimSignal ready = tb.signal(dut.io.ulpdu.ready());
        SimSignal length = tb.signal(dut.io.ulpduLength);
        List<Long> lengths = new ArrayList<>();
        tb.add(new rnic.sim.Agent() {
            @Override
            public void sample() {
                if (valid.getBool() && ready.getBool()) {
                    lengths.add(length.get());
                }
            }
        });
        AxisSink.on(tb, dut.io.ulpdu, out, u -> {
            for (long l : lengths) {
                assertEquals(u.length, l, "ulpduLength on a beat of a " + u.length + "-octet ULPDU");
            }
            lengths.clear();
            sb.actual(u);
        });
        tb.reset(3);
        expected.forEach(sb::expect);
        long start = tb.cycle();
        src.send(dir.seqStart(), stream, beats);
        tb.runUntilIdle(1000L + 4L * stream.length);
        long cycles = tb.cycle() - start;
        tb.step(DRAIN); // a verdict, or a ULPDU that should not be there, may still be on its way
        return new Outcome(sb.matched(), tb.signal(dut.io.failed).getBool(), (int) tb.signal(dut.io.errorCode).get(),
                tb.signal(dut.io.errorSeq).get(), cycles);
    }

    /** The golden framer's TCP payload for random ULPDUs, and those ULPDUs. */
    record Traffic(byte[] stream, List<TcpSegment> segments, List<byte[]> ulpdus) {
        static Traffic random(MpaDirection dir, int emss, int count, Random rng) {
            MpaFramer framer = new MpaFramer(dir, emss);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            List<TcpSegment> segments = new ArrayList<>();
            List<byte[]> ulpdus = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int len = rng.nextInt(8) == 0 ? 1 + rng.nextInt(24) : 1 + rng.nextInt(framer.mulpdu());
                byte[] u = new byte[len];
                rng.nextBytes(u);
                ulpdus.add(u);
                for (TcpSegment s : framer.send(u)) {
                    segments.add(s);
                    bytes.writeBytes(s.payload());
                }
            }
            return new Traffic(bytes.toByteArray(), segments, ulpdus);
        }
    }

    /** What the golden receiver delivers for {@code segments}, and its error if any. */
    static List<MpaDeframer.Event> golden(MpaDirection dir, List<TcpSegment> segments) {
        MpaDeframer rx = new MpaDeframer(dir, MAX_ULPDU);
        List<MpaDeframer.Event> events = new ArrayList<>();
        for (TcpSegment s : segments) {
            events.addAll(rx.receive(s));
        }
        return events;
    }

    static List<byte[]> ulpdusOf(List<MpaDeframer.Event> events) {
        List<byte[]> out = new ArrayList<>();
        for (MpaDeframer.Event e : events) {
            if (e instanceof MpaDeframer.Ulpdu u) {
                out.add(u.data());
            }
        }
        return out;
    }

    @ParameterizedTest(name = "W={0}")
    @MethodSource("widths")
    void deliversEveryUlpduOfTheGoldenStreamHoweverItIsCut(int w) {
        int[][] runs = {{1460, 1500}, {-1, 1500}, {536, 1500}, {9000, 500}}; // {EMSS (-1: random), ULPDUs}
        long total = 0;
        for (int cfg = 0; cfg < 4; cfg++) {
            boolean markers = (cfg & 1) != 0;
            boolean crc = (cfg & 2) != 0;
            for (int r = 0; r < runs.length; r++) {
                int[] run = runs[r];
                int runIndex = r;
                long seed = 131L * w + 17L * cfg + r;
                long[] done = {0};
                model(w).run("rx-m" + (markers ? 1 : 0) + "c" + (crc ? 1 : 0) + "-" + r, seed, tb -> {
                    Random rng = tb.random();
                    int emss = run[0] > 0 ? run[0] : 256 + rng.nextInt(2048 - 256);
                    MpaDirection dir = new MpaDirection(markers, crc, 0xFFFF_FFFFL - rng.nextInt(200_000));
                    Traffic t = Traffic.random(dir, emss, run[1], rng);
                    List<MpaDeframer.Event> events = golden(dir, t.segments());
                    List<byte[]> expected = ulpdusOf(events);
                    assertEquals(t.ulpdus().size(), expected.size(), "the golden receiver delivers every ULPDU");
                    int n = w / 8;
                    IntSupplier beats = runIndex == 0 ? () -> n : TcpPayloadSource.resegmenting(rng, n);
                    Pacer in = runIndex == 0 ? Pacer.always() : Pacer.randomMix(rng);
                    Pacer out = runIndex == 0 ? Pacer.always() : Pacer.randomMix(rng);
                    Outcome o = receive(tb, dir, t.stream(), beats, in, out, expected);
                    assertFalse(o.failed(), "no error on a clean stream, got code " + o.code());
                    done[0] = o.delivered();
                });
                total += done[0];
            }
        }
        assertTrue(total >= ULPDUS, "ULPDUs checked: " + total);
    }

    /** Stream positions (octets from the start of {@code seg}) of the Markers inside a segment. */
    static List<Integer> markersIn(MpaDirection dir, TcpSegment seg) {
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < seg.payload().length; i += 4) {
            if (dir.markers() && ((seg.seq() + i - dir.seqStart()) & 0xFFFF_FFFFL) % 512 == 0) {
                at.add(i);
            }
        }
        return at;
    }

    /** Recomputes the CRC of the FPDU that is segment {@code fpdu} (the golden framer sends one FPDU per segment). */
    static void fixCrc(byte[] fpdu) {
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(fpdu, 0, fpdu.length - 4);
        long v = c.getValue();
        for (int i = 0; i < 4; i++) {
            fpdu[fpdu.length - 4 + i] = (byte) (v >>> (8 * i));
        }
    }

    /** The segments' payloads joined into one stream. */
    static byte[] join(List<TcpSegment> segments) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        segments.forEach(s -> b.writeBytes(s.payload()));
        return b.toByteArray();
    }

    /**
     * Runs a tampered stream through the RTL (re-cut at random, idle and back-pressure) and checks it against the golden
     * receiver: the same ULPDUs before the error, then the error with the same code and FPDU sequence number, and
     * nothing after it (MPA-44). Returns the golden error, or null when the golden receiver saw none.
     */
    static MpaDeframer.Error checkAgainstGolden(Tb<MpaRxDeframer> tb, MpaDirection dir, List<TcpSegment> segments) {
        List<MpaDeframer.Event> events = golden(dir, segments);
        MpaDeframer.Error error = null;
        for (MpaDeframer.Event e : events) {
            if (e instanceof MpaDeframer.Error err) {
                error = err;
            }
        }
        Random rng = tb.random();
        Outcome o = receive(tb, dir, join(segments), TcpPayloadSource.resegmenting(rng, tb.dut().io.dataWidth / 8),
                Pacer.randomMix(rng), Pacer.randomMix(rng), ulpdusOf(events));
        assertEquals(error != null, o.failed(), "error reported: golden " + error);
        if (error != null) {
            assertEquals(error.code().code(), o.code(), "error code");
            assertEquals(error.fpduSeq(), o.seq(), "sequence number of the offending FPDU");
        }
        return error;
    }

    /**
     * E-M2: one bit flipped anywhere in an FPDU — leading Marker, ULPDU_Length, ULPDU, embedded Marker, PAD, CRC —
     * with CRC on: code 2 for that FPDU, every earlier ULPDU delivered, none of the later valid ones (MPA-20, MPA-44).
     * A flip in ULPDU_Length re-frames the stream; the golden receiver then decides what is detected, and where.
     *
     * <p>Requirements: MPA-19, MPA-20, MPA-42, MPA-44; docs/requirements.md §3.1 E-M2.
     */
    @ParameterizedTest(name = "W={0}")
    @MethodSource("widths")
    void reportsACrcErrorForAFlippedBitAndDeliversNothingAfterIt(int w) {
        for (int trial = 0; trial < 24; trial++) {
            int t = trial;
            model(w).run("crc-error-" + t, 1000L * w + t, tb -> {
                Random rng = tb.random();
                MpaDirection dir = new MpaDirection(t % 2 == 0, true, 0xFFFF_FFFFL - rng.nextInt(8192));
                Traffic traffic = Traffic.random(dir, 256 + rng.nextInt(1800), 24, rng);
                List<TcpSegment> segs = new ArrayList<>(traffic.segments());
                int k = rng.nextInt(segs.size() - 2);
                byte[] fpdu = segs.get(k).payload().clone();
                int lead = markersIn(dir, segs.get(k)).contains(0) ? 4 : 0;
                int at = t < 8 ? lead + 2 + rng.nextInt(fpdu.length - lead - 2) : rng.nextInt(fpdu.length);
                fpdu[at] ^= (byte) (1 << rng.nextInt(8));
                segs.set(k, new TcpSegment(segs.get(k).seq(), fpdu));
                MpaDeframer.Error e = checkAgainstGolden(tb, dir, segs);
                if (at >= lead + 2 || at < lead) {
                    assertEquals(rnic.wire.MpaErrorCode.CRC_ERROR, e.code(), "flip at " + at);
                    assertEquals(segs.get(k).seq(), e.fpduSeq());
                }
            });
        }
    }

    /**
     * E-M3: a Marker whose FPDUPTR is off by ±4 (or non-zero where it leads an FPDU) in an FPDU whose CRC is valid —
     * recomputed with CRC on, absent with CRC off — is code 3 for that FPDU (MPA-42, MPA-13, MPA-14). The same Marker
     * with its RESERVED half set and the low two FPDUPTR bits set is accepted (MPA-10).
     *
     * <p>Requirements: MPA-10, MPA-13, MPA-14, MPA-42, MPA-44; docs/requirements.md §3.1 E-M3.
     */
    @ParameterizedTest(name = "W={0}")
    @MethodSource("widths")
    void reportsAMarkerErrorOnACrcValidFpduAndToleratesReservedBits(int w) {
        for (int trial = 0; trial < 16; trial++) {
            int t = trial;
            model(w).run("marker-error-" + t, 2000L * w + t, tb -> {
                Random rng = tb.random();
                boolean crc = t % 2 == 0;
                boolean tolerate = t % 4 >= 2;
                MpaDirection dir = new MpaDirection(true, crc, 0xFFFF_FFFFL - rng.nextInt(8192));
                Traffic traffic = Traffic.random(dir, 1460, 40, rng);
                List<TcpSegment> segs = new ArrayList<>(traffic.segments());
                int k;
                do {
                    k = rng.nextInt(segs.size() - 2);
                } while (markersIn(dir, segs.get(k)).isEmpty());
                List<Integer> marks = markersIn(dir, segs.get(k));
                int m = marks.get(rng.nextInt(marks.size()));
                byte[] fpdu = segs.get(k).payload().clone();
                if (tolerate) {
                    fpdu[m] = (byte) rng.nextInt(256);
                    fpdu[m + 1] = (byte) (1 + rng.nextInt(255));
                    fpdu[m + 3] |= (byte) (1 + rng.nextInt(3));
                } else {
                    int ptr = ((fpdu[m + 2] & 0xFF) << 8) | (fpdu[m + 3] & 0xFF);
                    ptr = ptr == 0 ? 4 * (1 + rng.nextInt(8)) : ptr + (rng.nextBoolean() ? 4 : -4);
                    fpdu[m + 2] = (byte) (ptr >>> 8);
                    fpdu[m + 3] = (byte) ptr;
                }
                if (crc) {
                    fixCrc(fpdu);
                }
                segs.set(k, new TcpSegment(segs.get(k).seq(), fpdu));
                MpaDeframer.Error e = checkAgainstGolden(tb, dir, segs);
                if (tolerate) {
                    assertEquals(null, e, "RESERVED and FPDUPTR low bits are ignored");
                } else {
                    assertEquals(rnic.wire.MpaErrorCode.MARKER_ERROR, e.code());
                    assertEquals(segs.get(k).seq(), e.fpduSeq());
                }
            });
        }
    }

    /**
     * E-M1: a hole in the TCP sequence (octets missing) ends the stream with code 1 at the first missing octet; every
     * FPDU completed before the hole is delivered, nothing after. A stream that just stops in the middle of an FPDU
     * delivers everything before that FPDU and reports nothing (MPA-25 (c)).
     *
     * <p>Requirements: MPA-25, MPA-42, MPA-44; docs/requirements.md §3.1 E-M1.
     */
    @ParameterizedTest(name = "W={0}")
    @MethodSource("widths")
    void reportsAHoleAsLostAndNeverDeliversATruncatedFpdu(int w) {
        for (int trial = 0; trial < 8; trial++) {
            int t = trial;
            model(w).run("hole-" + t, 3000L * w + t, tb -> {
                Random rng = tb.random();
                MpaDirection dir = new MpaDirection(rng.nextBoolean(), rng.nextBoolean(), 0xFFFF_FFFFL - rng.nextInt(8192));
                Traffic traffic = Traffic.random(dir, 536, 30, rng);
                byte[] stream = traffic.stream();
                int cut = 1 + rng.nextInt(stream.length - 1);
                List<byte[]> before = ulpdusOf(golden(dir, List.of(new TcpSegment(dir.seqStart(),
                        java.util.Arrays.copyOf(stream, cut)))));
                MpaRxDeframer dut = tb.dut();
                tb.signal(dut.io.markers).set(dir.markers());
                tb.signal(dut.io.crc).set(dir.crc());
                tb.signal(dut.io.seqStart).set(dir.seqStart());
                Scoreboard<byte[]> sb = tb.add(new Scoreboard<byte[]>("hole W=" + w, java.util.Arrays::equals,
                        b -> b.length + " octets"));
                TcpPayloadSource src = TcpPayloadSource.on(tb, dut.io.tcp, Pacer.randomMix(rng));
                AxisSink.on(tb, dut.io.ulpdu, Pacer.randomMix(rng), sb::actual);
                tb.reset(3);
                before.forEach(sb::expect);
                IntSupplier beats = TcpPayloadSource.resegmenting(rng, w / 8);
                src.send(dir.seqStart(), java.util.Arrays.copyOf(stream, cut), beats);
                boolean hole = t % 2 == 0 && stream.length - cut >= 2;
                if (hole) {
                    int skip = 1 + rng.nextInt(Math.min(64, stream.length - cut - 1));
                    src.send(dir.seqStart() + cut + skip,
                            java.util.Arrays.copyOfRange(stream, cut + skip, stream.length), beats);
                }
                tb.runUntilIdle(1000L + 4L * stream.length);
                tb.step(DRAIN);
                if (hole) {
                    assertTrue(tb.signal(dut.io.failed).getBool(), "hole reported");
                    assertEquals(rnic.wire.MpaErrorCode.TCP_CLOSED.code(), tb.signal(dut.io.errorCode).get());
                    assertEquals((dir.seqStart() + cut) & 0xFFFF_FFFFL, tb.signal(dut.io.errorSeq).get());
                } else {
                    assertFalse(tb.signal(dut.io.failed).getBool(), "a truncated stream is no error");
                }
            });
        }
    }

    /**
     * The end of the stream ({@code fin}: the peer's FIN or RST, after the last octet before it) ends the receiver
     * like a hole at that octet: every FPDU completed before it is delivered, exactly the golden receiver's ULPDUs of
     * the octets before it, then E-M1 (code 1) at the sequence number after the last octet; a truncated FPDU before
     * it is never delivered; octets shown after it are taken and dropped.
     *
     * <p>Requirements: MPA-41, DDP-28, MPA-25, MPA-44; docs/requirements.md §3.1 E-M1.
     */
    @ParameterizedTest(name = "W={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {32, 64})
    void endsTheStreamAtFinAfterDeliveringEveryCompleteFpdu(int w) {
        for (int trial = 0; trial < 6; trial++) {
            int t = trial;
            model(w).run("fin-" + t, 5000L * w + t, tb -> {
                Random rng = tb.random();
                MpaDirection dir = new MpaDirection(rng.nextBoolean(), rng.nextBoolean(), 0xFFFF_FFFFL - rng.nextInt(8192));
                Traffic traffic = Traffic.random(dir, 536, 20, rng);
                byte[] stream = traffic.stream();
                // even trials: the FIN right after the last FPDU; odd: anywhere, often inside an FPDU
                int cut = t % 2 == 0 ? stream.length : 1 + rng.nextInt(stream.length - 1);
                List<byte[]> before = ulpdusOf(golden(dir, List.of(new TcpSegment(dir.seqStart(),
                        java.util.Arrays.copyOf(stream, cut)))));
                MpaRxDeframer dut = tb.dut();
                tb.signal(dut.io.markers).set(dir.markers());
                tb.signal(dut.io.crc).set(dir.crc());
                tb.signal(dut.io.seqStart).set(dir.seqStart());
                Scoreboard<byte[]> sb = tb.add(new Scoreboard<byte[]>("fin W=" + w, java.util.Arrays::equals,
                        b -> b.length + " octets"));
                TcpPayloadSource src = TcpPayloadSource.on(tb, dut.io.tcp, Pacer.randomMix(rng));
                AxisSink.on(tb, dut.io.ulpdu, Pacer.randomMix(rng), sb::actual);
                tb.reset(3);
                before.forEach(sb::expect);
                IntSupplier beats = TcpPayloadSource.resegmenting(rng, w / 8);
                src.send(dir.seqStart(), java.util.Arrays.copyOf(stream, cut), beats);
                src.end(dir.seqStart() + cut);
                if (cut < stream.length) { // a broken transport: octets after the end are dropped, never delivered
                    src.send(dir.seqStart() + cut, java.util.Arrays.copyOfRange(stream, cut, stream.length), beats);
                }
                tb.runUntilIdle(1000L + 4L * stream.length);
                tb.step(DRAIN);
                assertTrue(tb.signal(dut.io.failed).getBool(), "the end of the stream is reported");
                assertEquals(rnic.wire.MpaErrorCode.TCP_CLOSED.code(), tb.signal(dut.io.errorCode).get());
                assertEquals((dir.seqStart() + cut) & 0xFFFF_FFFFL, tb.signal(dut.io.errorSeq).get());
            });
        }
    }

    /**
     * An FPDU whose ULPDU_Length exceeds what the receive buffer holds ({@link MpaRxConfig#maxUlpdu()}: 8994 for the
     * default MSS of 9000) — a well-formed FPDU, valid CRC and Markers, from a peer that ignored our MSS — is refused
     * at its header with E-M2 (2/0/02) and that FPDU's sequence number, exactly as the golden receiver built with the
     * same bound: every earlier ULPDU is delivered, nothing of it or after it (MPA-44), and the rest of the stream,
     * longer than the buffer, is still taken within a bounded number of cycles (no hang).
     *
     * <p>Requirements: MPA-23, MPA-25, MPA-42, MPA-44, T-10; docs/requirements.md §3.1 E-M2.
     */
    @ParameterizedTest(name = "W={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {64, 512})
    void refusesAnFpduLongerThanTheReceiveBufferWithoutHanging(int w) {
        assertEquals(8994, MAX_ULPDU);
        int[] lengths = {MAX_ULPDU + 1, 20_000, 64_768, MAX_ULPDU};
        for (int trial = 0; trial < lengths.length; trial++) {
            int t = trial;
            model(w).run("too-long-" + t, 4000L * w + t, tb -> {
                Random rng = tb.random();
                MpaDirection dir = new MpaDirection(t % 2 == 0, t < 2, 0xFFFF_FFFFL - rng.nextInt(8192));
                MpaFramer framer = new MpaFramer(dir, 65535);
                List<TcpSegment> segs = new ArrayList<>();
                int before = 3 + rng.nextInt(5);
                TcpSegment big = null;
                for (int i = 0; i < before + 6; i++) {
                    byte[] u = new byte[i == before ? lengths[t] : 1 + rng.nextInt(2000)];
                    rng.nextBytes(u);
                    List<TcpSegment> out = framer.send(u);
                    if (i == before) {
                        assertEquals(1, out.size(), "one FPDU per segment");
                        big = out.get(0);
                    }
                    segs.addAll(out);
                }
                MpaDeframer.Error e = checkAgainstGolden(tb, dir, segs);
                if (lengths[t] > MAX_ULPDU) {
                    assertEquals(rnic.wire.MpaErrorCode.CRC_ERROR, e.code(), "an over-long FPDU is E-M2");
                    assertEquals(big.seq(), e.fpduSeq(), "the over-long FPDU's sequence number");
                } else {
                    assertEquals(null, e, "an FPDU of exactly the bound is accepted");
                }
            });
        }
    }
}
