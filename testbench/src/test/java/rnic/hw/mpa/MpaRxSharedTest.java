package rnic.hw.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.model.mpa.MpaDeframer;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.sim.Agent;
import rnic.sim.AxisSink;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.Tb;
import rnic.sim.TcpPayloadSource;
import rnic.wire.MpaErrorCode;

/**
 * {@link MpaRxShared}, one MPA receiver for n connections, against one golden receiver {@link MpaDeframer} per
 * connection (the stream of each connection comes from the golden {@link MpaFramer}): 4 connections at W = 32, 64 and
 * 512 and 3 at W = 64, each with its own Markers/CRC setting and {@code seqStart} (wrapping 2^32), each stream re-cut at
 * random down to 1-octet beats, with random idle on every TCP port and random back-pressure on the one ULPDU output, so
 * the connections' beats interleave at any point of their FPDUs. Every ULPDU delivered must be the next one of its
 * connection ({@code ulpduConn}), unchanged, with its {@code ulpduLength} on every beat; per connection the first MPA
 * error must be the golden receiver's code and sequence number, after every earlier ULPDU of that connection and with
 * nothing of it after, while the other connections keep delivering; a connection cleared mid-FPDU while the others flow
 * is reused from a new {@code seqStart} with new settings. Run time: about 1 min of simulation on one core, plus the
 * four Verilator models' first build (cached under target/sim).
 *
 * <p>Requirements: MPA-10, MPA-13, MPA-14, MPA-16, MPA-19, MPA-20, MPA-23, MPA-24, MPA-25, MPA-41, MPA-42, MPA-43
 * (errors reported, not dropped), MPA-44; docs/shared-mpa.md §2.2, §2.3, §3.3, §4 (clear).
 */
class MpaRxSharedTest {
    static final int DRAIN = 300;
    static final int MAX_ULPDU = MpaRxConfig.defaults(64).maxUlpdu();

    static SimModel<MpaRxShared> model(int w, int n) {
        return SimModel.of("MpaRxShared-w" + w + "-n" + n,
                () -> new MpaRxShared(MpaRxConfig.defaults(w), n));
    }

    /** One connection's input: parts of its stream ({@code fin}: the end of the stream at {@code seq}). */
    record Part(long seq, byte[] data, boolean fin) {
    }

    /** What one connection is sent and what the golden receiver makes of it. */
    record Plan(MpaDirection dir, List<Part> parts, List<byte[]> ulpdus, MpaDeframer.Error error) {
        static Plan of(MpaDirection dir, List<TcpSegment> segments) {
            List<MpaDeframer.Event> events = MpaRxDeframerTest.golden(dir, segments);
            return new Plan(dir, List.of(new Part(dir.seqStart(), MpaRxDeframerTest.join(segments), false)),
                    MpaRxDeframerTest.ulpdusOf(events), errorOf(events));
        }
    }

    static MpaDeframer.Error errorOf(List<MpaDeframer.Event> events) {
        for (MpaDeframer.Event e : events) {
            if (e instanceof MpaDeframer.Error err) {
                return err;
            }
        }
        return null;
    }

    static MpaDirection randomDir(Random rng, boolean markers, boolean crc) {
        return new MpaDirection(markers, crc, 0xFFFF_FFFFL - rng.nextInt(200_000));
    }

    static Plan clean(MpaDirection dir, int count, Random rng) {
        int emss = 256 + rng.nextInt(2048 - 256);
        return Plan.of(dir, MpaRxDeframerTest.Traffic.random(dir, emss, count, rng).segments());
    }

    /** Error kinds of {@link #faulty}. */
    static final String[] KINDS = {"crc", "marker", "hole", "too-long", "fin"};

