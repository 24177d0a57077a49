package rnic.hw.top;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The register map outputs of {@link RegisterExport}, all from the one regif declaration of {@link RnicRegisterFile}:
 * the Java constants class {@code rnic.driver.RnicRegs} compiles and holds exactly the declaration's constants; the C
 * header compiles on its own with {@code -Wall -Werror} and its macros give the declaration's addresses; the JSON map
 * and the HTML page name every register.
 */
class RegisterExportTest {
    @Test
    void everyOutputComesFromTheDeclaration() throws Exception {
        File dir = new File("target/regs-export");
        RegisterExport.Export e = RegisterExport.export(RnicConfig.defaults());
        RegisterExport.writeDocuments(e, dir);
        File java = RegisterExport.writeJava(e, new File(dir, "java"));
        Map<String, Integer> constants = RegisterExport.constants(e.registers());

        // Java: compiles, and every constant has the declaration's value.
        File classes = new File(dir, "classes");
        classes.mkdirs();
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.getPath(),
                java.getPath()), "RnicRegs.java compiles");
        try (URLClassLoader loader = new URLClassLoader(new java.net.URL[] {classes.toURI().toURL()})) {
            Class<?> regs = loader.loadClass("rnic.driver.RnicRegs");
            assertEquals(constants.size(), regs.getDeclaredFields().length, "one field per constant");
            for (Map.Entry<String, Integer> c : constants.entrySet()) {
                assertEquals(c.getValue(), regs.getField(c.getKey()).getInt(null), c.getKey());
            }
        }

        // C: the header compiles alone; a program prints the addresses of every QP 2 and CQ 1 register.
        StringBuilder c = new StringBuilder("#include <stdio.h>\n#include \"" + RegisterExport.NAME + ".h\"\n"
                + "int main(void) {\n");
        for (RegisterExport.Register r : e.registers()) {
            if (r.instance().equals("qp0")) {
                c.append("  printf(\"%s %d\\n\", \"").append(r.name()).append("\", RNIC_").append(r.name())
                        .append("(QP_BASE, QP_SIZE, 2));\n");
            } else if (r.instance().equals("cq0")) {
                c.append("  printf(\"%s %d\\n\", \"").append(r.name()).append("\", RNIC_").append(r.name())
                        .append("(CQ_BASE, CQ_SIZE, 1));\n");
            } else if (!r.repeated()) {
                c.append("  printf(\"%s %d\\n\", \"").append(r.name()).append("\", RNIC_").append(r.name())
                        .append(");\n");
            }
        }
        c.append("  return 0;\n}\n");
        File src = new File(dir, "regs_test.c");
        Files.writeString(src.toPath(), c.toString());
        File exe = new File(dir, "regs_test");
        Process cc = new ProcessBuilder("cc", "-Wall", "-Werror", "-I", dir.getPath(), "-o", exe.getPath(),
                src.getPath()).redirectErrorStream(true).start();
        String log = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, cc.waitFor(), "the C header compiles:\n" + log);
        Process run = new ProcessBuilder(exe.getPath()).redirectErrorStream(true).start();
        List<String> lines = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertEquals(0, run.waitFor());
        int checked = 0;
        for (String line : lines) {
            String[] f = line.split(" ");
            String name = f[0];
            int address = Integer.parseInt(f[1]);
            int want = name.startsWith("QP_") ? constants.get("QP_BASE") + 2 * constants.get("QP_STRIDE")
                    + constants.get(name) : name.startsWith("CQ_") ? constants.get("CQ_BASE")
                    + constants.get("CQ_STRIDE") + constants.get(name) : constants.get(name);
            assertEquals(want, address, name + " in the C header");
            checked++;
        }
        assertEquals(RnicBench.declared().stream().filter(r -> !r.repeated() || r.instance().equals("qp0")
                || r.instance().equals("cq0")).count(), checked);

        // JSON and HTML: every register of every instance is named (the JSON with its address).
        String json = Files.readString(new File(dir, RegisterExport.NAME + ".json").toPath());
        String html = Files.readString(new File(dir, RegisterExport.NAME + ".html").toPath());
        for (RegisterExport.Register r : e.registers()) {
            assertTrue(json.contains("{\"addr\"   : " + r.address() + ",\n      \"name\"   : \"" + r.name() + "\""),
                    r.name() + " at " + r.address() + " in the JSON map");
            assertTrue(html.contains(r.name()), r.name() + " in the HTML page");
        }
    }
}
