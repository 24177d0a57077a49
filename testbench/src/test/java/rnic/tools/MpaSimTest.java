package rnic.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import rnic.sim.pcap.MpaCapture;

/**
 * {@code ./rnic sim mpa}: the RTL loop-back (MpaTxFramer → re-segmented at random → MpaRxDeframer) delivers every
 * ULPDU unchanged in both directions at every width, Markers none/one direction/both × CRC on/off, with the TX RTL
 * equal to the golden framer segment for segment; and its capture is decoded by Wireshark's MPA dissector with every
 * CRC good, DDP/RDMAP decoded, no malformed packet and no expert warning. One-direction Marker settings are not opened
 * in Wireshark: 4.0 assumes Markers in both directions when it sees them in one (see the README); the loop-back through
 * the receiver RTL and the golden framer comparison check them instead.
 *
 * <p>Requirements: MPA-07, MPA-12, MPA-13, MPA-16, MPA-19, MPA-22, MPA-23, MPA-27, MPA-29 (per-direction Markers),
 * MPA-37 (decoded by an independent implementation).
 */
class MpaSimTest {

    @ParameterizedTest(name = "markers={0} crc={1} W={2}")
    @CsvSource({"none,true,64", "both,true,64", "both,true,512", "i2r,true,128", "none,false,32"})
    void rtlCaptureDecodesInWireshark(String markers, boolean crc, int width) throws Exception {
        Path pcap = Path.of("target/sim-mpa/mpa-" + markers + "-" + crc + "-w" + width + ".pcap");
        MpaCapture.Markers m = MpaCapture.Markers.valueOf(markers.toUpperCase());
        MpaSim.Summary s = MpaSim.run(new MpaSim.Options(pcap, m, crc, 40, width, 1460, 7));
        assertEquals(80, s.fpdus());
        assertEquals(0, s.rtlModelMismatches(), "RTL segments differ from the golden framer");
        assertEquals(80, s.delivered(), "ULPDUs delivered by the receiver RTL");
        if (m == MpaCapture.Markers.I2R || m == MpaCapture.Markers.R2I) {
            return;
        }
        assertEquals(List.of(), tshark(pcap, "-Y", "_ws.malformed || _ws.expert.severity >= warning"),
                "malformed packets or expert warnings");
        assertEquals(80, tshark(pcap, "-Y", "iwarp_mpa.fpdu").size(), "FPDUs decoded as MPA");
        assertEquals(2, tshark(pcap, "-Y", "iwarp_mpa.req || iwarp_mpa.rep").size(), "Request and Reply");
        assertEquals(80, tshark(pcap, "-Y", "iwarp_ddp_rdmap").size(), "DDP/RDMAP decoded");
        List<String> verbose = tshark(pcap, "-V");
        long good = verbose.stream().filter(l -> l.contains("Good CRC32")).count();
        long bad = verbose.stream().filter(l -> l.contains("Bad CRC32")).count();
        assertEquals(0, bad, "FPDUs with a bad CRC");
        if (crc) {
            assertEquals(80, good, "FPDUs with a good CRC");
        }
    }

    @ParameterizedTest(name = "W={0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {32, 64, 128, 256, 512})
    void rtlLoopbackDeliversEveryUlpduForEveryMarkerAndCrcSetting(int width) throws Exception {
        for (MpaCapture.Markers m : MpaCapture.Markers.values()) {
            for (boolean crc : new boolean[] {true, false}) {
                Path pcap = Path.of("target/sim-mpa/loop-" + m + "-" + crc + "-w" + width + ".pcap");
                MpaSim.Summary s = MpaSim.run(new MpaSim.Options(pcap, m, crc, 60, width, 536 + 97 * width / 8,
                        width + m.ordinal()));
                String what = "markers " + m + " crc " + crc;
                assertEquals(120, s.fpdus(), what);
                assertEquals(0, s.rtlModelMismatches(), what + ": TX RTL segments differ from the golden framer");
                assertEquals(120, s.delivered(), what + ": ULPDUs delivered by the receiver RTL");
            }
        }
    }

    /**
     * The synthetic traffic is a valid DDP stream above MPA: in each direction the untagged (Send) segments carry
     * QN 0 and MSN 1, 2, 3, … with no gap, whatever RDMA Writes (tagged, no MSN) are mixed in; each is one whole
     * message (L = 1, MO = 0).
     *
     * <p>Requirements: DDP-20 (MSN starts at 1 and increases by one per message on a queue), DDP-26.
     */
    @org.junit.jupiter.api.Test
    void untaggedMsnsCountFromOneWithoutGapsPerDirection() throws Exception {
        var traffic = MpaSim.traffic(new MpaSim.Options(Path.of("unused.pcap"), MpaCapture.Markers.BOTH, true, 200, 64,
                1460, 11));
        for (var e : traffic.entrySet()) {
            long expected = 1;
            int writes = 0;
            for (byte[] u : e.getValue()) {
                var seg = rnic.model.ddp.DdpSegment.parse(u);
                if (seg.header() instanceof rnic.model.ddp.DdpUntaggedHeader h) {
                    assertEquals(0, h.qn(), e.getKey() + ": Send queue");
                    assertEquals(expected++, h.msn(), e.getKey() + ": MSN of the next Send");
                    assertEquals(0, h.mo(), e.getKey() + ": MO of a one-segment message");
                    assertEquals(true, h.last(), e.getKey() + ": L of a one-segment message");
                } else {
                    writes++;
                }
            }
            assertEquals(true, writes > 50 && expected > 50, e.getKey() + ": a mix of Writes (" + writes
                    + ") and Sends (" + (expected - 1) + ")");
        }
    }

    private static List<String> tshark(Path pcap, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n", "-r", pcap.toString()));
        cmd.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new IOException("tshark is missing: apt-get install -y tshark (./rnic test installs it)", e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "tshark " + String.join(" ", args));
        List<String> lines = new ArrayList<>();
        for (String l : out.split("\n")) {
            if (!l.isBlank()) {
                lines.add(l);
            }
        }
        return lines;
    }
}
