package rnic.hw.board;

import static rnic.hdl.Hdl.*;

import java.util.function.Supplier;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import spinal.core.BaseType;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.bus.amba3.apb.Apb3;
import spinal.lib.bus.amba3.apb.Apb3Config;
import spinal.lib.bus.misc.SizeMapping;
import spinal.lib.bus.regif.AccessType;
import spinal.lib.bus.regif.Apb3BusInterface;
import spinal.lib.bus.regif.ClassName;
import spinal.lib.bus.regif.RegInst;
import spinal.lib.bus.regif.SymbolName;

/**
 * The board's own registers for the firmware (SpinalHDL regif on APB3): what the board is (ID "RNBD", clock, the host
 * link's baud rate and the UART's samples per bit, so the firmware computes its divider; the hardware build id), a
 * free-running 64-bit cycle counter (the firmware's timer; reading CYCLE_LO latches CYCLE_HI), the LEDs and the
 * buttons (two-flop synchronised), and the RNIC core's interrupt line (BOARD_IRQ).
 */
public final class BoardControl extends HwComponent {
    /** APB3: 8 address bits, 32-bit data. */
    public static Apb3Config apbConfig() {
        return new Apb3Config(8, 32, 1, true);
    }

    /** Ports: the APB3 slave, LEDs out, buttons in. */
    public static final class Io extends HwBundle {
        public final Apb3 apb;
        public final Bits leds;
        public final Bits buttons;
        public final Bool rnicInterrupt;

        Io(BoardSocConfig c) {
            apb = field("apb", spinal.lib.slave$.MODULE$.apply(new Apb3(apbConfig())));
            leds = field("leds", out(bits(c.ledCount())));
            buttons = field("buttons", in(bits(c.buttonCount())));
            rnicInterrupt = field("rnicInterrupt", in(bool()));
        }
    }

    public final Io io;
    public final Apb3BusInterface busif;
    public final UInt cycle;

    public BoardControl(BoardSocConfig c) {
        io = io(new Io(c));
        busif = field("busif", new Apb3BusInterface(io.apb, new SizeMapping(scala.math.BigInt.apply(0),
                scala.math.BigInt.apply(256)), "", false, new ClassName("BoardControl")));
        cycle = regInit("cycle", uint(64), U(0, 64));
        set(cycle, add(cycle, U(1, 64)));

        constant("BOARD_ID", "Board type: ASCII 'RNBD', first character in bits 31:24", 0x524E4244L);
        constant("BOARD_CLOCK_HZ", "Frequency of the SoC clock in Hz", c.clockHz());
        constant("BOARD_UART_SAMPLES", "UART samples per bit: bit time = samples x (divider + 1) clocks",
                BoardSocConfig.UART_SAMPLES_PER_BIT);
        constant("BOARD_BAUD", "Baud rate of the host link", c.baud());
        constant("BOARD_BUILD", "Build id of this hardware", c.buildId() & 0xFFFF_FFFFL);

        RegInst lo = reg("BOARD_CYCLE_LO", "Cycle counter bits 31:0; reading it latches BOARD_CYCLE_HI");
        UInt loField = field(lo, "CYCLE_LO", () -> uint(32), AccessType.RO$.MODULE$, "cycle counter bits 31:0");
        set(loField, range(cycle, 31, 0));
        RegInst hi = reg("BOARD_CYCLE_HI", "Cycle counter bits 63:32 as latched by the last BOARD_CYCLE_LO read");
        UInt hiField = field(hi, "CYCLE_HI", () -> uint(32), AccessType.RO$.MODULE$, "bits 63:32, latched");
        UInt hiLatch = regInit("cycleHiLatch", uint(32), U(0, 32));
        when(lo.hitDoRead(), () -> set(hiLatch, range(cycle, 63, 32)));
        set(hiField, hiLatch);

        RegInst leds = reg("BOARD_LEDS", "The LEDs, one per bit (1 = on)");
        Bits ledField = field(leds, "LEDS", () -> bits(c.ledCount()), AccessType.RW$.MODULE$, "LED states");
        set(io.leds, ledField);
        RegInst buttons = reg("BOARD_BUTTONS", "The buttons, one per bit (1 = pressed), synchronised");
        Bits buttonField = field(buttons, "BUTTONS", () -> bits(c.buttonCount()), AccessType.RO$.MODULE$,
                "button states");
        Bits sync1 = regInit("buttonSync1", bits(c.buttonCount()), B(0, c.buttonCount()));
        Bits sync2 = regInit("buttonSync2", bits(c.buttonCount()), B(0, c.buttonCount()));
        set(sync1, io.buttons);
        set(sync2, sync1);
        set(buttonField, sync2);

        RegInst irq = reg("BOARD_IRQ", "Interrupt lines the firmware watches");
        Bool rnic = field(irq, "RNIC", () -> bool(), AccessType.RO$.MODULE$, "the RNIC core's interrupt output");
        set(rnic, io.rnicInterrupt);
        constant("BOARD_MEMORY_BYTES", "Octets of board memory (the RNIC's host memory) at 0x1000_0000",
                c.memoryBytes());
    }

    private RegInst reg(String name, String doc) {
        return busif.newReg(doc, null, null, new SymbolName(name));
    }

    private void constant(String name, String doc, long value) {
        UInt f = field(reg(name, doc), name.substring("BOARD_".length()), () -> uint(32), AccessType.RO$.MODULE$,
                doc);
        set(f, U(value, 32));
    }

    private <T extends BaseType> T field(RegInst r, String name, Supplier<T> type, AccessType access, String doc) {
        T v = r.field(hardType(type), access, scala.math.BigInt.apply(0), doc, new SymbolName(name));
        v.setName("board" + name.charAt(0) + name.substring(1).toLowerCase().replace("_", ""));
        return v;
    }
}
