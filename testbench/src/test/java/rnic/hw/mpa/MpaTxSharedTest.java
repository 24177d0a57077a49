package rnic.hw.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.model.mpa.Mpa;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.sim.AxisSink;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.StreamSink;
import rnic.sim.StreamSource;
import rnic.sim.Tb;

/**
 * {@link MpaTxShared} with 4 connections against one golden {@link MpaFramer} per connection, octet for octet and
 * segment for segment on each connection's port, at W = 32, 64 and 512. Connection k frames with Markers = bit 0 of
 * k and CRC = bit 1 (every combination at once) and its own EMSS; ULPDUs of 1 … MULPDU octets go to random
 * connections one after another, with idle on the input and independent back-pressure on every port, so each
 * connection's Marker grid must continue across the other connections' FPDUs (MPA-11, MPA-12, MPA-13).
 *
 * <p>Then a restart: connection 1's port stops taking beats while three of its FPDUs are inside the framer; its
 * {@code clear} is held until the input has drained, and none of those FPDUs reaches its port; afterwards connection 1
 * frames from the start of a new Marker grid (a fresh golden framer) while the others carry on unchanged.
 *
 * <p>Requirements: MPA-01, MPA-02, MPA-07, MPA-08, MPA-11, MPA-12, MPA-13, MPA-15, MPA-19, MPA-21, MPA-37.
 */
class MpaTxSharedTest {
    static final int N = 4;

