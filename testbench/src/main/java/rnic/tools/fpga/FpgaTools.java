package rnic.tools.fpga;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the open FPGA tools (yosys, nextpnr-ice40, icepack) as processes and reads their reports: yosys {@code stat}
 * cell counts and nextpnr's JSON timing report. The launcher ({@code ./rnic fpga}, {@code ./rnic bench fpga}) installs
 * the tools with apt-get; this class only checks they are on the PATH and says which package to install otherwise.
 */
public final class FpgaTools {
    private FpgaTools() {
    }

    /** Fails with the install command when {@code command} is not on the PATH. */
    public static void require(String command, String aptPackage) {
        if (!onPath(command)) {
            throw new IllegalStateException("'" + command + "' is missing: sudo apt-get install -y " + aptPackage
                    + "  (./rnic fpga installs it when run as root)");
        }
    }

    /** True when {@code command} is an executable on the PATH. */
    public static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (new File(dir, command).canExecute()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs {@code command} in {@code dir} with stdout and stderr to {@code log}; throws with the log's tail on a non-zero
     * exit. Returns the log text.
     */
    public static String run(List<String> command, File dir, File log) throws IOException {
        log.getParentFile().mkdirs();
        Process p = new ProcessBuilder(command).directory(dir).redirectErrorStream(true)
                .redirectOutput(log).start();
        int rc;
        try {
            rc = p.waitFor();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
        String text = Files.readString(log.toPath(), StandardCharsets.UTF_8);
        if (rc != 0) {
            String[] lines = text.split("\n");
            StringBuilder tail = new StringBuilder();
            for (int i = Math.max(0, lines.length - 25); i < lines.length; i++) {
                tail.append(lines[i]).append('\n');
            }
            throw new IOException(command.get(0) + " failed (exit " + rc + ", log " + log + "):\n" + tail);
        }
        return text;
    }

    /** The first line {@code command args} prints, or "not installed". */
    public static String version(String... command) {
        if (!onPath(command[0])) {
            return command[0] + ": not installed";
        }
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            p.waitFor();
            for (String line : out.split("\n")) {
                if (!line.isBlank()) {
                    return line.trim();
                }
            }
            return command[0] + ": no version output";
        } catch (IOException e) {
            return command[0] + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return command[0] + ": interrupted";
        }
    }

    /** The installed Debian package version of {@code pkg} (icestorm's tools print none of their own). */
    public static String packageVersion(String pkg) {
        String v = version("dpkg-query", "-W", "-f=${Version}", pkg);
        return v.startsWith("dpkg-query") ? pkg + ": not installed" : pkg + " " + v;
    }

    /** yosys, nextpnr-ice40, icestorm and openFPGALoader versions, one per line. */
    public static String versions() {
        return String.join("\n", version("yosys", "-V"), version("nextpnr-ice40", "--version"),
                packageVersion("fpga-icestorm"), version("openFPGALoader", "--Version"),
                "nextpnr-ecp5: " + (onPath("nextpnr-ecp5") ? version("nextpnr-ecp5", "--version") : "not installed"),
                "vivado: " + (onPath("vivado") ? version("vivado", "-version") : "not installed"));
    }

    private static final Pattern SECTION = Pattern.compile("^=== (.+) ===$");
    private static final Pattern CELL = Pattern.compile("^\\s+(\\$?[A-Za-z_][A-Za-z0-9_$]*)\\s+(\\d+)$");

    /**
     * The cell counts of every module section of yosys {@code stat} output (module name → cell type → count); the
     * section {@code "design hierarchy"} holds the totals of the top with its submodules.
     */
    public static Map<String, Map<String, Integer>> statSections(String stat) {
        Map<String, Map<String, Integer>> sections = new LinkedHashMap<>();
        Map<String, Integer> current = null;
        for (String line : stat.split("\n")) {
            Matcher s = SECTION.matcher(line.trim());
            if (s.matches()) {
                current = new LinkedHashMap<>();
                sections.put(s.group(1).replace("\\", ""), current);
                continue;
            }
            Matcher c = CELL.matcher(line);
            if (current != null && c.matches()) {
                current.put(c.group(1), Integer.parseInt(c.group(2)));
            }
        }
        return sections;
    }

    /** The totals of a yosys {@code stat} report: the hierarchy section if present, else its only module. */
    public static Map<String, Integer> statTotals(String stat) {
        Map<String, Map<String, Integer>> s = statSections(stat);
        if (s.containsKey("design hierarchy")) {
            return s.get("design hierarchy");
        }
        if (s.size() != 1) {
            throw new IllegalArgumentException("expected one module in the yosys statistics, found " + s.keySet());
        }
        return s.values().iterator().next();
    }

    private static final Pattern ACHIEVED = Pattern.compile("\"achieved\"\\s*:\\s*([0-9.]+)");

    /** The lowest achieved clock frequency (MHz) in a nextpnr {@code --report} JSON file. */
    public static double fmaxMhz(String reportJson) {
        Matcher m = ACHIEVED.matcher(reportJson);
        double min = Double.NaN;
        while (m.find()) {
            double f = Double.parseDouble(m.group(1));
            min = Double.isNaN(min) ? f : Math.min(min, f);
        }
        if (Double.isNaN(min)) {
            throw new IllegalArgumentException("no achieved frequency in the nextpnr report");
        }
        return min;
    }

    private static final Pattern UTIL = Pattern.compile(
            "\"([A-Z0-9_]+)\"\\s*:\\s*\\{\\s*\"available\"\\s*:\\s*(\\d+)\\s*,\\s*\"used\"\\s*:\\s*(\\d+)\\s*}");

    /** Device utilisation from a nextpnr {@code --report} JSON file: bel type → {used, available}. */
    public static Map<String, int[]> pnrUtilisation(String reportJson) {
        Map<String, int[]> util = new LinkedHashMap<>();
        Matcher m = UTIL.matcher(reportJson);
        while (m.find()) {
            util.put(m.group(1), new int[] {Integer.parseInt(m.group(3)), Integer.parseInt(m.group(2))});
        }
        return util;
    }

    /** The Verilog files an {@code rtl.f}-less folder holds, sorted, as absolute paths. */
    public static List<String> verilogFiles(File dir) {
        List<String> files = new ArrayList<>();
        File[] list = dir.listFiles((d, n) -> n.endsWith(".v"));
        if (list != null) {
            for (File f : list) {
                files.add(f.getAbsolutePath());
            }
        }
        files.sort(null);
        return files;
    }
}
