package rnic.hw.fpga;

/**
 * Parameters of {@link OffloadSelfTest}: the board clock, the UART baud rate and the LED polarity.
 *
 * <p>spinal.lib's {@code UartCtrl} samples each bit {@value #SAMPLES_PER_BIT} times, so the clock divider is
 * {@code clockHz / (baud · 8) − 1}; the rate error it leaves must stay under 2 % for a 10-bit frame to be read right.
 *
 * @param clockHz      the clock the board feeds the design (Hz)
 * @param baud         the UART rate (8 data bits, no parity, one stop bit)
 * @param ledActiveLow the board lights an LED by driving its pin low
 */
public record SelfTestConfig(long clockHz, int baud, boolean ledActiveLow) {
    /** Samples per UART bit of spinal.lib's {@code UartCtrl} with its default generics (1 + 5 + 2). */
    public static final int SAMPLES_PER_BIT = 8;
    /** Width of {@code UartCtrl}'s clock divider with its default generics. */
    public static final int DIVIDER_WIDTH = 20;

    public SelfTestConfig {
        if (clockHz < 1 || baud < 1) {
            throw new IllegalArgumentException("clock and baud rate must be positive");
        }
        long divider = clockDivider(clockHz, baud);
        if (divider < 0 || divider >= (1L << DIVIDER_WIDTH)) {
            throw new IllegalArgumentException(baud + " baud cannot be made from " + clockHz + " Hz");
        }
        double actual = (double) clockHz / ((divider + 1) * SAMPLES_PER_BIT);
        if (Math.abs(actual - baud) / baud > 0.02) {
            throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
                    "%d baud from %d Hz is off by %.1f %%", baud, clockHz, 100 * Math.abs(actual - baud) / baud));
        }
    }

    /** 115200 baud from {@code clockHz}, LEDs active high. */
    public static SelfTestConfig board(long clockHz) {
        return new SelfTestConfig(clockHz, 115_200, false);
    }

    /** The same with the LEDs driven low to light. */
    public SelfTestConfig withLedActiveLow(boolean activeLow) {
        return new SelfTestConfig(clockHz, baud, activeLow);
    }

    /** {@code UartCtrl}'s clock divider value. */
    public long clockDivider() {
        return clockDivider(clockHz, baud);
    }

    /** Clock cycles per UART bit. */
    public long cyclesPerBit() {
        return (clockDivider() + 1) * SAMPLES_PER_BIT;
    }

    private static long clockDivider(long clockHz, int baud) {
        return Math.round((double) clockHz / ((double) baud * SAMPLES_PER_BIT)) - 1;
    }
}
