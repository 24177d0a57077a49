package rnic.rpc;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import rnic.oncrpc.RpcClient;
import rnic.oncrpc.RpcServer;
import rnic.xdr.XdrDecoder;
import rnic.xdr.XdrEncoder;

/**
 * A small file/block service that speaks a subset of NFS version 3 (RFC 1813: program 100003, version 3) over one
 * "file", the disk, so that Wireshark's RPC dissector knows the program and decodes calls and replies (it leaves RPC
 * of programs it does not know undecoded unless told to). Its upper layer binding is the one RFC 8267 gives NFSv3
 * (RPCRDMA-22): the data of READ's result and of WRITE's argument are DDP-eligible, nothing else.
 *
 * <pre>
 *   0  NULL     void                                        → void
 *   3  LOOKUP   dir fh, name (string, not eligible)         → NFS3_OK, object fh = "crc:" + CRC32(name), no attrs
 *                                                              (a long name makes a long call: Position-Zero Read chunk)
 *   6  READ     fh, offset, count                           → NFS3_OK, no attrs, count, eof, data (Write chunk)
 *   7  WRITE    fh, offset, count, stable, data             → NFS3_OK, wcc none, count, FILE_SYNC, verifier
 *                                                              (data: Read chunk)
 *   16 READDIR  dir fh, cookie, cookieverf, count           → NFS3_OK, one entry per 512-octet block from the cookie,
 *                                                              named "blk-NNNNNN.crc-XXXXXXXX", while the reply stays
 *                                                              under count octets (not eligible: a long reply → Reply
 *                                                              chunk)
 * </pre>
 */
public final class BlockService {
    public static final int PROGRAM = 100003;
    public static final int VERSION = 3;
    public static final int NULL = 0;
    public static final int LOOKUP = 3;
    public static final int READ = 6;
    public static final int WRITE = 7;
    public static final int READDIR = 16;
    /** nfsstat3 NFS3_OK, NFS3ERR_IO, NFS3ERR_INVAL. */
    public static final int NFS3_OK = 0;
    public static final int NFS3ERR_IO = 5;
    public static final int NFS3ERR_INVAL = 22;
    /** stable_how FILE_SYNC. */
    public static final int FILE_SYNC = 2;
    /** Block size of READDIR's entries. */
    public static final int BLOCK = 512;
    /** Largest READ/WRITE. */
    public static final int MAX_IO = 32 * 1024;
    /** READs from this size on get a Write chunk (smaller results come inline). */
    public static final int WRITE_CHUNK_FROM = 512;
    /** The file handle of the disk and of its directory. */
    public static final byte[] FH = "rnic-blk".getBytes(StandardCharsets.US_ASCII);
    static final byte[] VERIFIER = "rpcrdma1".getBytes(StandardCharsets.US_ASCII);

    private final byte[] disk;

    /** A service over a disk of {@code size} octets, initialised with {@code pattern(size, seed)}. */
    public BlockService(int size, int seed) {
        disk = pattern(size, seed);
    }

