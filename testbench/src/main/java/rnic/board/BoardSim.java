package rnic.board;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import rnic.hw.board.BoardSoc;
import rnic.hw.board.BoardSocConfig;
import rnic.hw.top.RnicConfig;
import rnic.sim.SimModel;
import rnic.sim.Tb;
import rnic.sim.serial.UartAgent;

/**
 * The simulated board: the {@link BoardSoc} in Verilator with the real firmware image ({@code firmware/board}, built
 * with gcc-riscv64-unknown-elf), clocked at 48 MHz with its host link at 3 Mbaud (16 clocks per bit), as the ULX3S's
 * FTDI link would run; an RnicCore of W = 32 with two QPs and 64 KiB of board memory.
 */
public final class BoardSim {
    public static final long CLOCK = 48_000_000L;
    public static final long BAUD = 3_000_000L;
    /** Clocks per UART bit. */
    public static final int BIT = (int) (CLOCK / BAUD);
    /** The RNIC core on the board: W = 32, two QPs. */
    public static final RnicConfig RNIC = RnicConfig.defaults().withDataWidth(32).withQpCount(2);
    public static final int MEMORY = 64 * 1024;

    private BoardSim() {
    }

    /** The board's model with the firmware image built now (compiled once per image). */
    public static SimModel<BoardSoc> model() throws IOException {
        return model(Firmware.build("board.bin"));
    }

    /** The SoC with the firmware image {@code image} (a raw binary) in its RAM; one compiled model per image. */
    public static SimModel<BoardSoc> model(java.nio.file.Path image) throws IOException {
        byte[] bin = Files.readAllBytes(image);
        int[] words = BoardSocConfig.words(bin);
        BoardSocConfig c = new BoardSocConfig(CLOCK, BAUD, 32 * 1024, words, 8, 4, 0x0B0A_0001, RNIC, MEMORY);
        return SimModel.of("BoardSoc-" + Integer.toHexString(Arrays.hashCode(words)), () -> new BoardSoc(c));
    }

    /** Brings the simulated board out of reset with its UART's far end attached, buttons released. */
    public static UartAgent boot(Tb<BoardSoc> tb) {
        BoardSoc.Io io = tb.dut().io;
        UartAgent uart = tb.add(new UartAgent(tb.signal(io.uart_rxd), tb.signal(io.uart_txd), BIT));
        tb.signal(io.buttons).set(0);
        tb.reset(8);
        return uart;
    }
}
