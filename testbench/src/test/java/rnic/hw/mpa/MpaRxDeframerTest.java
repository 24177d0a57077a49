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
        AxisSink.on(tb, dut.io.ulpdu, out, sb::actual);
        tb.reset(3);
        expected.forEach(sb::expect);
        long start = tb.cycle();
        src.send(dir.seqStart(), stream, beats);
        tb.runUntilIdle(1000L + 4L * stream.length);
        return new Outcome(sb.matched(), tb.signal(dut.io.failed).getBool(), (int) tb.signal(dut.io.errorCode).get(),
                tb.signal(dut.io.errorSeq).get(), tb.cycle() - start);
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
        MpaDeframer rx = new MpaDeframer(dir);
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
}
