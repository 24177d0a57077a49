package rnic.hw.fpga;

import static rnic.hdl.Hdl.*;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hw.crc.Crc32c;
import rnic.hw.crc.Crc32cConfig;
import rnic.hw.rdmap.AtomicRequest;
import rnic.hw.rdmap.RdmapAtomicUnit;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.com.uart.UartCtrl;
import spinal.lib.com.uart.UartCtrlGenerics;
import spinal.lib.com.uart.UartParityType$;
import spinal.lib.com.uart.UartStopType$;

/**
 * A board-level self-test of two offload blocks, for an FPGA with a UART and LEDs: after reset, and again whenever a
 * character arrives on the UART, it runs {@link Crc32c} (W = 32) over the RFC 5044 Fig. 5 FPDU and
 * {@link RdmapAtomicUnit} on two worked examples, then prints what the hardware computed and whether it matched:
 *
 * <pre>crc32c=83992352 fetchadd=00000000ffff0000 cmpswap=11223344ccccdddd PASS\r\n</pre>
 *
 * <p>The expected values are the documents', not computed here: the CRC of the Fig. 5 vector (48 octets: leading
 * Marker, ULPDU_Length 42, an untagged Send header with MSN 1, 24 zero octets) is 0x83992352, sent {@code 52 23 99 83}
 * (docs/requirements.md §4.2, MPA-19); FetchAdd example F1 and CmpSwap example C1 of docs/requirements.md §2.9 (RFC 7306 §5.1,
 * RDMAP-32, RDMAP-33) give 0x00000000FFFF0000 and 0x11223344CCCCDDDD, both written.
 *
 * <p>LEDs ({@code leds[3:0]}): 0 = CRC matched, 1 = both atomics matched, 2 = all passed, 3 = heartbeat (about 1 Hz).
 * The UART is spinal.lib's {@code UartCtrl}, 8N1 at {@link SelfTestConfig#baud()}.
 */
public final class OffloadSelfTest extends HwComponent {
    /** The Fig. 5 FPDU span the CRC covers, in stream order (docs/requirements.md §4.2). */
    static final int[] FIG5_OCTETS = fig5();
    /** The CRC32c of {@link #FIG5_OCTETS} (docs/requirements.md §4.2: wire {@code 52 23 99 83}). */
    public static final long FIG5_CRC = 0x83992352L;
    /** docs/requirements.md §2.9 F1: original, Add Data, Add Mask, new value. */
    public static final long[] F1 = {0x0000FFFF_FFFFFFFFL, 0x00000001_00000001L, 0x80008000_80008000L,
            0x00000000_FFFF0000L};
    /** docs/requirements.md §2.9 C1: original, Swap Data, Swap Mask, Compare Data, Compare Mask, new value. */
    public static final long[] C1 = {0x11223344_55667788L, 0xAAAABBBB_CCCCDDDDL, 0x00000000_FFFFFFFFL,
            0x11220000_00000000L, 0xFFFF0000_00000000L, 0x11223344_CCCCDDDDL};
    /** The report line's fixed text around the hex fields; {@code %c}, {@code %f}, {@code %s} mark the fields. */
    static final String TEMPLATE = "crc32c=%c fetchadd=%f cmpswap=%s %r\r\n";

    /** Ports, without prefix: {@code uart_txd}, {@code uart_rxd}, {@code leds}. */
    public static final class Io extends HwBundle {
        public final Bool uart_txd;
        public final Bool uart_rxd;
        public final Bits leds;

        public Io() {
            uart_txd = field("uart_txd", out(bool()));
            uart_rxd = field("uart_rxd", in(bool()));
            leds = field("leds", out(bits(4)));
        }
    }

    public final SelfTestConfig config;
    public final Io io;
    public final Crc32c crc;
    public final RdmapAtomicUnit atomic;
    public final UartCtrl uart;
    /** High from a start until the report has been handed to the UART. */
    public final Bool running;
    public final UInt beat;
    public final UInt issued;
    public final UInt received;
    public final Bits crcValue;
    public final Bool crcDone;
    public final Bits fetchAddValue;
    public final Bits cmpSwapValue;
    public final Bits writes;
    public final UInt charIndex;
    public final Bool reporting;
    public final UInt heartbeat;

