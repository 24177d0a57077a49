package rnic.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.hdl.Hdl.*;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Stream;

/** Unit tests of the Java facade: elaboration inside a Spinal context and the emitted Verilog's names and ports. */
class FacadeTest {

    /** A small bundle with a constructor argument, to exercise element order and copying. */
    public static final class Pair extends HwBundle {
        public final int width;
        public final Bits low;
        public final Bits high;
        public final Bool flag;

        public Pair(int width) {
            this.width = width;
            low = field("low", bits(width));
            high = field("high", bits(width));
            flag = field("flag", bool());
        }
    }

    /** Counter with a child, a when/elseWhen/otherwise chain, a switch and a stream through a FIFO. */
    public static final class Counter extends HwComponent {
        public static final class Io extends HwBundle {
            public final Bool clear = field("clear", in(bool()));
            public final Bool inc = field("inc", in(bool()));
            public final UInt mode = field("mode", in(uint(2)));
            public final UInt count = field("count", out(uint(8)));
            public final Bits decoded = field("decoded", out(bits(4)));
            public final Stream<Pair> source = field("source", Streams.slaveStream(() -> new Pair(4)));
            public final Stream<Pair> sink = field("sink", Streams.masterStream(() -> new Pair(4)));
        }

        public final Io io = io(new Io());
        public final UInt value = regInit("value", uint(8), U(0, 8));
        public final Bits decodedWire = wire("decodedWire", bits(4));
        public final Inverter inv = child("inv", Inverter::new);

        public Counter() {
            when(and(io.clear, not(io.inc)), () -> set(value, U(0, 8)))
                    .elseWhen(io.inc, () -> set(value, add(value, U(1, 8))))
                    .otherwise(() -> set(value, value));
            switchOn(io.mode)
                    .is(0, () -> set(decodedWire, B(1, 4)))
                    .is(1, () -> set(decodedWire, B(2, 4)))
                    .is(java.util.List.of(2, 3), () -> set(decodedWire, B(12, 4)))
                    .build();
            set(inv.io.a, io.inc);
            set(io.decoded, decodedWire);
            set(io.count, value);
            Streams.connect(Streams.fifo(io.source, 4), io.sink);
        }
    }

    /** A leaf child. */
    public static final class Inverter extends HwComponent {
        public static final class Io extends HwBundle {
            public final Bool a = field("a", in(bool()));
            public final Bool y = field("y", out(bool()));
        }

        public final Io io = io(new Io());

        public Inverter() {
            set(io.y, not(io.a));
        }
    }

    /** Holds a {@link Pair} and a copy of it. */
    public static final class PairHolder extends HwComponent {
        public PairHolder(Pair[] holder, int[] widths) {
            holder[0] = field("p", new Pair(3));
            holder[1] = (Pair) holder[0].clone();
            widths[0] = holder[0].getBitsWidth();
            widths[1] = holder[1].getBitsWidth();
        }
    }

    /** A parent that forgets child(...). */
    public static final class Careless extends HwComponent {
        public final Inverter inner;

        public Careless() {
            inner = new Inverter();
        }
    }

    private static String generate(java.util.function.Supplier<? extends spinal.core.Component> top, String name)
            throws Exception {
        File dir = new File("target/facade-test");
        Rtl.generate(dir, top);
        return Files.readString(Path.of(dir.getPath(), name + ".v"));
    }

    @Test
    void emitsNamedPortsRegistersChildrenAndWhenConditionsFromJavaLines() throws Exception {
        String v = generate(Counter::new, "Counter");
        assertTrue(v.contains("module Counter"), v);
        for (String port : new String[] {"io_clear", "io_inc", "io_mode", "io_count", "io_decoded",
                "io_source_valid", "io_source_ready", "io_source_payload_low", "io_source_payload_high",
                "io_source_payload_flag", "io_sink_payload_flag"}) {
            assertTrue(v.contains(port), "port " + port + " missing");
        }
        assertTrue(v.contains("reg        [7:0]    value;") || v.contains("reg [7:0] value") || v.matches("(?s).*reg\\s+\\[7:0\\]\\s+value;.*"),
                "register 'value' not named");
        assertTrue(v.contains("Inverter inv ("), "child instance not named 'inverter'");
        assertTrue(v.contains("StreamFifo"), "spinal.lib StreamFifo not instantiated");
        assertTrue(v.contains("when_FacadeTest_l"), "when condition is not named after the Java file and line");
        assertTrue(v.contains("decodedWire"), "wire not named");
    }

    @Test
    void bundleElementsAreRegisteredInWireOrderAndCopiesKeepConstructorArguments() throws Exception {
        Pair[] holder = new Pair[2];
        int[] widths = new int[2];
        generate(() -> new PairHolder(holder, widths), "PairHolder");
        var names = Scala.list(holder[0].elements()).stream().map(t -> t._1()).toList();
        assertEquals(java.util.List.of("low", "high", "flag"), names);
        assertEquals(7, widths[0]);
        assertEquals(3, holder[1].width);
        assertEquals(7, widths[1]);
        assertTrue(holder[1] != holder[0]);
    }

    @Test
    void childCreatedWithNewIsReported() {
        Exception e = assertThrows(Exception.class, () -> generate(Careless::new, "Careless"));
        Throwable root = e;
        boolean found = false;
        while (root != null) {
            found |= String.valueOf(root.getMessage()).contains("child(...)");
            root = root.getCause();
        }
        assertTrue(found, "expected a message naming child(...), got " + e);
    }

    @Test
    void locationPointsAtTheCallerLine() {
        int line = new Throwable().getStackTrace()[0].getLineNumber() + 1;
        spinal.idslplugin.Location loc = Loc.here();
        assertEquals("FacadeTest", loc.file());
        assertEquals(line, loc.line());
    }

    @Test
    void log2UpMatchesSpinal() {
        assertEquals(1, log2Up(1));
        assertEquals(1, log2Up(2));
        assertEquals(2, log2Up(3));
        assertEquals(6, log2Up(64));
        assertEquals(7, log2Up(65));
    }
}
