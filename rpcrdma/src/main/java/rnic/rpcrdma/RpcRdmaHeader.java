package rnic.rpcrdma;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import rnic.xdr.XdrDecoder;
import rnic.xdr.XdrEncoder;
import rnic.xdr.XdrException;

/**
 * The RPC-over-RDMA version 1 transport header (RFC 8166 §4; docs/requirements.md §5.1, §5.2): four fixed words
 * (RPCRDMA-02) — xid, vers, credit, proc — then the body proc selects:
 *
 * <pre>
 *   RDMA_MSG / RDMA_NOMSG:  Read list   {1, position, handle, length, offset}* 0
 *                           Write list  {1, count, {handle, length, offset} x count}* 0
 *                           Reply chunk 0 | 1, count, {handle, length, offset} x count
 *   RDMA_MSGP:              align, thresh, then the three lists (never sent, RPCRDMA-30)
 *   RDMA_DONE:              nothing
 *   RDMA_ERROR:             err (1 ERR_VERS: low, high | 2 ERR_CHUNK)
 * </pre>
 *
 * Every word is a big-endian uint32 (offsets are hypers). A header with no chunks is 28 octets, the minimum of a
 * valid message (RFC 8166 §4.5).
 *
 * @param proc       the raw rdma_proc word (values RFC 8166 does not define can be encoded, for tests of receivers)
 * @param replyChunk null when absent
 * @param err        for RDMA_ERROR: 1 ERR_VERS or 2 ERR_CHUNK
 */
