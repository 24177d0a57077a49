package rnic.board;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.hw.board.BoardSoc;
import rnic.hw.board.TcpBridge;
import rnic.hw.board.BoardSocConfig;
import rnic.hw.top.RnicConfig;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.Tb;
import rnic.sim.serial.SimSerialLine;
import rnic.sim.serial.UartAgent;
import rnic.transport.serial.HostLink;
import rnic.transport.serial.SerialLine;

/**
 * The board SoC in Verilator running the real firmware image ({@code firmware/board}, built with
 * gcc-riscv64-unknown-elf): spinal.lib's RV32IM core boots from the on-chip RAM, sets up the UART from the board's
 * registers and runs the host link; the host driver's {@link HostLink} talks to it through the UART pins, driven and
 * sampled bit by bit at 3 Mbaud from a 48 MHz clock (16 clocks per bit), as the ULX3S's FTDI link would. Checks the
 * board info, echoes of messages up to the frame limit, register writes reaching the LEDs, and the same over a noisy
 * line.
 */
class BoardSocTest {
    static final long CLOCK = 48_000_000L;
    static final long BAUD = 3_000_000L;
    static final int BIT = (int) (CLOCK / BAUD);
    /** The RNIC core on the board: W = 32, two QPs. */
    static final RnicConfig RNIC = RnicConfig.defaults().withDataWidth(32).withQpCount(2);
    static final int MEMORY = 64 * 1024;

    static SimModel<BoardSoc> model() throws Exception {
        byte[] bin = Files.readAllBytes(Firmware.build("board.bin"));
        int[] words = BoardSocConfig.words(bin);
        BoardSocConfig c = new BoardSocConfig(CLOCK, BAUD, 32 * 1024, words, 8, 4, 0x0B0A_0001, RNIC, MEMORY);
        return SimModel.of("BoardSoc-" + Integer.toHexString(Arrays.hashCode(words)), () -> new BoardSoc(c));
    }

    interface LinkBody {
        void run(Tb<BoardSoc> tb, HostLink link, SerialLine line) throws Exception;
    }

