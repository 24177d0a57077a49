package rnic.interop;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import rnic.cm.CmEvent;
import rnic.cm.CmEventChannel;
import rnic.cm.ConnectParams;
import rnic.cm.Connection;
import rnic.cm.ConnectionManager;
import rnic.cm.ConnectionRequest;
import rnic.cm.Listener;
import rnic.transport.Transport;
import rnic.verbs.Access;
import rnic.verbs.Completion;
import rnic.verbs.CompletionOpcode;
import rnic.verbs.CompletionQueue;
import rnic.verbs.CompletionStatus;
import rnic.verbs.Device;
import rnic.verbs.DmaBuffer;
import rnic.verbs.MemoryRegion;
import rnic.verbs.ProtectionDomain;
import rnic.verbs.QueuePair;
import rnic.verbs.RecvRequest;
import rnic.verbs.RemoteBuffer;
import rnic.verbs.WorkRequest;

/**
 * rdma-core's {@code rping} on the project's verbs and connection-manager API only ({@code rnic.verbs},
 * {@code rnic.cm}, a {@link Transport}): the same code runs on the simulated core with kernel sockets
 * ({@link Rping}, {@code ./rnic rping}) or on a board transport.
 *
 * <p>The wire protocol is rping's: a 16-octet message {@code {be64 addr; be32 rkey; be32 size}}. Per iteration the
 * client Sends its source buffer's info, the server RDMA-Reads the source and Sends an ack (its never-filled send
 * buffer: 16 zero octets), the client Sends its sink buffer's info, the server RDMA-Writes {@code strlen + 1} octets
 * of what it read into the sink and Sends again. One receive of 16 octets is posted at a time and re-posted as each
 * completes; a receive of another length ends the run, as in rping. The client's source holds rping's pattern
 * ({@link GoldenRping#pattern}); with {@code -V} the client compares sink and source ({@code memcmp} over the size,
 * as rping) and the server compares what it read with the pattern (a check rping itself does not make).
 *
 * <p>MPA: Rev 2 with the RFC 6581 enhanced data and IRD = ORD = 1 (rping's {@code responder_resources} and
 * {@code initiator_depth}), no peer-to-peer RTR (librdmacm on iWARP does not ask for one), no Markers, CRC as asked
 * ({@code --crc}); on if either side asks (MPA-30).
 *
 * <p>Waits are bounded in wall-clock time ({@link Options#timeoutSeconds()}), since a real peer lives in real time
 * and a simulated device's clock runs far slower.
 */
public final class RpingPeer {
    /** rping's message: be64 addr, be32 rkey, be32 size. */
    public static final int INFO_SIZE = 16;
    /** rping's smallest buffer: room for {@code "rdma-ping-%d: "} with INT_MAX (RPING_MIN_BUFSIZE). */
    public static final int MIN_SIZE = 26;
    /** rping's largest buffer (RPING_BUFSIZE - 1). */
    public static final int MAX_SIZE = 65535;
    /** rping's default port. */
    public static final int DEFAULT_PORT = 7174;