    static SimModel<MpaTxShared> model(int w) {
        return SimModel.of("MpaTxShared-w" + w + "-n" + N, () -> new MpaTxShared(w, N));
    }

    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {32, 64, 512})
    void everyConnectionMatchesItsGoldenFramer(int w) {
        model(w).run("shared", 41L * w, tb -> {
            Random rng = tb.random();
            MpaTxShared.Io io = tb.dut().io;
            int[] emss = {1460, 256 + rng.nextInt(1800), 9000, 536};
            MpaFramer[] golden = new MpaFramer[N];
            List<Scoreboard<byte[]>> sbs = new ArrayList<>();
            boolean[] open = new boolean[N];
            List<StreamSink<?>> sinks = new ArrayList<>();
            SimSignal[] clear = new SimSignal[N];
            boolean[] clearWanted = new boolean[N];
            for (int k = 0; k < N; k++) {
                boolean markers = (k & 1) != 0;
                boolean crc = (k & 2) != 0;
                golden[k] = new MpaFramer(new MpaDirection(markers, crc, rng.nextInt() & 0xFFFF_FFFFL), emss[k]);
                tb.signal(io.markers.apply(k)).set(markers);
                tb.signal(io.crc.apply(k)).set(crc);
                tb.signal(io.emss.apply(k)).set(emss[k]);
                clear[k] = tb.signal(io.clear.apply(k));
                clear[k].set(false);
                int kk = k;
                Scoreboard<byte[]> sb = tb.add(new Scoreboard<byte[]>("connection " + k + " W=" + w,
                        java.util.Arrays::equals, b -> b.length + " octets "
                                + HexFormat.of().formatHex(b, 0, Math.min(b.length, 48))));
                sbs.add(sb);
                open[k] = true;
                Pacer paced = Pacer.randomMix(new Random(rng.nextLong()));
                sinks.add(AxisSink.on(tb, io.tcp.get(k), () -> open[kk] && paced.allow(), sb::actual));
            }
            // clear changes in a drive step like every other input (the model settles before the next edge).
            tb.add(new rnic.sim.Agent() {
                @Override
                public void sample() {
                }

                @Override
                public void drive() {
                    for (int k = 0; k < N; k++) {
                        clear[k].set(clearWanted[k]);
                    }
                }
            });
            UlpduBeat p = io.ulpdu.payload();
            SimSignal data = tb.signal(p.data);
            SimSignal length = tb.signal(p.length);
            SimSignal conn = tb.signal(io.conn);
            StreamSource<int[]> src = tb.add(new StreamSource<>(tb.signal(io.ulpdu.valid()),
                    tb.signal(io.ulpdu.ready()), beat -> {
                        // {ULPDU index, offset, connection}
                        byte[] u = ulpdus.get(beat[0]);
                        data.setOctets(u, beat[1], Math.min(w / 8, u.length - beat[1]));
                        length.set(u.length);
                        conn.set(beat[2]);
                    }, Pacer.randomMix(new Random(rng.nextLong()))));
            tb.reset(3);
            for (int k = 0; k < N; k++) {
                assertEquals(Mpa.mulpdu(emss[k], (k & 1) != 0), tb.signal(io.mulpdu.apply(k)).get(),
                        "connection " + k + " MULPDU");
            }

            // Phase 1: random connections, random sizes.
            int count = w == 512 ? 3000 : 2000;
            for (int i = 0; i < count; i++) {
                int k = rng.nextInt(N);
                byte[] u = new byte[1 + rng.nextInt(rng.nextInt(8) == 0 ? golden[k].mulpdu() : 200)];
                rng.nextBytes(u);
                send(src, u, k, w, golden[k], sbs.get(k), true);
            }
            tb.runUntil(() -> !src.busy() && src.pending() == 0 && allMatched(sbs), 50_000_000L, "phase 1");
            long phase1 = 0;
            for (Scoreboard<byte[]> sb : sbs) {
                phase1 += sb.matched();
            }

            // Phase 2: connection 1 stalls with three FPDUs inside, is cleared, and starts a new Marker grid.
            open[1] = false;
            tb.step(2); // the sink's ready follows its pacer one cycle later
            long before = sbs.get(1).matched();
            long beatsBefore = sinks.get(1).received();
            for (int i = 0; i < 3; i++) {
                byte[] u = new byte[1 + rng.nextInt(60)];
                rng.nextBytes(u);
                send(src, u, 1, w, golden[1], sbs.get(1), false);
            }
            tb.step(200);
            assertEquals(beatsBefore, sinks.get(1).received(), "nothing taken from a port that takes nothing");
            clearWanted[1] = true;
            tb.step(1); // driven at this step's drive, seen by the sink at the next sample
            sinks.get(1).restart(); // the beat it was showing is withdrawn: the connection restarts
            tb.runUntil(() -> !src.busy() && src.pending() == 0, 10_000, "the stalled FPDUs to drain under clear");
            tb.step(50);
            clearWanted[1] = false;
            tb.step(2);
            open[1] = true;
            golden[1] = new MpaFramer(new MpaDirection(true, false, 0), emss[1]);
            for (int i = 0; i < 400; i++) {
                int k = rng.nextInt(N);
                byte[] u = new byte[1 + rng.nextInt(rng.nextInt(8) == 0 ? golden[k].mulpdu() : 200)];
                rng.nextBytes(u);
                send(src, u, k, w, golden[k], sbs.get(k), true);
            }
            tb.runUntil(() -> !src.busy() && src.pending() == 0 && allMatched(sbs), 50_000_000L, "phase 2");
            tb.step(100);
            assertTrue(sbs.get(1).matched() > before, "connection 1 sends again after its restart");
            assertTrue(phase1 >= count, "FPDUs checked in phase 1: " + phase1);
            System.out.printf("[MpaTxShared W=%d] %d FPDUs on 4 connections, then a restart of connection 1%n", w,
                    phase1);
        });
    }

    private final List<byte[]> ulpdus = new ArrayList<>();

    private void send(StreamSource<int[]> src, byte[] u, int k, int w, MpaFramer golden, Scoreboard<byte[]> sb,
            boolean expect) {
        int index = ulpdus.size();
        ulpdus.add(u);
        for (int off = 0; off < u.length; off += w / 8) {
            src.push(new int[] {index, off, k});
        }
        if (expect) {
            for (TcpSegment s : golden.send(u)) {
                sb.expect(s.payload());
            }
        }
    }

    private static boolean allMatched(List<Scoreboard<byte[]>> sbs) {
        for (Scoreboard<byte[]> sb : sbs) {
            if (sb.pending() != 0) {
                return false;
            }
        }
        return true;
    }
}
