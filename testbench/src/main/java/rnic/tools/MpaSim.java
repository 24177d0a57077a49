package rnic.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import rnic.hw.mpa.MpaRxDeframer;
import rnic.hw.mpa.MpaTxFramer;
import rnic.hw.mpa.UlpduBeat;
import rnic.model.mpa.Mpa;
import rnic.model.mpa.MpaDirection;
import rnic.sim.AxisSink;
import rnic.sim.Pacer;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.StreamSource;
import rnic.sim.TcpPayloadSource;
import rnic.sim.pcap.MpaCapture;

/**
 * {@code ./rnic sim mpa --pcap FILE [--markers none|i2r|r2i|both] [--crc on|off] [--messages N] [--width W]
 * [--emss E] [--seed S]}: an MPA connection whose FPDUs are produced by the {@link MpaTxFramer} RTL in Verilator, in
 * both directions, written as a pcap that Wireshark decodes: Ethernet/IPv4/TCP with correct checksums, the TCP
 * handshake, the MPA Request and Reply, then every FPDU segment exactly as the RTL emitted it, then FIN.
 *
 * <p>Each direction's traffic is a random mix of Sends and RDMA Writes (valid DDP/RDMAP headers). It is looped back
 * through the {@link MpaRxDeframer} RTL — the TX RTL's TCP payload re-cut at random down to 1-octet beats — which must
 * deliver every ULPDU unchanged and in order; the TX RTL's segments are also compared with the golden framer's.
 */
public final class MpaSim {
    private MpaSim() {
    }

    /** Options. */
    public record Options(Path pcap, MpaCapture.Markers markers, boolean crc, int messages, int width, int emss,
            long seed) {
        public static Options defaults() {
            return new Options(Path.of("build/mpa.pcap"), MpaCapture.Markers.BOTH, true, 100, 64, 1460, 1);
        }
    }

    /** What a run produced. */
    public record Summary(int fpdus, long octets, int rtlModelMismatches, int delivered, long cycles) {
    }