    /**
     * What to run: rping's flags.
     *
     * @param server         {@code -s} (else {@code -c})
     * @param address        {@code -a}: the server's address (client), the address to listen on (server; null =
     *                       every interface)
     * @param port           {@code -p}
     * @param count          {@code -C}: iterations, 0 = until interrupted (client) / until the peer stops (server)
     * @param size           {@code -S}
     * @param verbose        {@code -v}: print the ping data
     * @param validate       {@code -V}
     * @param persistent     {@code -P}: serve one connection after another
     * @param crc            {@code --crc on}: ask for MPA CRC
     * @param timeoutSeconds how long any one wait may take in real time (0: a server waits for its next connection
     *                       forever; every other wait still has 60 s)
     * @param firstSendDelayMillis client: real-time pause between the connection's establishment and the first Send
     *                       (0 = none, as rping; see testbench/interop/siw/README.md on siw's double receive)
     * @param connections    server: stop after this many connections (0 = one, or unbounded with {@code -P})
     */
    public record Options(boolean server, InetAddress address, int port, int count, int size, boolean verbose,
            boolean validate, boolean persistent, boolean crc, double timeoutSeconds, int firstSendDelayMillis,
            int connections) {
        public Options {
            if (size < MIN_SIZE || size > MAX_SIZE) {
                throw new IllegalArgumentException("Invalid size " + size + " (valid range is " + MIN_SIZE + " to "
                        + MAX_SIZE + ")");
            }
            if (count < 0) {
                throw new IllegalArgumentException("Invalid count " + count);
            }
            if (port <= 0 || port > 0xFFFF) {
                throw new IllegalArgumentException("Invalid port " + port);
            }
            if (!server && address == null) {
                throw new IllegalArgumentException("a client needs the server's address (-a)");
            }
        }

        /** A client toward {@code address}:{@code port}. */
        public static Options client(InetAddress address, int port, int size, int count) {
            return new Options(false, address, port, count, size, false, true, false, false, 60, 0, 0);
        }

        /** A server on {@code address} (null: every interface):{@code port}. */
        public static Options server(InetAddress address, int port, int size) {
            return new Options(true, address, port, 0, size, false, true, false, false, 60, 0, 0);
        }

        public Options withCrc(boolean on) {
            return new Options(server, address, port, count, size, verbose, validate, persistent, on,
                    timeoutSeconds, firstSendDelayMillis, connections);
        }

        public Options withVerbose(boolean on) {
            return new Options(server, address, port, count, size, on, validate, persistent, crc, timeoutSeconds,
                    firstSendDelayMillis, connections);
        }

        public Options withValidate(boolean on) {
            return new Options(server, address, port, count, size, verbose, on, persistent, crc, timeoutSeconds,
                    firstSendDelayMillis, connections);
        }

        public Options withPersistent(boolean on) {
            return new Options(server, address, port, count, size, verbose, validate, on, crc, timeoutSeconds,
                    firstSendDelayMillis, connections);
        }

        public Options withTimeout(double seconds) {
            return new Options(server, address, port, count, size, verbose, validate, persistent, crc, seconds,
                    firstSendDelayMillis, connections);
        }

        public Options withFirstSendDelay(int millis) {
            return new Options(server, address, port, count, size, verbose, validate, persistent, crc,
                    timeoutSeconds, millis, connections);
        }

        public Options withConnections(int n) {
            return new Options(server, address, port, count, size, verbose, validate, persistent, crc,
                    timeoutSeconds, firstSendDelayMillis, n);
        }

        /** The MPA parameters: Rev 2, IRD = ORD = 1, no RTR, no Markers, CRC as asked. */
        public ConnectParams connectParams() {
            return ConnectParams.defaults().withEnhanced(false).withIrdOrd(1, 1).withCrc(crc)
                    .withTimeout(Duration.ofSeconds(1));
        }
    }

    /**
     * What happened.
     *
     * @param connections connections served (server) or made (client)
     * @param iterations  iterations completed (and validated with -V), over all connections
     * @param error       why the run stopped early, or null
     * @param crc         whether the (last) connection used MPA CRC
     * @param peer        a description of the (last) peer's MPA parameters
     * @param lastFailure the (last) failed completion, or null
     */
    public record Result(int connections, int iterations, String error, boolean crc, String peer,
            Completion lastFailure) {
        /** Every iteration completed: no error, and {@code count} iterations (any number when count is 0). */
        public boolean ok(int count) {
            return error == null && (count == 0 || iterations == count);
        }
    }

    private final Transport transport;
    private final Options opt;
    private final PrintStream out;
    private final PrintStream err;
    private Device dev;
    private CmEventChannel channel;
    private int iterations;
    private int connections;
    private boolean crcInUse;
    private String peer = "";
    private Completion lastFailure;

