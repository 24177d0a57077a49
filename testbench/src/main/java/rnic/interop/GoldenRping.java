package rnic.interop;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import rnic.model.ddp.StagTable;
import rnic.model.mpa.Mpa;
import rnic.model.mpa.MpaDeframer;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.model.rdmap.EndpointAction;
import rnic.model.rdmap.RdmapEndpoint;
import rnic.model.rdmap.WorkRequest;
import rnic.sim.HostMemory;
import rnic.sim.pcap.PcapWriter;
import rnic.sim.pcap.TcpConnectionCapture;
import rnic.sim.pcap.TcpConnectionCapture.Side;
import rnic.sim.pcap.TcpEndpoint;
import rnic.wire.MpaStartupFrame;
import rnic.wire.RdmapOpcode;

/**
 * An rping peer built from the project's golden models only — {@link MpaFramer}/{@link MpaDeframer}, the MPA startup
 * frames of {@code rnic.wire}, {@link RdmapEndpoint} over a {@link HostMemory} — on a plain {@link Socket}: no RTL. It
 * speaks rdma-core's rping protocol, so it interoperates with {@code rping} on Linux (siw, {@link SiwVm}) and shows
 * where a real stack differs from the models before the RTL meets it.
 *
 * <p>rping's protocol: a 16-octet message {@code {be64 addr; be32 rkey; be32 size}}. Per iteration the client Sends
 * its source buffer's info, the server RDMA-Reads the source, Sends an ack, the client Sends its sink buffer's info,
 * the server RDMA-Writes {@code strlen + 1} octets into it and Sends again; IRD = ORD = 1. The client's source holds
 * rping's pattern: {@code "rdma-ping-%d: "} then the letters A…z cycling from a start that advances by one per
 * iteration, the last octet 0. With validation, the client compares its sink with its source (as rping -V does) and the
 * server compares what it read with the pattern it expects (a check rping itself does not make).
 *
 * <p>MPA: Rev 2, S=1 with IRD = ORD = 1, no Markers, C as asked; CRC is on if either side's frame has C=1 (RFC 5044
 * §7.1.2, MPA-30). The whole TCP payload of both directions is recorded and can be written as a pcap.
 */
public final class GoldenRping {
    /** rping's message: be64 addr, be32 rkey, be32 size. */
    public static final int INFO_SIZE = 16;
    private static final int QP = 0;
    private static final int PD = 1;
    private static final long RECV_ADDR = 0x1000;
    private static final long SEND_ADDR = 0x2000;
    private static final long START_ADDR = 0x10_0000;
    private static final long RDMA_ADDR = 0x20_0000;
    private static final int START_STAG = 0x1100;
    private static final int RDMA_STAG = 0x2200;
    private static final int EMSS = 1460;

    /**
     * What to run.
     *
     * @param size     rping's -S: buffer size, 27 … 65536
     * @param count    rping's -C: iterations (the client stops after them; the server serves until the peer closes)
     * @param validate rping's -V
     * @param crc      ask for MPA CRC (C=1)
     * @param timeoutSeconds socket read timeout
     * @param firstFpduDelayMillis a client's pause between the MPA Reply and its first FPDU (RFC 5044 allows 0; Linux
     *                 siw sometimes completes a receive twice for an FPDU that arrives right behind its Reply, see
     *                 testbench/interop/siw/README.md)
     */
    public record Options(int size, int count, boolean validate, boolean crc, double timeoutSeconds,
            int firstFpduDelayMillis) {
        /** Options with no pause before the first FPDU. */
        public Options(int size, int count, boolean validate, boolean crc, double timeoutSeconds) {
            this(size, count, validate, crc, timeoutSeconds, 0);
        }

        public Options {
            if (size < 27 || size > 65536) {
                throw new IllegalArgumentException("rping sizes are 27 … 65536, got " + size);
            }
            if (count < 1) {
                throw new IllegalArgumentException("count must be ≥ 1, got " + count);
            }
        }
    }

