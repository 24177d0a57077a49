package rnic.hw.board;

import rnic.hw.top.RnicConfig;

/**
 * Parameters of one board's SoC: its clock, the host link's baud rate, the on-chip RAM for the firmware and the image
 * it starts with (32-bit little-endian words), the LEDs and buttons, and a build id the firmware reports.
 *
 * @param clockHz     SoC clock (after the board's PLL)
 * @param baud        host-link baud rate; {@code clockHz} must be a whole multiple of {@code baud} x
 *                    {@link #UART_SAMPLES_PER_BIT}, so the UART's divider is exact
 * @param ramBytes    on-chip RAM for the firmware (a power of two)
 * @param firmware    the RAM's initial content, at most ramBytes/4 words
 * @param ledCount    LEDs
 * @param buttonCount buttons
 * @param buildId     reported in BOARD_BUILD
 * @param rnic        the RNIC core's configuration (data width 32)
 * @param memoryBytes the board memory the RNIC uses as host memory (a power of two)
 */
public record BoardSocConfig(long clockHz, long baud, int ramBytes, int[] firmware, int ledCount, int buttonCount,
        int buildId, RnicConfig rnic, int memoryBytes) {
    /** spinal.lib UartCtrl sampling as in its Pinsec SoC: 1 + 5 + 2 samples per bit. */
    public static final int UART_SAMPLES_PER_BIT = 8;

    public BoardSocConfig {
        if (clockHz % (baud * UART_SAMPLES_PER_BIT) != 0) {
            throw new IllegalArgumentException("clock " + clockHz + " Hz is no whole multiple of " + baud + " baud x "
                    + UART_SAMPLES_PER_BIT + " samples");
        }
        if (rnic.dataWidth() != 32) {
            throw new IllegalArgumentException("the board SoC's crossbar is 32 bits wide; the RNIC core has W = "
                    + rnic.dataWidth());
        }
        if (Integer.bitCount(memoryBytes) != 1) {
            throw new IllegalArgumentException("board memory of " + memoryBytes + " octets is no power of two");
        }
        if (Integer.bitCount(ramBytes) != 1 || firmware.length > ramBytes / 4) {
            throw new IllegalArgumentException("RAM of " + ramBytes + " octets cannot hold " + firmware.length * 4
                    + " octets of firmware");
        }
    }

    /** The firmware image {@code bin} (a raw binary from objcopy) as the RAM's words. */
    public static int[] words(byte[] bin) {
        int[] w = new int[(bin.length + 3) / 4];
        for (int i = 0; i < bin.length; i++) {
            w[i / 4] |= (bin[i] & 0xFF) << (8 * (i % 4));
        }
        return w;
    }
}