    private final Runnable onListening;

    private RpingPeer(Transport transport, Options opt, PrintStream out, PrintStream err, Runnable onListening) {
        this.transport = transport;
        this.opt = opt;
        this.out = out;
        this.err = err;
        this.onListening = onListening;
    }

    /** Runs rping with {@code opt} on {@code transport}: ping data to {@code out}, errors to {@code err}. */
    public static Result run(Transport transport, Options opt, PrintStream out, PrintStream err) {
        return run(transport, opt, out, err, () -> { });
    }

    /**
     * {@link #run(Transport, Options, PrintStream, PrintStream)}; a server calls {@code onListening} once it listens
     * (e.g. to start the client of a test).
     */
    public static Result run(Transport transport, Options opt, PrintStream out, PrintStream err,
            Runnable onListening) {
        return new RpingPeer(transport, opt, out, err, onListening).run();
    }

    private Result run() {
        String error = null;
        try (Device d = Device.open(transport)) {
            dev = d;
            ConnectionManager cm = new ConnectionManager(dev);
            channel = cm.createEventChannel();
            if (opt.server()) {
                serve(cm);
            } else {
                client(cm);
            }
        } catch (RpingException e) {
            error = e.getMessage();
        } catch (RuntimeException e) {
            error = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        if (error != null) {
            err.println(error);
        }
        return new Result(connections, iterations, error, crcInUse, peer, lastFailure);
    }

    /** Why a run stopped. */
    private static final class RpingException extends RuntimeException {
        RpingException(String message) {
            super(message);
        }
    }

    // ------------------------------------------------------------------------------------------------ resources

    /** One connection's verbs resources, as rping's setup_qp and setup_buffers make them. */
    private final class Resources implements AutoCloseable {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final DmaBuffer recv;
        final DmaBuffer send;
        final DmaBuffer rdma;
        final DmaBuffer start;
        final MemoryRegion recvMr;
        final MemoryRegion sendMr;
        final MemoryRegion rdmaMr;
        final MemoryRegion startMr;

        Resources() {
            pd = dev.allocateProtectionDomain();
            cq = dev.createCompletionQueue(32);                 // RPING_SQ_DEPTH * 2, one CQ for both queues
            qp = pd.createQueuePair(new QueuePair.Config(cq, cq, 16, 2, 0, -1));
            recv = dev.allocate(INFO_SIZE);
            send = dev.allocate(INFO_SIZE);
            rdma = dev.allocate(opt.size());
            recvMr = pd.registerMemory(recv, EnumSet.of(Access.LOCAL_WRITE));
            sendMr = pd.registerMemory(send, EnumSet.of(Access.LOCAL_WRITE));
            EnumSet<Access> rw = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE);
            rdmaMr = pd.registerMemory(rdma, rw);
            if (!opt.server()) {
                start = dev.allocate(opt.size());
                startMr = pd.registerMemory(start, rw);
            } else {
                start = null;
                startMr = null;
            }
            qp.postRecv(RecvRequest.of(recvMr.sge(0, INFO_SIZE)));
        }

        @Override
        public void close() {
            qp.close();
            for (MemoryRegion mr : new MemoryRegion[] {recvMr, sendMr, rdmaMr, startMr}) {
                if (mr != null && !mr.isClosed()) {
                    mr.close();
                }
            }
            for (DmaBuffer b : new DmaBuffer[] {recv, send, rdma, start}) {
                if (b != null && !b.isClosed()) {
                    b.close();
                }
            }
            cq.close();
            pd.close();
        }
    }

    // ------------------------------------------------------------------------------------------------ client

