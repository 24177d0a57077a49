package rnic.tools;

import java.io.IOException;
import java.nio.file.Path;

/** What the {@code ./rnic} commands' entry points share. */
public final class Launcher {
    private Launcher() {
    }

    /**
     * The launcher's commands keep their compiled Verilator models in {@code build/sim}, where demo, rping, interop,
     * fuzz and the benchmarks find each other's (a model is compiled once), unless {@code -Drnic.simDir} names
     * another place.
     */
    public static void useBuildSimDir() {
        if (System.getProperty("rnic.simDir") == null) {
            System.setProperty("rnic.simDir", Path.of("build", "sim").toString());
        }
    }

    /** A command line parser; it throws {@link IllegalArgumentException} with the usage message. */
    @FunctionalInterface
    public interface Parser<T> {
        T parse(String[] args) throws IOException;
    }

    /**
     * The command line parsed by {@code parser}; a parser's {@link IllegalArgumentException} (the usage message) is
     * printed on standard error and ends the program with status 2, as a wrong command line should.
     */
    public static <T> T parseOrExit(String[] args, Parser<T> parser) throws IOException {
        try {
            return parser.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            throw e;
        }
    }
}
