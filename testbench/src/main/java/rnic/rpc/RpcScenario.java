package rnic.rpc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import rnic.oncrpc.Auth;
import rnic.oncrpc.RpcClient;
import rnic.oncrpc.RpcServer;
import rnic.rpcrdma.RpcRdmaConfig;
import rnic.rpcrdma.RpcRdmaResponder;
import rnic.transport.Transport;
import rnic.xdr.XdrDecoder;

/**
 * What {@code ./rnic demo rpc} does, as two host programs on the real driver: host b serves {@link BlockService}
 * over RPC-over-RDMA, host a calls it — NULL, READs inline and through a Write chunk, WRITEs inline and through a
 * Read chunk, a READDIR whose reply needs the Reply chunk, a LOOKUP of a name long enough to need a Position-Zero
 * Read chunk, a
 * read-back of what was written, and eight NULLs at once to show the credits. Every result is checked against a's own
 * model of b's disk (and CRC32 computed on a's side); {@link #failures()} lists what did not hold.
 */
public final class RpcScenario {
    /** One call as the table shows it. */
    public record Row(String procedure, int argBytes, int resultBytes, String chunks, int xid, long cycles,
            String check) {
    }

    /** Device time a call may take. */
    public static final Duration CALL_TIMEOUT = Duration.ofMillis(4);
    public static final int DISK = 256 * 1024;
    public static final int SEED = 5;

    private final Consumer<String> progress;
    private final RpcRdmaConfig config;
    private final List<Row> rows = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private final Map<Integer, RpcRdmaResponder.Served> served = new HashMap<>();
    private volatile boolean clientDone;
    private volatile boolean listening;
    private long clientLocalInvalidates;
    private long clientSends;
    private int calls;

    public RpcScenario(Consumer<String> progress, RpcRdmaConfig config) {
        this.progress = progress;
        this.config = config;
    }

    public List<Row> rows() {
        return List.copyOf(rows);
    }

    public List<String> failures() {
        return List.copyOf(failures);
    }

    /** What the responder did for {@code xid} (after the run). */
    public RpcRdmaResponder.Served served(int xid) {
        return served.get(xid);
    }

    public int calls() {
        return calls;
    }

    public long clientLocalInvalidates() {
        return clientLocalInvalidates;
    }

    // ------------------------------------------------------------------------------------------------ host b