    private void client(ConnectionManager cm) {
        InetSocketAddress server = new InetSocketAddress(opt.address(), opt.port());
        try (Resources r = new Resources()) {
            Connection c = cm.startConnect(server, r.qp, opt.connectParams(), channel);
            CmEvent e = awaitEvent(deadline(opt.timeoutSeconds() > 0 ? opt.timeoutSeconds() : 60),
                    "the connection to " + server);
            if (!(e instanceof CmEvent.Established)) {
                throw new RpingException("connect error: " + describe(e));
            }
            connections++;
            agreed(c);
            if (opt.firstSendDelayMillis() > 0) {
                sleep(opt.firstSendDelayMillis());
            }
            Waiter w = new Waiter(r, c);
            for (int ping = 0; opt.count() == 0 || ping < opt.count(); ping++) {
                byte[] src = GoldenRping.pattern(ping, opt.size());
                r.start.put(0, src);
                r.send.put(0, info(r.startMr.address(), r.startMr.rkey(), opt.size()));
                r.qp.postSend(WorkRequest.send(r.sendMr.sge(0, INFO_SIZE)));
                w.receive("RDMA_WRITE_ADV: the server's ack after its RDMA Read (iteration " + ping + ")");
                r.send.put(0, info(r.rdmaMr.address(), r.rdmaMr.rkey(), opt.size()));
                r.qp.postSend(WorkRequest.send(r.sendMr.sge(0, INFO_SIZE)));
                w.receive("RDMA_WRITE_COMPLETE: the server's ack after its RDMA Write (iteration " + ping + ")");
                byte[] sink = r.rdma.get(0, opt.size());
                if (opt.validate() && !Arrays.equals(src, sink)) {
                    throw new RpingException("data mismatch! iteration " + ping + ": sink " + excerpt(sink)
                            + ", source " + excerpt(src));
                }
                if (opt.verbose()) {
                    out.println("ping data: " + cString(sink));
                }
                iterations++;
            }
            w.drainSends();
            c.disconnect(Duration.ofMillis(1));
        }
    }

    // ------------------------------------------------------------------------------------------------ server

    private void serve(ConnectionManager cm) {
        InetSocketAddress local = new InetSocketAddress(opt.address() != null ? opt.address()
                : transport.localAddress(), opt.port());
        try (Listener l = cm.listen(local, channel)) {
            onListening.run();
            int limit = opt.connections() > 0 ? opt.connections() : opt.persistent() ? Integer.MAX_VALUE : 1;
            while (connections < limit) {
                long deadline = opt.timeoutSeconds() > 0 ? deadline(opt.timeoutSeconds()) : Long.MAX_VALUE;
                CmEvent e;
                try {
                    e = awaitEvent(deadline, "a connection request on " + l.localAddress());
                } catch (RpingException timeout) {
                    if (opt.persistent() && connections > 0) {
                        err.println("no further client within " + opt.timeoutSeconds() + " s: the persistent server"
                                + " stops after " + connections + " connection(s)");
                        return; // served at least one client: an idle persistent server ends normally
                    }
                    throw timeout;
                }
                if (!(e instanceof CmEvent.ConnectRequest req)) {
                    continue; // e.g. the previous connection's Disconnected
                }
                try {
                    serveOne(req.request());
                } catch (RpingException ex) {
                    if (!opt.persistent()) {
                        throw ex;
                    }
                    err.println(ex.getMessage()); // a persistent server goes on with the next connection
                }
            }
        }
    }

