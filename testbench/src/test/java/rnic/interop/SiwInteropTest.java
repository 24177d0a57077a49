package rnic.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import rnic.interop.SiwInterop.Role;
import rnic.sim.pcap.Tshark;
import rnic.wire.MpaStartupFrame;

/**
 * The golden rping peer ({@link GoldenRping}: the project's MPA, DDP and RDMAP golden models on a plain socket)
 * against rdma-core's {@code rping} on Linux soft-iWARP in a qemu VM ({@link SiwVm}): both roles, 64, 4096 and 65000
 * octets, validation on both sides, MPA CRC off (siw's defaults) and on (siw built with {@code mpa_crc_required}).
 * The golden reference is an implementation nobody here wrote. Requirements: MPA-18 (CRC negotiation: CRC if either
 * side asks), MPA-25 (CRC checked on every FPDU in both directions), RDMAP-24 (IRD/ORD 1), DDP-17 (segmentation at
 * the peer's MULPDU), RDMAP-08 (Read Response placement).
 *
 * <p>If the VM cannot be built or booted, every test fails with the reason: nothing here is skipped.
 */
@Tag("interop")
class SiwInteropTest {
    private static final int COUNT = 5;
    private static final SiwVmHolder VMS = new SiwVmHolder();

    static Stream<Arguments> runs() {
        List<Arguments> out = new ArrayList<>();
        for (boolean crc : new boolean[] {false, true}) {
            for (Role role : Role.values()) {
                if (role.rtl()) {
                    continue; // SiwRtlInteropTest
                }
                for (int size : new int[] {64, 4096, 65000}) {
                    out.add(Arguments.of(crc, role, size));
                }
            }
        }
        return out.stream();
    }

    /** One VM per CRC setting, reused by the runs that need it (booting takes seconds). */
    private static SiwVm vm(boolean crc) throws IOException {
        return VMS.get(crc);
    }

    @AfterAll
    static void stop() {
        VMS.close();
    }

    /** Every iteration completes and validates on both sides; CRC is on exactly when asked for. */
    @ParameterizedTest(name = "crc={0} {1} size={2}")
    @MethodSource("runs")
    void rpingInteroperates(boolean crc, Role role, int size) throws IOException {
        SiwVm v = vm(crc);
        SiwInterop.Run r = SiwInterop.run(v, role, size, COUNT, null);
        System.out.println(SiwInterop.row(r, COUNT));
        assertTrue(r.passed(COUNT), () -> SiwInterop.row(r, COUNT) + "\nVM console:\n" + v.transcript());
        assertEquals(COUNT, r.iterations());
        assertEquals(crc, r.golden().crcInUse());
        // siw's startup frame: MPA Rev 2, S=1 (RFC 6581), never Markers (see interop/siw/README.md).
        MpaStartupFrame siwFrame = role == Role.GOLDEN_CLIENT_SIW_SERVER ? r.golden().reply() : r.golden().request();
        assertEquals(2, siwFrame.rev());
        assertNotNull(siwFrame.enhanced(), "siw sends the RFC 6581 enhanced connection data");
        assertTrue(!siwFrame.markers(), "siw never asks for Markers");
        assertEquals(crc, siwFrame.crc(), "siw asks for CRC exactly when built with mpa_crc_required");
    }

    /** The rping pattern the golden side checks is rping's own: what siw's client sent, read back by the model. */
    @Test
    void patternMatchesRpingsFormat() {
        byte[] p = GoldenRping.pattern(0, 32);
        assertArrayEquals("rdma-ping-0: ABCDEFGHIJKLMNOPQR\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII), p);
        byte[] q = GoldenRping.pattern(57, 20);   // "rdma-ping-57: " (14 octets), start letter 'z', then wraps to 'A'
        assertEquals('z', q[14]);
        assertEquals('A', q[15]);
        assertEquals(0, q[19]);
    }

    /**
     * The capture of a 65000-octet run in each role decodes in tshark: one MPA Request and Reply, FPDUs, no malformed
     * frame, and with CRC on every FPDU's CRC is good (MPA-25).
     */
    @ParameterizedTest(name = "crc={0}")
    @MethodSource("crcs")
    void captureDecodesInTshark(boolean crc) throws IOException {
        SiwVm v = vm(crc);
        Path dir = SiwVm.repoRoot().resolve("build/interop/pcap");
        for (Role role : new Role[] {Role.GOLDEN_CLIENT_SIW_SERVER, Role.SIW_CLIENT_GOLDEN_SERVER}) {
            Path pcap = dir.resolve("siw-" + role.name().toLowerCase() + "-crc" + (crc ? "on" : "off") + ".pcap");
            Files.deleteIfExists(pcap);
            SiwInterop.Run r = SiwInterop.run(v, role, 65000, 2, pcap);
            assertTrue(r.passed(2), () -> SiwInterop.row(r, 2));
            Tshark.Summary s = Tshark.summarize(pcap);
            String what = role + " crc=" + crc + ": " + s;
            assertEquals(1, s.mpaRequests(), what);
            assertEquals(1, s.mpaReplies(), what);
            // per iteration: 2 Sends each way … at least the Sends, Read Request, Read Response and Write
            assertTrue(s.fpdus() >= 2 * 6, what);
            assertEquals(0, s.malformed(), what);
            if (crc) {
                assertEquals(0, s.badCrcs(), what);
                assertTrue(s.goodCrcs() >= s.fpdus(), what);
            }
        }
    }

    static Stream<Boolean> crcs() {
        return Stream.of(false, true);
    }
}