    /** A stream of {@code count} ULPDUs with one fault of {@code kind} in its middle part. */
    static Plan faulty(String kind, int count, Random rng) {
        switch (kind) {
            case "crc" -> {
                MpaDirection dir = randomDir(rng, rng.nextBoolean(), true);
                List<TcpSegment> segs = new ArrayList<>(
                        MpaRxDeframerTest.Traffic.random(dir, 256 + rng.nextInt(1800), count, rng).segments());
                int k = segs.size() / 3 + rng.nextInt(segs.size() / 3);
                byte[] fpdu = segs.get(k).payload().clone();
                int lead = MpaRxDeframerTest.markersIn(dir, segs.get(k)).contains(0) ? 4 : 0;
                fpdu[lead + 2 + rng.nextInt(fpdu.length - lead - 2)] ^= (byte) (1 << rng.nextInt(8));
                segs.set(k, new TcpSegment(segs.get(k).seq(), fpdu));
                Plan p = Plan.of(dir, segs);
                assertEquals(MpaErrorCode.CRC_ERROR, p.error().code());
                return p;
            }
            case "marker" -> {
                boolean crc = rng.nextBoolean();
                MpaDirection dir = randomDir(rng, true, crc);
                List<TcpSegment> segs = new ArrayList<>(
                        MpaRxDeframerTest.Traffic.random(dir, 1460, count, rng).segments());
                int k;
                do {
                    k = segs.size() / 3 + rng.nextInt(segs.size() / 3);
                } while (MpaRxDeframerTest.markersIn(dir, segs.get(k)).isEmpty());
                List<Integer> marks = MpaRxDeframerTest.markersIn(dir, segs.get(k));
                int m = marks.get(rng.nextInt(marks.size()));
                byte[] fpdu = segs.get(k).payload().clone();
                int ptr = ((fpdu[m + 2] & 0xFF) << 8) | (fpdu[m + 3] & 0xFF);
                ptr = ptr == 0 ? 4 * (1 + rng.nextInt(8)) : ptr + (rng.nextBoolean() ? 4 : -4);
                fpdu[m + 2] = (byte) (ptr >>> 8);
                fpdu[m + 3] = (byte) ptr;
                if (crc) {
                    MpaRxDeframerTest.fixCrc(fpdu);
                }
                segs.set(k, new TcpSegment(segs.get(k).seq(), fpdu));
                Plan p = Plan.of(dir, segs);
                assertEquals(MpaErrorCode.MARKER_ERROR, p.error().code());
                return p;
            }
            case "hole", "fin" -> {
                MpaDirection dir = randomDir(rng, rng.nextBoolean(), rng.nextBoolean());
                byte[] stream = MpaRxDeframerTest.join(
                        MpaRxDeframerTest.Traffic.random(dir, 536, count, rng).segments());
                int cut = stream.length / 3 + rng.nextInt(stream.length / 3);
                List<byte[]> before = MpaRxDeframerTest.ulpdusOf(MpaRxDeframerTest.golden(dir,
                        List.of(new TcpSegment(dir.seqStart(), Arrays.copyOf(stream, cut)))));
                long at = (dir.seqStart() + cut) & 0xFFFF_FFFFL;
                List<Part> parts = new ArrayList<>();
                parts.add(new Part(dir.seqStart(), Arrays.copyOf(stream, cut), false));
                if (kind.equals("hole")) {
                    int skip = 1 + rng.nextInt(64);
                    parts.add(new Part(dir.seqStart() + cut + skip,
                            Arrays.copyOfRange(stream, cut + skip, stream.length), false));
                } else {
                    parts.add(new Part(at, new byte[0], true));
                }
                return new Plan(dir, parts, before, new MpaDeframer.Error(MpaErrorCode.TCP_CLOSED, at));
            }
            case "too-long" -> {
                MpaDirection dir = randomDir(rng, rng.nextBoolean(), rng.nextBoolean());
                MpaFramer framer = new MpaFramer(dir, 65535);
                List<TcpSegment> segs = new ArrayList<>();
                int before = count / 2;
                for (int i = 0; i < count; i++) {
                    byte[] u = new byte[i == before ? MAX_ULPDU + 1 + rng.nextInt(20_000) : 1 + rng.nextInt(1500)];
                    rng.nextBytes(u);
                    segs.addAll(framer.send(u));
                }
                Plan p = Plan.of(dir, segs);
                assertEquals(MpaErrorCode.CRC_ERROR, p.error().code());
                return p;
            }
            default -> throw new IllegalArgumentException(kind);
        }
    }

