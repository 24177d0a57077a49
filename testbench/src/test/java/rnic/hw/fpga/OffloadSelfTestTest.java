package rnic.hw.fpga;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import rnic.model.rdmap.AtomicAlu;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.Tb;

/**
 * Verilator testbench of {@link OffloadSelfTest}, the board self-test: the report line it prints on its UART (decoded
 * here bit by bit, 8N1) must carry the CRC32c of the RFC 5044 Fig. 5 FPDU as {@link CRC32C} computes it and the
 * FetchAdd F1 / CmpSwap C1 results as the RFC 7306 pseudocode model {@link AtomicAlu} computes them, then PASS; the
 * LEDs must show both checks passed; the test must stay quiet until a character arrives and then print the same line
 * again.
 *
 * <p>Requirements: MPA-19 (CRC32c over the FPDU, the Fig. 5 vector of docs/requirements.md §4.2), RDMAP-32 (masked FetchAdd),
 * RDMAP-33 (masked CmpSwap).
 */
class OffloadSelfTestTest {
    /** 1.6 MHz and 100 kbaud: 16 clocks per bit keeps the simulation short. */
    static final SelfTestConfig CONFIG = new SelfTestConfig(1_600_000, 100_000, false);
    static final int BIT = (int) CONFIG.cyclesPerBit();

    static SimModel<OffloadSelfTest> model() {
        return SimModel.of("OffloadSelfTest-c1600000-b100000", () -> new OffloadSelfTest(CONFIG));
    }

    /** The Fig. 5 span as docs/requirements.md §4.2 lists it, written out here independently of the hardware class. */
    static byte[] fig5() {
        byte[] b = new byte[48];
        byte[] head = {0, 0, 0, 0, 0x00, 0x2a, 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
        System.arraycopy(head, 0, b, 0, head.length);
        return b;
    }

    static String expectedLine() {
        CRC32C crc = new CRC32C();
        crc.update(fig5());
        assertEquals(0x83992352L, crc.getValue(), "the Fig. 5 vector as written here (docs/requirements.md §4.2)");
        AtomicAlu.Result f1 = AtomicAlu.fetchAdd(0x0000FFFF_FFFFFFFFL, 0x00000001_00000001L, 0x80008000_80008000L);
        AtomicAlu.Result c1 = AtomicAlu.cmpSwap(0x11223344_55667788L, 0xAAAABBBB_CCCCDDDDL, 0x00000000_FFFFFFFFL,
                0x11220000_00000000L, 0xFFFF0000_00000000L);
        return String.format("crc32c=%08x fetchadd=%016x cmpswap=%016x PASS\r\n", crc.getValue(), f1.newValue(),
                c1.newValue());
    }

    /** Reads 8N1 characters from {@code txd} until a line feed; fails on a bad start or stop bit. */
    static String readLine(Tb<OffloadSelfTest> tb, SimSignal txd, long maxCycles) {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        long deadline = tb.cycle() + maxCycles;
        while (true) {
            tb.runUntil(() -> txd.get() == 0, Math.max(1, deadline - tb.cycle()), "a UART start bit");
            tb.step(BIT / 2);
            assertEquals(0, txd.get(), "start bit still low in its middle");
            int c = 0;
            for (int i = 0; i < 8; i++) {
                tb.step(BIT);
                c |= (int) txd.get() << i;
            }
            tb.step(BIT);
            assertEquals(1, txd.get(), "stop bit");
            line.write(c);
            if (c == '\n') {
                return line.toString(StandardCharsets.ISO_8859_1);
            }
        }
    }

    /** Sends one 8N1 character on {@code rxd}. */
    static void send(Tb<OffloadSelfTest> tb, SimSignal rxd, int c) {
        rxd.set(0);
        tb.step(BIT);
        for (int i = 0; i < 8; i++) {
            rxd.set((c >> i) & 1);
            tb.step(BIT);
        }
        rxd.set(1);
        tb.step(BIT);
    }

    @Test
    void printsTheComputedValuesAndPassesThenRunsAgainOnAKeypress() {
        String expected = expectedLine();
        model().run("selftest", 1, tb -> {
            OffloadSelfTest.Io io = tb.dut().io;
            SimSignal txd = tb.signal(io.uart_txd);
            SimSignal rxd = tb.signal(io.uart_rxd);
            SimSignal leds = tb.signal(io.leds);
            rxd.set(1);
            tb.reset(4);
            long limit = (long) BIT * 10 * (expected.length() + 4);
            assertEquals(expected, readLine(tb, txd, limit));
            assertEquals(0b0111, leds.get() & 0b0111, "LEDs: CRC ok, atomics ok, pass");

            // Quiet until a character arrives.
            long quiet = tb.cycle() + 20L * BIT * 10;
            while (tb.cycle() < quiet) {
                tb.step();
                assertEquals(1, txd.get(), "the line stays idle between runs");
            }
            send(tb, rxd, 'r');
            assertEquals(expected, readLine(tb, txd, limit));
            assertEquals(0b0111, leds.get() & 0b0111, "LEDs after the second run");
        });
    }
}