    /**
     * What happened.
     *
     * @param iterations completed (and, with validation, validated) iterations
     * @param error      why the run stopped early, or {@code null}
     * @param request    the MPA Request on the wire
     * @param reply      the MPA Reply on the wire
     * @param crcInUse   whether FPDUs carried CRCs
     * @param notes      deviations of the peer from RFCs or the project's expectations, as seen in this run
     * @param streams    the TCP payload, in order, as (side, octets) chunks: {@link Side#CLIENT} is the initiator
     */
    public record Outcome(int iterations, String error, MpaStartupFrame request, MpaStartupFrame reply,
            boolean crcInUse, List<String> notes, List<Chunk> streams) {
        /** True when every iteration completed without error. */
        public boolean ok(int count) {
            return error == null && iterations == count;
        }
    }

    /** Octets one side sent. */
    public record Chunk(Side from, byte[] data) {
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final Options opt;
    private final boolean client;
    private final List<Chunk> streams = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final HostMemory mem = new HostMemory();
    private RdmapEndpoint ep;
    private MpaFramer tx;
    private MpaDeframer rx;
    private long rxOffset;
    private final List<EndpointAction> events = new ArrayList<>();
    private long nextWrId = 1;
    private boolean eof;

    private GoldenRping(Socket socket, Options opt, boolean client) throws IOException {
        this.socket = socket;
        this.opt = opt;
        this.client = client;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout((int) (opt.timeoutSeconds * 1000));
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** Runs as rping's client (-c) toward {@code server}. */
    public static Outcome client(InetSocketAddress server, Options opt) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(server, (int) (opt.timeoutSeconds * 1000));
            return new GoldenRping(s, opt, true).run();
        }
    }

    /** Runs as rping's server (-s): accepts one connection on {@code listener} and serves it until the peer closes. */
    public static Outcome server(ServerSocket listener, Options opt) throws IOException {
        listener.setSoTimeout((int) (opt.timeoutSeconds * 1000));
        try (Socket s = listener.accept()) {
            return new GoldenRping(s, opt, false).run();
        }
    }

    /** rping's source pattern for iteration {@code ping} (0-based) of a {@code size}-octet buffer. */
    public static byte[] pattern(int ping, int size) {
        byte[] b = new byte[size];
        byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        int cc = Math.min(head.length, size - 1);
        System.arraycopy(head, 0, b, 0, cc);
        int c = 65 + ping % 58;   // the start letter advances by one per iteration, wrapping after 'z' (122) to 'A'
        for (int i = cc; i < size; i++) {
            b[i] = (byte) c;
            c = c == 122 ? 65 : c + 1;
        }
        b[size - 1] = 0;
        return b;
    }

    // ---------------------------------------------------------------------------------------------- run

    private MpaStartupFrame request;
    private MpaStartupFrame reply;

