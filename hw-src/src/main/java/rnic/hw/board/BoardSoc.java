package rnic.hw.board;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Scala;
import scala.Tuple2;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.Data;
import spinal.lib.bus.amba3.apb.Apb3;
import spinal.lib.bus.amba3.apb.Apb3Decoder$;
import rnic.hdl.Streams;
import rnic.hw.ddp.MemoryPort;
import rnic.hw.top.RnicCore;
import rnic.hw.top.RnicRegisterFile;
import spinal.lib.bus.amba4.axi.Axi4;
import spinal.lib.bus.amba4.axi.Axi4Ax;
import spinal.lib.bus.amba4.axi.Axi4Bus;
import spinal.lib.bus.amba4.axi.Axi4CrossbarFactory;
import spinal.lib.bus.amba4.axi.Axi4ReadOnly;
import spinal.lib.bus.amba4.axi.Axi4Shared;
import spinal.lib.bus.amba4.axi.Axi4SharedOnChipRam;
import spinal.lib.bus.amba4.axi.Axi4SharedToApb3Bridge;
import spinal.lib.bus.misc.SizeMapping;
import spinal.lib.com.uart.Apb3UartCtrl;
import spinal.lib.com.uart.Uart;
import spinal.lib.com.uart.UartCtrlGenerics;
import spinal.lib.com.uart.UartCtrlMemoryMappedConfig;
import spinal.lib.cpu.riscv.impl.InstructionCacheConfig;
import spinal.lib.cpu.riscv.impl.RiscvCoreConfig;
import spinal.lib.cpu.riscv.impl.RiscvCoreConfig$;
import spinal.lib.cpu.riscv.impl.build.RiscvAxi4;
import spinal.lib.cpu.riscv.impl.extension.BarrelShifterFullExtension;
import spinal.lib.cpu.riscv.impl.extension.DivExtension;
import spinal.lib.cpu.riscv.impl.extension.MulExtension;

/**
 * The board SoC: spinal.lib's RV32IM core (the {@code RiscvCore} of its Pinsec SoC, no caches, no debug port) runs
 * the firmware from an on-chip RAM initialised with its image; spinal.lib's AXI4 crossbar joins the core's instruction
 * and data buses to the RAM and, through an AXI4-to-APB3 bridge and {@code Apb3Decoder}, to the peripherals:
 *
 * <pre>
 * 0x0000_0000  RAM (ramBytes)             firmware code, data, stack
 * 0x1000_0000  board memory (memoryBytes) the RNIC's "host memory": rings, CQs, buffers; the RNIC core's AXI4
 *                                         master reaches it (and nothing else: other addresses answer DECERR)
 * 0xF001_0000  Apb3UartCtrl (4 KiB)       the host link, 8N1
 * 0xF002_0000  BoardControl (4 KiB)       ID, clock, baud, build id, cycle counter, LEDs, buttons, RNIC interrupt
 * 0xF003_0000  TcpBridge (4 KiB)          the core's TCP byte streams, per connection
 * 0xF004_0000  RnicCore (64 KiB)          the RNIC's registers (RnicRegisterFile), as the host driver knows them
 * </pre>
 *
 * The RNIC core runs at W = 32 with the board's QP count; its 64-bit memory addresses are narrowed to the 32-bit
 * crossbar (an address with any upper bit set goes to an unmapped address and gets DECERR, never wraps into RAM).
 *
 * The core fetches through a 4 KiB instruction cache; data goes straight to the crossbar. The firmware's
 * {@code firmware/board/board.h} holds the same map. Ports: the default clock domain's {@code clk}
 * and {@code reset}, {@code uart_txd}, {@code uart_rxd}, {@code leds}, {@code buttons}.
 */
public final class BoardSoc extends HwComponent {
    /** Where the RAM starts. */
    public static final long RAM_BASE = 0x0000_0000L;
    /** Where the APB3 window starts (1 MiB). */
    public static final long APB_BASE = 0xF000_0000L;
    /** The UART's offset in the APB3 window. */
    public static final int UART_OFFSET = 0x1_0000;
    /** BoardControl's offset in the APB3 window. */
    public static final int CONTROL_OFFSET = 0x2_0000;
    /** TcpBridge's offset in the APB3 window. */
    public static final int TCP_OFFSET = 0x3_0000;
    /** RnicCore's register file's offset in the APB3 window. */
    public static final int RNIC_OFFSET = 0x4_0000;
    /** Where the board memory (the RNIC's host memory) starts. */
    public static final long MEMORY_BASE = 0x1000_0000L;
    /** An address no slave answers for the RNIC's master: upper address bits set are sent here. */
    static final long UNMAPPED = 0xFFFF_F000L;