    /** The testbench around one model: a source per port, one sink, a handler per connection. */
    static final class Rig {
        final Tb<MpaRxShared> tb;
        final MpaRxShared dut;
        final int n;
        final int octets;
        final TcpPayloadSource[] src;
        final List<Consumer<byte[]>> handlers = new ArrayList<>();
        final ArrayDeque<long[]> packets = new ArrayDeque<>(); // {conn, length} of each packet, in order
        final IntSupplier[] beats;

        /** Ports paced at random and beats re-cut at random, unless {@code fullRate}: full beats back to back. */
        Rig(Tb<MpaRxShared> tb, Random rng, Pacer out, boolean fullBeats) {
            this(tb, rng, out, fullBeats, fullBeats);
        }

        /** {@code fullBeats}: beats of W/8 octets, else re-cut at random; {@code always}: no idle on the ports. */
        Rig(Tb<MpaRxShared> tb, Random rng, Pacer out, boolean fullBeats, boolean always) {
            this.tb = tb;
            this.dut = tb.dut();
            this.n = dut.n;
            this.octets = dut.config.dataWidth() / 8;
            src = new TcpPayloadSource[n];
            beats = new IntSupplier[n];
            for (int c = 0; c < n; c++) {
                tb.signal(dut.io.deliver.apply(c)).set(true);
                tb.signal(dut.io.clear.apply(c)).set(false);
                src[c] = TcpPayloadSource.on(tb, dut.io.tcp.get(c), always ? Pacer.always() : Pacer.randomMix(rng));
                beats[c] = fullBeats ? () -> octets : TcpPayloadSource.resegmenting(rng, octets);
                handlers.add(null);
            }
            SimSignal valid = tb.signal(dut.io.ulpdu.valid());
            SimSignal ready = tb.signal(dut.io.ulpdu.ready());
            SimSignal last = tb.signal(dut.io.ulpdu.payload().tlast);
            SimSignal conn = tb.signal(dut.io.ulpduConn);
            SimSignal length = tb.signal(dut.io.ulpduLength);
            tb.add(new Agent() {
                long[] cur;

                @Override
                public void sample() {
                    if (valid.getBool() && ready.getBool()) {
                        long[] now = {conn.get(), length.get()};
                        if (cur == null) {
                            cur = now;
                        } else {
                            assertTrue(Arrays.equals(cur, now), "ulpduConn/ulpduLength change inside a ULPDU: "
                                    + Arrays.toString(cur) + " then " + Arrays.toString(now));
                        }
                        if (last.getBool()) {
                            packets.add(cur);
                            cur = null;
                        }
                    }
                }
            });
            AxisSink.on(tb, dut.io.ulpdu, out, u -> {
                long[] p = packets.poll();
                assertEquals(p[1], u.length, "ulpduLength of a " + u.length + "-octet ULPDU");
                int c = (int) p[0];
                assertTrue(c < n, "ulpduConn " + c);
                handlers.get(c).accept(u);
            });
        }

        void settings(int c, MpaDirection dir) {
            tb.signal(dut.io.markers.apply(c)).set(dir.markers());
            tb.signal(dut.io.crc.apply(c)).set(dir.crc());
            tb.signal(dut.io.seqStart.apply(c)).set(dir.seqStart());
        }

        Scoreboard<byte[]> scoreboard(int c, String what) {
            Scoreboard<byte[]> sb = tb.add(new Scoreboard<byte[]>(what + " conn " + c + " seed=" + tb.seed(),
                    Arrays::equals, b -> b.length + " octets " + HexFormat.of().formatHex(b, 0, Math.min(b.length, 32))));
            handlers.set(c, sb::actual);
            return sb;
        }

