package rnic.hw.board;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Scala;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.ClockDomain;
import spinal.core.ClockDomain$;
import spinal.core.ClockDomainConfig;
import spinal.core.ClockDomainConfig$;
import spinal.core.HIGH$;
import spinal.lib.ResetCtrl$;

/**
 * A board's FPGA top around {@link BoardSoc}: the board's {@link BoardPll} turns the oscillator ({@code clk}) into the
 * SoC clock, and the SoC is held in reset until the PLL locks — spinal.lib's {@code ResetCtrl.asyncAssertSyncDeassert}
 * asserts the reset at once when {@code locked} drops and releases it synchronously to the SoC clock. There is no
 * reset pin: the ULX3S's only candidate, BTN_PWR, is also its power-off button, so it stays a plain button.
 *
 * <p>Pins (the names {@code constraints/ulx3s/ulx3s-soc.lpf} and {@code constraints/arty-a7-100t/arty-a7-100t-soc.xdc}
 * bind): {@code clk}, {@code uart_rxd}, {@code uart_txd}, {@code leds[ledCount]}, {@code btn[buttonCount]}. Buttons
 * that are active-low on the board (the ULX3S's {@code btn[0]}, BTN_PWRn) are inverted here, so every bit of the
 * SoC's {@code buttons} reads 1 while its button is pressed. {@link #ulx3s} and {@link #artyA7} build the two board
 * tops.
 */
public final class BoardTop extends HwComponent {
    /** The board pins. */
    public static final class Io extends HwBundle {
        public final Bool clk;
        public final Bool uart_rxd;
        public final Bool uart_txd;
        public final Bits leds;
        public final Bits btn;

        public Io(BoardSocConfig c) {
            clk = field("clk", in(bool()));
            uart_rxd = field("uart_rxd", in(bool()));
            uart_txd = field("uart_txd", out(bool()));
            leds = field("leds", out(bits(c.ledCount())));
            btn = field("btn", in(bits(c.buttonCount())));
        }
    }

    public final Io io;
    public final BoardPll pll;
    /** The SoC's reset: high until the PLL has locked, released synchronously to the SoC clock. */
    public final Bool socReset;
    public final BoardSoc soc;

    /** The ULX3S's top ({@code BoardTop_ulx3s}): ECP5 PLL 25 → 48 MHz, {@code btn[0]} (BTN_PWRn) active-low. */
    public static BoardTop ulx3s(BoardSocConfig c) {
        return new BoardTop(c, BoardPll.Kind.ECP5_25_TO_48, 0b1, "BoardTop_ulx3s");
    }

    /** The Arty A7's top ({@code BoardTop_arty_a7_100t}): MMCM 100 → 48 MHz, its buttons active-high. */
    public static BoardTop artyA7(BoardSocConfig c) {
        return new BoardTop(c, BoardPll.Kind.XILINX_100_TO_48, 0, "BoardTop_arty_a7_100t");
    }

    /**
     * @param c                the SoC's configuration ({@code clockHz} must be what {@code kind} makes of the
     *                         oscillator)
     * @param kind             the board's PLL
     * @param activeLowButtons one bit per button that reads 0 while pressed on the board
     * @param definitionName   the Verilog module name (e.g. {@code BoardTop_ulx3s})
     */
    public BoardTop(BoardSocConfig c, BoardPll.Kind kind, long activeLowButtons, String definitionName) {
        noIoPrefix();
        io = io(new Io(c));
        setDefinitionName(definitionName, true);
        pll = child("pll", () -> new BoardPll(kind));
        set(pll.io.clkIn, io.clk);
        ClockDomainConfig async = new ClockDomainConfig(ClockDomainConfig$.MODULE$.$lessinit$greater$default$1(),
                ClockDomainConfig$.MODULE$.$lessinit$greater$default$2(),
                ClockDomainConfig$.MODULE$.$lessinit$greater$default$3(),
                ClockDomainConfig$.MODULE$.$lessinit$greater$default$4(),
                ClockDomainConfig$.MODULE$.$lessinit$greater$default$5());
        // Named so the SoC's clock and reset ports and the synchroniser's input carry these names.
        Bool socClk = wire("socClk", bool());
        set(socClk, pll.io.clkOut);
        Bool pllUnlocked = wire("pllUnlocked", bool());
        set(pllUnlocked, not(pll.io.locked));
        ClockDomain raw = domain(socClk, null, async);
        socReset = wire("socReset", bool());
        set(socReset, ResetCtrl$.MODULE$.asyncAssertSyncDeassert(pllUnlocked, raw, HIGH$.MODULE$,
                HIGH$.MODULE$, ResetCtrl$.MODULE$.asyncAssertSyncDeassert$default$5(),
                ResetCtrl$.MODULE$.asyncAssertSyncDeassert$default$6()));
        ClockDomain main = domain(socClk, socReset, async);
        soc = main.apply(Scala.byName(() -> child("soc", () -> new BoardSoc(c))));
        set(soc.io.uart_rxd, io.uart_rxd);
        set(io.uart_txd, soc.io.uart_txd);
        set(io.leds, soc.io.leds);
        set(soc.io.buttons, xor(io.btn, B(activeLowButtons, c.buttonCount())));
    }

    private static ClockDomain domain(Bool clock, Bool reset, ClockDomainConfig cfg) {
        return new ClockDomain(clock, reset, null, null, null, cfg,
                ClockDomain$.MODULE$.$lessinit$greater$default$7(), ClockDomain$.MODULE$.$lessinit$greater$default$8());
    }
}
