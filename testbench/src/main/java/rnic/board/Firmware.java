package rnic.board;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the board firmware ({@code firmware/}, its Makefile) for the tests and tools: native test programs with the
 * host's gcc, RV32 objects and images with Debian's {@code gcc-riscv64-unknown-elf} and picolibc. Outputs go under
 * {@code build/firmware/}.
 */
public final class Firmware {
    private Firmware() {
    }

    /** The outcome of one make run: exit status and everything it printed. */
    public record Result(int exitCode, String output) {
    }

    /** Runs {@code make -C firmware BUILD=build/firmware <targets>} and returns its status and output. */
    public static Result make(String... targets) {
        Path root = repoRoot();
        List<String> cmd = new ArrayList<>(List.of("make", "-s", "-C", root.resolve("firmware").toString(),
                "BUILD=" + buildDir()));
        cmd.addAll(List.of(targets));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Result(p.waitFor(), out);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run make for the firmware: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted building the firmware", e);
        }
    }

    /** Builds {@code target} (a path relative to the build folder, e.g. {@code link_board}) and returns its path. */
    public static Path build(String target) {
        Result r = make(buildDir().resolve(target).toString());
        if (r.exitCode() != 0) {
            throw new IllegalStateException("building firmware target " + target + " failed:\n" + r.output());
        }
        return buildDir().resolve(target);
    }

    /** {@code build/firmware} under the repository root. */
    public static Path buildDir() {
        return repoRoot().resolve("build/firmware");
    }

    /** The repository root: the nearest directory upwards holding {@code firmware/Makefile}. */
    public static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        for (Path q = p; q != null; q = q.getParent()) {
            if (Files.isRegularFile(q.resolve("firmware/Makefile"))) {
                return q;
            }
        }
        throw new IllegalStateException("not inside the repository (no firmware/Makefile above " + p + ")");
    }
}