        void send(int c, Plan p) {
            for (Part part : p.parts()) {
                if (part.fin()) {
                    src[c].end(part.seq());
                } else {
                    src[c].send(part.seq(), part.data(), beats[c]);
                }
            }
        }

        void checkError(int c, MpaDeframer.Error e) {
            boolean failed = tb.signal(dut.io.failed.apply(c)).getBool();
            assertEquals(e != null, failed, "conn " + c + " failed; golden " + e + " seed=" + tb.seed());
            if (e != null) {
                assertEquals(e.code().code(), tb.signal(dut.io.errorCode.apply(c)).get(), "conn " + c + " code");
                assertEquals(e.fpduSeq(), tb.signal(dut.io.errorSeq.apply(c)).get(), "conn " + c + " FPDU seq");
            }
        }
    }

    static long octetsOf(Plan[] plans) {
        long s = 0;
        for (Plan p : plans) {
            for (Part part : p.parts()) {
                s += part.data().length;
            }
        }
        return s;
    }

    /** Runs one plan per connection at once and checks every connection against its golden receiver. */
    static long runPlans(Tb<MpaRxShared> tb, Plan[] plans, Random rng) {
        Rig rig = new Rig(tb, rng, Pacer.randomMix(rng), false);
        long total = 0;
        for (int c = 0; c < rig.n; c++) {
            rig.settings(c, plans[c].dir());
            Scoreboard<byte[]> sb = rig.scoreboard(c, "rx");
            plans[c].ulpdus().forEach(sb::expect);
            total += plans[c].ulpdus().size();
        }
        tb.reset(3);
        for (int c = 0; c < rig.n; c++) {
            rig.send(c, plans[c]);
        }
        tb.runUntilIdle(2000L + 12L * octetsOf(plans));
        tb.step(DRAIN);
        for (int c = 0; c < rig.n; c++) {
            rig.checkError(c, plans[c].error());
        }
        return total;
    }