    /**
     * UART receive FIFO entries: a whole frame's worth of the host link's octets arrives while the firmware checks the
     * previous frame (at 3 Mbaud an octet every 16 clocks of 48 MHz), so it is deep, and block RAM.
     */
    public static final int RX_FIFO = 2048;

    /** Ports, without prefix. */
    public static final class Io extends HwBundle {
        public final Bool uart_txd;
        public final Bool uart_rxd;
        public final Bits leds;
        public final Bits buttons;

        Io(BoardSocConfig c) {
            uart_txd = field("uart_txd", out(bool()));
            uart_rxd = field("uart_rxd", in(bool()));
            leds = field("leds", out(bits(c.ledCount())));
            buttons = field("buttons", in(bits(c.buttonCount())));
        }
    }

    public final BoardSocConfig config;
    public final Io io;
    public final RiscvAxi4 cpu;
    public final Axi4SharedOnChipRam ram;
    public final Axi4SharedToApb3Bridge apbBridge;
    public final Apb3UartCtrl uart;
    public final BoardControl control;
    public final RnicCore rnic;
    public final Axi4SharedOnChipRam memory;
    public final TcpBridge tcp;

    public BoardSoc(BoardSocConfig c) {
        this.config = c;
        noIoPrefix();
        io = io(new Io(c));
        RiscvCoreConfig cpuConfig = cpuConfig();
        // A 4 KiB instruction cache as in Pinsec: without it every fetch crosses the crossbar (several cycles per
        // instruction), too slow to keep up with a 3 Mbaud host link.
        InstructionCacheConfig iCache = new InstructionCacheConfig(4096, 32, 1, true, 32, 32, 32);
        // Four interrupt lines as in Pinsec (0: the UART, 1: the RNIC core; 2, 3 unused). The firmware polls today;
        // without the interrupt extension spinal.lib's core leaves a register unassigned, which elaboration refuses.
        cpu = child("cpu", () -> new RiscvAxi4(cpuConfig, iCache, null, false, 4));
        ram = child("ram", () -> Axi4SharedOnChipRam.apply(32, scala.math.BigInt.apply(c.ramBytes()), 4, false));
        List<scala.math.BigInt> image = new ArrayList<>();
        for (int i = 0; i < c.ramBytes() / 4; i++) {
            image.add(scala.math.BigInt.apply(i < c.firmware().length ? c.firmware()[i] & 0xFFFF_FFFFL : 0L));
        }
        ram.ram().initBigInt(Scala.seq(image), false);
        apbBridge = child("apbBridge", () -> Axi4SharedToApb3Bridge.apply(20, 32, 4));
        uart = child("uart", () -> Apb3UartCtrl.apply(UartCtrlMemoryMappedConfig.apply(
                UartCtrlGenerics.apply(8, 20, 1, 5, 2, false, false), null, true, true, 16, RX_FIFO)));
        control = child("control", () -> new BoardControl(c));
        rnic = child("rnic", () -> new RnicCore(c.rnic()));
        memory = child("memory", () -> Axi4SharedOnChipRam.apply(32, scala.math.BigInt.apply(c.memoryBytes()), 6,
                false));
        tcp = child("tcp", () -> new TcpBridge(c.rnic().qpCount()));
        for (int q = 0; q < c.rnic().qpCount(); q++) {
            Streams.connect(tcp.io.toCore.get(q), rnic.io.tcpRx.get(q));
            Streams.connect(rnic.io.tcpTx.get(q), tcp.io.fromCore.get(q));
        }
        set(control.io.rnicInterrupt, rnic.io.interrupt);
        Axi4 rnicAxi = narrow(rnic.io.axi);

        Axi4ReadOnly cpuI = (Axi4ReadOnly) find(cpu.io(), "i");
        Axi4Shared cpuD = (Axi4Shared) find(cpu.io(), "d");
        Axi4Shared ramAxi = (Axi4Shared) find(ram.io(), "axi");
        Axi4Shared bridgeAxi = (Axi4Shared) find(apbBridge.io(), "axi");
        Axi4Shared memoryAxi = (Axi4Shared) find(memory.io(), "axi");
        Axi4CrossbarFactory crossbar = Axi4CrossbarFactory.apply();
        crossbar.addSlaves(Scala.seq(
                new Tuple2<Axi4Bus, SizeMapping>(ramAxi, mapping(RAM_BASE, c.ramBytes())),
                new Tuple2<Axi4Bus, SizeMapping>(memoryAxi, mapping(MEMORY_BASE, c.memoryBytes())),
                new Tuple2<Axi4Bus, SizeMapping>(bridgeAxi, mapping(APB_BASE, 1 << 20))));
        crossbar.addConnections(Scala.seq(
                new Tuple2<Axi4Bus, scala.collection.Seq<Axi4Bus>>(cpuI, Scala.seq(ramAxi)),
                new Tuple2<Axi4Bus, scala.collection.Seq<Axi4Bus>>(cpuD, Scala.seq(ramAxi, memoryAxi, bridgeAxi)),
                new Tuple2<Axi4Bus, scala.collection.Seq<Axi4Bus>>(rnicAxi, Scala.seq(memoryAxi))));
        crossbar.build();

        Apb3Decoder$.MODULE$.apply((Apb3) find(apbBridge.io(), "apb"), Scala.seq(
                new Tuple2<>((Apb3) find(uart.io(), "apb"), mapping(UART_OFFSET, 4096)),
                new Tuple2<>(control.io.apb, mapping(CONTROL_OFFSET, 4096)),
                new Tuple2<>(tcp.io.apb, mapping(TCP_OFFSET, 4096)),
                new Tuple2<>(rnic.io.apb, mapping(RNIC_OFFSET, 1 << RnicRegisterFile.ADDRESS_WIDTH))));

        Bits irq = (Bits) find(cpu.io(), "interrupt");
        set(irq, cat(B(0, 2), rnic.io.interrupt.asBits(), ((Bool) find(uart.io(), "interrupt")).asBits()));
        Uart pins = (Uart) find(uart.io(), "uart");
        set(io.uart_txd, pins.txd());
        set(pins.rxd(), io.uart_rxd);
        set(io.leds, control.io.leds);
        set(control.io.buttons, io.buttons);
    }

