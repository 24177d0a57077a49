package rnic.tools.fpga;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The ULX3S configuration still fits: {@code ./rnic fpga --board ulx3s} with its default configuration — the board
 * SoC (RV32IM with the firmware image of {@code firmware/}, UART, board memory, {@code RnicCore} at W = 32 with two QPs)
 * inside {@code BoardTop_ulx3s} — synthesized with yosys {@code synth_ecp5} as the command does it, must leave at
 * least 25 % of the LFE5U-85F's LUTs and block RAM (the headroom the project keeps for a board's own additions). A
 * change that makes the core bigger, or moves a large memory out of block RAM, fails here. The design is checked not
 * to be empty: the PLL, the RNIC core and the CPU are in the netlist, the memories are in DP16KD block RAM. About
 * 3–5 minutes (yosys alone); yosys and the RISC-V cross compiler must be installed ({@code ./rnic test} installs them).
 * Issue 14 (figures in CI) and issue 15 (the SoC fits the ULX3S); no protocol requirement IDs.
 */
@Tag("fpga")
class BoardFitTest {

    @Test
    void ulx3sSocFitsWithTheHeadroom() throws IOException {
        Board board = Board.ULX3S;
        String config = FpgaFlow.defaultConfig(board);
        assertEquals("soc", config, "./rnic fpga --board ulx3s builds the board SoC");
        FpgaFlow.Result r = new FpgaFlow(board, config, 1, new File("target/fpga-fit")).run();
        double lut = r.lutPercent(board.family);
        double bram = r.bramPercent();
        System.out.printf("ULX3S SoC: LUT4 %d (%.1f %%), FF %d, DP16KD %.0f (%.1f %%), DSP %d%n", r.area().lut(), lut,
                r.area().ff(), r.area().bram(), bram, r.area().dsp());
        assertTrue(lut <= 75.0, "the ULX3S SoC uses " + String.format("%.1f", lut) + " % of the LUTs (at most 75 %)");
        assertTrue(bram <= 75.0, "the ULX3S SoC uses " + String.format("%.1f", bram)
                + " % of the block RAM (at most 75 %)");
        assertTrue(r.area().ff() <= r.capacity().ff() * 3 / 4, "flip-flops over 75 %: " + r.area().ff());
        // Not an empty or gutted design: its parts are there, and its memories are block RAM.
        assertEquals(1, r.totals().getOrDefault("EHXPLLL", 0), "the ECP5 PLL");
        assertTrue(r.modules().keySet().stream().anyMatch(m -> m.equals("RnicCore")), "RnicCore in the netlist");
        assertTrue(r.modules().keySet().stream().anyMatch(m -> m.contains("BoardSoc")), "BoardSoc in the netlist");
        assertTrue(r.area().lut() > 20_000, "an RNIC core and a CPU take more than " + r.area().lut() + " LUT4");
        // 32 KiB firmware RAM + 64 KiB board memory alone need 48 DP16KD (16 Kibit of data each).
        assertTrue(r.area().bram() >= 48, "the SoC's RAMs are not in block RAM: " + r.area().bram() + " DP16KD");
    }
}