    public OffloadSelfTest(SelfTestConfig config) {
        this.config = config;
        noIoPrefix();
        io = io(new Io());
        crc = child("crc", () -> new Crc32c(new Crc32cConfig(32)));
        atomic = child("atomic", () -> new RdmapAtomicUnit(1));
        uart = child("uart", () -> new UartCtrl(UartCtrlGenerics.apply(8, SelfTestConfig.DIVIDER_WIDTH, 1, 5, 2,
                false, false)));

        // ---- UART: 8N1, the divider from the config; a received character restarts the test.
        set(uart.io().config().frame().dataLength(), U(7, 3));
        uart.io().config().frame().stop().$colon$eq(UartStopType$.MODULE$.ONE());
        uart.io().config().frame().parity().$colon$eq(UartParityType$.MODULE$.NONE());
        set(uart.io().config().clockDivider(), U(config.clockDivider(), SelfTestConfig.DIVIDER_WIDTH));
        set(uart.io().writeBreak(), False());
        set(uart.io().read().ready(), True());
        set(io.uart_txd, uart.io().uart().txd());
        set(uart.io().uart().rxd(), io.uart_rxd);

        running = regInit("running", bool(), True());
        Bool start = wire("start", and(uart.io().read().valid(), not(running)));

        // ---- CRC: 12 beats of 32 bits, the last one marked.
        int beats = FIG5_OCTETS.length / 4;
        beat = regInit("beat", uint(log2Up(beats + 1)), U(0, log2Up(beats + 1)));
        crcValue = reg("crcValue", bits(32));
        crcDone = regInit("crcDone", bool(), False());
        List<Bits> words = new ArrayList<>();
        for (int i = 0; i < beats; i++) {
            long w = 0;
            for (int o = 3; o >= 0; o--) {
                w = (w << 8) | FIG5_OCTETS[4 * i + o];
            }
            words.add(B(w, 32));
        }
        while (words.size() < (1 << beat.getBitsWidth())) {
            words.add(B(0, 32)); // the index never goes past the last beat; a power-of-two table needs no range check
        }
        Bool feeding = wire("feeding", and(running, lt(beat, U(beats, beat.getBitsWidth()))));
        set(crc.io.sAxis.valid(), feeding);
        set(crc.io.sAxis.payload().tdata, vec(words).apply(beat));
        set(crc.io.sAxis.payload().tkeep, B(0xF, 4));
        set(crc.io.sAxis.payload().tlast, eq(beat, U(beats - 1, beat.getBitsWidth())));
        when(crc.io.sAxis.fire(), () -> set(beat, add(beat, U(1, beat.getBitsWidth()))));
        set(crc.io.mAxis.ready(), True());
        when(crc.io.mAxis.fire(), () -> {
            set(crcValue, crc.io.mAxis.payload());
            set(crcDone, True());
        });

        // ---- Atomics: F1 (tag 0) then C1 (tag 1).
        issued = regInit("issued", uint(2), U(0, 2));
        received = regInit("received", uint(2), U(0, 2));
        fetchAddValue = reg("fetchAddValue", bits(64));
        cmpSwapValue = reg("cmpSwapValue", bits(64));
        writes = regInit("writes", bits(2), B(0, 2));
        AtomicRequest req = atomic.io.request.payload();
        Bool second = wire("second", issued.apply(0));
        set(atomic.io.request.valid(), and(running, lt(issued, U(2, 2))));
        set(req.tag, second.asBits());
        set(req.cmpSwap, second);
        set(req.addrLow, U(0, 3));
        set(req.originalValue, mux(second, b64(C1[0]), b64(F1[0])));
        set(req.addOrSwapData, mux(second, b64(C1[1]), b64(F1[1])));
        set(req.addOrSwapMask, mux(second, b64(C1[2]), b64(F1[2])));
        set(req.compareData, mux(second, b64(C1[3]), b64(0)));
        set(req.compareMask, mux(second, b64(C1[4]), b64(-1L)));
        when(atomic.io.request.fire(), () -> set(issued, add(issued, U(1, 2))));
        set(atomic.io.result.ready(), True());
        when(atomic.io.result.fire(), () -> {
            set(received, add(received, U(1, 2)));
            when(atomic.io.result.payload().tag.apply(0), () -> set(cmpSwapValue, atomic.io.result.payload().newValue))
                    .otherwise(() -> set(fetchAddValue, atomic.io.result.payload().newValue));
            set(writes, concat(range(writes, 0, 0), atomic.io.result.payload().writeEnable.asBits()));
        });

        Bool crcOk = wire("crcOk", and(crcDone, eq(crcValue, B(FIG5_CRC, 32))));
        Bool atomicOk = wire("atomicOk", and(eq(received, U(2, 2)), eq(writes, B(3, 2)),
                eq(fetchAddValue, b64(F1[3])), eq(cmpSwapValue, b64(C1[5]))));
        Bool pass = wire("pass", and(crcOk, atomicOk));

        // ---- Report: one character per UART write, from the template and the captured values.
        List<Bits> chars = reportCharacters(crcValue, fetchAddValue, cmpSwapValue, pass);
        int length = chars.size();
        int iw = log2Up(length + 1);
        charIndex = regInit("charIndex", uint(iw), U(0, iw));
        reporting = wire("reporting", and(running, crcDone, eq(received, U(2, 2))));
        set(uart.io().write().valid(), and(reporting, lt(charIndex, U(length, iw))));
        List<Bits> padded = new ArrayList<>(chars);
        while (padded.size() < (1 << iw)) {
            padded.add(B(0, 8));
        }
        set(uart.io().write().payload(), vec(padded).apply(charIndex));
        when(uart.io().write().fire(), () -> set(charIndex, add(charIndex, U(1, iw))));
        when(and(reporting, eq(charIndex, U(length, iw))), () -> set(running, False()));
        when(start, () -> {
            set(running, True());
            set(beat, U(0, beat.getBitsWidth()));
            set(crcDone, False());
            set(issued, U(0, 2));
            set(received, U(0, 2));
            set(writes, B(0, 2));
            set(charIndex, U(0, iw));
        });

        // ---- LEDs.
        int hw = Math.max(2, log2Up(config.clockHz()) - 1);
        heartbeat = regInit("heartbeat", uint(hw), U(0, hw));
        set(heartbeat, add(heartbeat, U(1, hw)));
        Bits lit = wire("lit", cat(heartbeat.apply(hw - 1), pass, atomicOk, crcOk));
        set(io.leds, config.ledActiveLow() ? not(lit) : lit);
    }