    public static void main(String[] args) throws IOException {
        Options o = Options.defaults();
        for (int i = 0; i < args.length; i++) {
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--pcap" -> o = new Options(Path.of(need(v, "--pcap")), o.markers(), o.crc(), o.messages(),
                        o.width(), o.emss(), o.seed());
                case "--markers" -> o = new Options(o.pcap(), markers(need(v, "--markers")), o.crc(), o.messages(),
                        o.width(), o.emss(), o.seed());
                case "--crc" -> o = new Options(o.pcap(), o.markers(), onOff(need(v, "--crc")), o.messages(),
                        o.width(), o.emss(), o.seed());
                case "--messages" -> o = new Options(o.pcap(), o.markers(), o.crc(),
                        Integer.parseInt(need(v, "--messages")), o.width(), o.emss(), o.seed());
                case "--width" -> o = new Options(o.pcap(), o.markers(), o.crc(), o.messages(),
                        Integer.parseInt(need(v, "--width")), o.emss(), o.seed());
                case "--emss" -> o = new Options(o.pcap(), o.markers(), o.crc(), o.messages(), o.width(),
                        Integer.parseInt(need(v, "--emss")), o.seed());
                case "--seed" -> o = new Options(o.pcap(), o.markers(), o.crc(), o.messages(), o.width(), o.emss(),
                        Long.parseLong(need(v, "--seed")));
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + " (usage: sim mpa --pcap FILE [--markers none|i2r|r2i|both] [--crc on|off] [--messages N]"
                        + " [--width W] [--emss E] [--seed S])");
            }
            i++;
        }
        Summary s = run(o);
        System.out.printf("wrote %s: %d FPDUs (%d octets) from the MpaTxFramer RTL, W=%d, markers %s, CRC %s, %d"
                + " simulated cycles%n", o.pcap(), s.fpdus(), s.octets(), o.width(),
                o.markers().name().toLowerCase(), o.crc() ? "on" : "off", s.cycles());
        System.out.printf("receive side (MpaRxDeframer RTL, re-segmented): %d of %d ULPDUs delivered; TX RTL vs"
                + " golden framer: %d"
                + " segment(s) differ%n", s.delivered(), s.fpdus(), s.rtlModelMismatches());
        if (s.rtlModelMismatches() != 0 || s.delivered() != s.fpdus()) {
            System.exit(1);
        }
    }

    /** Runs the simulation and writes the capture. */
    public static Summary run(Options o) throws IOException {
        Map<MpaCapture.Direction, List<byte[]>> ulpdus = traffic(o);
        return run(o, ulpdus);
    }

    /**
     * The ULPDUs each direction sends: {@code o.messages()} random Sends and RDMA Writes (valid DDP/RDMAP headers), the
     * Sends numbered per direction with MSN 1, 2, 3, …
     */
    static Map<MpaCapture.Direction, List<byte[]>> traffic(Options o) {
        Random rng = new Random(o.seed());
        Map<MpaCapture.Direction, List<byte[]>> ulpdus = new EnumMap<>(MpaCapture.Direction.class);
        for (MpaCapture.Direction d : MpaCapture.Direction.values()) {
            boolean marked = d == MpaCapture.Direction.I2R ? o.markers().i2r() : o.markers().r2i();
            int mulpdu = Mpa.mulpdu(o.emss(), marked);
            List<byte[]> list = new ArrayList<>();
            // Untagged MSNs count the Sends of this direction's queue 0 from 1 with no gaps (DDP-20, RFC 5041 §5.1):
            // the RDMA Writes are tagged and take no MSN.
            int msn = 1;
            for (int i = 0; i < o.messages(); i++) {
                // Send headers are 18 octets, Write headers 14; payloads of 16 or more octets keep Wireshark's
                // RPC-over-RDMA heuristic from flagging short Sends as malformed.
                byte[] payload = new byte[16 + rng.nextInt(mulpdu - 18 - 16 + 1)];
                rng.nextBytes(payload);
                list.add(rng.nextBoolean() ? MpaCapture.send(msn++, payload)
                        : MpaCapture.rdmaWrite(0x1000 + i, 0x10000L * i, payload));
            }
            ulpdus.put(d, list);
        }
        return ulpdus;
    }

    private static Summary run(Options o, Map<MpaCapture.Direction, List<byte[]>> ulpdus) throws IOException {
        Map<MpaCapture.Direction, List<byte[]>> rtl = new EnumMap<>(MpaCapture.Direction.class);
        long cycles = 0;
        for (MpaCapture.Direction d : MpaCapture.Direction.values()) {
            boolean marked = d == MpaCapture.Direction.I2R ? o.markers().i2r() : o.markers().r2i();
            List<byte[]> out = new ArrayList<>();
            cycles += transmit(o, marked, ulpdus.get(d), out);
            rtl.put(d, out);
        }

        int[] mismatches = {0};
        if (o.pcap().getParent() != null) {
            Files.createDirectories(o.pcap().getParent());
        }
        MpaCapture.Result result = new MpaCapture().markers(o.markers()).crc(o.crc()).emss(o.emss())
                .i2r(ulpdus.get(MpaCapture.Direction.I2R)).r2i(ulpdus.get(MpaCapture.Direction.R2I))
                .tamper((dir, index, golden) -> {
                    // Every FPDU segment in the capture is the RTL's; the golden framer's is only compared.
                    byte[] mine = rtl.get(dir).get(index);
                    if (!Arrays.equals(mine, golden)) {
                        mismatches[0]++;
                    }
                    return mine.length == golden.length ? mine : golden;
                })
                .write(o.pcap());

        int delivered = 0;
        long octets = 0;
        for (MpaCapture.Direction d : MpaCapture.Direction.values()) {
            MpaDirection dir = d == MpaCapture.Direction.I2R ? result.i2r() : result.r2i();
            for (byte[] seg : rtl.get(d)) {
                octets += seg.length;
            }
            Reception r = receive(o, dir, rtl.get(d), ulpdus.get(d));
            delivered += r.delivered();
            cycles += r.cycles();
        }
        int fpdus = rtl.values().stream().mapToInt(List::size).sum();
        return new Summary(fpdus, octets, mismatches[0], delivered, cycles);
    }

    /** What the receiver RTL did with one direction. */
    private record Reception(int delivered, long cycles) {
    }

    /**
     * Runs the RX RTL on one direction's TCP payload — the TX RTL's segments joined and re-cut at random, down to
     * 1-octet beats, as a re-segmenting middlebox would — and counts the ULPDUs it delivers equal to the ones sent,
     * in order; an MPA error or any other ULPDU stops the count.
     */
    private static Reception receive(Options o, MpaDirection dir, List<byte[]> segments, List<byte[]> sent) {
        int w = o.width();
        java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
        segments.forEach(stream::writeBytes);
        byte[] bytes = stream.toByteArray();
        int[] delivered = {0};
        boolean[] wrong = {false};
        long[] cycles = {0};
        SimModel<MpaRxDeframer> model = SimModel.of("MpaRxDeframer-w" + w, () -> new MpaRxDeframer(w));
        model.run("sim-mpa-rx", o.seed(), tb -> {
            MpaRxDeframer dut = tb.dut();
            tb.signal(dut.io.markers).set(dir.markers());
            tb.signal(dut.io.crc).set(dir.crc());
            tb.signal(dut.io.seqStart).set(dir.seqStart());
            TcpPayloadSource src = TcpPayloadSource.on(tb, dut.io.tcp, Pacer.always());
            AxisSink.on(tb, dut.io.ulpdu, Pacer.always(), u -> {
                if (!wrong[0] && delivered[0] < sent.size() && Arrays.equals(u, sent.get(delivered[0]))) {
                    delivered[0]++;
                } else {
                    wrong[0] = true;
                }
            });
            tb.reset(3);
            src.send(dir.seqStart(), bytes, TcpPayloadSource.resegmenting(tb.random(), w / 8));
            long start = tb.cycle();
            tb.runUntil(() -> delivered[0] == sent.size() || wrong[0] || tb.signal(dut.io.failed).getBool(),
                    100L * bytes.length + 10_000, "every ULPDU from the receiver RTL");
            cycles[0] = tb.cycle() - start;
        });
        return new Reception(wrong[0] ? 0 : delivered[0], cycles[0]);
    }

    /** Runs the TX RTL on one direction's ULPDUs; returns the cycles taken and fills {@code segments}. */
    private static long transmit(Options o, boolean markers, List<byte[]> ulpdus, List<byte[]> segments) {
        int w = o.width();
        int octets = w / 8;
        long[] cycles = {0};
        SimModel<MpaTxFramer> model = SimModel.of("MpaTxFramer-w" + w, () -> new MpaTxFramer(w));
        model.run("sim-mpa", o.seed(), tb -> {
            MpaTxFramer dut = tb.dut();
            tb.signal(dut.io.markers).set(markers);
            tb.signal(dut.io.crc).set(o.crc());
            tb.signal(dut.io.emss).set(o.emss());
            UlpduBeat p = dut.io.ulpdu.payload();
            SimSignal data = tb.signal(p.data);
            SimSignal length = tb.signal(p.length);
            StreamSource<int[]> src = tb.add(new StreamSource<>(tb.signal(dut.io.ulpdu.valid()),
                    tb.signal(dut.io.ulpdu.ready()), beat -> {
                        byte[] u = ulpdus.get(beat[0]);
                        data.setOctets(u, beat[1], Math.min(octets, u.length - beat[1]));
                        length.set(u.length);
                    }, Pacer.always()));
            AxisSink.on(tb, dut.io.tcp, Pacer.always(), segments::add);
            tb.reset(3);
            for (int i = 0; i < ulpdus.size(); i++) {
                for (int off = 0; off < ulpdus.get(i).length; off += octets) {
                    src.push(new int[] {i, off});
                }
            }
            long start = tb.cycle();
            tb.runUntil(() -> segments.size() >= ulpdus.size() && !src.busy(), 100_000_000L, "all FPDUs");
            cycles[0] = tb.cycle() - start;
        });
        return cycles[0];
    }

    private static String need(String v, String flag) {
        if (v == null) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return v;
    }

    private static MpaCapture.Markers markers(String v) {
        return switch (v) {
            case "none" -> MpaCapture.Markers.NONE;
            case "i2r" -> MpaCapture.Markers.I2R;
            case "r2i" -> MpaCapture.Markers.R2I;
            case "both" -> MpaCapture.Markers.BOTH;
            default -> throw new IllegalArgumentException("--markers takes none, i2r, r2i or both, not " + v);
        };
    }

    private static boolean onOff(String v) {
        return switch (v) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("--crc takes on or off, not " + v);
        };
    }
}