    /** rv32im: the core of spinal.lib's Pinsec with its multiply, divide and full barrel shifter extensions. */
    private static RiscvCoreConfig cpuConfig() {
        RiscvCoreConfig$ k = RiscvCoreConfig$.MODULE$;
        RiscvCoreConfig cfg = k.apply(32, 32, scala.math.BigInt.apply(0), k.apply$default$4(), k.apply$default$5(),
                k.apply$default$6(), k.apply$default$7(), k.apply$default$8(), k.apply$default$9(),
                k.apply$default$10(), k.apply$default$11(), k.apply$default$12(), k.apply$default$13(),
                k.apply$default$14(), k.apply$default$15());
        cfg.add(new MulExtension());
        cfg.add(new DivExtension());
        cfg.add(new BarrelShifterFullExtension());
        return cfg;
    }

    /**
     * The RNIC core's AXI4 master with 32-bit addresses for the crossbar, through a register slice: an address with a
     * bit above 31 set becomes {@link #UNMAPPED}, which only the crossbar's error slave answers.
     */
    private Axi4 narrow(Axi4 wide) {
        Axi4 n = wire("rnicAxi32", new Axi4(MemoryPort.axi4Config(32, 32)));
        narrowChannel(wide.aw(), n.aw());
        narrowChannel(wide.ar(), n.ar());
        set(n.w().valid(), wide.w().valid());
        set(wide.w().ready(), n.w().ready());
        set(n.w().payload().data(), wide.w().payload().data());
        set(n.w().payload().strb(), wide.w().payload().strb());
        set(n.w().payload().last(), wide.w().payload().last());
        set(wide.b().valid(), n.b().valid());
        set(n.b().ready(), wide.b().ready());
        set(wide.b().payload().id(), n.b().payload().id());
        set(wide.b().payload().resp(), n.b().payload().resp());
        set(wide.r().valid(), n.r().valid());
        set(n.r().ready(), wide.r().ready());
        set(wide.r().payload().id(), n.r().payload().id());
        set(wide.r().payload().data(), n.r().payload().data());
        set(wide.r().payload().resp(), n.r().payload().resp());
        set(wide.r().payload().last(), n.r().payload().last());
        // A full register slice on every channel: the core's AXI master has paths from ready to valid and payload,
        // and the crossbar's decoder has paths from the address to ready; the slice keeps them from closing a loop.
        spinal.lib.StreamPipe full = spinal.lib.StreamPipe$.MODULE$.FULL();
        return n.pipelined(full, full, full, full, full);
    }

    private void narrowChannel(spinal.lib.Stream<? extends Axi4Ax> wide, spinal.lib.Stream<? extends Axi4Ax> n) {
        set(n.valid(), wide.valid());
        set(wide.ready(), n.ready());
        Axi4Ax a = wide.payload();
        Axi4Ax b = n.payload();
        set(b.addr(), mux(eq(range(a.addr(), 63, 32), U(0, 32)), range(a.addr(), 31, 0), U(UNMAPPED, 32)));
        set(b.id(), a.id());
        set(b.len(), a.len());
        set(b.size(), a.size());
        set(b.burst(), a.burst());
    }

    private static SizeMapping mapping(long base, long size) {
        return new SizeMapping(scala.math.BigInt.apply(base), scala.math.BigInt.apply(size));
    }

    private static Data find(spinal.core.Bundle io, String name) {
        Data d = io.find(name);
        if (d == null) {
            throw new IllegalStateException("no port " + name + " in " + io);
        }
        return d;
    }
}
