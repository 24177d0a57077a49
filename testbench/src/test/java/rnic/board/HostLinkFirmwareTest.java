package rnic.board;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.transport.serial.BoardResetException;
import rnic.transport.serial.HostLink;
import rnic.transport.serial.JsscSerialLine;

/**
 * The host link, both halves written independently: the host driver's Java {@link HostLink} against the firmware's C
 * engine ({@code firmware/link/hostlink.c}, built natively as {@code link_board}, which answers each message reversed
 * and XORed with 0xA5). Every message must come back exactly once, in order and intact — over a clean line, and over
 * a line that flips bits, drops and duplicates octets — and a board restart must be reported, then recovered by a new
 * HELLO. Also runs the firmware's native unit tests and cross-compiles the link for rv32im.
 */
class HostLinkFirmwareTest {
    private static final Duration RTO = Duration.ofMillis(60);
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void firmwareNativeUnitTestsPass() {
        Firmware.Result r = Firmware.make("test");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("PASSED: 0 failure(s)"), r.output());
    }

    @Test
    void linkCrossCompilesForRv32im() throws Exception {
        Firmware.Result r = Firmware.make("lib");
        assertEquals(0, r.exitCode(), r.output());
        byte[] elf = Files.readAllBytes(Firmware.buildDir().resolve("rv32/hostlink.o"));
        // ELF32 (class 1), little-endian, e_machine 243 = RISC-V.
        assertEquals(1, elf[4]);
        assertEquals(1, elf[5]);
        assertEquals(243, (elf[18] & 0xFF) | (elf[19] & 0xFF) << 8);
    }

    @Test
    void everyMessageComesBackOnACleanLine() throws Exception {
        Path board = Firmware.build("link_board");
        try (HostLink link = new HostLink(new ProcessLine(board), RTO)) {
            link.connect(WAIT);
            exchange(link, 400, 1);
            assertEquals(0, link.stats().droppedBadCrc() + link.stats().droppedBadFraming());
        }
    }

    @Test
    void noiseCostsRetriesNeverData() throws Exception {
        Path board = Firmware.build("link_board");
        NoisyLine noisy = new NoisyLine(new ProcessLine(board), 100, 100, 100, 7);
        try (HostLink link = new HostLink(noisy, RTO)) {
            link.connect(WAIT);
            exchange(link, 400, 2);
            assertTrue(noisy.flipped() > 0 && noisy.dropped() > 0 && noisy.duplicated() > 0, "no noise injected");
            assertTrue(link.stats().retransmissions() > 0, "the noise caused no retransmission: " + link.stats());
            link.send("STATS".getBytes(StandardCharsets.US_ASCII), WAIT);
            String boardStats = new String(link.receive(WAIT), StandardCharsets.US_ASCII);
            System.out.printf("host link over noise (100 ppm flip/drop/dup each way): flipped %d, dropped %d, "
                    + "duplicated %d; host %s; board %s%n", noisy.flipped(), noisy.dropped(), noisy.duplicated(),
                    link.stats(), boardStats);
        }
    }

    @Test
    void aBoardRestartIsReportedAndANewLinkWorks() throws Exception {
        Path board = Firmware.build("link_board");
        try (HostLink link = new HostLink(new ProcessLine(board), RTO)) {
            link.connect(WAIT);
            int before = link.boardSession();
            exchange(link, 5, 3);
            link.send("RESTART".getBytes(StandardCharsets.US_ASCII), WAIT);
            BoardResetException e = assertThrows(BoardResetException.class, () -> {
                for (int i = 0; i < 50; i++) {
                    link.send(new byte[] {1, 2, 3}, WAIT);
                    link.receive(Duration.ofMillis(200));
                }
            });
            assertTrue(e.getMessage().contains("restarted"), e.getMessage());
            link.connect(WAIT);
            assertNotEquals(before, link.boardSession());
            exchange(link, 5, 4);
        }
    }

    /**
     * The same through a real serial device: jssc opens a pseudo-terminal (as it would a board's
     * {@code /dev/ttyUSB0}) whose other end is the firmware's link engine.
     */
    @Test
    void overASerialDeviceOpenedWithJssc() throws Exception {
        Path board = Firmware.build("link_board");
        try (PtyBridge pty = new PtyBridge(board);
                HostLink link = new HostLink(new JsscSerialLine(pty.device(), 3_000_000), RTO)) {
            link.connect(WAIT);
            exchange(link, 200, 5);
        }
    }

    /** Opening a device that does not exist is a clear IOException naming it. */
    @Test
    void aMissingDeviceIsAClearError() {
        java.io.IOException e = assertThrows(java.io.IOException.class,
                () -> new JsscSerialLine("/dev/rnic-no-such-tty", 3_000_000));
        assertTrue(e.getMessage().contains("/dev/rnic-no-such-tty"), e.getMessage());
    }

    /** Sends {@code count} random messages (0 … 1024 octets), a window ahead, and checks each answer. */
    private static void exchange(HostLink link, int count, long seed) throws Exception {
        Random r = new Random(seed);
        byte[][] sent = new byte[count][];
        int answered = 0;
        for (int i = 0; i < count; i++) {
            sent[i] = new byte[r.nextInt(8) == 0 ? 0 : r.nextInt(HostLink.MAX_PAYLOAD + 1)];
            r.nextBytes(sent[i]);
            link.send(sent[i], WAIT);
            // Keep at most a window of answers outstanding: the board answers as it goes.
            while (i - answered >= HostLink.WINDOW - 1) {
                check(sent[answered], link.receive(WAIT), answered);
                answered++;
            }
        }
        while (answered < count) {
            check(sent[answered], link.receive(WAIT), answered);
            answered++;
        }
    }

    private static void check(byte[] sent, byte[] answer, int index) {
        assertNotNull(answer, "no answer to message " + index);
        byte[] expect = new byte[sent.length];
        for (int i = 0; i < sent.length; i++) {
            expect[i] = (byte) (sent[sent.length - 1 - i] ^ 0xA5);
        }
        assertArrayEquals(expect, answer, "answer to message " + index);
    }
}
