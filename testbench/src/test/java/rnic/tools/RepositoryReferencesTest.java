package rnic.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The repository explains itself: no tracked text file outside {@code docs/} points at documents outside the
 * repository (the former shared conformance, architecture and style documents, or a shared folder beside it). Cite
 * requirement IDs and {@code docs/requirements.md} / {@code docs/architecture.md} instead.
 */
class RepositoryReferencesTest {

    /** Built from pieces so that this file does not match itself. */
    private static final Pattern OUTSIDE = Pattern.compile(String.join("|",
            "\\.\\./" + "shared", "/work/" + "shared", "CONFOR" + "MANCE\\.md", "ARCHI" + "TECTURE\\.md",
            "STY" + "LE\\.md"));

    /** The repository root: the nearest directory upwards holding docs/requirements.md and the launcher. */
    static Path root() {
        Path p = Path.of("").toAbsolutePath();
        for (Path d = p; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("docs/requirements.md")) && Files.isRegularFile(d.resolve("rnic"))) {
                return d;
            }
        }
        throw new IllegalStateException("no repository root (docs/requirements.md and rnic) above " + p);
    }

    /** Tracked files (git ls-files); without git, every file but build output and tool folders. */
    static List<Path> trackedFiles(Path root) throws IOException {
        try {
            Process git = new ProcessBuilder("git", "ls-files", "-z").directory(root.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            byte[] out = git.getInputStream().readAllBytes();
            if (git.waitFor() == 0 && out.length > 0) {
                List<Path> files = new ArrayList<>();
                for (String name : new String(out, StandardCharsets.UTF_8).split("\0")) {
                    if (!name.isEmpty() && Files.isRegularFile(root.resolve(name))) {
                        files.add(root.resolve(name));
                    }
                }
                return files;
            }
        } catch (IOException | InterruptedException e) {
            // no git: walk the tree below
        }
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).filter(f -> {
                String rel = root.relativize(f).toString().replace('\\', '/');
                return !rel.matches("(.*/)?(target|build|\\.git|\\.mvn|__pycache__)/.*");
            }).toList();
        }
    }

    @Test
    void noTrackedFileReferencesDocumentsOutsideTheRepository() throws IOException {
        Path root = root();
        List<Path> files = trackedFiles(root);
        assertTrue(files.size() > 100, "found only " + files.size() + " files below " + root);
        List<String> offenders = new ArrayList<>();
        for (Path f : files) {
            String rel = root.relativize(f).toString().replace('\\', '/');
            if (rel.startsWith("docs/")) {
                continue;
            }
            byte[] bytes = Files.readAllBytes(f);
            if (bytes.length > 4_000_000 || new String(bytes, 0, Math.min(bytes.length, 8000),
                    StandardCharsets.ISO_8859_1).indexOf('\0') >= 0) {
                continue;   // binary: not text
            }
            String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                if (OUTSIDE.matcher(lines[i]).find()) {
                    offenders.add(rel + ":" + (i + 1) + ": " + lines[i].strip());
                }
            }
        }
        assertEquals(List.of(), offenders, "cite docs/requirements.md or docs/architecture.md instead");
    }

    @Test
    void thePatternCatchesEveryFormerReference() {
        for (String s : List.of("see ../" + "shared/ARCHI" + "TECTURE.md", "in /work/" + "shared" + "/spec",
                "CONFOR" + "MANCE.md §3.1", "the house STY" + "LE.md")) {
            assertTrue(OUTSIDE.matcher(s).find(), s);
        }
        assertTrue(!OUTSIDE.matcher("docs/requirements.md §3.1, docs/architecture.md").find());
    }
}