    private void serveOne(ConnectionRequest request) {
        try (Resources r = new Resources()) {
            Connection c = request.accept(r.qp, opt.connectParams());
            connections++;
            agreed(c);
            Waiter w = new Waiter(r, c);
            int ping = 0;
            while (opt.count() == 0 || ping < opt.count()) {
                ByteBuffer src = w.receiveOrClose("RDMA_READ_ADV: the client's source buffer");
                if (src == null) {
                    break; // the client disconnected: rping's server ends here too
                }
                long addr = src.getLong();
                int rkey = src.getInt();
                int len = src.getInt();
                if (len > opt.size() || len < 1) {
                    throw new RpingException("the client's buffer (" + len + " octets) does not fit this server's -S "
                            + opt.size());
                }
                r.rdma.fill(0, opt.size(), (byte) 0);
                r.qp.postSend(WorkRequest.rdmaRead(r.rdmaMr.sge(0, len), new RemoteBuffer(rkey, addr)));
                w.request(CompletionOpcode.RDMA_READ, "RDMA_READ_COMPLETE: the RDMA Read of the client's source");
                byte[] got = r.rdma.get(0, len);
                if (opt.verbose()) {
                    out.println("server ping data: " + cString(got));
                }
                if (opt.validate() && !Arrays.equals(got, GoldenRping.pattern(ping, len))) {
                    throw new RpingException("iteration " + ping + " read " + excerpt(got)
                            + ", expected rping's pattern " + excerpt(GoldenRping.pattern(ping, len)));
                }
                r.qp.postSend(WorkRequest.send(r.sendMr.sge(0, INFO_SIZE)));
                ByteBuffer sink = w.receiveOrClose("RDMA_WRITE_ADV: the client's sink buffer");
                if (sink == null) {
                    throw new RpingException("the client closed before sending its sink in iteration " + ping);
                }
                long sinkAddr = sink.getLong();
                int sinkKey = sink.getInt();
                int strlen = 0;
                while (strlen < len && got[strlen] != 0) {
                    strlen++;
                }
                r.qp.postSend(WorkRequest.rdmaWrite(r.rdmaMr.sge(0, Math.min(strlen + 1, len)),
                        new RemoteBuffer(sinkKey, sinkAddr)));
                w.request(CompletionOpcode.RDMA_WRITE, "RDMA_WRITE_COMPLETE: the RDMA Write into the client's sink");
                r.qp.postSend(WorkRequest.send(r.sendMr.sge(0, INFO_SIZE)));
                ping++;
                iterations++;
            }
            w.drainSends();
            c.disconnect(Duration.ofMillis(1));
        }
    }

    // ------------------------------------------------------------------------------------------------ waiting

    /** Takes completions of one connection's CQ like rping's cq_thread, and its connection events. */
    private final class Waiter {
        private final Resources r;
        private final Connection c;
        private final Completion[] wc = Completion.array(8);
        private final List<Completion> pendingRecv = new ArrayList<>();
        private final List<Completion> pendingReq = new ArrayList<>();
        private boolean disconnected;

        Waiter(Resources r, Connection c) {
            this.r = r;
            this.c = c;
        }

        /** The next receive completion (16 octets), the receive re-posted; throws on anything else. */
        ByteBuffer receive(String what) {
            ByteBuffer b = receiveOrClose(what);
            if (b == null) {
                throw new RpingException("the peer disconnected while waiting for " + what);
            }
            return b;
        }

        /** The next receive completion, or null when the peer closed the connection first. */
        ByteBuffer receiveOrClose(String what) {
            long deadline = deadline(opt.timeoutSeconds() > 0 ? opt.timeoutSeconds() : 60);
            while (pendingRecv.isEmpty()) {
                if (!pump() && disconnected) {
                    return null;
                }
                check(deadline, what);
            }
            Completion rc = pendingRecv.remove(0);
            if (rc.byteLength() != INFO_SIZE) {
                throw new RpingException("Received bogus data, size " + rc.byteLength());
            }
            ByteBuffer b = ByteBuffer.wrap(r.recv.get(0, INFO_SIZE));
            r.qp.postRecv(RecvRequest.of(r.recvMr.sge(0, INFO_SIZE)));   // rping re-posts at once
            return b;
        }