    /**
     * Four (or three) clean connections, one per Markers × CRC setting, interleaved beat by beat at random: every
     * ULPDU of every connection arrives unchanged and in its connection's order, tagged with its connection.
     *
     * <p>Requirements: MPA-10, MPA-13, MPA-16, MPA-19, MPA-20, MPA-23, MPA-24, MPA-25.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {32, 64, 512})
    void interleavedConnectionsDeliverEveryUlpdu(int w) {
        long[] total = {0};
        int[] ns = w == 64 ? new int[] {4, 3} : new int[] {4};
        for (int n : ns) {
            for (int run = 0; run < 3; run++) {
                model(w, n).run("clean-n" + n + "-" + run, 7000L * w + 10L * n + run, tb -> {
                    Random rng = tb.random();
                    Plan[] plans = new Plan[n];
                    for (int c = 0; c < n; c++) {
                        int s = (c + rng.nextInt(4)) & 3;
                        plans[c] = clean(randomDir(rng, (s & 1) != 0, (s & 2) != 0), w == 512 ? 150 : 100, rng);
                    }
                    total[0] += runPlans(tb, plans, rng);
                });
            }
        }
        System.out.printf("[MpaRxShared W=%d] %d ULPDUs checked on interleaved connections%n", w, total[0]);
        assertTrue(total[0] >= 1000, "ULPDUs checked: " + total[0]);
    }

    /**
     * Per connection errors, two connections at a time, every kind in turn: a flipped bit with CRC on (E-M2), a
     * Marker's FPDUPTR off on a CRC-valid FPDU (E-M3), a hole in the TCP sequence (E-M1), a ULPDU_Length above
     * {@link MpaRxConfig#maxUlpdu()} (E-M2 at its header) and the end of the stream (E-M1 at the octet after the last).
     * Each is reported on its own connection with the golden code and FPDU sequence number after every earlier ULPDU of
     * that connection and nothing of it after, while the two clean connections deliver everything.
     *
     * <p>Requirements: MPA-13, MPA-14, MPA-19, MPA-20, MPA-25, MPA-41, MPA-42, MPA-43, MPA-44.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {32, 64, 512})
    void anErrorStaysOnItsConnection(int w) {
        for (int t = 0; t < 2 * KINDS.length; t++) {
            int trial = t;
            model(w, 4).run("errors-" + t, 8000L * w + t, tb -> {
                Random rng = tb.random();
                Plan[] plans = new Plan[4];
                int a = trial % 4;
                int b = (a + 1 + trial / KINDS.length) % 4;
                for (int c = 0; c < 4; c++) {
                    plans[c] = c == a ? faulty(KINDS[trial % KINDS.length], 24, rng)
                            : c == b ? faulty(KINDS[(trial + 3) % KINDS.length], 24, rng)
                            : clean(randomDir(rng, (c & 1) != 0, rng.nextBoolean()), 36, rng);
                }
                runPlans(tb, plans, rng);
                assertTrue(tb.signal(tb.dut().io.failed.apply(a)).getBool(), KINDS[trial % KINDS.length] + " reported");
            });
        }
    }

    /**
     * A connection cleared in the middle of an FPDU while the others keep sending: the ULPDUs it delivered before are a
     * prefix of its golden stream, nothing of it shows after the clear until it starts again, and then, with new
     * Markers/CRC settings and a new {@code seqStart}, it delivers its new stream exactly (its aligner and parser
     * contexts, region, descriptors and error state start afresh). A failed connection is cleared too, and forgets its
     * error. The other connections deliver everything.
     *
     * <p>Requirements: MPA-23, MPA-25, MPA-44; docs/shared-mpa.md §4 (clear on QP reset).
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {32, 64, 512})
    void aClearedConnectionStartsAgainFromANewSeqStart(int w) {
        int n = w == 64 ? 3 : 4;
        for (int t = 0; t < 6; t++) {
            int trial = t;
            model(w, n).run("clear-" + t, 9000L * w + t, tb -> {
                Random rng = tb.random();
                Rig rig = new Rig(tb, rng, Pacer.randomMix(rng), false);
                int x = trial % n;
                Plan[] plans = new Plan[n];
                for (int c = 0; c < n; c++) {
                    plans[c] = c == x && trial % 3 == 2 ? faulty("crc", 16, rng)
                            : clean(randomDir(rng, rng.nextBoolean(), rng.nextBoolean()), c == x ? 16 : 40, rng);
                    rig.settings(c, plans[c].dir());
                }
                for (int c = 0; c < n; c++) {
                    if (c != x) {
                        Scoreboard<byte[]> sb = rig.scoreboard(c, "clear-trial others");
                        plans[c].ulpdus().forEach(sb::expect);
                    }
                }
                List<byte[]> before = new ArrayList<>();
                boolean[] cleared = {false};
                rig.handlers.set(x, u -> {
                    assertFalse(cleared[0], "a ULPDU of the cleared connection after its clear");
                    before.add(u);
                });
                tb.reset(3);
                for (int c = 0; c < n; c++) {
                    if (c != x) {
                        rig.send(c, plans[c]);
                    }
                }
                // Connection x: its stream up to a cut inside an FPDU (or, in trial 2, past its CRC error).
                byte[] old = plans[x].parts().get(0).data();
                int cut = trial % 3 == 2 ? old.length : old.length / 3 + rng.nextInt(old.length / 2);
                rig.src[x].send(plans[x].dir().seqStart(), Arrays.copyOf(old, cut), rig.beats[x]);
                tb.runUntil(() -> rig.src[x].pending() == 0, 50_000L + 20L * cut, "conn " + x + " old stream taken");
                tb.step(rng.nextInt(40));
                SimSignal deliver = tb.signal(tb.dut().io.deliver.apply(x));
                SimSignal clear = tb.signal(tb.dut().io.clear.apply(x));
                SimSignal mid = tb.signal(tb.dut().io.mid.apply(x));
                deliver.set(false);
                tb.step();
                tb.runUntil(() -> !mid.getBool(), 100_000, "conn " + x + " not mid-ULPDU");
                clear.set(true);
                cleared[0] = true;
                Plan fresh = clean(randomDir(rng, rng.nextBoolean(), rng.nextBoolean()), 24, rng);
                rig.settings(x, fresh.dir());
                tb.step(1 + rng.nextInt(4));
                assertFalse(tb.signal(tb.dut().io.failed.apply(x)).getBool(), "a cleared connection forgets its error");
                clear.set(false);
                deliver.set(true);
                // The ULPDUs delivered before the clear are the first ones of the old stream.
                List<byte[]> oldUlpdus = plans[x].ulpdus();
                assertTrue(before.size() <= oldUlpdus.size(), "more ULPDUs than the stream held");
                for (int i = 0; i < before.size(); i++) {
                    assertTrue(Arrays.equals(oldUlpdus.get(i), before.get(i)), "old ULPDU #" + i + " of conn " + x);
                }
                Scoreboard<byte[]> sbx = rig.scoreboard(x, "after clear");
                fresh.ulpdus().forEach(sbx::expect);
                cleared[0] = false;
                rig.send(x, fresh);
                Plan[] all = plans.clone();
                all[x] = fresh;
                tb.runUntilIdle(2000L + 12L * octetsOf(all));
                tb.step(DRAIN);
                for (int c = 0; c < n; c++) {
                    rig.checkError(c, c == x ? null : plans[c].error());
                }
                System.out.printf("[MpaRxShared W=%d n=%d clear %d] conn %d: %d old ULPDUs before the clear, %d new after%n",
                        w, n, trial, x, before.size(), sbx.matched());
            });
        }
    }

    /**
     * The largest ULPDU the store takes ({@link MpaRxConfig#maxUlpdu()}, which sizes each connection's region) still
     * gets through on a connection while the others send, with the output back-pressured: the credit check leaves room
     * for it, so it cannot wedge its connection (and an FPDU of exactly the bound is no error).
     *
     * <p>Requirements: MPA-25, T-10; docs/shared-mpa.md §3.2, §3.3.
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {32, 512})
    void theLargestUlpduGetsThroughBesideOtherConnections(int w) {
        model(w, 4).run("largest", 9700L * w, tb -> {
            Random rng = tb.random();
            Plan[] plans = new Plan[4];
            MpaDirection dir = randomDir(rng, true, true);
            MpaFramer framer = new MpaFramer(dir, 65535);
            List<TcpSegment> segs = new ArrayList<>();
            for (int len : new int[] {MAX_ULPDU, 1 + rng.nextInt(100), MAX_ULPDU, MAX_ULPDU - 1, MAX_ULPDU}) {
                byte[] u = new byte[len];
                rng.nextBytes(u);
                segs.addAll(framer.send(u));
            }
            plans[0] = Plan.of(dir, segs);
            assertEquals(5, plans[0].ulpdus().size());
            for (int c = 1; c < 4; c++) {
                plans[c] = clean(randomDir(rng, rng.nextBoolean(), rng.nextBoolean()), 30, rng);
            }
            runPlans(tb, plans, rng);
        });
    }

    /**
     * Flow control per connection: with the output stalled, connection 0 sends far more than its store region holds, so
     * its port is held; connection 1 then sends a stream that fits its own region and every beat of it is still taken
     * at once (connection 0's full region holds neither connection 1's port nor the store's writer). When the output
     * runs again both deliver everything in order.
     *
     * <p>Requirements: MPA-25 (ULPDUs held until validated, in a bounded store); docs/shared-mpa.md §3.3.
     */
    @org.junit.jupiter.api.Test
    void aFullRegionHoldsOnlyItsOwnPort() {
        model(64, 4).run("full-region", 9600L, tb -> {
            Random rng = tb.random();
            boolean[] open = {false};
            Rig rig = new Rig(tb, rng, () -> open[0], false);
            Plan[] plans = new Plan[4];
            plans[0] = clean(randomDir(rng, true, true), 60, rng);
            MpaDirection d1 = randomDir(rng, false, true);
            plans[1] = Plan.of(d1, MpaRxDeframerTest.Traffic.random(d1, 536, 4, rng).segments()); // idle: 2, 3
            plans[2] = Plan.of(randomDir(rng, false, false), List.of());
            plans[3] = Plan.of(randomDir(rng, true, false), List.of());
            for (int c = 0; c < 4; c++) {
                rig.settings(c, plans[c].dir());
                Scoreboard<byte[]> sb = rig.scoreboard(c, "full-region");
                plans[c].ulpdus().forEach(sb::expect);
            }
            tb.reset(3);
            rig.send(0, plans[0]);
            long[] last = {-1, 0};
            tb.runUntil(() -> {
                if (rig.src[0].sent() != last[0]) {
                    last[0] = rig.src[0].sent();
                    last[1] = tb.cycle();
                }
                return tb.cycle() - last[1] > 200;
            }, 200_000, "connection 0's port to be held");
            assertTrue(rig.src[0].pending() > 0, "connection 0 sent more than its region holds and is held");
            long held = rig.src[0].sent();
            rig.send(1, plans[1]);
            long t = tb.runUntil(() -> rig.src[1].pending() == 0, 5_000, "connection 1's beats taken while 0 is held");
            assertEquals(held, rig.src[0].sent(), "connection 0 stays held");
            System.out.printf("[MpaRxShared W=64] connection 0 held after %d beats; connection 1's %d octets taken in %d"
                    + " cycles meanwhile%n", held, plans[1].parts().get(0).data().length, t);
            open[0] = true;
            tb.runUntilIdle(1_000_000);
            tb.step(DRAIN);
            for (int c = 0; c < 4; c++) {
                rig.checkError(c, null);
            }
        });
    }

