package rnic.hw.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import rnic.model.mpa.Mpa;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.sim.AxisSink;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.StreamSource;
import rnic.sim.Tb;

/**
 * {@link MpaTxFramer} against the golden model {@link MpaFramer}, octet for octet and segment for segment, at
 * W = 32 … 512 with Markers off/on × CRC off/on: ≥ 20 000 random ULPDUs of 1 … MULPDU octets per width and setting,
 * over EMSS 256 … 9000, with idle on the ULPDU side and back-pressure on the TCP side; the model's stream starts near
 * 2^32 so its sequence numbers wrap. The reported MULPDU is checked against the model for every EMSS used and a sweep.
 *
 * <p>Requirements: MPA-01, MPA-02, MPA-07, MPA-08, MPA-11, MPA-12, MPA-13, MPA-15, MPA-19, MPA-21, MPA-22, MPA-37.
 */
class MpaTxFramerTest {
    static final int ULPDUS = 20_000;

    static List<Integer> widths() {
        return List.of(32, 64, 128, 256, 512);
    }

    static SimModel<MpaTxFramer> model(int w) {
        return SimModel.of("MpaTxFramer-w" + w, () -> new MpaTxFramer(w));
    }

    /** A ULPDU source: beats of {@code octets} with the length on each. */
    static StreamSource<byte[][]> ulpduSource(Tb<MpaTxFramer> tb, Pacer pacer) {
        UlpduBeat p = tb.dut().io.ulpdu.payload();
        SimSignal data = tb.signal(p.data);
        SimSignal length = tb.signal(p.length);
        return tb.add(new StreamSource<>(tb.signal(tb.dut().io.ulpdu.valid()), tb.signal(tb.dut().io.ulpdu.ready()),
                beat -> {
                    // beat[0] = the ULPDU, beat[1][0..3] = offset of this beat (big-endian int)
                    byte[] u = beat[0];
                    int off = ((beat[1][0] & 0xFF) << 24) | ((beat[1][1] & 0xFF) << 16)
                            | ((beat[1][2] & 0xFF) << 8) | (beat[1][3] & 0xFF);
                    int n = Math.min(data.width() / 8, u.length - off);
                    data.setOctets(u, off, n);
                    length.set(u.length);
                }, pacer));
    }

    static void sendUlpdu(StreamSource<byte[][]> src, byte[] u, int octets) {
        for (int off = 0; off < u.length; off += octets) {
            src.push(new byte[][] {u, new byte[] {(byte) (off >>> 24), (byte) (off >>> 16), (byte) (off >>> 8),
                (byte) off}});
        }
    }

    @ParameterizedTest(name = "W={0}")
    @MethodSource("widths")
    void matchesTheGoldenModelForEveryMarkerAndCrcSetting(int w) {
        int[][] runs = {{1460, 6000}, {-1, 6000}, {536, 6000}, {9000, 2000}}; // {EMSS (-1: random), ULPDUs}
        for (int cfg = 0; cfg < 4; cfg++) {
            boolean markers = (cfg & 1) != 0;
            boolean crc = (cfg & 2) != 0;
            long total = 0;
            for (int r = 0; r < runs.length; r++) {
                long seed = 31L * w + 7L * cfg + r;
                int[] run = runs[r];
                int runIndex = r;
                long[] done = {0};
                model(w).run("tx-m" + (markers ? 1 : 0) + "c" + (crc ? 1 : 0) + "-" + r, seed, tb -> {
                    Random rng = tb.random();
                    int emss = run[0] > 0 ? run[0] : 256 + rng.nextInt(2048 - 256);
                    long seqStart = 0xFFFF_FFFFL - rng.nextInt(200_000);
                    MpaFramer golden = new MpaFramer(new MpaDirection(markers, crc, seqStart), emss);
                    tb.signal(tb.dut().io.markers).set(markers);
                    tb.signal(tb.dut().io.crc).set(crc);
                    tb.signal(tb.dut().io.emss).set(emss);
                    Scoreboard<byte[]> sb = tb.add(new Scoreboard<byte[]>("tx W=" + w + " markers=" + markers
                            + " crc=" + crc + " emss=" + emss + " seed=" + seed, java.util.Arrays::equals,
                            b -> b.length + " octets " + HexFormat.of().formatHex(b, 0, Math.min(b.length, 48))));
                    Pacer in = runIndex == 0 ? Pacer.always() : Pacer.randomMix(rng);
                    Pacer out = runIndex == 0 ? Pacer.always() : Pacer.randomMix(rng);
                    StreamSource<byte[][]> src = ulpduSource(tb, in);
                    AxisSink.on(tb, tb.dut().io.tcp, out, sb::actual);
                    tb.reset(3);
                    assertEquals(golden.mulpdu(), tb.signal(tb.dut().io.mulpdu).get(), "MULPDU for EMSS " + emss);
                    for (int i = 0; i < run[1]; i++) {
                        byte[] u = new byte[1 + rng.nextInt(golden.mulpdu())];
                        rng.nextBytes(u);
                        sendUlpdu(src, u, w / 8);
                        for (TcpSegment s : golden.send(u)) {
                            assertTrue(s.payload().length <= emss);
                            sb.expect(s.payload());
                        }
                    }
                    tb.runUntilIdle(200_000_000L);
                    done[0] = sb.matched();
                });
                total += done[0];
            }
            assertTrue(total >= ULPDUS, "segments checked: " + total);
        }
    }

    /**
     * The MULPDU output against the model over an EMSS sweep, Markers on and off (MPA-02, MPA-21, §2.3.4). The logic is
     * independent of the data width, so one width is checked.
     */
    @org.junit.jupiter.api.Test
    void reportsMulpdu() {
        model(64).run("mulpdu", 1, tb -> {
            SimSignal emss = tb.signal(tb.dut().io.emss);
            SimSignal markers = tb.signal(tb.dut().io.markers);
            SimSignal mulpdu = tb.signal(tb.dut().io.mulpdu);
            for (int m = 0; m < 2; m++) {
                markers.set(m == 1);
                for (int e = 1; e <= 65535; e += (e < 2000 ? 1 : 97)) {
                    emss.set(e);
                    tb.step(3); // three register stages (Marker count, subtract, bounds): timing on iCE40
                    assertEquals(Mpa.mulpdu(e, m == 1), mulpdu.get(), "EMSS " + e + " markers " + (m == 1));
                }
            }
        });
    }
}
