package rnic.board;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import rnic.hw.board.BoardSoc;
import rnic.sim.SimModel;
import rnic.sim.serial.SimSerialLine;
import rnic.sim.serial.UartAgent;
import rnic.transport.serial.BoardLink;
import rnic.transport.serial.BoardSelfTest;
import rnic.transport.serial.HostLink;

/**
 * The firmware's power-on self-test ({@code firmware/board/selftest.c}) on the simulated SoC in Verilator: the real
 * image boots on the RV32 core, drives QP 0 and QP 1 of the SoC's own {@code RnicCore} as a loopback pair through the
 * TCP bridge, and the host driver reads the result over the serial line ({@link BoardLink#selfTest}). The expected
 * values here are the documents' (docs/requirements.md), not the firmware's:
 * <ul>
 *   <li>MPA-19, MPA-37: the CRC fields the framer sent for the RFC 5044 Fig. 5 and Fig. 6 FPDUs, {@code 52 23 99 83}
 *       and {@code 84 92 58 98} (§4.2); MPA-20: the receiving deframer accepted both (MPA-13, MPA-16: Fig. 6's
 *       Marker at 0x200 inside the FPDU, removed on receive);</li>
 *   <li>RDMAP-32, RDMAP-33: the masked FetchAdd F1 and masked CmpSwap C1 worked examples of §2.9;</li>
 *   <li>DDP-30, DDP-32: an RDMA Write with the registered STag placed, the same with a wrong key refused with the
 *       Terminate of row E-D1 (1/1/00, §3.2);</li>
 *   <li>MPA-20, MPA-44: on fresh streams, the Fig. 5 FPDU with one bit of its CRC field flipped on the wire is refused:
 *       nothing placed, the QP in ERR with MPA error code 2 (row E-M2, §3.1).</li>
 * </ul>
 * A second image, built with one wrong expected CRC octet ({@code make image-fault}), must report exactly that check
 * failed while the hardware still computed the right CRC: the result is measured, not a constant. Each image is its
 * own Verilator model, compiled once (2–3.5 minutes on 2 busy cores); each run then takes about 30 s, most of it
 * elaboration (the self-test itself: 132,000 cycles, 2–3 s of simulation).
 */
class BoardSelfTestTest {
    static final Duration CALL = Duration.ofMillis(200);

    static BoardSelfTest selfTestOf(SimModel<BoardSoc> model, String name) {
        BoardSelfTest[] result = new BoardSelfTest[1];
        int[] leds = new int[1];
        model.run(name, 3, tb -> {
            UartAgent uart = BoardSim.boot(tb);
            SimSerialLine line = new SimSerialLine(tb, uart, BoardSocTest.CLOCK, BoardSocTest.BIT);
            try (HostLink link = new HostLink(line, Duration.ofMillis(5))) {
                link.connect(Duration.ofMillis(100));
                result[0] = new BoardLink(link, CALL).selfTest();
                leds[0] = (int) tb.signal(tb.dut().io.leds).get();
                System.out.print(name + ": " + result[0].report());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertEquals(leds[0] & 4, result[0].ok() ? 4 : 0, "LED 2 shows the self-test's verdict");
        return result[0];
    }

    @Test
    void theFirmwareSelfTestPassesOnTheSocsRnicCore() throws Exception {
        BoardSelfTest r = selfTestOf(BoardSim.model(), "selftest");
        assertEquals(BoardSelfTest.CHECKS.size(), r.checks());
        assertEquals(List.of(), r.failed(), r.report());
        assertTrue(r.ok());
        assertEquals(0x52239983, r.fig5Crc(), "Fig. 5 CRC field as sent");
        assertEquals(0x84925898, r.fig6Crc(), "Fig. 6 CRC field as sent");
        assertEquals(0x00000000_FFFF0000L, r.fetchAdd(), "F1: four 16-bit counters");
        assertEquals(0x11223344_CCCCDDDDL, r.cmpSwap(), "C1: match on the top 16 bits, swap the low 32");
        assertEquals(0x1100, r.terminate(), "E-D1: Layer 1 / EType 1 / Code 0x00");
        assertTrue(r.cycles() > 0 && r.cycles() < 2_000_000, "self-test cycles: " + r.cycles());
    }

    @Test
    void aWrongExpectedVectorMakesTheSelfTestFail() throws Exception {
        BoardSelfTest r = selfTestOf(BoardSim.model(Firmware.build("fault/board.bin")), "selftest-fault");
        assertFalse(r.ok());
        assertEquals(List.of(BoardSelfTest.CHECKS.get(0)), r.failed(), r.report());
        assertEquals(0x52239983, r.fig5Crc(), "the hardware still computed the document's CRC");
    }
}
