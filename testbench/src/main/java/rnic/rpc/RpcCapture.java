package rnic.rpc;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
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
            int rpcReplies, int nfs, int reassembled, int malformed, int warnings) {
        @Override
        public String toString() {
            return String.format("%d frames: %d RPC-over-RDMA (RDMA_MSG %d, RDMA_NOMSG %d, RDMA_ERROR %d); ONC RPC"
                    + " %d calls, %d replies; %d NFS; %d frames reassembled from chunks; %d malformed, %d expert"
                    + " warnings", frames, rpcordma, rdmaMsg, rdmaNomsg, rdmaError, rpcCalls, rpcReplies, nfs,
                    reassembled, malformed, warnings);
        }
    }

    /**
     * Runs {@code tshark -2 -n -r pcap args} with TCP reassembly and Wireshark's default heuristics. Two passes, as
     * Wireshark's GUI always does: {@code rpcordma} puts the data of Write and Reply chunks (the RDMA Writes before a
     * reply) back into the reply on the second pass only; in one pass it dissects the reduced READ replies a second
     * time as if unreduced and marks them malformed.
     */
    public static List<String> run(Path pcap, String... args) throws IOException {
        return Tshark.runWith(List.of("-2", "-o", "tcp.desegment_tcp_streams:TRUE"), pcap, args);
    }

    private static int count(Path p, String filter) throws IOException {
        return run(p, "-Y", filter, "-T", "fields", "-e", "frame.number").size();
    }

    public static Summary summarize(Path pcap) throws IOException {
        int frames = run(pcap, "-T", "fields", "-e", "frame.number").size();
        return new Summary(frames, count(pcap, "rpcordma"), count(pcap, "rpcordma.msg_type == 0"),
                count(pcap, "rpcordma.msg_type == 1"), count(pcap, "rpcordma.msg_type == 4"),
                count(pcap, "rpc.msgtyp == 0"), count(pcap, "rpc.msgtyp == 1"), count(pcap, "nfs"),
                count(pcap, "rpcordma.reassembled.in"), count(pcap, "_ws.malformed"), count(pcap, "_ws.expert.severity >= warning"));
    }
}
