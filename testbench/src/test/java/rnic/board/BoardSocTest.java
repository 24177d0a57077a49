package rnic.board;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.hw.board.BoardSoc;
import rnic.hw.board.TcpBridge;
import rnic.sim.Tb;
import rnic.sim.serial.SimSerialLine;
import rnic.sim.serial.UartAgent;
import rnic.transport.serial.BoardLink;
import rnic.transport.serial.HostLink;
import rnic.transport.serial.SerialLine;

/**
 * The board SoC in Verilator running the real firmware image ({@code firmware/board}, built with
 * gcc-riscv64-unknown-elf): spinal.lib's RV32IM core boots from the on-chip RAM, sets up the UART from the board's
 * registers and serves the host link; the host driver's {@link HostLink} and {@link BoardLink} talk to it through the
 * UART pins, driven and sampled bit by bit at 3 Mbaud from a 48 MHz clock (16 clocks per bit), as the ULX3S's FTDI
 * link would. Checks the board info, register access reaching the LEDs and the RNIC core, bulk board memory, the TCP
 * bridge toward the core, an unknown message, and the same traffic over a noisy line.
 */
class BoardSocTest {
    static final long CLOCK = BoardSim.CLOCK;
    static final long BAUD = BoardSim.BAUD;
    static final int BIT = BoardSim.BIT;
    static final int MEMORY = BoardSim.MEMORY;
    static final Duration CALL = Duration.ofMillis(200);

    interface LinkBody {
        void run(Tb<BoardSoc> tb, BoardLink board, HostLink link) throws Exception;
    }

    static void withBoard(long seed, boolean noisy, LinkBody body) throws Exception {
        BoardSim.model().run(noisy ? "noisy" : "clean", seed, tb -> {
            UartAgent uart = BoardSim.boot(tb);
            SerialLine line = new SimSerialLine(tb, uart, CLOCK, BIT);
            NoisyLine noise = noisy ? new NoisyLine(line, 300, 300, 300, seed) : null;
            try (HostLink link = new HostLink(noisy ? noise : line, Duration.ofMillis(5))) {
                link.connect(Duration.ofMillis(50));
                body.run(tb, new BoardLink(link, CALL), link);
                if (noisy) {
                    assertTrue(noise.flipped() + noise.dropped() + noise.duplicated() > 0, "no noise injected");
                    System.out.printf("board link over noise: flipped %d, dropped %d, duplicated %d; %s%n",
                            noise.flipped(), noise.dropped(), noise.duplicated(), link.stats());
                }
                if (!noisy) {
                    assertEquals(0, uart.framingErrors(), "UART framing errors on a clean line");
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    void firmwareBootsAndServesTheHostLink() throws Exception {
        withBoard(1, false, (tb, board, link) -> {
            long start = tb.cycle();
            BoardLink.Info info = board.info();
            assertEquals(0x524E4244, info.id(), "BOARD_ID 'RNBD'");
            assertEquals(CLOCK, info.clockHz());
            assertEquals(BAUD, info.baud());
            assertEquals(0x0B0A_0001, info.buildId());
            assertEquals(BoardSoc.MEMORY_BASE, info.memoryBase());
            assertEquals(MEMORY, info.memoryBytes());
            assertEquals(BoardSoc.APB_BASE + BoardSoc.RNIC_OFFSET, info.rnicBase());

            // A register write through the link reaches the LEDs (BoardControl BOARD_LEDS).
            long leds = BoardSoc.APB_BASE + BoardSoc.CONTROL_OFFSET + 0x1C;
            board.write32(leds, 0xA5);
            assertEquals(0xA5, tb.signal(tb.dut().io.leds).get());
            assertEquals(0xA5, board.read32(leds));

            // The RNIC core is on the bus: CORE_TYPE reads "RNIC".
            assertEquals(0x524E4943, board.read32(BoardSoc.APB_BASE + BoardSoc.RNIC_OFFSET), "CORE_TYPE 'RNIC'");

            // A message the firmware does not know is answered '?' and the message's first octet.
            link.send(new byte[] {'Z'}, CALL);
            assertArrayEquals(new byte[] {'?', 'Z'}, link.receive(CALL));
            System.out.printf("board SoC: link up and 6 calls in %d cycles (%s)%n", tb.cycle() - start,
                    link.stats());
        });
    }

    /**
     * Board memory takes and returns bulk data in several messages, and TCP payload pushed toward connection 0 waits
     * in the bridge while the QP is in RESET (the core holds its receive stream until the host hands the connection
     * over), with RX_SEQ advanced by the octets pushed.
     */
    @Test
    void boardMemoryAndTcpBridge() throws Exception {
        withBoard(5, false, (tb, board, link) -> {
            byte[] data = new byte[3000];
            new Random(6).nextBytes(data);
            long address = BoardSoc.MEMORY_BASE + 0x100;
            long cycles = tb.cycle();
            board.writeMemory(address, data, 0, data.length);
            byte[] back = new byte[data.length];
            board.readMemory(address, back, 0, back.length);
            assertArrayEquals(data, back, "board memory read back");
            cycles = tb.cycle() - cycles;
            System.out.printf("board memory: 3000 octets written and read back in %d cycles (%.0f octets/s each way "
                    + "at %d baud; the line's limit is %d)%n", cycles, 2 * 3000.0 * CLOCK / cycles / 2, BAUD,
                    BAUD / 10);

            byte[] payload = new byte[37];
            assertEquals(37, board.pushTcp(0, 1000, payload, 0, payload.length));
            long tcpBase = BoardSoc.APB_BASE + BoardSoc.TCP_OFFSET;
            assertEquals(TcpBridge.FIFO_BEATS - 10, board.read32(tcpBase + 0x0C), "37 octets wait as 10 beats");
            assertEquals(1037, board.read32(tcpBase), "RX_SEQ advanced by the octets pushed");
        });
    }

    @Test
    void noiseOnTheSerialLineCostsRetriesNeverData() throws Exception {
        withBoard(2, true, (tb, board, link) -> {
            Random r = new Random(4);
            for (int i = 0; i < 6; i++) {
                byte[] m = new byte[1 + r.nextInt(600)];
                r.nextBytes(m);
                long address = BoardSoc.MEMORY_BASE + 0x1000 * i;
                board.writeMemory(address, m, 0, m.length);
                byte[] back = new byte[m.length];
                board.readMemory(address, back, 0, back.length);
                assertArrayEquals(m, back, "block " + i);
            }
            assertTrue(link.stats().retransmissions() > 0, "noise caused no retry: " + link.stats());
        });
    }
}
