package rnic.hw.fpga;

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
import spinal.core.UInt;

/**
 * The FPGA top of {@link OffloadSelfTest}: pins {@code clk} (the board oscillator), {@code uart_rxd},
 * {@code uart_txd}, {@code leds[3:0]} — the names the files under {@code constraints/<board>/} bind — and no reset
 * pin. Its reset is made inside: a 4-bit counter without reset counts up from the value the FPGA loads into every
 * flip-flop at configuration (0 on iCE40, ECP5 and 7-series), and the self-test is held in reset until the counter's top
 * bit is set, 8 clocks after configuration; a counter starting anywhere else reaches it too.
 */
public final class OffloadSelfTestBoard extends HwComponent {

    /** The board pins. */
    public static final class Io extends HwBundle {
        public final Bool clk;
        public final Bool uart_rxd;
        public final Bool uart_txd;
        public final Bits leds;

        public Io() {
            clk = field("clk", in(bool()));
            uart_rxd = field("uart_rxd", in(bool()));
            uart_txd = field("uart_txd", out(bool()));
            leds = field("leds", out(bits(4)));
        }
    }

    public final Io io;
    /** Power-on reset counter (no reset of its own). */
    public final UInt por;
    /** Reset of the self-test domain: high until {@code por} reaches 8. */
    public final Bool porReset;
    public final OffloadSelfTest test;

    public OffloadSelfTestBoard(SelfTestConfig config, String definitionName) {
        noIoPrefix();
        io = io(new Io());
        setDefinitionName(definitionName, true);
        ClockDomainConfig async = new ClockDomainConfig(ClockDomainConfig$.MODULE$.$lessinit$greater$default$1(),
                ClockDomainConfig$.MODULE$.$lessinit$greater$default$2(),
                ClockDomainConfig$.MODULE$.$lessinit$greater$default$3(),
                ClockDomainConfig$.MODULE$.$lessinit$greater$default$4(),
                ClockDomainConfig$.MODULE$.$lessinit$greater$default$5());
        ClockDomain raw = domain(io.clk, null, async);
        porReset = wire("porReset", bool());
        por = raw.apply(Scala.byName(() -> reg("por", uint(4))));
        raw.apply(Scala.byName(() -> {
            when(not(por.apply(3)), () -> set(por, add(por, U(1, 4))));
            return null;
        }));
        set(porReset, not(por.apply(3)));
        ClockDomain main = domain(io.clk, porReset, async);
        test = main.apply(Scala.byName(() -> child("test", () -> new OffloadSelfTest(config))));
        set(test.io.uart_rxd, io.uart_rxd);
        set(io.uart_txd, test.io.uart_txd);
        set(io.leds, test.io.leds);
    }

    private static ClockDomain domain(Bool clock, Bool reset, ClockDomainConfig cfg) {
        return new ClockDomain(clock, reset, null, null, null, cfg,
                ClockDomain$.MODULE$.$lessinit$greater$default$7(), ClockDomain$.MODULE$.$lessinit$greater$default$8());
    }
}
