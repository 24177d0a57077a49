package rnic.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code ./rnic trace [--root DIR] [--out FILE]}: the requirement traceability table. Reads the requirement IDs and
 * titles from {@code docs/requirements.md} (entries {@code - **MPA-01 Title** — …}), scans every test source — each
 * module's {@code src/test/java} and the Python files under {@code testbench/cocotb} — for the IDs they cite, and
 * writes {@code build/trace.md}: per ID its title and the citing tests (file and, where it can tell, class and method),
 * the IDs no test cites, the IDs tests cite that the requirements do not have, and the counts.
 *
 * <p>Citation rule (also in {@code docs/README.md}): an ID counts wherever it appears in a test source (Javadoc,
 * comments, docstrings, messages). A range counts every ID it spans — {@code MPA-27…MPA-39}, {@code MPA-27 … MPA-39},
 * {@code MPA-27...MPA-39}, {@code MPA-27–MPA-39}, short {@code RDMAP-07…11} — and a slash list each member —
 * {@code DDP-27/DDP-28}, {@code MPA-49/50}. A citation in a comment directly above a declaration belongs to that
 * declaration; anywhere else it belongs to the method (Java) or function (Python) around it, else to the type or file.
 */
public final class Trace {
    private Trace() {
    }

    /** The four ID families of docs/requirements.md. */
    static final String FAMILIES = "MPA|DDP|RDMAP|RPCRDMA";

    /**
     * One ID, optionally followed by a range ({@code …}, {@code ...}, {@code ..}, en dash) or a slash list; the second
     * end may repeat the family (group 1, back-referenced) or give the number alone.
     */
    private static final Pattern CITATION = Pattern.compile("\\b(" + FAMILIES + ")-(\\d{1,3})\\b"
            + "((?:\\s*(?:…|\\.\\.\\.?|–)\\s*(?:\\1-)?\\d{1,3}\\b)|(?:\\s*/\\s*(?:\\1-)?\\d{1,3}\\b)+)?");

    private static final Pattern NUMBER = Pattern.compile("(\\d{1,3})\\b");

    /** A requirement entry of docs/requirements.md §1: {@code - **MPA-01 One ULPDU per FPDU** — MUST — …}. */
    private static final Pattern ENTRY = Pattern.compile("^- \\*\\*((?:" + FAMILIES + ")-\\d{2}) ([^*]+)\\*\\*");

    /** A requirement: its ID and short title. */
    public record Requirement(String id, String title) {
    }

    /**
     * One test source citing one ID.
     *
     * @param file  the path relative to the repository root, with '/'
     * @param owner the method, type or function the citation belongs to ("MpaFramerTest#goldenFpdus"), or "" for
     *              the file
     * @param line  1-based line of the citation
     */
    public record Citation(String id, String file, String owner, int line) {
    }

    /** The whole result. */
    public record Report(List<Requirement> requirements, Map<String, List<Citation>> citations,
            List<Citation> unknown, int filesScanned) {
        /** IDs cited by at least one test. */
        public List<Requirement> covered() {
            return requirements.stream().filter(r -> !citations.getOrDefault(r.id(), List.of()).isEmpty()).toList();
        }

        /** IDs no test cites. */
        public List<Requirement> uncovered() {
            return requirements.stream().filter(r -> citations.getOrDefault(r.id(), List.of()).isEmpty()).toList();
        }
    }

