package rnic.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import rnic.hw.mpa.MpaRxDeframer;
import rnic.hw.mpa.MpaTxFramer;
import rnic.hw.mpa.UlpduBeat;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.sim.AxisSink;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.StreamSource;
import rnic.sim.TcpPayloadSource;

/**
 * {@code ./rnic bench mpa}: MPA data-path throughput in bytes per clock cycle, measured in simulation cycles (not
 * wall time), with Markers and CRC on, both sides at full rate, every segment checked against the golden model.
 *
 * <p>For the transmitter it reports ULPDU octets per cycle (what DDP can push) and wire octets per cycle (what goes to
 * TCP, including ULPDU_Length, PAD, CRC and Markers), each also as a fraction of the W/8 octets a beat carries. For the
 * receiver, the same two figures the other way round: wire octets per cycle taken from TCP (the golden framer's stream
 * in full beats, back to back) and ULPDU octets per cycle delivered to DDP, every ULPDU checked.
 */
public final class MpaBench {
    private MpaBench() {
    }

    /** One measurement (TX or RX). */
    record Figure(int width, int ulpduSize, long ulpdus, long ulpduOctets, long wireOctets, long cycles) {
        double ulpduPerCycle() {
            return (double) ulpduOctets / cycles;
        }

        double wirePerCycle() {
            return (double) wireOctets / cycles;
        }
    }

    public static void main(String[] args) {
        List<Figure> tx = new ArrayList<>();
        List<Figure> rx = new ArrayList<>();
        for (int w : new int[] {64, 512}) {
            for (int size : new int[] {64, 1500}) {
                tx.add(measureTx(w, size, 400_000));
                rx.add(measureRx(w, size, 400_000));
            }
        }
        print("MPA transmitter (MpaTxFramer)", tx, false);
        print("MPA receiver (MpaRxDeframer)", rx, true);
    }

    /** One table: octets per cycle on the input side first (ULPDU for TX, wire for RX), then the output side. */
    static void print(String title, List<Figure> figures, boolean wireFirst) {
        System.out.println();
        System.out.println(title + ", Markers and CRC on, EMSS 9000, full rate, cycles counted in simulation");
        System.out.printf(Locale.ROOT, "%4s %7s %8s %12s %12s %10s %12s %10s%n", "W", "ULPDU", "FPDUs", "cycles",
                wireFirst ? "wire B/cyc" : "ULPDU B/cyc", "of W/8", wireFirst ? "ULPDU B/cyc" : "wire B/cyc",
                "of W/8");
        for (Figure f : figures) {
            double beat = f.width / 8.0;
            double first = wireFirst ? f.wirePerCycle() : f.ulpduPerCycle();
            double second = wireFirst ? f.ulpduPerCycle() : f.wirePerCycle();
            System.out.printf(Locale.ROOT, "%4d %7d %8d %12d %12.2f %10.3f %12.2f %10.3f%n", f.width, f.ulpduSize,
                    f.ulpdus, f.cycles, first, first / beat, second, second / beat);
        }
    }

