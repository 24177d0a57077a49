package rnic.sim.tcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import rnic.sim.pcap.Frames;
import rnic.sim.pcap.PcapWriter;
import rnic.sim.pcap.TcpEndpoint;

/**
 * Writes what crosses the wire of one {@link TcpChannel} into a capture, frame by frame as the channel decides them:
 * the handshake, each data segment with the sequence number it really had (a retransmission repeats an earlier one, so
 * Wireshark's TCP analysis flags it as such), pure ACKs with the receiver's window, and the FIN exchange. Unlike
 * {@link rnic.sim.pcap.TcpConnectionCapture}, which invents a tidy conversation, nothing is tidied here.
 *
 * <p>Frames are Ethernet II / IPv4 / TCP from {@link Frames}, with good checksums. <b>Time:</b> a capture timestamp
 * counts clock cycles as microseconds from {@link #START_MICROS} (1 cycle = 1 µs), so Wireshark's time column reads as
 * cycles. The handshake takes 1 µs (SYN and SYN-ACK one cycle before the channel's first cycle), which makes
 * Wireshark's first RTT 1 µs: it then tells a retransmission from an out-of-order segment by the time since the newest
 * segment, and the channel retransmits before sending new data in a cycle.
 */
public final class TcpWireCapture {
    /** 2023-11-14T22:13:20Z: the time of cycle 0. */
    public static final long START_MICROS = 1_700_000_000_000_000L;

    private final PcapWriter out;
    private final TcpEndpoint[] ends;
    private final int[] ipId = {1, 1};
    private long frames;

    /**
     * @param out    the capture (shared by all channels; not closed here)
     * @param client end a's address (the active opener)
     * @param server end b's address
     */
    public TcpWireCapture(PcapWriter out, TcpEndpoint client, TcpEndpoint server) {
        this.out = out;
        this.ends = new TcpEndpoint[] {client, server};
    }

    public TcpEndpoint endpoint(int end) {
        return ends[end];
    }

    /** Frames written for this connection. */
    public long frames() {
        return frames;
    }

    static long micros(long cycle) {
        return START_MICROS + cycle;
    }

    /** SYN (client), SYN-ACK (server), ACK (client); the data of each side starts at its ISN + 1. */
    void handshake(long cycle, long clientIsn, long serverIsn, int mss, int clientWindow, int serverWindow) {
        byte[] opt = Frames.mssOption(mss);
        frame(0, cycle - 1, Frames.SYN, clientIsn, 0, clientWindow, opt, EMPTY, 0, 0);
        frame(1, cycle - 1, Frames.SYN | Frames.ACK, serverIsn, clientIsn + 1, serverWindow, opt, EMPTY, 0, 0);
        frame(0, cycle, Frames.ACK, clientIsn + 1, serverIsn + 1, clientWindow, EMPTY, EMPTY, 0, 0);
    }

    /** A refused active open: the client's SYN at {@code synCycle}, the server's RST-ACK at {@code cycle}. */
    void refused(long synCycle, long cycle, long clientIsn, int mss, int window) {
        frame(0, synCycle, Frames.SYN, clientIsn, 0, window, Frames.mssOption(mss), EMPTY, 0, 0);
        frame(1, cycle, Frames.RST | Frames.ACK, 0, clientIsn + 1, 0, EMPTY, EMPTY, 0, 0);
    }

    /** A RST (with ACK) from end {@code from}: an abortive close. */
    void rst(int from, long cycle, long seq, long ack) {
        frame(from, cycle, Frames.RST | Frames.ACK, seq, ack, 0, EMPTY, EMPTY, 0, 0);
    }

    /** A data segment from end {@code from} (ACK, PSH). */
    void data(int from, long cycle, long seq, long ack, int window, byte[] payload, int off, int len) {
        frame(from, cycle, Frames.ACK | Frames.PSH, seq, ack, window, EMPTY, payload, off, len);
    }

    /** A pure ACK from end {@code from}. */
    void ack(int from, long cycle, long seq, long ack, int window) {
        frame(from, cycle, Frames.ACK, seq, ack, window, EMPTY, EMPTY, 0, 0);
    }

    /** A FIN (with ACK) from end {@code from}. */
    void fin(int from, long cycle, long seq, long ack, int window) {
        frame(from, cycle, Frames.FIN | Frames.ACK, seq, ack, window, EMPTY, EMPTY, 0, 0);
    }

    private static final byte[] EMPTY = new byte[0];

    private void frame(int from, long cycle, int flags, long seq, long ack, int window, byte[] options,
            byte[] payload, int off, int len) {
        TcpEndpoint src = ends[from];
        TcpEndpoint dst = ends[1 - from];
        byte[] p = payload;
        if (off != 0 || len != payload.length) {
            p = new byte[len];
            System.arraycopy(payload, off, p, 0, len);
        }
        byte[] tcp = Frames.tcp(src.ip(), dst.ip(), src.port(), dst.port(), seq & 0xFFFF_FFFFL, ack & 0xFFFF_FFFFL,
                flags, Math.min(window, 0xFFFF), options, p);
        byte[] ip = Frames.ipv4(src.ip(), dst.ip(), Frames.PROTO_TCP, ipId[from], 64, tcp);
        ipId[from] = (ipId[from] + 1) & 0xFFFF;
        try {
            out.writeEthernet(micros(cycle), dst.mac(), src.mac(), PcapWriter.ETHERTYPE_IPV4, ip);
        } catch (IOException e) {
            throw new UncheckedIOException("writing the capture of " + src + " -> " + dst, e);
        }
        frames++;
    }
}