public record RpcRdmaHeader(int xid, int vers, int credit, int proc, List<ReadSegment> readList,
        List<WriteChunk> writeList, WriteChunk replyChunk, int err, int versLow, int versHigh, int align,
        int thresh) {

    /** The only version this implementation speaks (RPCRDMA-04). */
    public static final int VERSION = 1;
    /** The shortest valid header: xid, vers, credit, proc and three empty lists (RFC 8166 §4.5). */
    public static final int MIN_LENGTH = 28;
    /** rpc_rdma_errcode ERR_VERS (RPCRDMA-25). */
    public static final int ERR_VERS = 1;
    /** rpc_rdma_errcode ERR_CHUNK (RPCRDMA-26; draft-04's RDMA_ERR_BADHEADER, trap T-35). */
    public static final int ERR_CHUNK = 2;

    public RpcRdmaHeader {
        readList = List.copyOf(readList);
        writeList = List.copyOf(writeList);
    }

    /** RDMA_MSG (RPCRDMA-10): the RPC message follows in the same Send. */
    public static RpcRdmaHeader msg(int xid, int credit, List<ReadSegment> reads, List<WriteChunk> writes,
            WriteChunk reply) {
        return new RpcRdmaHeader(xid, VERSION, credit, Proc.RDMA_MSG.code(), reads, writes, reply, 0, 0, 0, 0, 0);
    }

    /** RDMA_NOMSG (RPCRDMA-11): the RPC message is in a Position-Zero Read chunk or in the Reply chunk. */
    public static RpcRdmaHeader nomsg(int xid, int credit, List<ReadSegment> reads, List<WriteChunk> writes,
            WriteChunk reply) {
        return new RpcRdmaHeader(xid, VERSION, credit, Proc.RDMA_NOMSG.code(), reads, writes, reply, 0, 0, 0, 0, 0);
    }

    /** RDMA_ERROR ERR_VERS echoing the failing message's xid and vers, range 1 … 1 (RPCRDMA-24, RPCRDMA-25). */
    public static RpcRdmaHeader errVers(int xid, int failingVers, int credit) {
        return new RpcRdmaHeader(xid, failingVers, credit, Proc.RDMA_ERROR.code(), List.of(), List.of(), null,
                ERR_VERS, VERSION, VERSION, 0, 0);
    }

    /** RDMA_ERROR ERR_CHUNK (RPCRDMA-26). */
    public static RpcRdmaHeader errChunk(int xid, int failingVers, int credit) {
        return new RpcRdmaHeader(xid, failingVers, credit, Proc.RDMA_ERROR.code(), List.of(), List.of(), null,
                ERR_CHUNK, 0, 0, 0, 0);
    }

    /** Any header word for word, e.g. a deprecated RDMA_MSGP or RDMA_DONE a test sends at a receiver. */
    public static RpcRdmaHeader raw(int xid, int vers, int credit, int proc) {
        return new RpcRdmaHeader(xid, vers, credit, proc, List.of(), List.of(), null, 0, 0, 0, 0, 0);
    }

    public Proc procedure() {
        return Proc.of(proc);
    }

    /** The Read chunks: segments grouped by position, in list order of their first segment (RPCRDMA-14). */
    public Map<Integer, List<RdmaSegment>> readChunks() {
        Map<Integer, List<RdmaSegment>> m = new LinkedHashMap<>();
        for (ReadSegment r : readList) {
            m.computeIfAbsent(r.position(), k -> new ArrayList<>()).add(r.target());
        }
        return m;
    }

    public boolean hasChunks() {
        return !readList.isEmpty() || !writeList.isEmpty() || replyChunk != null;
    }

    /** The header as it goes on the wire. */
    public byte[] encode() {
        XdrEncoder e = new XdrEncoder(64);
        e.int32(xid).int32(vers).int32(credit).int32(proc);
        Proc p = procedure();
        if (p == Proc.RDMA_ERROR) {
            e.int32(err);
            if (err == ERR_VERS) {
                e.int32(versLow).int32(versHigh);
            }
        } else if (p == Proc.RDMA_MSG || p == Proc.RDMA_NOMSG || p == Proc.RDMA_MSGP) {
            if (p == Proc.RDMA_MSGP) {
                e.int32(align).int32(thresh);
            }
            encodeLists(e);
        }
        return e.toByteArray();
    }

    private void encodeLists(XdrEncoder e) {
        for (ReadSegment r : readList) {
            e.int32(1).int32(r.position());
            segment(e, r.target());
        }
        e.int32(0);
        for (WriteChunk w : writeList) {
            e.int32(1);
            chunk(e, w);
        }
        e.int32(0);
        if (replyChunk == null) {
            e.int32(0);
        } else {
            e.int32(1);
            chunk(e, replyChunk);
        }
    }

    private static void chunk(XdrEncoder e, WriteChunk w) {
        e.int32(w.segments().size());
        for (RdmaSegment s : w.segments()) {
            segment(e, s);
        }
    }

    private static void segment(XdrEncoder e, RdmaSegment s) {
        e.int32(s.handle()).int32(s.length()).hyper(s.offset());
    }

    /** Octets {@link #encode()} produces. */
    public int encodedLength() {
        return encode().length;
    }

    /** A decoded header and where the Payload stream starts in the received message. */
    public record Decoded(RpcRdmaHeader header, int payloadOffset) {
    }

    /**
     * Decodes the transport header at the start of a received message of {@code length} octets.
     *
     * @throws HeaderException SHORT under 28 octets, save a 20-octet RDMA_ERROR ERR_CHUNK (RPCRDMA-24), VERSION for rdma_vers ≠ 1 (RPCRDMA-25), XDR for
     *                         an unknown proc, an ERR code other than 1 or 2, or a list that does not decode
     *                         (RPCRDMA-26)
     */
    public static Decoded decode(byte[] message, int offset, int length) throws HeaderException {
        if (length < 16) {
            throw new HeaderException(HeaderException.Kind.SHORT, 0, 0, 0,
                    "message of " + length + " octets, under the 28 of a minimal header");
        }
        XdrDecoder d = new XdrDecoder(message, offset, length);
        int xid = d.int32();
        int vers = d.int32();
        int credit = d.int32();
        int proc = d.int32();
        // RFC 8166 §4.5: under 28 octets is discarded unparsed — except an RDMA_ERROR, whose ERR_CHUNK form is 20
        // octets (docs/requirements.md §5.3 example 6)
        boolean errChunk = proc == 4 && length >= 20 && d.int32() == ERR_CHUNK;
        if (length < MIN_LENGTH && !errChunk) {
            throw new HeaderException(HeaderException.Kind.SHORT, 0, 0, 0,
                    "message of " + length + " octets, under the 28 of a minimal header");
        }
        d = new XdrDecoder(message, offset + 16, length - 16);
        if (vers != VERSION) {
            throw new HeaderException(HeaderException.Kind.VERSION, xid, vers, credit,
                    "rdma_vers " + Integer.toUnsignedString(vers));
        }
        Proc p = Proc.of(proc);
        if (p == null) {
            throw new HeaderException(HeaderException.Kind.XDR, xid, vers, credit,
                    "rdma_proc " + Integer.toUnsignedString(proc) + " is not defined");
        }
        try {
            List<ReadSegment> reads = new ArrayList<>();
            List<WriteChunk> writes = new ArrayList<>();
            WriteChunk reply = null;
            int err = 0;
            int lo = 0;
            int hi = 0;
            int align = 0;
            int thresh = 0;
            switch (p) {
                case RDMA_ERROR -> {
                    err = d.int32();
                    if (err == ERR_VERS) {
                        lo = d.int32();
                        hi = d.int32();
                    } else if (err != ERR_CHUNK) {
                        throw new XdrException("rdma_err " + Integer.toUnsignedString(err) + " is not defined");
                    }
                }
                case RDMA_DONE -> {
                }
                default -> {
                    if (p == Proc.RDMA_MSGP) {
                        align = d.int32();
                        thresh = d.int32();
                    }
                    while (d.bool()) {
                        int pos = d.int32();
                        reads.add(new ReadSegment(pos, segment(d)));
                    }
                    while (d.bool()) {
                        writes.add(chunk(d));
                    }
                    if (d.bool()) {
                        reply = chunk(d);
                    }
                }
            }
            return new Decoded(new RpcRdmaHeader(xid, vers, credit, proc, reads, writes, reply, err, lo, hi, align,
                    thresh), 16 + d.position());
        } catch (XdrException | IllegalArgumentException e) {
            throw new HeaderException(HeaderException.Kind.XDR, xid, vers, credit, e.getMessage());
        }
    }

    private static WriteChunk chunk(XdrDecoder d) {
        long n = d.uint32();
        // each segment takes 16 octets: a count the message cannot hold is an encoding error, not an allocation
        if (n * 16 > d.remaining()) {
            throw new XdrException("segment count " + n + " with " + d.remaining() + " octets left");
        }
        List<RdmaSegment> s = new ArrayList<>((int) n);
        for (long i = 0; i < n; i++) {
            s.add(segment(d));
        }
        return new WriteChunk(s);
    }

    private static RdmaSegment segment(XdrDecoder d) {
        int handle = d.int32();
        int length = d.int32();
        long offset = d.hyper();
        if (length < 0) {
            throw new XdrException("segment length " + Integer.toUnsignedString(length) + " over 2^31 - 1");
        }
        return new RdmaSegment(handle, length, offset);
    }

    @Override
    public String toString() {
        Proc p = procedure();
        StringBuilder s = new StringBuilder(String.format("xid=0x%08x vers=%d credit=%d %s", xid, vers, credit,
                p == null ? "proc=" + proc : p.name()));
        if (p == Proc.RDMA_ERROR) {
            s.append(err == ERR_VERS ? " ERR_VERS " + versLow + ".." + versHigh : " ERR_CHUNK");
        } else {
            if (!readList.isEmpty()) {
                s.append(" reads=").append(readList);
            }
            if (!writeList.isEmpty()) {
                s.append(" writes=").append(writeList);
            }
            if (replyChunk != null) {
                s.append(" reply=").append(replyChunk);
            }
        }
        return s.toString();
    }
}
