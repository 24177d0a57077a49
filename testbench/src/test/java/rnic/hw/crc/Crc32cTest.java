package rnic.hw.crc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import rnic.sim.AxisSource;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimModel;
import rnic.sim.StreamSink;
import rnic.sim.Tb;

/**
 * Verilator testbench of {@link Crc32c} at every supported width, against {@link java.util.zip.CRC32C} and the CRC
 * vectors of docs/requirements.md §4 (RFC 5044 Figs. 5 and 6, RFC 3720 B.4, the catalogue check value, the derived Marker
 * edge cases of §4.4) and the golden FPDUs of §2.10.
 *
 * <p>Requirements: MPA-19/MPA-20 (CRC32c over the FPDU, computed as iSCSI does; docs/requirements.md §4.1 coverage and wire
 * order), exercised here at the CRC-engine level; the MPA framer tests cover the FPDU span itself.
 */
class Crc32cTest {
    static final int RANDOM_MESSAGES = 10_000;
    static final int MAX_MESSAGE = 9000;

    static List<Integer> widths() {
        return Crc32cConfig.WIDTHS;
    }

    static SimModel<Crc32c> model(int w) {
        return SimModel.of("Crc32c-w" + w, () -> new Crc32c(new Crc32cConfig(w)));
    }

    /** A named message and the CRC value the reference document gives for it. */
    record Vector(String name, byte[] data, long crc) {
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replaceAll("[^0-9a-fA-F]", ""));
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int off = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, off, p.length);
            off += p.length;
        }
        return out;
    }

    /** The wire CRC octets (least significant first, docs/requirements.md §4.1) as the CRC value. */
    private static long wire(String octets) {
        byte[] b = hex(octets);
        return (b[0] & 0xFFL) | (b[1] & 0xFFL) << 8 | (b[2] & 0xFFL) << 16 | (b[3] & 0xFFL) << 24;
    }

    /** A golden FPDU of docs/requirements.md §2.10: the CRC covers every octet but the last four, which carry it. */
    private static Vector golden(String name, String dump) {
        StringBuilder sb = new StringBuilder();
        for (String line : dump.strip().split("\n")) {
            sb.append(line.substring(line.indexOf(':') + 1));
        }
        byte[] fpdu = hex(sb.toString());
        byte[] covered = java.util.Arrays.copyOf(fpdu, fpdu.length - 4);
        long crc = (fpdu[fpdu.length - 4] & 0xFFL) | (fpdu[fpdu.length - 3] & 0xFFL) << 8
                | (fpdu[fpdu.length - 2] & 0xFFL) << 16 | (fpdu[fpdu.length - 1] & 0xFFL) << 24;
        return new Vector(name, covered, crc);
    }

    static List<Vector> conformanceVectors() {
        byte[] sendHdrMsn1 = hex("41 43 00000000 00000000 00000001 00000000");
        byte[] sendHdrMsn2 = hex("41 43 00000000 00000000 00000002 00000000");
        byte[] inc = new byte[32];
        byte[] dec = new byte[32];
        byte[] ones = new byte[32];
        for (int i = 0; i < 32; i++) {
            inc[i] = (byte) i;
            dec[i] = (byte) (31 - i);
            ones[i] = (byte) 0xFF;
        }
        List<Vector> v = new ArrayList<>();
        // §4.2, RFC 5044 Fig. 5: leading Marker, ULPDU_Length 0x2a, Send header, 24 zero octets.
        v.add(new Vector("RFC5044 Fig.5", concat(hex("00000000 002a"), sendHdrMsn1, new byte[24]), wire("52 23 99 83")));
        // §4.2, Fig. 6: header at 0x1EC, Marker 0x00000014 at 0x200, then 24 zero octets.
        v.add(new Vector("RFC5044 Fig.6", concat(hex("002a 41 43 00000000 00000000 00000002 00000000"),
                hex("00000014"), new byte[24]), wire("84 92 58 98")));
        // §4.3, RFC 3720 B.4 and the catalogue check value.
        v.add(new Vector("32 x 00", new byte[32], wire("aa 36 91 8a")));
        v.add(new Vector("32 x FF", ones, wire("43 ab a8 62")));
        v.add(new Vector("00..1F", inc, wire("4e 79 dd 46")));
        v.add(new Vector("1F..00", dec, wire("5c db 3f 11")));
        v.add(new Vector("iSCSI Read(10)", hex("01 c0 00 00 00 00 00 00 00 00 00 00 00 00 00 00 14 00 00 00 00 00"
                + " 04 00 00 00 00 14 00 00 00 18 28 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00"), wire("56 3a 96 d9")));
        v.add(new Vector("123456789", "123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0xE3069283L));
        // §4.4: Marker just before the CRC (L = 506 Send MSN 1, 488 zero octets, Marker 0x000001fc at 0x200).
        v.add(new Vector("Marker before CRC", concat(hex("00000000 01fa"), sendHdrMsn1, new byte[488],
                hex("000001fc")), wire("38 cf 64 e8")));
        // §4.4: Marker exactly between FPDUs: FPDU#1 L = 502, FPDU#2 (Send MSN 2, 8 zero octets) after Marker(0).
        v.add(new Vector("FPDU#1 before Marker", concat(hex("00000000 01f6"), sendHdrMsn1, new byte[484]),
                wire("a0 9b b5 5b")));
        v.add(new Vector("FPDU#2 after Marker", concat(hex("00000000 001a"), sendHdrMsn2, new byte[8]),
                wire("df a0 b0 e5")));
        // §2.10 golden FPDUs (no Markers).
        v.add(golden("Golden RDMA Write", """
                0000: 00 12 c1 40 00 00 12 34 00 00 00 00 00 00 10 00
                0010: de ad be ef bd bc 30 f4"""));
        v.add(golden("Golden Read Request", """
                0000: 00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01
                0010: 00 00 00 00 11 11 11 11 00 00 00 00 00 00 20 00
                0020: 00 00 01 00 22 22 22 22 00 00 00 00 00 00 30 00
                0030: d5 2e c5 b9"""));
        v.add(golden("Golden Terminate", """
                0000: 00 2a 41 47 00 00 00 00 00 00 00 02 00 00 00 01
                0010: 00 00 00 00 12 01 c0 00 00 22 41 43 00 00 00 00
                0020: 00 00 00 07 00 00 00 01 00 00 00 00 9c 3a f7 b1"""));
        v.add(golden("Golden Atomic Request", """
                0000: 00 46 41 4a 00 00 00 00 00 00 00 01 00 00 00 01
                0010: 00 00 00 00 00 00 00 00 ca fe 00 01 33 33 33 33
                0020: 00 00 00 00 00 00 40 00 00 00 00 00 00 00 00 01
                0030: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
                0040: ff ff ff ff ff ff ff ff 29 64 f3 c6"""));
        v.add(golden("Golden Atomic Response", """
                0000: 00 1e 41 4b 00 00 00 00 00 00 00 03 00 00 00 01
                0010: 00 00 00 00 ca fe 00 01 00 00 00 00 00 00 00 29
                0020: 33 a0 f5 39"""));
        v.add(golden("Golden Immediate Data", """
                0000: 00 1a 41 48 00 00 00 00 00 00 00 00 00 00 00 01
                0010: 00 00 00 00 01 02 03 04 05 06 07 08 06 c2 28 05"""));
        return v;
    }

    static long crc32c(byte[] data) {
        CRC32C c = new CRC32C();
        c.update(data);
        return c.getValue();
    }

    /** The reference vectors agree with java.util.zip.CRC32C before they are used against the RTL. */
    @org.junit.jupiter.api.Test
    void conformanceVectorsAgreeWithJdkCrc32c() {
        for (Vector v : conformanceVectors()) {
            assertEquals(v.crc, crc32c(v.data), v.name);
        }
    }

    /** docs/requirements.md §4.2–§4.4 and §2.10 vectors through the RTL, back to back, full rate (MPA-19, MPA-20). */
    @ParameterizedTest(name = "W={0}")
    @MethodSource("widths")
    void conformanceVectors(int w) {
        model(w).run("vectors", 1, tb -> {
            Bench b = bench(tb, "crc W=" + w, Pacer.always(), Pacer.always());
            AxisSource src = b.src;
            Scoreboard<Long> sb = b.sb;
            for (Vector v : conformanceVectors()) {
                src.send(v.data);
                sb.expect(v.crc);
            }
            tb.runUntilIdle(100_000);
            assertEquals(conformanceVectors().size(), sb.matched());
        });
    }

    /**
     * ≥ 10 000 random messages of 1 … 9000 octets per width against {@link CRC32C}, in four runs with different idle
     * and back-pressure patterns (full rate, coin flips, bursts, mixed), sizes drawn from edge sizes around the bus
     * width, Ethernet/jumbo sizes and the uniform range.
     */
    @ParameterizedTest(name = "W={0}")
    @MethodSource("widths")
    void randomMessagesWithIdleAndBackPressure(int w) {
        int runs = 4;
        long total = 0;
        for (int run = 0; run < runs; run++) {
            long seed = 0xC0FFEEL * (w + 1) + run;
            int messages = RANDOM_MESSAGES / runs;
            int runIndex = run;
            long[] checked = {0};
            model(w).run("random" + run, seed, tb -> {
                Random rng = tb.random();
                Pacer in = runIndex == 0 ? Pacer.always() : Pacer.randomMix(rng);
                Pacer out = runIndex == 0 ? Pacer.always() : Pacer.randomMix(rng);
                Bench b = bench(tb, "crc W=" + w + " seed=" + seed, in, out);
                AxisSource src = b.src;
                Scoreboard<Long> sb = b.sb;
                int octets = w / 8;
                for (int i = 0; i < messages; i++) {
                    byte[] m = new byte[size(rng, octets)];
                    rng.nextBytes(m);
                    src.send(m);
                    sb.expect(crc32c(m));
                }
                tb.runUntilIdle(400_000_000L);
                checked[0] = sb.matched();
            });
            total += checked[0];
        }
        assertTrue(total >= RANDOM_MESSAGES, "checked " + total);
    }

    /** Back-to-back messages at full rate: one beat per cycle, no bubble between messages. */
    @ParameterizedTest(name = "W={0}")
    @MethodSource("widths")
    void acceptsOneBeatPerCycle(int w) {
        model(w).run("throughput", 7, tb -> {
            Bench b = bench(tb, "crc", Pacer.always(), Pacer.always());
            AxisSource src = b.src;
            Scoreboard<Long> sb = b.sb;
            Random rng = tb.random();
            long beats = 0;
            for (int i = 0; i < 200; i++) {
                byte[] m = new byte[1 + rng.nextInt(20 * (w / 8))];
                rng.nextBytes(m);
                src.send(m);
                sb.expect(crc32c(m));
                beats += (m.length + w / 8 - 1) / (w / 8);
            }
            long start = tb.cycle();
            tb.runUntil(() -> !src.busy(), 10 * beats, "all beats accepted");
            long cycles = tb.cycle() - start;
            // One cycle to present the first beat, then one beat per cycle.
            assertEquals(beats + 1, cycles, "cycles to accept " + beats + " beats");
            tb.runUntilIdle(100);
        });
    }

    /** A message whose last beat has no valid octet (tkeep = 0) is the empty message: CRC32C of nothing is 0. */
    @ParameterizedTest(name = "W={0}")
    @MethodSource("widths")
    void emptyLastBeat(int w) {
        model(w).run("empty", 3, tb -> {
            Bench b = bench(tb, "crc", Pacer.always(), Pacer.always());
            AxisSource src = b.src;
            Scoreboard<Long> sb = b.sb;
            src.send(new byte[0]);
            sb.expect(0L);
            src.send("123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            sb.expect(0xE3069283L);
            tb.runUntilIdle(1000);
        });
    }

    private static int size(Random rng, int octets) {
        int pick = rng.nextInt(10);
        if (pick < 3) {
            return 1 + rng.nextInt(4 * octets + 1);
        }
        if (pick < 5) {
            int[] edges = {1, 2, 3, 4, 5, octets - 1, octets, octets + 1, 2 * octets - 1, 2 * octets,
                    511, 512, 513, 1500, 1514, 8999, 9000};
            return Math.max(1, edges[rng.nextInt(edges.length)]);
        }
        return 1 + rng.nextInt(MAX_MESSAGE);
    }

    /** A message source on s_axis, a result sink on m_axis feeding a scoreboard; the design out of reset. */
    record Bench(AxisSource src, Scoreboard<Long> sb) {
    }

    static Bench bench(Tb<Crc32c> tb, String name, Pacer in, Pacer out) {
        Scoreboard<Long> sb = tb.add(new Scoreboard<>(name));
        AxisSource src = tb.add(AxisSource.on(tb, tb.dut().io.sAxis, in));
        var m = tb.dut().io.mAxis;
        var data = tb.signal((spinal.core.BaseType) m.payload());
        tb.add(new StreamSink<Long>("m_axis", tb.signal(m.valid()), tb.signal(m.ready()), data::get, out,
                sb::actual));
        tb.reset(4);
        return new Bench(src, sb);
    }
}
