package rnic.rpc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import rnic.sim.pcap.Tshark;

/**
 * What tshark decodes from a capture of RPC-over-RDMA. Wireshark's {@code rpcordma} dissector engages through its
 * iWARP heuristic ({@code rpcrdma_iwarp}, on by default in Wireshark; {@link Tshark#run} switches it off for the DDP
 * captures, so this class runs tshark itself): on every untagged RDMAP Send or Send with Invalidate whose payload
 * reads as an RPC-over-RDMA header (for RDMA_MSG: the chunk lists decode and the word after them equals rdma_xid),
 * whatever the TCP port. It hands the RPC message to the ONC RPC dissector, which decodes calls only of programs it
 * knows (preference {@code rpc.dissect_unknown_programs}, off by default): hence NFS, program 100003 version 3, for
 * the demo's service; its port is 20049, NFS/RDMA's (RPCRDMA-35).
 */
public final class RpcCapture {
    private RpcCapture() {
    }

    /** Counts of a decoded capture. */
    public record Summary(int frames, int rpcordma, int rdmaMsg, int rdmaNomsg, int rdmaError, int rpcCalls,
            int rpcReplies, int nfs, int malformed, int warnings) {
        @Override
        public String toString() {
            return String.format("%d frames: %d RPC-over-RDMA (RDMA_MSG %d, RDMA_NOMSG %d, RDMA_ERROR %d); ONC RPC"
                    + " %d calls, %d replies; %d NFS; %d malformed, %d expert warnings", frames, rpcordma, rdmaMsg,
                    rdmaNomsg, rdmaError, rpcCalls, rpcReplies, nfs, malformed, warnings);
        }
    }

    /** Runs {@code tshark -n -r pcap args} (TCP reassembly on) and returns the non-empty output lines. */
    public static List<String> run(Path pcap, String... args) throws IOException {
        String bin = Tshark.binary().orElseThrow(() -> new IOException("tshark is missing: " + Tshark.INSTALL));
        List<String> cmd = new ArrayList<>(List.of(bin, "-n", "-r", pcap.toString(), "-o",
                "tcp.desegment_tcp_streams:TRUE"));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("tshark", ".out");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect
                    .DISCARD).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("tshark timed out: " + cmd);
            }
            if (p.exitValue() != 0) {
                throw new IOException("tshark failed (" + p.exitValue() + "): " + cmd);
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
            throw new IOException("interrupted", e);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static int count(Path p, String filter) throws IOException {
        return run(p, "-Y", filter, "-T", "fields", "-e", "frame.number").size();
    }

    public static Summary summarize(Path pcap) throws IOException {
        int frames = run(pcap, "-T", "fields", "-e", "frame.number").size();
        return new Summary(frames, count(pcap, "rpcordma"), count(pcap, "rpcordma.msg_type == 0"),
                count(pcap, "rpcordma.msg_type == 1"), count(pcap, "rpcordma.msg_type == 4"),
                count(pcap, "rpc.msgtyp == 0"), count(pcap, "rpc.msgtyp == 1"), count(pcap, "nfs"),
                count(pcap, "_ws.malformed"), count(pcap, "_ws.expert.severity >= warning"));
    }
}