    /** The characters of one report line: the template with the three values in lower-case hex and PASS or FAIL. */
    private List<Bits> reportCharacters(Bits crcHex, Bits fetchAddHex, Bits cmpSwapHex, Bool pass) {
        List<Bits> out = new ArrayList<>();
        for (int i = 0; i < TEMPLATE.length(); i++) {
            char c = TEMPLATE.charAt(i);
            if (c == '%') {
                char field = TEMPLATE.charAt(++i);
                switch (field) {
                    case 'c' -> hex(out, crcHex);
                    case 'f' -> hex(out, fetchAddHex);
                    case 's' -> hex(out, cmpSwapHex);
                    case 'r' -> {
                        for (int k = 0; k < 4; k++) {
                            out.add(mux(pass, B("PASS".charAt(k), 8), B("FAIL".charAt(k), 8)));
                        }
                    }
                    default -> throw new IllegalStateException("template field %" + field);
                }
            } else {
                out.add(B(c, 8));
            }
        }
        return out;
    }

    /** Appends the hex digits of {@code value}, most significant first. */
    private static void hex(List<Bits> out, Bits value) {
        int digits = value.getBitsWidth() / 4;
        for (int d = digits - 1; d >= 0; d--) {
            UInt nibble = range(value, 4 * d + 3, 4 * d).asUInt();
            Bits digit = add(nibble.resize(8), mux(lt(nibble, U(10, 4)), U('0', 8), U('a' - 10, 8))).asBits();
            out.add(digit);
        }
    }

    private static Bits b64(long v) {
        return B(new BigInteger(Long.toUnsignedString(v)), 64);
    }

    private static int[] fig5() {
        int[] o = new int[48];
        // Marker 00 00 00 00 | ULPDU_Length 00 2a | DDP 41 43 | RsvdULP 0 | QN 0 | MSN 00 00 00 01 | MO 0 | 24 zeros
        o[5] = 0x2a;
        o[6] = 0x41;
        o[7] = 0x43;
        o[19] = 0x01;
        return o;
    }
}
