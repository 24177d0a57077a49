package rnic.hw.board;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import rnic.hdl.Rtl;
import rnic.hw.Blocks;

/**
 * The ULX3S board top ({@code BoardTop_ulx3s}, as {@link Blocks#fpgaTops} builds it), checked from its generated
 * Verilog against outside references: the ECP5 PLL's output frequency computed from the {@code EHXPLLL} parameters by
 * Lattice's formula (TN1263: with CLKOP feedback, f(VCO) = f(CLKI) / CLKI_DIV × CLKFB_DIV × CLKOP_DIV and
 * f(CLKOSx) = f(VCO) / CLKOSx_DIV, PFD 3.125–400 MHz, VCO 400–800 MHz) and the pin file
 * {@code constraints/ulx3s/ulx3s-soc.lpf}, which must place every top-level port bit and nothing else. Covers the board
 * part of issue 15 (no protocol requirement IDs). Run time: one SoC elaboration, about 15 s.
 */
class BoardTopTest {
    static final File OUT = new File("target/boardtop");
    static final File LPF = new File("../constraints/ulx3s/ulx3s-soc.lpf");
    static String top;
    static String pll;

    @BeforeAll
    static void generate() throws Exception {
        Blocks.Block b = Blocks.fpgaTops().stream().filter(x -> x.name().equals("BoardTop_ulx3s")).findFirst()
                .orElseThrow();
        Rtl.generate(OUT, b.factory());
        top = Files.readString(new File(OUT, "BoardTop_ulx3s.v").toPath());
        pll = "";
        for (File f : OUT.listFiles((d, n) -> n.endsWith(".v"))) {
            String v = Files.readString(f.toPath());
            if (v.contains("EHXPLLL")) {
                pll += v;
            }
        }
    }

    /** The EHXPLLL parameters in the Verilog give 48 MHz from the board's 25 MHz, within the ECP5's PFD/VCO ranges. */
    @Test
    void pllMakes48MhzFrom25() {
        Matcher inst = Pattern.compile("EHXPLLL\\s*#\\s*\\((.*?)\\)\\s*\\w+\\s*\\(", Pattern.DOTALL).matcher(pll);
        assertTrue(inst.find(), "no EHXPLLL instance with parameters in the generated Verilog");
        Map<String, String> p = new HashMap<>();
        Matcher m = Pattern.compile("\\.(\\w+)\\s*\\(\\s*\"?([^\"\\)]*)\"?\\s*\\)").matcher(inst.group(1));
        while (m.find()) {
            p.put(m.group(1), m.group(2).trim());
        }
        assertFalse(inst.find(), "more than one EHXPLLL");
        assertEquals("CLKOP", p.get("FEEDBK_PATH"));
        double fin = 25e6;
        int clki = Integer.parseInt(p.get("CLKI_DIV"));
        int clkfb = Integer.parseInt(p.get("CLKFB_DIV"));
        int clkop = Integer.parseInt(p.get("CLKOP_DIV"));
        int clkos = Integer.parseInt(p.get("CLKOS_DIV"));
        double pfd = fin / clki;
        double vco = pfd * clkfb * clkop;
        assertTrue(pfd >= 3.125e6 && pfd <= 400e6, "PFD " + pfd);
        assertTrue(vco >= 400e6 && vco <= 800e6, "VCO " + vco);
        assertEquals(48e6, vco / clkos, 1e-3, "CLKOS");
        assertEquals(Integer.toString(clkop - 1), p.get("CLKOP_CPHASE"));
        assertEquals("ENABLED", p.get("CLKOS_ENABLE"));
        // The PLL's CLKOS drives the SoC: the top's clock reaches the PLL's CLKI, and CLKOS leaves the PLL module.
        assertTrue(Pattern.compile("\\.CLKOS\\s*\\(\\s*\\w+\\s*\\)").matcher(pll).find());
        assertTrue(Pattern.compile("\\.io_clkIn\\s*\\(\\s*clk\\s*\\)").matcher(top).find(), "clk not to the PLL");
        // The SoC runs on the PLL's clock and is reset from the synchroniser fed by the PLL's lock.
        assertTrue(Pattern.compile("assign\\s+socClk\\s*=\\s*pll_io_clkOut\\s*;").matcher(top).find(), top);
        assertTrue(Pattern.compile("assign\\s+pllUnlocked\\s*=\\s*\\(?\\s*!\\s*pll_io_locked\\s*\\)?\\s*;")
                .matcher(top).find(), top);
        assertTrue(Pattern.compile("BoardSoc\\s+soc\\s*\\((?:(?!\\);).)*\\(\\s*socClk\\s*\\)(?:(?!\\);).)*"
                + "\\(\\s*socReset\\s*\\)", Pattern.DOTALL).matcher(top).find(), top);
    }