    /** Host b: serves the block service until a is done. */
    public void server(Transport t) {
        RpcHosts.Server s = RpcHosts.serve(t, config, () -> listening = true);
        try (rnic.verbs.Device dev = s.device()) {
            BlockService svc = new BlockService(DISK, SEED);
            RpcServer rpc = new RpcServer().register(svc.program());
            s.responder().serve(rpc, () -> clientDone);
            for (RpcRdmaResponder.Served x : s.responder().served()) {
                served.put(x.xid(), x);
                if (!x.outcome().equals("replied")) {
                    failures.add(String.format("b: xid 0x%08x: %s", x.xid(), x.outcome()));
                }
            }
            if (s.responder().isBroken()) {
                failures.add("b: the connection broke");
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ host a

    /** Host a: the calls, each checked. */
    public void client(Transport t) {
        try {
            while (!listening) {
                t.advance();
            }
            progress.accept("connecting to " + RpcHosts.SERVER.getAddress().getHostAddress() + ":"
                    + RpcHosts.SERVER.getPort() + " (MPA, CRC) with " + config.credits() + " receive buffers posted");
            RpcHosts.Client c = RpcHosts.connect(t, config);
            try (rnic.verbs.Device dev = c.device()) {
                RpcClient rpc = new RpcClient(c.requester(), Auth.sys(new Auth.Sys(1, "host-a", 1000, 100,
                        List.of(100, 4))), 0x5A000001);
                byte[] model = BlockService.pattern(DISK, SEED);
                one(rpc, "NULL", 0, BlockService.nullCall(), d -> 0, r -> "ok");
                read(rpc, model, 1000, 64);
                read(rpc, model, 4096, 4096);
                write(rpc, model, 200, BlockService.pattern(100, 9));
                write(rpc, model, 16384, BlockService.pattern(8192, 11));
                read(rpc, model, 16384, 8192);
                read(rpc, model, 3, 5); // unaligned offset and a length that needs XDR padding
                one(rpc, "READDIR", 36, BlockService.readdir(8, 4096),
                        d -> BlockService.readdirResult(d, model, 8), n -> n > 0 ? n + " entries ok" : null);
                String name = "name-" + "0123456789abcdef".repeat(190);
                one(rpc, "LOOKUP", name.length() + 16, BlockService.lookup(name), BlockService::lookupResult,
                        crc -> crc == BlockService.expectedCrc(name) ? "crc ok" : null);
                read(rpc, model, 32768, 16384);
                // eight NULLs started together: the transport sends as many as the credits allow
                progress.accept("8 x NULL started at once (credits: " + c.requester().creditLimit() + ")");
                long t0 = c.device().cycles();
                List<RpcClient.Pending> ps = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    ps.add(rpc.start(BlockService.nullCall()));
                }
                for (RpcClient.Pending p : ps) {
                    rpc.await(p, CALL_TIMEOUT);
                    calls++;
                }
                rows.add(new Row("8 x NULL at once", 0, 0, "inline, max " + c.requester().maxInFlight()
                        + " in flight", ps.get(0).xid(), (c.device().cycles() - t0) / 8, "per call"));
                if (c.requester().maxInFlight() > config.credits()) {
                    failures.add("a: " + c.requester().maxInFlight() + " calls in flight, over the "
                            + config.credits() + " credits");
                }
                clientLocalInvalidates = c.requester().localInvalidates();
                if (!c.requester().discarded().isEmpty()) {
                    failures.add("a: discarded " + c.requester().discarded());
                }
            }
        } catch (RuntimeException | Error e) {
            failures.add("a: " + e);
            throw e;
        } finally {
            clientDone = true;
        }
    }

    private void read(RpcClient rpc, byte[] model, long off, int n) {
        one(rpc, "READ", 24, BlockService.read(off, n), d -> {
            byte[] got = BlockService.readResult(d);
            return Arrays.equals(got, Arrays.copyOfRange(model, (int) off, (int) off + n));
        }, ok -> ok ? "data ok" : null);
    }

    private void write(RpcClient rpc, byte[] model, long off, byte[] data) {
        one(rpc, "WRITE", 32 + data.length, BlockService.write(off, data), d -> {
            int n = BlockService.writeResult(d);
            System.arraycopy(data, 0, model, (int) off, data.length);
            return n;
        }, n -> n == data.length ? "count ok" : null);
    }

    private <T> void one(RpcClient rpc, String name, int argBytes, RpcClient.Request req,
            Function<XdrDecoder, T> decode, Function<T, String> check) {
        progress.accept(name + (argBytes > 0 ? " " + argBytes + " B of arguments" : ""));
        RpcClient.Pending p = rpc.start(req);
        String verdict;
        int resultBytes = 0;
        try {
            RpcClient.Result r = rpc.await(p, CALL_TIMEOUT);
            T v = decode.apply(r.results());
            verdict = check.apply(v);
            resultBytes = r.reply().message().length - RpcClient.REPLY_HEADER;
            for (rnic.xdr.XdrDecoder.Chunk ch : r.reply().chunks()) {
                resultBytes += ch.data() == null ? 0 : ch.data().length;
            }
            if (verdict == null) {
                failures.add("a: " + name + " returned a wrong result");
                verdict = "WRONG";
            }
        } catch (RuntimeException e) {
            failures.add("a: " + name + ": " + e);
            verdict = "FAILED: " + e.getMessage();
        }
        calls++;
        rows.add(new Row(name, argBytes, resultBytes, p.transport().shape(), p.xid(), p.transport().cycles(),
                verdict));
    }
}
