package rnic.sim.pcap;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs Wireshark's command-line analyser on a capture with the preferences this project's captures need: TCP
 * reassembly, relative sequence numbers (Wireshark's Marker grid is wrong across the 2^32 wrap with absolute ones),
 * checksum validation, the RPC-over-RDMA / SMB Direct heuristics off (they call short Sends malformed whatever the
 * octets; see {@code TsharkMpaTest}), and TCP's heuristic dissectors tried before its port table: MPA is found by a
 * heuristic (the Request's key), and a port another protocol owns (EtherNet/IP's 44818, NVMe/TCP's 4420, ...) would
 * otherwise take the whole connection — over kernel sockets the ports are whatever the kernel hands out.
 */
public final class Tshark {
    private Tshark() {
    }

    /** The install command named in messages when tshark is missing. */
    public static final String INSTALL = "sudo apt-get install -y tshark";

    private static final List<String> PREFS = List.of(
            "-o", "tcp.desegment_tcp_streams:TRUE",
            "-o", "tcp.relative_sequence_numbers:TRUE",
            "-o", "tcp.check_checksum:TRUE",
            "-o", "ip.check_checksum:TRUE",
            "-o", "tcp.try_heuristic_first:TRUE",
            "--disable-heuristic", "rpcrdma_iwarp",
            "--disable-heuristic", "smb_direct_iwarp");

    /** The tshark executable on PATH, if any. */
    public static Optional<String> binary() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path c = Path.of(dir.isEmpty() ? "." : dir, "tshark");
            if (Files.isExecutable(c)) {
                return Optional.of(c.toString());
            }
        }
        return Optional.empty();
    }

    /**
     * Runs {@code tshark -n -r file PREFS args} and returns its non-empty output lines.
     *
     * @throws IOException when tshark is missing, fails or takes more than two minutes
     */
    public static List<String> run(Path file, String... args) throws IOException {
        return runWith(PREFS, file, args);
    }

    /**
     * Runs {@code tshark -n -r file prefs args}: for captures that need other preferences than {@link #run}'s (which
     * switch the RPC-over-RDMA and SMB Direct heuristics off).
     */
    public static List<String> runWith(List<String> prefs, Path file, String... args) throws IOException {
        String bin = binary().orElseThrow(() -> new IOException("tshark is not on PATH; install it with: " + INSTALL));
        List<String> cmd = new ArrayList<>(List.of(bin, "-n", "-r", file.toString()));
        cmd.addAll(prefs);
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("tshark", ".out");
        Path err = Files.createTempFile("tshark", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("tshark timed out: " + cmd);
            }
            if (p.exitValue() != 0) {
                throw new IOException("tshark failed (" + p.exitValue() + "): " + cmd + "\n"
                        + Files.readString(err, StandardCharsets.UTF_8));
            }
            List<String> lines = new ArrayList<>();
            for (String l : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                if (!l.isBlank()) {
                    lines.add(l);
                }
            }
            return lines;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted running tshark", e);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** What a capture of iWARP traffic decodes to. */
    public record Summary(int frames, int mpaRequests, int mpaReplies, int fpdus, int goodCrcs, int badCrcs,
            int malformed, int expertWarnings, List<String> rdmapOpcodes) {
        /** One line for people. */
        @Override
        public String toString() {
            return String.format("%d frames: MPA Request %d, Reply %d, %d FPDUs (CRC good %d, bad %d), %d malformed,"
                    + " %d expert warnings", frames, mpaRequests, mpaReplies, fpdus, goodCrcs, badCrcs, malformed,
                    expertWarnings);
        }
    }

    /** Decodes {@code file} and counts what matters for an iWARP capture. */
    public static Summary summarize(Path file) throws IOException {
        int frames = run(file, "-T", "fields", "-e", "frame.number").size();
        int req = run(file, "-Y", "iwarp_mpa.req", "-T", "fields", "-e", "frame.number").size();
        int rep = run(file, "-Y", "iwarp_mpa.rep", "-T", "fields", "-e", "frame.number").size();
        int fpdus = run(file, "-Y", "iwarp_mpa.fpdu", "-T", "fields", "-e", "frame.number").size();
        int good = 0;
        int bad = 0;
        for (String l : run(file, "-V")) {
            if (l.contains("Good CRC32")) {
                good++;
            } else if (l.contains("Bad CRC32")) {
                bad++;
            }
        }
        int malformed = run(file, "-Y", "_ws.malformed", "-T", "fields", "-e", "frame.number").size();
        int expert = run(file, "-Y", "_ws.expert.severity >= warning", "-T", "fields", "-e", "frame.number").size();
        List<String> ops = run(file, "-Y", "iwarp_rdma.opcode", "-T", "fields", "-e", "iwarp_rdma.opcode");
        return new Summary(frames, req, rep, fpdus, good, bad, malformed, expert, ops);
    }
}