    /** Every port bit of the top is placed by the LPF, the LPF places nothing else, and the 25 MHz clock is declared. */
    @Test
    void lpfPlacesEveryPort() throws Exception {
        Set<String> ports = new TreeSet<>();
        Matcher header = Pattern.compile("module BoardTop_ulx3s\\s*\\((.*?)\\);", Pattern.DOTALL).matcher(top);
        assertTrue(header.find());
        Matcher port = Pattern.compile("(input|output)\\s+wire\\s+(?:\\[(\\d+):0\\]\\s+)?(\\w+)")
                .matcher(header.group(1));
        while (port.find()) {
            if (port.group(2) == null) {
                ports.add(port.group(3));
            } else {
                for (int i = 0; i <= Integer.parseInt(port.group(2)); i++) {
                    ports.add(port.group(3) + "[" + i + "]");
                }
            }
        }
        assertEquals(Set.of("clk", "uart_rxd", "uart_txd"), Set.copyOf(ports.stream()
                .filter(s -> !s.contains("[")).toList()));
        assertTrue(ports.contains("leds[7]") && ports.contains("btn[6]"), ports.toString());
        String lpf = Files.readString(LPF.toPath());
        Set<String> located = new TreeSet<>();
        Matcher loc = Pattern.compile("LOCATE COMP \"([^\"]+)\" SITE \"(\\w+)\"").matcher(lpf);
        Set<String> sites = new TreeSet<>();
        while (loc.find()) {
            located.add(loc.group(1));
            assertTrue(sites.add(loc.group(2)), "site " + loc.group(2) + " used twice");
        }
        assertEquals(ports, located);
        assertTrue(lpf.contains("FREQUENCY PORT \"clk\" 25.000000 MHz"));
        // Pins of the public ulx3s_v20.lpf: the oscillator, the FTDI UART, LED 0 and BTN_PWRn.
        for (String pin : new String[] {"\"clk\" SITE \"G2\"", "\"uart_txd\" SITE \"L4\"", "\"uart_rxd\" SITE \"M1\"",
                "\"leds[7]\" SITE \"H3\"", "\"btn[0]\" SITE \"D6\""}) {
            assertTrue(lpf.contains("LOCATE COMP " + pin), pin);
        }
    }

    /** The simulation PLL passes the clock through and reports lock at once. */
    @Test
    void passThroughPll() throws Exception {
        File dir = new File(OUT, "passthrough");
        Rtl.generate(dir, () -> new BoardPll(BoardPll.Kind.PASS_THROUGH));
        String v = Files.readString(new File(dir, "BoardPll.v").toPath());
        assertFalse(v.contains("EHXPLLL"));
        assertTrue(Pattern.compile("assign\\s+io_clkOut\\s*=\\s*io_clkIn\\s*;").matcher(v).find(), v);
        assertTrue(Pattern.compile("assign\\s+io_locked\\s*=\\s*1'b1\\s*;").matcher(v).find(), v);
    }
}