    /** The initial contents of a disk (also the client's model of it). */
    public static byte[] pattern(int size, int seed) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (seed * 131 + i * 7 + (i >>> 9) * 3);
        }
        return b;
    }

    public byte[] disk() {
        return disk;
    }

    static int crc(byte[] b, int off, int len) {
        CRC32 c = new CRC32();
        c.update(b, off, len);
        return (int) c.getValue();
    }

    static String entryName(long block, int crc) {
        return String.format("blk-%06d.crc-%08x", block, crc);
    }

    /** The program for an {@link RpcServer}. */
    public RpcServer.Program program() {
        return new RpcServer.Program(PROGRAM, VERSION, Map.of(
                NULL, (ctx, a, r) -> { },
                LOOKUP, (ctx, a, r) -> {
                    a.opaque(64);
                    byte[] name = a.opaque(64 * 1024);
                    byte[] fh = new XdrEncoder().int32(0x63726333).int32(crc(name, 0, name.length)).toByteArray();
                    r.int32(NFS3_OK).opaque(fh).bool(false).bool(false);
                },
                READ, (ctx, a, r) -> {
                    a.opaque(64);
                    long off = a.hyper();
                    long n = a.uint32();
                    if (n > MAX_IO || off < 0 || off > disk.length) {
                        r.int32(NFS3ERR_INVAL).bool(false);
                        return;
                    }
                    int len = (int) Math.min(n, disk.length - off);
                    byte[] data = java.util.Arrays.copyOfRange(disk, (int) off, (int) off + len);
                    r.int32(NFS3_OK).bool(false).int32(len).bool(off + len == disk.length).ddpOpaque(data);
                },
                WRITE, (ctx, a, r) -> {
                    a.opaque(64);
                    long off = a.hyper();
                    long count = a.uint32();
                    a.int32();
                    byte[] data = a.ddpOpaque(MAX_IO);
                    if (count != data.length || off < 0 || off + data.length > disk.length) {
                        r.int32(NFS3ERR_INVAL).bool(false).bool(false);
                        return;
                    }
                    System.arraycopy(data, 0, disk, (int) off, data.length);
                    r.int32(NFS3_OK).bool(false).bool(false).int32(data.length).int32(FILE_SYNC)
                            .opaqueFixed(VERIFIER);
                },
                READDIR, (ctx, a, r) -> {
                    a.opaque(64);
                    long cookie = a.hyper();
                    a.opaqueFixed(8);
                    long count = a.uint32();
                    r.int32(NFS3_OK).bool(false).opaqueFixed(VERIFIER);
                    int size = 4 + 4 + 8 + 4 + 4; // status, attrs, verifier, end of list, eof
                    long b = cookie;
                    while (b * BLOCK < disk.length) {
                        String name = entryName(b, crc(disk, (int) (b * BLOCK), BLOCK));
                        int entry = 4 + 8 + 4 + rnic.xdr.Xdr.roundUp(name.length()) + 8;
                        if (size + entry > count) {
                            break;
                        }
                        r.bool(true).hyper(b + 1).string(name).hyper(b + 1);
                        size += entry;
                        b++;
                    }
                    r.bool(false).bool(b * BLOCK >= disk.length);
                }), false);
    }

    // ---- client stubs --------------------------------------------------------------------------------------------

    /** NULL. */
    public static RpcClient.Request nullCall() {
        return new RpcClient.Request(PROGRAM, VERSION, NULL, new XdrEncoder());
    }

    /** READ of {@code count} octets: a Write chunk of that size for the data from {@link #WRITE_CHUNK_FROM} on. */
    public static RpcClient.Request read(long offset, int count) {
        RpcClient.Request r = new RpcClient.Request(PROGRAM, VERSION, READ, new XdrEncoder().opaque(FH).hyper(offset)
                .int32(count)).maxResults(16 + count + 3);
        return count >= WRITE_CHUNK_FROM ? r.writeChunks(count) : r;
    }

    /** READ's results: the data. */
    public static byte[] readResult(XdrDecoder d) {
        int status = d.int32();
        if (status != NFS3_OK || d.bool()) {
            throw new IllegalStateException("READ status " + status);
        }
        int count = d.int32();
        d.bool();
        byte[] data = d.ddpOpaque(MAX_IO);
        if (data.length != count) {
            throw new IllegalStateException("READ count " + count + ", data " + data.length);
        }
        return data;
    }

    /** WRITE of {@code data} at {@code offset}, FILE_SYNC. */
    public static RpcClient.Request write(long offset, byte[] data) {
        return new RpcClient.Request(PROGRAM, VERSION, WRITE, new XdrEncoder().opaque(FH).hyper(offset)
                .int32(data.length).int32(FILE_SYNC).ddpOpaque(data)).maxResults(28);
    }

    /** WRITE's results: the count written. */
    public static int writeResult(XdrDecoder d) {
        int status = d.int32();
        if (status != NFS3_OK || d.bool() || d.bool()) {
            throw new IllegalStateException("WRITE status " + status);
        }
        int n = d.int32();
        d.int32();
        d.opaqueFixed(8);
        return n;
    }

    /** READDIR from block {@code cookie}, replies up to {@code count} octets. */
    public static RpcClient.Request readdir(long cookie, int count) {
        return new RpcClient.Request(PROGRAM, VERSION, READDIR, new XdrEncoder().opaque(FH).hyper(cookie)
                .opaqueFixed(new byte[8]).int32(count)).maxResults(count);
    }

    /** READDIR's results: the CRC32 each entry's name gives, checked against {@code model}; returns the count. */
    public static int readdirResult(XdrDecoder d, byte[] model, long cookie) {
        int status = d.int32();
        if (status != NFS3_OK || d.bool()) {
            throw new IllegalStateException("READDIR status " + status);
        }
        d.opaqueFixed(8);
        List<String> bad = new ArrayList<>();
        long b = cookie;
        int n = 0;
        while (d.bool()) {
            long fileid = d.hyper();
            String name = d.string(255);
            d.hyper();
            String want = entryName(b, crc(model, (int) (b * BLOCK), BLOCK));
            if (fileid != b + 1 || !name.equals(want)) {
                bad.add(name + " (want " + want + ")");
            }
            b++;
            n++;
        }
        d.bool();
        if (!bad.isEmpty()) {
            throw new IllegalStateException("READDIR entries differ: " + bad);
        }
        return n;
    }

    /** LOOKUP of a (long) name. */
    public static RpcClient.Request lookup(String name) {
        return new RpcClient.Request(PROGRAM, VERSION, LOOKUP, new XdrEncoder().opaque(FH).string(name))
                .maxResults(40);
    }

    /** LOOKUP's results: the CRC32 the server put in the object's file handle. */
    public static int lookupResult(XdrDecoder d) {
        int status = d.int32();
        if (status != NFS3_OK) {
            throw new IllegalStateException("LOOKUP status " + status);
        }
        XdrDecoder fh = new XdrDecoder(d.opaque(64));
        fh.int32();
        return fh.int32();
    }

    /** The CRC LOOKUP must return. */
    public static int expectedCrc(String name) {
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        return crc(b, 0, b.length);
    }
}