        /** The completion of the request of {@code op} (a Read or Write). */
        void request(CompletionOpcode op, String what) {
            long deadline = deadline(opt.timeoutSeconds() > 0 ? opt.timeoutSeconds() : 60);
            while (true) {
                for (int i = 0; i < pendingReq.size(); i++) {
                    if (pendingReq.get(i).opcode() == op) {
                        pendingReq.remove(i);
                        return;
                    }
                }
                if (!pump() && disconnected) {
                    throw new RpingException("the peer disconnected while waiting for " + what);
                }
                check(deadline, what);
            }
        }

        /** Waits (briefly) until the Sends posted so far completed, so the disconnect does not flush them. */
        void drainSends() {
            long deadline = deadline(5);
            while (r.qp.sendOutstanding() > 0 && System.nanoTime() < deadline && !disconnected) {
                pump();
            }
        }

        private void check(long deadline, String what) {
            if (System.nanoTime() > deadline) {
                throw new RpingException("timed out (" + opt.timeoutSeconds() + " s) waiting for " + what
                        + "; QP " + r.qp.state());
            }
        }

        /** One round: completions, then connection events; returns whether anything arrived. */
        private boolean pump() {
            boolean any = false;
            int n = r.cq.poll(wc);
            for (int i = 0; i < n; i++) {
                Completion x = wc[i].copy();
                any = true;
                if (x.status() != CompletionStatus.SUCCESS) {
                    if (x.status() == CompletionStatus.FLUSH_ERROR) {
                        continue;
                    }
                    lastFailure = x;
                    throw new RpingException("cq completion failed status " + x.status() + ": " + x
                            + (x.isQpError() && x.terminateCause() != null ? " (" + x.terminateCause() + ")" : ""));
                }
                switch (x.opcode()) {
                    case RECV -> pendingRecv.add(x);
                    case SEND -> { }
                    case RDMA_READ, RDMA_WRITE -> pendingReq.add(x);
                    default -> throw new RpingException("unknown completion " + x);
                }
            }
            CmEvent e = channel.poll();
            if (e instanceof CmEvent.Disconnected) {
                disconnected = true;
                any = true;
            }
            if (!any) {
                transport.advance();
            }
            return any;
        }
    }

    private CmEvent awaitEvent(long deadline, String what) {
        while (true) {
            CmEvent e = channel.poll();
            if (e != null) {
                return e;
            }
            if (System.nanoTime() > deadline) {
                throw new RpingException("timed out waiting for " + what);
            }
            transport.advance();
        }
    }

    private void agreed(Connection c) {
        crcInUse = c.crc();
        peer = "rev " + c.peerRev() + ", IRD/ORD " + c.ird() + "/" + c.ord() + ", peer IRD/ORD " + c.peerIrd() + "/"
                + c.peerOrd() + (c.crc() ? ", CRC" : ", no CRC") + (c.txMarkers() || c.rxMarkers() ? ", markers" : "");
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static long deadline(double seconds) {
        return System.nanoTime() + (long) (seconds * 1e9);
    }

    private static void sleep(int millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RpingException("interrupted");
        }
    }

    /** rping's {@code rping_rdma_info}: be64 buf, be32 rkey, be32 size. */
    static byte[] info(long addr, int rkey, int size) {
        return ByteBuffer.allocate(INFO_SIZE).putLong(addr).putInt(rkey).putInt(size).array();
    }

    private static String describe(CmEvent e) {
        if (e instanceof CmEvent.Rejected r) {
            return "rejected: " + r.cause().getMessage();
        }
        if (e instanceof CmEvent.Refused r) {
            return "refused: " + r.cause().getMessage();
        }
        if (e instanceof CmEvent.TimedOut t) {
            return "timed out: " + t.cause().getMessage();
        }
        if (e instanceof CmEvent.Failed f) {
            return "failed: " + f.cause().getMessage();
        }
        return String.valueOf(e);
    }

    /** The octets up to the first NUL, as rping's printf("%s"). */
    private static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    private static String excerpt(byte[] b) {
        String s = cString(b);
        return "'" + (s.length() > 40 ? s.substring(0, 40) + "…" : s) + "'";
    }
}
