package rnic.sim.pcap;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpTaggedHeader;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.wire.MpaStartupFrame;
import rnic.model.mpa.TcpSegment;
import rnic.wire.Ddp;
import rnic.wire.DdpQueue;
import rnic.wire.RdmapOpcode;

/**
 * Builds a capture of one MPA connection from the MPA golden model: TCP handshake, MPA Request and Reply (RFC 5044
 * §7.1), Full Operation FPDUs in both directions (RFC 5044 §4, framed by {@link MpaFramer}), FIN close.
 *
 * <p>The Initiator is the TCP client, the Responder the TCP server. The startup frames carry the settings:
 * <ul>
 * <li>M in the Request is 1 when the Responder must put Markers in what it sends (Responder→Initiator Markers), M in
 * the Reply is 1 when the Initiator must (Initiator→Responder Markers) (§7.1.1: M declares the <em>receiver's</em>
 * requirement);</li>
 * <li>C is the CRC setting, the same in both frames (CRC is used when either frame has C=1);</li>
 * <li>Rev is 1 unless RFC 6581 enhanced connection data is given, which sets Rev 2 and S=1.</li>
 * </ul>
 * Each direction's {@link MpaDirection#seqStart()} — the origin of its Marker grid — is the TCP sequence number right
 * after that direction's startup frame. Each {@link TcpSegment} the framer returns becomes exactly one TCP segment, so
 * with ULPDUs of at most {@link MpaFramer#mulpdu()} octets every segment carries exactly one FPDU and starts with it
 * (RFC 5044 Appendix A, "optimized" MPA). FPDUs go out round-robin: Initiator's first, Responder's first, Initiator's
 * second, …; a direction whose list is exhausted simply stops. Each data segment acknowledges everything the other
 * side sent.
 *
 * <p>Viewing in Wireshark (4.0): its MPA dissector is heuristic and needs the Request and Reply in the file; it
 * decodes Markers none and both, but assumes both directions are marked when either is, so {@link Markers#I2R} and
 * {@link Markers#R2I} captures show the unmarked direction as plain TCP. Its RPC-over-RDMA heuristic reports Sends
 * with fewer than 16 payload octets as malformed (disable heuristic {@code rpcrdma_iwarp} to silence it).
 *
 * <pre>{@code
 * MpaCapture.Result r = new MpaCapture()
 *         .markers(MpaCapture.Markers.BOTH).crc(true)
 *         .i2r(MpaCapture.send(1, payload)).r2i(MpaCapture.rdmaWrite(0x1234, 0, payload))
 *         .write(Path.of("mpa.pcap"));
 * }</pre>
 */
public final class MpaCapture {
    /** Which directions carry Markers (i2r: Initiator→Responder, r2i: Responder→Initiator). */
    public enum Markers {
        NONE(false, false), I2R(true, false), R2I(false, true), BOTH(true, true);

        private final boolean i2r;
        private final boolean r2i;

        Markers(boolean i2r, boolean r2i) {
            this.i2r = i2r;
            this.r2i = r2i;
        }

        /** Markers in Initiator→Responder FPDUs (M=1 in the Reply). */
        public boolean i2r() {
            return i2r;
        }

        /** Markers in Responder→Initiator FPDUs (M=1 in the Request). */
        public boolean r2i() {
            return r2i;
        }
    }

    /** Direction of a ULPDU. */
    public enum Direction {
        /** Initiator (TCP client) to Responder. */
        I2R,
        /** Responder (TCP server) to Initiator. */
        R2I
    }

    /**
     * Rewrites an FPDU segment's TCP payload before it is written (for negative tests, e.g. a corrupted CRC).
     * Returning the argument unchanged keeps the segment; the length must not change.
     */
    @FunctionalInterface
    public interface Tamper {
        /**
         * @param dir     the segment's direction
         * @param index   0-based index of the FPDU segment within its direction (= FPDU index when each FPDU fits
         *                one segment)
         * @param payload the segment's octets (a copy that may be modified)
         */
        byte[] apply(Direction dir, int index, byte[] payload);
    }

    /**
     * One ULPDU as written.
     *
     * @param dir      its direction
     * @param ulpdu    the ULPDU (DDP segment) octets
     * @param segments the TCP segments the framer made of its FPDU (one unless the FPDU exceeds EMSS), before any
     *                 {@link Tamper}
     */
    public record Fpdu(Direction dir, byte[] ulpdu, List<TcpSegment> segments) {
        public Fpdu {
            ulpdu = ulpdu.clone();
            segments = List.copyOf(segments);
        }

        @Override
        public byte[] ulpdu() {
            return ulpdu.clone();
        }
    }