    public static void main(String[] args) throws IOException {
        Path root = Path.of(".");
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--root" -> root = Path.of(need(v, "--root"));
                case "--out" -> out = Path.of(need(v, "--out"));
                case "-h", "--help" -> {
                    System.out.println("usage: ./rnic trace [--root DIR] [--out FILE]   (default FILE: build/trace.md)");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (see --help)");
            }
            i++;
        }
        root = root.toAbsolutePath().normalize();
        if (out == null) {
            out = root.resolve("build/trace.md");
        }
        Path requirements = root.resolve("docs/requirements.md");
        if (!Files.isRegularFile(requirements)) {
            throw new IllegalArgumentException(requirements + " not found: run from the repository root or give --root");
        }
        Report report = run(root);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, render(report), StandardCharsets.UTF_8);
        System.out.printf("trace: %d requirement IDs, %d with tests, %d without; %d citations in %d test files"
                + "%s -> %s%n", report.requirements().size(), report.covered().size(), report.uncovered().size(),
                report.citations().values().stream().mapToInt(List::size).sum(), report.filesScanned(),
                report.unknown().isEmpty() ? "" : "; " + report.unknown().size() + " citations of unknown IDs",
                out);
        for (Citation c : report.unknown()) {
            System.out.printf("trace: unknown ID %s cited at %s:%d%n", c.id(), c.file(), c.line());
        }
    }

    private static String need(String v, String option) {
        if (v == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return v;
    }

    /** Reads the requirements, scans every test source under {@code root}. */
    public static Report run(Path root) throws IOException {
        List<Requirement> requirements = readRequirements(root.resolve("docs/requirements.md"));
        List<Path> sources = testSources(root);
        List<Citation> all = new ArrayList<>();
        for (Path p : sources) {
            String rel = root.relativize(p).toString().replace('\\', '/');
            all.addAll(scan(rel, Files.readString(p, StandardCharsets.UTF_8)));
        }
        return collate(requirements, all, sources.size());
    }

    /** Sorts citations into known IDs (in requirement order) and unknown ones. */
    public static Report collate(List<Requirement> requirements, List<Citation> citations, int filesScanned) {
        Map<String, List<Citation>> byId = new LinkedHashMap<>();
        for (Requirement r : requirements) {
            byId.put(r.id(), new ArrayList<>());
        }
        List<Citation> unknown = new ArrayList<>();
        for (Citation c : citations) {
            List<Citation> list = byId.get(c.id());
            (list != null ? list : unknown).add(c);
        }
        return new Report(List.copyOf(requirements), byId, unknown, filesScanned);
    }

    /** The entries of docs/requirements.md, in file order; a duplicate ID is an error. */
    public static List<Requirement> readRequirements(Path file) throws IOException {
        return parseRequirements(Files.readString(file, StandardCharsets.UTF_8));
    }

    /** The {@code - **ID Title**} entries of a requirements text. */
    public static List<Requirement> parseRequirements(String text) {
        Map<String, Requirement> seen = new LinkedHashMap<>();
        for (String line : text.split("\n", -1)) {
            Matcher m = ENTRY.matcher(line);
            if (m.find()) {
                Requirement r = new Requirement(m.group(1), m.group(2).trim());
                if (seen.putIfAbsent(r.id(), r) != null) {
                    throw new IllegalArgumentException("requirement " + r.id() + " is defined twice");
                }
            }
        }
        return List.copyOf(seen.values());
    }

    /** Every ID a piece of text cites, ranges and slash lists expanded, in order of appearance, without repeats. */
    public static List<String> idsIn(String text) {
        Set<String> ids = new LinkedHashSet<>();
        Matcher m = CITATION.matcher(text);
        while (m.find()) {
            String family = m.group(1);
            int first = Integer.parseInt(m.group(2));
            String tail = m.group(3);
            ids.add(id(family, first));
            if (tail == null) {
                continue;
            }
            List<Integer> more = new ArrayList<>();
            Matcher n = NUMBER.matcher(tail);
            while (n.find()) {
                more.add(Integer.parseInt(n.group(1)));
            }
            boolean range = !tail.contains("/");
            if (range && more.size() == 1 && more.get(0) > first) {
                for (int i = first + 1; i <= more.get(0); i++) {
                    ids.add(id(family, i));
                }
            } else {
                for (int i : more) {
                    ids.add(id(family, i));
                }
            }
        }
        return List.copyOf(ids);
    }

    private static String id(String family, int number) {
        return String.format("%s-%02d", family, number);
    }

    /**
     * The tool's own test, which writes IDs and ranges as parsing examples: it tests no requirement, so it is not
     * scanned.
     */
    static final String OWN_TEST = "testbench/src/test/java/rnic/tools/TraceTest.java";

    /**
     * The test sources: each module's {@code src/test/java/**.java} and {@code testbench/cocotb/**.py}, sorted, without
     * {@link #OWN_TEST}.
     */
    public static List<Path> testSources(Path root) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(Files::isDirectory).sorted().toList()) {
                Path tests = module.resolve("src/test/java");
                if (Files.isDirectory(tests)) {
                    out.addAll(walk(tests, ".java"));
                }
            }
        }
        Path cocotb = root.resolve("testbench/cocotb");
        if (Files.isDirectory(cocotb)) {
            out.addAll(walk(cocotb, ".py"));
        }
        out.removeIf(p -> p.equals(root.resolve(OWN_TEST)));
        return out;
    }

    private static List<Path> walk(Path dir, String suffix) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(suffix))
                    .filter(p -> !p.toString().contains("__pycache__")).sorted(Comparator.comparing(Path::toString))
                    .toList();
        }
    }

    /** The citations of one source file ({@code rel} decides Java or Python by its suffix). */
    public static List<Citation> scan(String rel, String text) {
        return rel.endsWith(".py") ? scanPython(rel, text) : scanJava(rel, text);
    }

    private static final Pattern JAVA_TYPE = Pattern.compile("\\b(?:class|interface|enum|record)\\s+(\\w+)");
    private static final Pattern JAVA_METHOD = Pattern.compile(
            "^\\s*(?:@\\w+(?:\\([^)]*\\))?\\s+)*"
                    + "(?:(?:public|protected|private|static|final|abstract|synchronized|default|native)\\s+)*"
                    + "(?:<[^>]+>\\s+)?[\\w.<>\\[\\],?]+(?:<[^()]*>)?(?:\\[\\])*\\s+(\\w+)\\s*\\(");
    private static final Pattern JAVA_CONSTRUCTOR = Pattern.compile(
            "^\\s*(?:public|protected|private)?\\s*(\\w+)\\s*\\([^;]*$");
    private static final Pattern JAVA_FIELD = Pattern.compile(
            "^\\s*(?:(?:public|protected|private|static|final)\\s+)+[\\w.<>\\[\\],?]+\\s+(\\w+)\\s*(?:=|;)");
    private static final Set<String> NOT_A_METHOD = Set.of("return", "new", "if", "for", "while", "switch", "catch",
            "throw", "else", "try", "do", "case", "assert", "yield");

    /**
     * Java: a citation in a comment belongs to the declaration right after the comment (type, method, constructor or
     * field); one in code, or in a comment followed by a statement, to the method being declared around it, else to
     * the top-level type.
     */
    static List<Citation> scanJava(String rel, String text) {
        List<Citation> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        String topType = "";
        String method = null;
        int methodIndent = -1;
        boolean inComment = false;
        Pending pending = new Pending();
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String t = line.strip();
            int indent = line.length() - line.stripLeading().length();
            boolean commentLine = inComment || t.startsWith("/*") || t.startsWith("//") || t.startsWith("*");
            if (inComment || t.startsWith("/*")) {
                inComment = !t.contains("*/");
            }
            if (commentLine) {
                pending.add(line, i + 1);
                continue;
            }
            if (t.isEmpty() || t.startsWith("@") && !t.contains("(") || t.matches("@\\w+(\\(.*\\))?")) {
                continue;
            }
            // a declaration line?
            String declared = null;
            Matcher type = JAVA_TYPE.matcher(t);
            Matcher meth = JAVA_METHOD.matcher(line);
            Matcher ctor = JAVA_CONSTRUCTOR.matcher(line);
            Matcher field = JAVA_FIELD.matcher(line);
            boolean statement = !t.isEmpty() && NOT_A_METHOD.contains(t.split("[\\s(]", 2)[0]);
            if (type.find() && !t.startsWith("return") && !t.contains("new ")) {
                String name = type.group(1);
                if (topType.isEmpty() || indent == 0) {
                    topType = name;
                    declared = name;
                } else {
                    declared = topType + "." + name;
                }
            } else if (!statement && meth.find() && (t.endsWith("{") || t.endsWith(",") || t.endsWith("(")
                    || t.endsWith(")") || t.contains(") throws"))) {
                method = meth.group(1);
                methodIndent = indent;
                declared = topType + "#" + method;
            } else if (!statement && ctor.find() && ctor.group(1).equals(simpleName(topType))) {
                method = ctor.group(1);
                methodIndent = indent;
                declared = topType + "#" + method;
            } else if (!statement && method == null && field.find()) {
                declared = topType + "#" + field.group(1);
            }
            String context = method != null ? topType + "#" + method : topType;
            String owner = declared != null ? declared : context;
            pending.flushTo(out, rel, owner);
            for (String id : idsIn(line)) {
                out.add(new Citation(id, rel, context.isEmpty() ? owner : context, i + 1));
            }
            if (method != null && declared == null && t.equals("}") && indent <= methodIndent) {
                method = null;
                methodIndent = -1;
            }
        }
        pending.flushTo(out, rel, topType);
        return out;
    }

    /** Citations of comment lines, waiting for the line that decides whom they belong to. */
    private static final class Pending {
        private final List<String> ids = new ArrayList<>();
        private final List<Integer> lines = new ArrayList<>();

        void add(String line, int number) {
            for (String id : idsIn(line)) {
                ids.add(id);
                lines.add(number);
            }
        }

        void flushTo(List<Citation> out, String rel, String owner) {
            for (int k = 0; k < ids.size(); k++) {
                out.add(new Citation(ids.get(k), rel, owner, lines.get(k)));
            }
            ids.clear();
            lines.clear();
        }
    }

    private static String simpleName(String type) {
        int dot = type.lastIndexOf('.');
        return dot < 0 ? type : type.substring(dot + 1);
    }

    private static final Pattern PY_DEF = Pattern.compile("^(\\s*)(?:async\\s+)?(def|class)\\s+(\\w+)");

    /**
     * Python: a citation in a {@code #} comment directly above a {@code def}/{@code class} (decorators between) belongs
     * to it; anything else to the innermost {@code def}/{@code class} around the line, else to the file.
     */
    static List<Citation> scanPython(String rel, String text) {
        List<Citation> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        List<int[]> stackIndent = new ArrayList<>();
        List<String> stackName = new ArrayList<>();
        Pending pending = new Pending();
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String t = line.strip();
            int indent = line.length() - line.stripLeading().length();
            Matcher def = PY_DEF.matcher(line);
            boolean isDef = def.find();
            if (!t.isEmpty() && !t.startsWith("#") && !t.startsWith("@")) {
                // leaving blocks whose body ended (a non-blank line at their indentation or less)
                while (!stackIndent.isEmpty() && indent <= stackIndent.get(stackIndent.size() - 1)[0]
                        && !continuation(lines, i)) {
                    stackIndent.remove(stackIndent.size() - 1);
                    stackName.remove(stackName.size() - 1);
                }
            }
            if (isDef) {
                stackIndent.add(new int[] {indent});
                stackName.add(def.group(3));
            }
            String owner = String.join(".", stackName);
            if (t.startsWith("#")) {
                pending.add(line, i + 1);
                continue;
            }
            if (t.isEmpty() || t.startsWith("@")) {
                continue;
            }
            pending.flushTo(out, rel, owner);
            for (String id : idsIn(line)) {
                out.add(new Citation(id, rel, owner, i + 1));
            }
        }
        pending.flushTo(out, rel, String.join(".", stackName));
        return out;
    }

    /** True when line {@code i} continues an open bracket or a docstring of earlier lines (crudely: inside quotes). */
    private static boolean continuation(String[] lines, int i) {
        int depth = 0;
        int quotes = 0;
        for (int k = Math.max(0, i - 200); k < i; k++) {
            String l = lines[k];
            int hash = l.indexOf('#');
            String code = hash >= 0 && l.lastIndexOf("\"\"\"", hash) < 0 ? l.substring(0, hash) : l;
            for (int j = 0; j + 2 < code.length() + 1; j++) {
                if (code.startsWith("\"\"\"", j)) {
                    quotes++;
                    j += 2;
                }
            }
            if (quotes % 2 == 0) {
                for (char c : code.toCharArray()) {
                    if (c == '(' || c == '[' || c == '{') {
                        depth++;
                    } else if (c == ')' || c == ']' || c == '}') {
                        depth--;
                    }
                }
            }
        }
        return quotes % 2 == 1 || depth > 0;
    }

    /** The Markdown table of {@code build/trace.md}. */
    public static String render(Report r) {
        StringBuilder b = new StringBuilder();
        int citations = r.citations().values().stream().mapToInt(List::size).sum();
        b.append("# Requirement traceability\n\n");
        b.append("Generated by `./rnic trace` (`rnic.tools.Trace`) from `docs/requirements.md` and the test sources ")
                .append("(every module's `src/test/java`, `testbench/cocotb`); do not edit. How a citation is counted: ")
                .append("`docs/README.md`.\n\n");
        b.append("| | IDs | with tests | without |\n| --- | --- | --- | --- |\n");
        Map<String, int[]> families = new TreeMap<>(Comparator.comparing(f -> List.of(FAMILIES.split("\\|"))
                .indexOf(f)));
        for (Requirement q : r.requirements()) {
            int[] n = families.computeIfAbsent(q.id().substring(0, q.id().indexOf('-')), f -> new int[2]);
            n[0]++;
            if (!r.citations().getOrDefault(q.id(), List.of()).isEmpty()) {
                n[1]++;
            }
        }
        for (Map.Entry<String, int[]> e : families.entrySet()) {
            b.append("| ").append(e.getKey()).append(" | ").append(e.getValue()[0]).append(" | ")
                    .append(e.getValue()[1]).append(" | ").append(e.getValue()[0] - e.getValue()[1]).append(" |\n");
        }
        b.append("| **all** | **").append(r.requirements().size()).append("** | **").append(r.covered().size())
                .append("** | **").append(r.uncovered().size()).append("** |\n\n");
        b.append(citations).append(" citations in ").append(r.filesScanned()).append(" test files");
        b.append(r.unknown().isEmpty() ? "; no unknown IDs.\n\n"
                : "; " + r.unknown().size() + " citations of IDs that docs/requirements.md does not have (below).\n\n");

        b.append("## Requirements and the tests that cite them\n\n| ID | title | tests |\n| --- | --- | --- |\n");
        for (Requirement q : r.requirements()) {
            b.append("| ").append(q.id()).append(" | ").append(escape(q.title())).append(" | ")
                    .append(tests(r.citations().getOrDefault(q.id(), List.of()))).append(" |\n");
        }
        b.append("\n## Requirements no test cites (").append(r.uncovered().size()).append(")\n\n");
        for (Requirement q : r.uncovered()) {
            b.append("- ").append(q.id()).append(" ").append(q.title()).append('\n');
        }
        if (r.uncovered().isEmpty()) {
            b.append("None.\n");
        }
        b.append("\n## Unknown IDs cited by tests (").append(r.unknown().size()).append(")\n\n");
        for (Citation c : r.unknown()) {
            b.append("- ").append(c.id()).append(" at `").append(c.file()).append(':').append(c.line()).append('`')
                    .append(c.owner().isEmpty() ? "" : " (" + c.owner() + ")").append('\n');
        }
        if (r.unknown().isEmpty()) {
            b.append("None.\n");
        }
        return b.toString();
    }

    /** Citations grouped by file: "`file`: Owner#a, Owner#b". */
    private static String tests(List<Citation> cs) {
        if (cs.isEmpty()) {
            return "—";
        }
        Map<String, Set<String>> byFile = new LinkedHashMap<>();
        for (Citation c : cs) {
            byFile.computeIfAbsent(c.file(), f -> new LinkedHashSet<>()).add(c.owner().isEmpty() ? "(file)" : c.owner());
        }
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : byFile.entrySet()) {
            parts.add("`" + e.getKey() + "`: " + escape(String.join(", ", e.getValue())));
        }
        return String.join("<br>", parts);
    }

    private static String escape(String s) {
        return s.replace("|", "\\|");
    }
}
