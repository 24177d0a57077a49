package rnic.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every block {@code ./rnic generate} writes, at every width, passes {@code verilator --lint-only -Wall} with no
 * warning (each block as top over the whole file list, one module per file) beyond the named waivers of
 * {@code hw-src/lint/waivers.vlt}, and the file list names exactly the files written.
 */
class GeneratedVerilogLintTest {
    /** The project's few lint waivers, each for one named signal with its reason. */
    static final File WAIVERS = new File("../hw-src/lint/waivers.vlt");

    static List<Integer> widths() {
        return Blocks.WIDTHS;
    }

    @ParameterizedTest(name = "W={0}")
    @MethodSource("widths")
    void generatedVerilogLintsClean(int w) throws Exception {
        File out = new File("target/lint/w" + w);
        List<String> files = Generate.generate(w, out);
        assertEquals(files, Files.readAllLines(new File(out, "rtl.f").toPath()));
        for (Blocks.Block b : Blocks.at(w)) {
            assertTrue(files.contains(b.name() + ".v"), b.name() + ".v not in rtl.f");
            List<String> cmd = new ArrayList<>(List.of("verilator", "--lint-only", "-Wall", "--top-module", b.name(),
                    WAIVERS.getAbsolutePath()));
            cmd.addAll(files);
            Process p = new ProcessBuilder(cmd).directory(out).redirectErrorStream(true).start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int rc = p.waitFor();
            assertEquals(0, rc, String.join(" ", cmd) + " failed:\n" + log);
            assertTrue(log.isBlank(), String.join(" ", cmd) + " warned:\n" + log);
        }
    }
}
