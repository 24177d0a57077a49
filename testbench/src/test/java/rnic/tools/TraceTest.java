package rnic.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Trace}, the requirement traceability tool: citation parsing (single IDs, ranges in every written form, slash
 * lists), attribution of a citation to the test method or function that holds it, unknown IDs, and the project's own
 * docs/requirements.md (168 IDs, none missing, none twice).
 */
class TraceTest {

    private static List<String> ids(String family, int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(i -> String.format("%s-%02d", family, i)).toList();
    }

    @Test
    void rangesCountEveryIdTheySpan() {
        assertEquals(ids("MPA", 27, 39), Trace.idsIn("see MPA-27…MPA-39."));
        assertEquals(ids("MPA", 27, 39), Trace.idsIn("see MPA-27 … MPA-39."));
        assertEquals(ids("MPA", 27, 39), Trace.idsIn("see MPA-27...MPA-39."));
        assertEquals(ids("MPA", 27, 39), Trace.idsIn("see MPA-27–MPA-39."));
        assertEquals(ids("RDMAP", 7, 11), Trace.idsIn("RDMAP-07…11 (short form)"));
        assertEquals(ids("DDP", 26, 28), Trace.idsIn("DDP-26...28"));
    }

    @Test
    void slashListsCountEachMember() {
        assertEquals(List.of("DDP-27", "DDP-28"), Trace.idsIn("DDP-27/DDP-28"));
        assertEquals(List.of("MPA-49", "MPA-50"), Trace.idsIn("MPA-49/50"));
        assertEquals(List.of("DDP-02", "DDP-03"), Trace.idsIn("DDP-02 / DDP-03"));
        assertEquals(List.of("MPA-01", "MPA-03", "MPA-05"), Trace.idsIn("MPA-01/03/05"));
    }

    @Test
    void differentFamiliesAreNeverARange() {
        assertEquals(List.of("MPA-26", "DDP-02"), Trace.idsIn("MPA-26 / DDP-02"));
        assertEquals(List.of("MPA-26", "DDP-30"), Trace.idsIn("MPA-26 … DDP-30"));
    }

    @Test
    void onlyWholeIdsOfTheFourFamilies() {
        assertEquals(List.of("RPCRDMA-05"), Trace.idsIn("RPCRDMA-05"));
        assertEquals(List.of(), Trace.idsIn("rows E-M1…E-M7, E-D0, E-R21, T-16, XMPA-01, MPA-x"));
        assertEquals(List.of("RDMAP-17"), Trace.idsIn("RDMAP-17 (4) and RDMAP-17 again"));
        // a range written backwards is two citations, not an empty span
        assertEquals(List.of("DDP-30", "DDP-29"), Trace.idsIn("DDP-30…DDP-29"));
    }

    @Test
    void requirementEntriesAreParsedAndDuplicatesRefused() {
        String text = """
                - **MPA-01 One ULPDU per FPDU** — MUST — RFC 5044 §3. Text.
                  continuation MPA-02 is not an entry
                - **DDP-09 DV = 1** — MUST — RFC 5041 §4.1.
                """;
        assertEquals(List.of(new Trace.Requirement("MPA-01", "One ULPDU per FPDU"),
                new Trace.Requirement("DDP-09", "DV = 1")), Trace.parseRequirements(text));
        assertThrows(IllegalArgumentException.class,
                () -> Trace.parseRequirements(text + "- **MPA-01 Again** — MUST.\n"));
    }

    @Test
    void javaCitationsBelongToTheirMethodOrType() {
        String src = """
                package x;

                /** Tests of the framer (MPA-07). */
                class FooTest {
                    /** A helper constant (MPA-08). */
                    private static final int N = 3;

                    /**
                     * The golden dump, MPA-19/MPA-20.
                     */
                    @Test
                    void goldenDump() {
                        int a = 1; // DDP-16 inside the body
                        check("RDMAP-23 in a message");
                    }

                    @ParameterizedTest
                    @MethodSource("widths")
                    void other(int w) throws IOException {
                        // a comment followed by a statement: MPA-23
                        run();
                    }
                }
                """;
        List<Trace.Citation> cs = Trace.scan("m/src/test/java/x/FooTest.java", src);
        Map<String, String> owner = new TreeMap<>();
        for (Trace.Citation c : cs) {
            owner.put(c.id(), c.owner());
        }
        assertEquals(Map.of("MPA-07", "FooTest", "MPA-08", "FooTest#N", "MPA-19", "FooTest#goldenDump",
                "MPA-20", "FooTest#goldenDump", "DDP-16", "FooTest#goldenDump", "RDMAP-23", "FooTest#goldenDump",
                "MPA-23", "FooTest#other"), owner);
        Trace.Citation c19 = cs.stream().filter(c -> c.id().equals("MPA-19")).findFirst().orElseThrow();
        assertEquals(9, c19.line());
        assertEquals("m/src/test/java/x/FooTest.java", c19.file());
    }