    /**
     * What was written.
     *
     * @param request  the MPA Request sent
     * @param reply    the MPA Reply sent
     * @param i2r      the Initiator→Responder settings; {@code seqStart} is the sequence number of its first FPDU octet
     * @param r2i      the Responder→Initiator settings
     * @param fpdus    the FPDUs in the order they were written
     * @param frames   Ethernet frames written
     */
    public record Result(MpaStartupFrame request, MpaStartupFrame reply, MpaDirection i2r, MpaDirection r2i,
            List<Fpdu> fpdus, long frames) {
        public Result {
            fpdus = List.copyOf(fpdus);
        }

        /** The TCP segments of one direction's FPDUs, in order. */
        public List<TcpSegment> segments(Direction dir) {
            return fpdus.stream().filter(f -> f.dir() == dir).flatMap(f -> f.segments().stream()).toList();
        }

        /** Number of FPDU-carrying TCP segments in both directions. */
        public int segmentCount() {
            return fpdus.stream().mapToInt(f -> f.segments().size()).sum();
        }
    }

    /** Default Initiator ISN. */
    public static final long DEFAULT_INITIATOR_ISN = 0x1000_0000L;
    /** Default Responder ISN. */
    public static final long DEFAULT_RESPONDER_ISN = 0x7000_0000L;
    /** Default EMSS (Ethernet MTU 1500 minus the 20-octet IPv4 and TCP headers). */
    public static final int DEFAULT_EMSS = 1460;

    private Markers markers = Markers.NONE;
    private boolean crc = true;
    private TcpEndpoint initiator = TcpEndpoint.DEFAULT_CLIENT;
    private TcpEndpoint responder = TcpEndpoint.DEFAULT_SERVER;
    private long initiatorIsn = DEFAULT_INITIATOR_ISN;
    private long responderIsn = DEFAULT_RESPONDER_ISN;
    private int emss = DEFAULT_EMSS;
    private byte[] requestPrivateData = new byte[0];
    private byte[] replyPrivateData = new byte[0];
    private MpaStartupFrame.Enhanced requestEnhanced;
    private MpaStartupFrame.Enhanced replyEnhanced;
    private final List<byte[]> i2r = new ArrayList<>();
    private final List<byte[]> r2i = new ArrayList<>();
    private Tamper tamper = (d, i, p) -> p;

    /** Markers setting (default none). */
    public MpaCapture markers(Markers m) {
        this.markers = m;
        return this;
    }

    /** CRC on or off (default on). */
    public MpaCapture crc(boolean on) {
        this.crc = on;
        return this;
    }

    /** Endpoints (default {@link TcpEndpoint#DEFAULT_CLIENT} → {@link TcpEndpoint#DEFAULT_SERVER}). */
    public MpaCapture endpoints(TcpEndpoint initiator, TcpEndpoint responder) {
        this.initiator = initiator;
        this.responder = responder;
        return this;
    }

    /** Initial TCP sequence numbers of the Initiator and the Responder. */
    public MpaCapture isn(long initiatorIsn, long responderIsn) {
        this.initiatorIsn = initiatorIsn;
        this.responderIsn = responderIsn;
        return this;
    }

    /** EMSS the framers use (default 1460); also announced as MSS in the SYNs. */
    public MpaCapture emss(int emss) {
        this.emss = emss;
        return this;
    }

    /** ULP private data of the Request and the Reply (default none). */
    public MpaCapture privateData(byte[] request, byte[] reply) {
        this.requestPrivateData = request.clone();
        this.replyPrivateData = reply.clone();
        return this;
    }

    /**
     * RFC 6581 enhanced connection data for the Request and the Reply (both non-null: Rev 2, S=1; both null: Rev 1).
     * Note that Wireshark flags Rev ≠ 1 with an expert warning.
     */
    public MpaCapture enhanced(MpaStartupFrame.Enhanced request, MpaStartupFrame.Enhanced reply) {
        if ((request == null) != (reply == null)) {
            throw new IllegalArgumentException("give enhanced data for both frames or neither");
        }
        this.requestEnhanced = request;
        this.replyEnhanced = reply;
        return this;
    }

    /** Adds Initiator→Responder ULPDUs. */
    public MpaCapture i2r(byte[]... ulpdus) {
        return i2r(List.of(ulpdus));
    }

    /** Adds Initiator→Responder ULPDUs. */
    public MpaCapture i2r(List<byte[]> ulpdus) {
        ulpdus.forEach(u -> i2r.add(u.clone()));
        return this;
    }

    /** Adds Responder→Initiator ULPDUs. */
    public MpaCapture r2i(byte[]... ulpdus) {
        return r2i(List.of(ulpdus));
    }