    /**
     * One beat per cycle across all connections: four connections sending full beats back to back, the output always
     * ready; the aligner takes at least 0.95 beat per cycle from first to last beat; the same with beats re-cut at
     * random (every port still offering a beat in every cycle), and for one connection alone.
     *
     * <p>Requirements: MPA-23; docs/shared-mpa.md §2.2 (aggregate rate).
     */
    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void takesOneBeatPerCycleAcrossConnections(int w) {
        for (int recut = 0; recut < 3; recut++) {
            boolean full = recut == 0;
            int senders = recut == 2 ? 1 : 4; // the last: one connection alone, for comparison
            model(w, 4).run("rate-" + recut, 9500L * w + recut, tb -> {
                Random rng = tb.random();
                Rig rig = new Rig(tb, rng, Pacer.always(), full, true);
                Plan[] plans = new Plan[4];
                long beats = 0;
                for (int c = 0; c < 4; c++) {
                    plans[c] = c < senders ? clean(randomDir(rng, (c & 1) != 0, (c & 2) != 0), 40, rng)
                            : Plan.of(randomDir(rng, false, false), List.of());
                    rig.settings(c, plans[c].dir());
                    Scoreboard<byte[]> sb = rig.scoreboard(c, "rate");
                    plans[c].ulpdus().forEach(sb::expect);
                }
                tb.reset(3);
                for (int c = 0; c < 4; c++) {
                    rig.send(c, plans[c]);
                }
                long queued = 0;
                for (int c = 0; c < 4; c++) {
                    queued += rig.src[c].pending();
                }
                beats = queued;
                long start = tb.cycle();
                tb.runUntil(() -> {
                    for (TcpPayloadSource s : rig.src) {
                        if (s.pending() != 0) {
                            return false;
                        }
                    }
                    return true;
                }, 100L * beats, "every beat taken");
                long cycles = tb.cycle() - start;
                tb.runUntilIdle(100_000);
                double rate = (double) beats / cycles;
                System.out.printf("[MpaRxShared W=%d n=4, %d sending, %s beats] %d beats in %d cycles: %.3f beat/cycle%n",
                        w, senders, full ? "full" : "re-cut", beats, cycles, rate);
                assertTrue(rate >= 0.95, "aggregate rate " + rate);
            });
        }
    }
}