    @Test
    void pythonCitationsBelongToTheirFunction() {
        String src = """
                \"\"\"Module docstring: MPA-01.\"\"\"
                import cocotb

                # the decorated test below: MPA-23
                @cocotb.test()
                async def test_resegment(dut):
                    \"\"\"Random re-segmentation (MPA-25).\"\"\"
                    x = f(1,
                          2)  # MPA-44 in a continuation
                    return x


                def helper():
                    pass  # DDP-02
                """;
        Map<String, String> owner = Trace.scan("testbench/cocotb/t/test_x.py", src).stream()
                .collect(Collectors.toMap(Trace.Citation::id, Trace.Citation::owner));
        assertEquals(Map.of("MPA-01", "", "MPA-23", "test_resegment", "MPA-25", "test_resegment",
                "MPA-44", "test_resegment", "DDP-02", "helper"), owner);
    }

    /** A small repository: two requirements, a Java test citing one, a cocotb file citing an unknown ID. */
    @Test
    void citedIdIsFoundAndUnknownIdIsReported(@TempDir Path root) throws IOException {
        write(root.resolve("docs/requirements.md"), """
                - **MPA-01 One ULPDU per FPDU** — MUST — RFC 5044 §3.
                - **MPA-02 MULPDU reported** — MUST — RFC 5044 §3.
                """);
        write(root.resolve("sim/src/test/java/a/ATest.java"), """
                package a;
                class ATest {
                    /** MPA-01. */
                    @Test
                    void one() {
                    }
                }
                """);
        write(root.resolve("sim/src/main/java/a/Main.java"), "/** MPA-02 in main code does not count. */\n");
        write(root.resolve("testbench/cocotb/x/test_y.py"), "def test_y():\n    pass  # MPA-77\n");
        write(root.resolve(Trace.OWN_TEST), "/** MPA-02: the tool's own test is not scanned. */\n");

        Trace.Report r = Trace.run(root);
        assertEquals(2, r.filesScanned());
        assertEquals(List.of(new Trace.Citation("MPA-01", "sim/src/test/java/a/ATest.java", "ATest#one", 3)),
                r.citations().get("MPA-01"));
        assertEquals(List.of(new Trace.Requirement("MPA-02", "MULPDU reported")), r.uncovered());
        assertEquals(List.of(new Trace.Citation("MPA-77", "testbench/cocotb/x/test_y.py", "test_y", 2)), r.unknown());

        String md = Trace.render(r);
        assertTrue(md.contains("| MPA-01 | One ULPDU per FPDU | `sim/src/test/java/a/ATest.java`: ATest#one |"), md);
        assertTrue(md.contains("| **all** | **2** | **1** | **1** |"), md);
        assertTrue(md.contains("## Requirements no test cites (1)\n\n- MPA-02 MULPDU reported"), md);
        assertTrue(md.contains("- MPA-77 at `testbench/cocotb/x/test_y.py:2` (test_y)"), md);
    }

    /** The project's requirement list: MPA-01…52, DDP-01…36, RDMAP-01…44, RPCRDMA-01…36, nothing else, once each. */
    @Test
    void theProjectRequirementsHaveAll168Ids() throws IOException {
        List<Trace.Requirement> reqs = Trace.readRequirements(RepositoryReferencesTest.root()
                .resolve("docs/requirements.md"));
        List<String> expected = new ArrayList<>();
        expected.addAll(ids("MPA", 1, 52));
        expected.addAll(ids("DDP", 1, 36));
        expected.addAll(ids("RDMAP", 1, 44));
        expected.addAll(ids("RPCRDMA", 1, 36));
        assertEquals(168, expected.size());
        assertEquals(expected, reqs.stream().map(Trace.Requirement::id).toList());
        assertTrue(reqs.stream().noneMatch(r -> r.title().isBlank()));
    }

    private static void write(Path p, String text) throws IOException {
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }
}
