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
 * The board tops ({@code BoardTop_ulx3s} and {@code BoardTop_arty_a7_100t}, as {@link Blocks#fpgaTops} builds them),
 * checked from their generated Verilog against outside references. ULX3S: the ECP5 PLL's output frequency computed from the {@code EHXPLLL} parameters by
 * Lattice's formula (TN1263: with CLKOP feedback, f(VCO) = f(CLKI) / CLKI_DIV × CLKFB_DIV × CLKOP_DIV and
 * f(CLKOSx) = f(VCO) / CLKOSx_DIV, PFD 3.125–400 MHz, VCO 400–800 MHz) and the pin file
 * {@code constraints/ulx3s/ulx3s-soc.lpf}, which must place every top-level port bit and nothing else. Arty A7: the
 * MMCM's output frequency from the {@code MMCME2_BASE} parameters by Xilinx's formula (UG472: f(VCO) = f(CLKIN1) ×
 * CLKFBOUT_MULT_F / DIVCLK_DIVIDE, f(CLKOUT0) = f(VCO) / CLKOUT0_DIVIDE_F; Artix-7 -1 ranges from DS181: PFD
 * 10–450 MHz, VCO 600–1200 MHz) and {@code constraints/arty-a7-100t/arty-a7-100t-soc.xdc}, which must place every
 * port bit and nothing else. Covers the board part of issue 15 (no protocol requirement IDs). Run time: two SoC
 * elaborations, about 30 s.
 */
class BoardTopTest {
    static final File OUT = new File("target/boardtop");
    static final File LPF = new File("../constraints/ulx3s/ulx3s-soc.lpf");
    static final File XDC = new File("../constraints/arty-a7-100t/arty-a7-100t-soc.xdc");
    static String top;
    static String pll;
    static String arty;
    static String mmcm;

    @BeforeAll
    static void generate() throws Exception {
        top = generateTop("BoardTop_ulx3s", OUT);
        pll = filesMentioning(OUT, "EHXPLLL");
        File artyDir = new File(OUT, "arty");
        arty = generateTop("BoardTop_arty_a7_100t", artyDir);
        mmcm = filesMentioning(artyDir, "MMCME2_BASE");
    }

    /** Generates the board top {@code name} of {@link Blocks#fpgaTops} into {@code dir}; its own module's Verilog. */
    static String generateTop(String name, File dir) throws Exception {
        Blocks.Block b = Blocks.fpgaTops().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
        Rtl.generate(dir, b.factory());
        return Files.readString(new File(dir, name + ".v").toPath());
    }

    /** The Verilog files of {@code dir} that mention {@code primitive}, concatenated. */
    static String filesMentioning(File dir, String primitive) throws Exception {
        StringBuilder s = new StringBuilder();
        for (File f : dir.listFiles((d, n) -> n.endsWith(".v"))) {
            String v = Files.readString(f.toPath());
            if (v.contains(primitive)) {
                s.append(v);
            }
        }
        return s.toString();
    }

    /** The parameters of the one instance of {@code primitive} in {@code verilog}, by name. */
    static Map<String, String> parameters(String verilog, String primitive) {
        Matcher inst = Pattern.compile(primitive + "\\s*#\\s*\\((.*?)\\)\\s*\\w+\\s*\\(", Pattern.DOTALL).matcher(verilog);
        assertTrue(inst.find(), "no " + primitive + " instance with parameters in the generated Verilog");
        Map<String, String> p = new HashMap<>();
        Matcher m = Pattern.compile("\\.(\\w+)\\s*\\(\\s*\"?([^\"\\)]*)\"?\\s*\\)").matcher(inst.group(1));
        while (m.find()) {
            p.put(m.group(1), m.group(2).trim());
        }
        assertFalse(inst.find(), "more than one " + primitive);
        return p;
    }

    /** The top's port bits, e.g. {@code clk}, {@code leds[3]}. */
    static Set<String> portBits(String verilog, String module) {
        Set<String> ports = new TreeSet<>();
        Matcher header = Pattern.compile("module " + module + "\\s*\\((.*?)\\);", Pattern.DOTALL).matcher(verilog);
        assertTrue(header.find(), "no module " + module);
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
        return ports;
    }

    /** The EHXPLLL parameters in the Verilog give 48 MHz from the board's 25 MHz, within the ECP5's PFD/VCO ranges. */
    @Test
    void pllMakes48MhzFrom25() {
        Map<String, String> p = parameters(pll, "EHXPLLL");
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
        Set<String> ports = portBits(top, "BoardTop_ulx3s");
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

    /** The MMCME2_BASE parameters give 48 MHz from the Arty's 100 MHz, within the Artix-7's PFD/VCO ranges. */
    @Test
    void mmcmMakes48MhzFrom100() {
        Map<String, String> p = parameters(mmcm, "MMCME2_BASE");
        double fin = 1e9 / Double.parseDouble(p.get("CLKIN1_PERIOD"));
        assertEquals(100e6, fin, 1e-3, "CLKIN1_PERIOD is not the Arty's 100 MHz oscillator");
        double mult = Double.parseDouble(p.get("CLKFBOUT_MULT_F"));
        int divclk = Integer.parseInt(p.get("DIVCLK_DIVIDE"));
        double div0 = Double.parseDouble(p.get("CLKOUT0_DIVIDE_F"));
        assertEquals(0.0, (mult * 8) % 1, 1e-9, "CLKFBOUT_MULT_F is not a multiple of 0.125");
        assertEquals(0.0, (div0 * 8) % 1, 1e-9, "CLKOUT0_DIVIDE_F is not a multiple of 0.125");
        double pfd = fin / divclk;
        double vco = pfd * mult;
        assertTrue(pfd >= 10e6 && pfd <= 450e6, "PFD " + pfd);
        assertTrue(vco >= 600e6 && vco <= 1200e6, "VCO " + vco);
        assertEquals(48e6, vco / div0, 1e-3, "CLKOUT0");
        // Feedback from CLKFBOUT, CLKOUT0 through a BUFG to the SoC, the SoC reset from the MMCM's lock.
        assertTrue(Pattern.compile("\\.CLKFBIN\\s*\\(\\s*(\\w+)\\s*\\)").matcher(mmcm).find());
        assertTrue(mmcm.contains("BUFG"), "no BUFG on the SoC clock");
        assertTrue(Pattern.compile("assign\\s+socClk\\s*=\\s*pll_io_clkOut\\s*;").matcher(arty).find(), arty);
        assertTrue(Pattern.compile("assign\\s+pllUnlocked\\s*=\\s*\\(?\\s*!\\s*pll_io_locked\\s*\\)?\\s*;")
                .matcher(arty).find(), arty);
    }

    /** Every port bit of the Arty top is placed by the XDC, on its own pin, the XDC places nothing else. */
    @Test
    void xdcPlacesEveryPort() throws Exception {
        Set<String> ports = portBits(arty, "BoardTop_arty_a7_100t");
        assertTrue(ports.contains("leds[3]") && ports.contains("btn[3]") && !ports.contains("leds[4]"),
                ports.toString());
        String xdc = Files.readString(XDC.toPath());
        Set<String> placed = new TreeSet<>();
        Set<String> pins = new TreeSet<>();
        Matcher loc = Pattern.compile("PACKAGE_PIN (\\w+)\\s+IOSTANDARD LVCMOS33 \\} \\[get_ports \\{ ([^ ]+) \\}\\]")
                .matcher(xdc);
        while (loc.find()) {
            placed.add(loc.group(2));
            assertTrue(pins.add(loc.group(1)), "pin " + loc.group(1) + " used twice");
        }
        assertEquals(ports, placed);
        assertTrue(xdc.contains("create_clock -add -name sys_clk_pin -period 10.00"));
        // Pins of Digilent's Arty-A7-100-Master.xdc: the oscillator, the USB-UART, LD4 and BTN0.
        for (String pin : new String[] {"E3 .* clk ", "D10 .* uart_txd ", "A9 .* uart_rxd ", "H5 .* leds\\[0\\] ",
                "D9 .* btn\\[0\\] "}) {
            assertTrue(Pattern.compile("PACKAGE_PIN " + pin).matcher(xdc).find(), pin);
        }
        // The buttons are active-high on the Arty: the top passes them through uninverted.
        assertTrue(Pattern.compile("\\(\\s*btn\\s*\\^\\s*4'b0000\\s*\\)|soc_io_buttons\\s*=\\s*btn\\s*;|\\.io_buttons\\s*\\(\\s*btn\\s*\\)")
                .matcher(arty).find(), arty);
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