    /** Adds Responder→Initiator ULPDUs. */
    public MpaCapture r2i(List<byte[]> ulpdus) {
        ulpdus.forEach(u -> r2i.add(u.clone()));
        return this;
    }

    /** Installs a hook that may alter FPDU segments before they are written (negative tests). */
    public MpaCapture tamper(Tamper t) {
        this.tamper = t;
        return this;
    }

    /** Writes the capture to {@code file} (parent directories are created). */
    public Result write(Path file) throws IOException {
        try (PcapWriter w = PcapWriter.create(file)) {
            return write(w);
        }
    }

    /** Writes the connection into {@code out} (which stays open). */
    public Result write(PcapWriter out) throws IOException {
        long before = out.packets();
        int rev = requestEnhanced != null ? 2 : 1;
        MpaStartupFrame request = new MpaStartupFrame(false, markers.r2i(), crc, false, rev, requestEnhanced,
                requestPrivateData);
        MpaStartupFrame reply = new MpaStartupFrame(true, markers.i2r(), crc, false, rev, replyEnhanced,
                replyPrivateData);

        TcpConnectionCapture tcp = new TcpConnectionCapture(out, initiator, initiatorIsn, responder, responderIsn)
                .mss(Math.min(emss, 0xFFFF));
        tcp.open();
        tcp.send(TcpConnectionCapture.Side.CLIENT, request.encode());
        tcp.send(TcpConnectionCapture.Side.SERVER, reply.encode());

        MpaDirection i2rDir = new MpaDirection(markers.i2r(), crc, tcp.nextSeq(TcpConnectionCapture.Side.CLIENT));
        MpaDirection r2iDir = new MpaDirection(markers.r2i(), crc, tcp.nextSeq(TcpConnectionCapture.Side.SERVER));
        MpaFramer i2rFramer = new MpaFramer(i2rDir, emss);
        MpaFramer r2iFramer = new MpaFramer(r2iDir, emss);
        List<Fpdu> fpdus = new ArrayList<>();
        int[] segIndex = new int[2];

        for (int k = 0; k < Math.max(i2r.size(), r2i.size()); k++) {
            if (k < i2r.size()) {
                emit(tcp, Direction.I2R, i2r.get(k), i2rFramer, fpdus, segIndex);
            }
            if (k < r2i.size()) {
                emit(tcp, Direction.R2I, r2i.get(k), r2iFramer, fpdus, segIndex);
            }
        }
        tcp.close();
        out.flush();
        return new Result(request, reply, i2rDir, r2iDir, fpdus, out.packets() - before);
    }

    private void emit(TcpConnectionCapture tcp, Direction dir, byte[] ulpdu, MpaFramer framer, List<Fpdu> fpdus,
            int[] segIndex) throws IOException {
        TcpConnectionCapture.Side side = dir == Direction.I2R ? TcpConnectionCapture.Side.CLIENT
                : TcpConnectionCapture.Side.SERVER;
        List<TcpSegment> segs = framer.send(ulpdu);
        for (TcpSegment s : segs) {
            if (s.seq() != tcp.nextSeq(side)) {
                throw new IllegalStateException("framer at seq " + s.seq() + ", TCP at " + tcp.nextSeq(side));
            }
            byte[] p = tamper.apply(dir, segIndex[dir.ordinal()]++, s.payload().clone());
            if (p.length != s.payload().length) {
                throw new IllegalStateException("tamper changed the segment length");
            }
            tcp.send(side, p);
        }
        fpdus.add(new Fpdu(dir, ulpdu, segs));
    }

    /**
     * An untagged RDMAP Send ULPDU (RFC 5041 §4.3, RFC 5040 §4.1): DDP control 0x41 (untagged, last, DV=1), RDMAP
     * control 0x43 (RV=1, Send), RsvdULP (4 zero octets), QN 0, {@code msn}, MO 0, then {@code payload}.
     */
    public static byte[] send(int msn, byte[] payload) {
        long rsvdUlp = (long) RdmapOpcode.SEND.control() << 32;
        return new DdpSegment(new DdpUntaggedHeader(true, rsvdUlp, DdpQueue.SEND.qn(), msn & Ddp.U32_MASK, 0), payload)
                .encode();
    }

    /**
     * A tagged RDMA Write ULPDU (RFC 5041 §4.2, RFC 5040 §4.1): DDP control 0xC1 (tagged, last, DV=1), RDMAP control
     * 0x40 (RV=1, RDMA Write), {@code stag}, {@code to}, then {@code payload}.
     */
    public static byte[] rdmaWrite(int stag, long to, byte[] payload) {
        return new DdpSegment(new DdpTaggedHeader(true, RdmapOpcode.RDMA_WRITE.control(), stag, to), payload).encode();
    }
}