    /**
     * Receives the golden framer's stream of {@code ulpduSize}-octet ULPDUs (about {@code targetCycles} cycles of it)
     * in full beats, back to back, and counts the cycles until the last ULPDU is out.
     */
    static Figure measureRx(int w, int ulpduSize, long targetCycles) {
        int octets = w / 8;
        MpaDirection dir = new MpaDirection(true, true, 0xFFFF_F000L);
        MpaFramer golden = new MpaFramer(dir, 9000);
        Random rng = new Random(ulpduSize);
        java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
        List<byte[]> sent = new ArrayList<>();
        while (stream.size() < targetCycles * octets) {
            byte[] u = new byte[ulpduSize];
            rng.nextBytes(u);
            sent.add(u);
            golden.send(u).forEach(seg -> stream.writeBytes(seg.payload()));
        }
        byte[] bytes = stream.toByteArray();
        long[] cycles = {0};
        SimModel<MpaRxDeframer> model = SimModel.of("MpaRxDeframer-w" + w, () -> new MpaRxDeframer(w));
        model.run("bench-rx-" + ulpduSize, 1, tb -> {
            MpaRxDeframer dut = tb.dut();
            tb.signal(dut.io.markers).set(true);
            tb.signal(dut.io.crc).set(true);
            tb.signal(dut.io.seqStart).set(dir.seqStart());
            Scoreboard<byte[]> sb = tb.add(new Scoreboard<>("bench rx", java.util.Arrays::equals,
                    b -> b.length + " octets"));
            TcpPayloadSource src = TcpPayloadSource.on(tb, dut.io.tcp, Pacer.always());
            AxisSink.on(tb, dut.io.ulpdu, Pacer.always(), sb::actual);
            tb.reset(3);
            sent.forEach(sb::expect);
            src.send(dir.seqStart(), bytes, () -> octets);
            long start = tb.cycle();
            tb.runUntilIdle(100L * targetCycles);
            cycles[0] = tb.cycle() - start;
            if (tb.signal(dut.io.failed).getBool()) {
                throw new AssertionError("the receiver reported MPA error " + tb.signal(dut.io.errorCode).get());
            }
        });
        return new Figure(w, ulpduSize, sent.size(), (long) sent.size() * ulpduSize, bytes.length, cycles[0]);
    }

    /** Streams {@code ulpduSize}-octet ULPDUs for about {@code targetCycles} cycles and counts. */
    static Figure measureTx(int w, int ulpduSize, long targetCycles) {
        int octets = w / 8;
        int beatsPerUlpdu = (ulpduSize + octets - 1) / octets;
        int count = (int) Math.max(100, targetCycles / beatsPerUlpdu);
        long[] result = new long[3];
        SimModel<MpaTxFramer> model = SimModel.of("MpaTxFramer-w" + w, () -> new MpaTxFramer(w));
        model.run("bench-tx-" + ulpduSize, 1, tb -> {
            MpaTxFramer dut = tb.dut();
            tb.signal(dut.io.markers).set(true);
            tb.signal(dut.io.crc).set(true);
            tb.signal(dut.io.emss).set(9000);
            MpaFramer golden = new MpaFramer(new MpaDirection(true, true, 0), 9000);
            Scoreboard<byte[]> sb = tb.add(new Scoreboard<>("bench tx", java.util.Arrays::equals,
                    b -> b.length + " octets"));
            UlpduBeat p = dut.io.ulpdu.payload();
            SimSignal data = tb.signal(p.data);
            SimSignal length = tb.signal(p.length);
            StreamSource<int[]> src = tb.add(new StreamSource<>(tb.signal(dut.io.ulpdu.valid()),
                    tb.signal(dut.io.ulpdu.ready()), beat -> {
                        // beat = {ulpdu index, offset}
                        data.setOctets(BUFFERS[beat[0] & 7], beat[1], Math.min(octets, ulpduSize - beat[1]));
                        length.set(ulpduSize);
                    }, Pacer.always()));
            long[] wire = {0};
            AxisSink.on(tb, dut.io.tcp, Pacer.always(), b -> {
                wire[0] += b.length;
                sb.actual(b);
            });
            tb.reset(3);
            Random rng = new Random(ulpduSize);
            for (int i = 0; i < BUFFERS.length; i++) {
                BUFFERS[i] = new byte[65536];
                rng.nextBytes(BUFFERS[i]);
            }
            for (int i = 0; i < count; i++) {
                byte[] u = java.util.Arrays.copyOf(BUFFERS[i & 7], ulpduSize);
                for (int off = 0; off < ulpduSize; off += octets) {
                    src.push(new int[] {i, off});
                }
                for (TcpSegment s : golden.send(u)) {
                    sb.expect(s.payload());
                }
            }
            long start = tb.cycle();
            tb.runUntilIdle(100L * targetCycles);
            result[0] = tb.cycle() - start;
            result[1] = wire[0];
            result[2] = sb.matched();
        });
        return new Figure(w, ulpduSize, count, (long) count * ulpduSize, result[1], result[0]);
    }

    private static final byte[][] BUFFERS = new byte[8][];
}