    private Outcome run() {
        int done = 0;
        String error = null;
        try {
            startup();
            done = client ? clientLoop() : serverLoop();
        } catch (IOException | RuntimeException e) {
            error = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        boolean crcInUse = request != null && reply != null && (request.crc() || reply.crc());
        return new Outcome(done, error, request, reply, crcInUse, List.copyOf(notes), List.copyOf(streams));
    }

    private void startup() throws IOException {
        MpaStartupFrame.Enhanced mine = new MpaStartupFrame.Enhanced(false, false, 1, false, false, 1);
        ByteBuffer buf = ByteBuffer.allocate(1024);
        if (client) {
            request = new MpaStartupFrame(false, false, opt.crc, false, 2, mine, new byte[0]);
            send(request.encode());
            reply = readFrame(buf, true);
            if (reply.reject()) {
                throw new IOException("the peer rejected the connection (R=1): " + describe(reply));
            }
        } else {
            request = readFrame(buf, false);
            if (request.markers()) {
                notes.add("peer asked for Markers (M=1)");
            }
            int ird = request.enhanced() == null ? 1 : Math.min(1, request.enhanced().ord());
            int ord = request.enhanced() == null ? 1 : Math.min(1, request.enhanced().ird());
            reply = new MpaStartupFrame(true, false, opt.crc, false, request.rev() >= 2 ? 2 : 1,
                    request.enhanced() == null ? null : new MpaStartupFrame.Enhanced(false, false, ird, false, false,
                            ord), new byte[0]);
            send(reply.encode());
        }
        MpaStartupFrame peer = client ? reply : request;
        if (peer.rev() == 2 && peer.enhanced() != null) {
            notes.add("peer sent MPA Rev 2 with S=1: IRD " + peer.enhanced().ird() + ", ORD " + peer.enhanced().ord()
                    + (peer.enhanced().peerToPeer() ? ", peer-to-peer" : "") + ", PD_Length " + peer.pdLength());
        }
        boolean crc = request.crc() || reply.crc();
        tx = new MpaFramer(new MpaDirection(false, crc, 0), EMSS);
        rx = new MpaDeframer(new MpaDirection(false, crc, 0));
        int mulpdu = Mpa.mulpdu(EMSS, false);
        ep = new RdmapEndpoint(mem, List.of(new RdmapEndpoint.QpConfig(PD, 1, 1, mulpdu)));
        EnumSet<StagTable.Access> rw = EnumSet.of(StagTable.Access.REMOTE_READ, StagTable.Access.REMOTE_WRITE);
        ep.register(new StagTable.Region(START_STAG, PD, OptionalInt.of(QP), rw, START_ADDR, opt.size, false));
        ep.register(new StagTable.Region(RDMA_STAG, PD, OptionalInt.of(QP), rw, RDMA_ADDR, opt.size, false));
        ep.postReceive(QP, RECV_ADDR, INFO_SIZE, nextWrId++);
        // Octets that followed the startup frame in the same read belong to Full Operation.
        if (buf.position() > 0) {
            buf.flip();
            byte[] rest = new byte[buf.remaining()];
            buf.get(rest);
            deliver(rest);
        }
    }

    private MpaStartupFrame readFrame(ByteBuffer buf, boolean expectReply) throws IOException {
        byte[] chunk = new byte[1024];
        while (true) {
            ByteBuffer view = buf.duplicate().flip();
            try {
                MpaStartupFrame f = MpaStartupFrame.decode(view, expectReply, eof);
                if (f != null) {
                    byte[] frame = new byte[view.position()];
                    buf.duplicate().flip().get(frame);
                    streams.add(new Chunk(client ? Side.SERVER : Side.CLIENT, frame));
                    ByteBuffer rest = ByteBuffer.allocate(1024);
                    rest.put(buf.array(), view.position(), buf.position() - view.position());
                    buf.clear();
                    buf.put(rest.flip());
                    return f;
                }
            } catch (MpaStartupFrame.InvalidFrameException e) {
                throw new IOException("invalid MPA " + (expectReply ? "Reply" : "Request") + ": " + e.getMessage());
            }
            if (eof) {
                throw new EOFException("the peer closed before its MPA " + (expectReply ? "Reply" : "Request")
                        + (buf.position() == 0 ? " (no octet sent)" : ""));
            }
            int n = in.read(chunk, 0, Math.min(chunk.length, buf.remaining()));
            if (n < 0) {
                eof = true;
            } else {
                buf.put(chunk, 0, n);
            }
        }
    }

    private int clientLoop() throws IOException {
        if (opt.firstFpduDelayMillis > 0) {
            try {
                Thread.sleep(opt.firstFpduDelayMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
        for (int ping = 0; ping < opt.count; ping++) {
            byte[] src = pattern(ping, opt.size);
            mem.write(START_ADDR, src);
            mem.write(RDMA_ADDR, new byte[opt.size]);
            sendInfo(START_ADDR, START_STAG);
            awaitReceive("the server's ack after its RDMA Read");
            sendInfo(RDMA_ADDR, RDMA_STAG);
            awaitReceive("the server's ack after its RDMA Write");
            if (opt.validate && !Arrays.equals(src, mem.read(RDMA_ADDR, opt.size))) {
                throw new IOException("data mismatch in iteration " + ping + ": sink " + excerpt(mem.read(RDMA_ADDR,
                        opt.size)) + ", source " + excerpt(src));
            }
        }
        socket.shutdownOutput();   // rping's rdma_disconnect: an orderly TCP close, no Terminate
        return opt.count;
    }

    private int serverLoop() throws IOException {
        int ping = 0;
        while (true) {
            ByteBuffer info = awaitInfoOrClose();
            if (info == null) {
                return ping;
            }
            long addr = info.getLong();
            int rkey = info.getInt();
            int len = info.getInt();
            if (len > opt.size) {
                throw new IOException("the client's buffer (" + len + ") exceeds this server's -S " + opt.size);
            }
            mem.write(RDMA_ADDR, new byte[opt.size]);
            long read = nextWrId++;
            ep.postSend(QP, new WorkRequest.Read(read, RDMA_STAG, RDMA_ADDR, rkey, addr, len));
            pump();
            awaitRequest(read, "the RDMA Read of the client's source");
            byte[] got = mem.read(RDMA_ADDR, len);
            if (opt.validate && !Arrays.equals(got, pattern(ping, len))) {
                throw new IOException("iteration " + ping + " read " + excerpt(got) + ", expected rping's pattern "
                        + excerpt(pattern(ping, len)));
            }
            sendAck();
            ByteBuffer sink = awaitInfoOrClose();
            if (sink == null) {
                throw new EOFException("the client closed before sending its sink in iteration " + ping);
            }
            long sinkAddr = sink.getLong();
            int sinkKey = sink.getInt();
            int strlen = 0;
            while (strlen < len && got[strlen] != 0) {
                strlen++;
            }
            long write = nextWrId++;
            ep.postSend(QP, new WorkRequest.Write(write, RDMA_ADDR, Math.min(strlen + 1, len), sinkKey, sinkAddr));
            pump();
            awaitRequest(write, "the RDMA Write into the client's sink");
            sendAck();
            ping++;
        }
    }

    // ---------------------------------------------------------------------------------------------- verbs

    private void sendInfo(long addr, int stag) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(INFO_SIZE).putLong(addr).putInt(stag).putInt(opt.size);
        mem.write(SEND_ADDR, b.array());
        ep.postSend(QP, new WorkRequest.Send(nextWrId++, RdmapOpcode.SEND, SEND_ADDR, INFO_SIZE, 0));
        pump();
    }

    private void sendAck() throws IOException {
        mem.write(SEND_ADDR, new byte[INFO_SIZE]);   // rping's server sends its never-filled send buffer: zeros
        ep.postSend(QP, new WorkRequest.Send(nextWrId++, RdmapOpcode.SEND, SEND_ADDR, INFO_SIZE, 0));
        pump();
    }

    private ByteBuffer awaitInfoOrClose() throws IOException {
        EndpointAction.ReceiveCompletion c = awaitEvent(EndpointAction.ReceiveCompletion.class, null, true);
        if (c == null) {
            return null;
        }
        return ByteBuffer.wrap(mem.read(RECV_ADDR, INFO_SIZE));
    }

    private void awaitReceive(String what) throws IOException {
        awaitEvent(EndpointAction.ReceiveCompletion.class, what, false);
    }

    private void awaitRequest(long wrId, String what) throws IOException {
        while (true) {
            EndpointAction.RequestCompletion c = awaitEvent(EndpointAction.RequestCompletion.class, what, false);
            if (c.wrId() == wrId) {
                return;
            }
        }
    }

    /** Waits for the next event of {@code type}; on a clean close returns null if {@code closeOk}, else throws. */
    private <T extends EndpointAction> T awaitEvent(Class<T> type, String what, boolean closeOk) throws IOException {
        byte[] chunk = new byte[65536];
        while (true) {
            for (int i = 0; i < events.size(); i++) {
                EndpointAction a = events.get(i);
                if (type.isInstance(a)) {
                    events.remove(i);
                    if (a instanceof EndpointAction.ReceiveCompletion rc) {
                        if (rc.length() != INFO_SIZE) {
                            throw new IOException("received " + rc.length() + " octets, rping sends " + INFO_SIZE);
                        }
                        ep.postReceive(QP, RECV_ADDR, INFO_SIZE, nextWrId++);   // rping re-posts at once
                    }
                    return type.cast(a);
                }
                if (a instanceof EndpointAction.TerminateReceived t) {
                    throw new IOException("the peer sent a Terminate: " + t.terminate());
                }
                if (a instanceof EndpointAction.Failure f) {
                    throw new IOException("the stream failed: " + f.cause() + " (the model answers with a Terminate)");
                }
            }
            events.clear();
            int n;
            try {
                n = in.read(chunk);
            } catch (SocketTimeoutException e) {
                throw new IOException("timed out waiting for " + (what == null ? "the peer" : what));
            }
            if (n < 0) {
                eof = true;
                if (closeOk) {
                    return null;
                }
                throw new EOFException("the peer closed while this side waited for " + what);
            }
            deliver(Arrays.copyOf(chunk, n));
        }
    }

    private void deliver(byte[] data) throws IOException {
        streams.add(new Chunk(client ? Side.SERVER : Side.CLIENT, data));
        for (MpaDeframer.Event e : rx.receive(new TcpSegment(rxOffset, data))) {
            if (e instanceof MpaDeframer.Error err) {
                throw new IOException("MPA error from the peer's stream: " + err.code() + " (bad CRC or framing)");
            }
            events.addAll(ep.receive(QP, ((MpaDeframer.Ulpdu) e).data()));
        }
        rxOffset = (rxOffset + data.length) & 0xFFFF_FFFFL;
        pump();
    }

    /** Sends everything the endpoint can send now (Read Responses, queued requests, Terminates). */
    private void pump() throws IOException {
        List<EndpointAction> acts = ep.transmitAll(QP);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (EndpointAction a : acts) {
            if (a instanceof EndpointAction.Outbound o) {
                wire.write(tx.fpdu(o.ulpdu()));
            } else {
                events.add(a);
            }
        }
        if (wire.size() > 0) {
            send(wire.toByteArray());
        }
    }

    private void send(byte[] data) throws IOException {
        streams.add(new Chunk(client ? Side.CLIENT : Side.SERVER, data));
        out.write(data);
        out.flush();
    }

    // ---------------------------------------------------------------------------------------------- capture

    /**
     * Writes the recorded connection as a pcap: Ethernet/IPv4/TCP synthesized around the exact TCP payload in the
     * order it was sent and received, segments of at most 1460 octets.
     */
    public static void writePcap(Outcome o, Path file, TcpEndpoint clientEnd, TcpEndpoint serverEnd)
            throws IOException {
        try (PcapWriter w = PcapWriter.create(file)) {
            TcpConnectionCapture c = new TcpConnectionCapture(w, clientEnd, 0x1000_0000L, serverEnd, 0x7000_0000L);
            c.open();
            for (Chunk ch : o.streams()) {
                for (int off = 0; off < ch.data().length; off += EMSS) {
                    c.send(ch.from(), Arrays.copyOfRange(ch.data(), off, Math.min(ch.data().length, off + EMSS)));
                }
            }
            c.close();
        }
    }

    private static String describe(MpaStartupFrame f) {
        return "M=" + (f.markers() ? 1 : 0) + " C=" + (f.crc() ? 1 : 0) + " R=" + (f.reject() ? 1 : 0) + " Rev "
                + f.rev() + " PD_Length " + f.pdLength();
    }

    private static String excerpt(byte[] b) {
        int n = 0;
        while (n < b.length && n < 40 && b[n] != 0) {
            n++;
        }
        return "'" + new String(b, 0, n, StandardCharsets.US_ASCII) + "…'";
    }
}