    static void withLink(long seed, boolean noisy, LinkBody body) throws Exception {
        model().run(noisy ? "noisy" : "clean", seed, tb -> {
            BoardSoc.Io io = tb.dut().io;
            UartAgent uart = tb.add(new UartAgent(tb.signal(io.uart_rxd), tb.signal(io.uart_txd), BIT));
            tb.signal(io.buttons).set(0);
            tb.reset(8);
            SerialLine line = new SimSerialLine(tb, uart, CLOCK, BIT);
            NoisyLine noise = noisy ? new NoisyLine(line, 300, 300, 300, seed) : null;
            try (HostLink link = new HostLink(noisy ? noise : line, Duration.ofMillis(5))) {
                link.connect(Duration.ofMillis(50));
                body.run(tb, link, line);
                if (noisy) {
                    assertTrue(noise.flipped() + noise.dropped() + noise.duplicated() > 0, "no noise injected");
                    System.out.printf("board link over noise: flipped %d, dropped %d, duplicated %d; %s%n",
                            noise.flipped(), noise.dropped(), noise.duplicated(), link.stats());
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    static byte[] call(HostLink link, byte[] message) throws Exception {
        link.send(message, Duration.ofMillis(200));
        byte[] answer = link.receive(Duration.ofMillis(200));
        assertNotNull(answer, "no answer to '" + (char) message[0] + "' (" + message.length + " octets; " + link.stats() + ")");
        return answer;
    }

    @Test
    void firmwareBootsAndServesTheHostLink() throws Exception {
        withLink(1, false, (tb, link, line) -> {
            ByteBuffer info = ByteBuffer.wrap(call(link, new byte[] {'I'}));
            assertEquals('i', info.get());
            assertEquals(0x524E4244, info.getInt(), "BOARD_ID 'RNBD'");
            assertEquals(CLOCK, info.getInt());
            assertEquals(BAUD, info.getInt());
            assertEquals(0x0B0A_0001, info.getInt());

            Random r = new Random(3);
            for (int size : new int[] {1, 2, 17, 255, 256, 1024}) {
                byte[] m = new byte[size];
                r.nextBytes(m);
                m[0] = 'E';
                byte[] a = call(link, m);
                byte[] expect = new byte[size];
                expect[0] = 'e';
                for (int i = 1; i < size; i++) {
                    expect[i] = (byte) (m[size - i] ^ 0xA5);
                }
                assertArrayEquals(expect, a, "echo of " + size + " octets");
            }

            // A register write through the link reaches the LEDs (BoardControl BOARD_LEDS at 0xF002001C).
            long ledsAddress = BoardSoc.APB_BASE + BoardSoc.CONTROL_OFFSET + 0x1C;
            byte[] w = ByteBuffer.allocate(9).put((byte) 'W').putInt((int) ledsAddress).putInt(0xA5).array();
            assertArrayEquals(new byte[] {'w'}, call(link, w));
            SimSignal leds = tb.signal(tb.dut().io.leds);
            assertEquals(0xA5, leds.get());
            byte[] rd = ByteBuffer.allocate(5).put((byte) 'R').putInt((int) ledsAddress).array();
            ByteBuffer back = ByteBuffer.wrap(call(link, rd));
            assertEquals('r', back.get());
            assertEquals(0xA5, back.getInt());
            assertArrayEquals(new byte[] {'?', 'Z'}, call(link, new byte[] {'Z'}), "unknown message");
            System.out.printf("board SoC: link up and 10 calls in %d cycles (%s)%n", tb.cycle(), link.stats());
        });
    }

    /**
     * The RNIC core is on the board's bus: its first register reads "RNIC" at the APB window's RNIC offset, board
     * memory takes and returns bulk data, and TCP payload pushed toward connection 0 waits in the bridge while the
     * QP is in RESET (the core holds its receive stream until the host hands the connection over).
     */
    @Test
    void rnicCoreMemoryAndTcpBridgeAreReachable() throws Exception {
        withLink(5, false, (tb, link, line) -> {
            long rnicBase = BoardSoc.APB_BASE + BoardSoc.RNIC_OFFSET;
            ByteBuffer type = ByteBuffer.wrap(call(link, ByteBuffer.allocate(5).put((byte) 'R')
                    .putInt((int) rnicBase).array()));
            assertEquals('r', type.get());
            assertEquals(0x524E4943, type.getInt(), "CORE_TYPE 'RNIC'");

            byte[] data = new byte[1000];
            new Random(6).nextBytes(data);
            int address = (int) (BoardSoc.MEMORY_BASE + 0x100);
            byte[] m = ByteBuffer.allocate(5 + data.length).put((byte) 'M').putInt(address).put(data).array();
            assertArrayEquals(new byte[] {'m'}, call(link, m));
            byte[] n = ByteBuffer.allocate(7).put((byte) 'N').putInt(address).putShort((short) data.length).array();
            byte[] back = call(link, n);
            assertEquals('n', back[0]);
            assertArrayEquals(data, Arrays.copyOfRange(back, 1, back.length), "board memory read back");

            byte[] payload = new byte[37];
            byte[] t = ByteBuffer.allocate(6 + payload.length).put((byte) 'T').put((byte) 0).putInt(1000)
                    .put(payload).array();
            assertArrayEquals(new byte[] {'t'}, call(link, t));
            long tcpBase = BoardSoc.APB_BASE + BoardSoc.TCP_OFFSET;
            ByteBuffer free = ByteBuffer.wrap(call(link, ByteBuffer.allocate(5).put((byte) 'R')
                    .putInt((int) (tcpBase + 0x0C)).array()));
            free.get();
            assertEquals(TcpBridge.FIFO_BEATS - 10, free.getInt(), "37 octets wait as 10 beats");
            ByteBuffer seq = ByteBuffer.wrap(call(link, ByteBuffer.allocate(5).put((byte) 'R')
                    .putInt((int) tcpBase).array()));
            seq.get();
            assertEquals(1037, seq.getInt(), "RX_SEQ advanced by the octets pushed");
        });
    }

    @Test
    void noiseOnTheSerialLineCostsRetriesNeverData() throws Exception {
        withLink(2, true, (tb, link, line) -> {
            Random r = new Random(4);
            for (int i = 0; i < 12; i++) {
                byte[] m = new byte[1 + r.nextInt(300)];
                r.nextBytes(m);
                m[0] = 'E';
                byte[] a = call(link, m);
                assertEquals(m.length, a.length);
                for (int k = 1; k < m.length; k++) {
                    assertEquals((byte) (m[m.length - k] ^ 0xA5), a[k], "octet " + k + " of message " + i);
                }
            }
            assertTrue(link.stats().retransmissions() > 0, "noise caused no retry: " + link.stats());
        });
    }
}
