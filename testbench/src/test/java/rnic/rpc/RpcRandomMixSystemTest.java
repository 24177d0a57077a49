package rnic.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import rnic.oncrpc.Auth;
import rnic.oncrpc.RpcClient;
import rnic.oncrpc.RpcServer;
import rnic.rpcrdma.RpcRdmaConfig;
import rnic.rpcrdma.RpcRdmaRequester;
import rnic.sim.RnicSystem;

/**
 * A random mix of calls of every size over the two simulated RNICs, four in flight at a time, chunks cut into
 * segments of at most 1000 octets (so a 20 KB item takes 20 segments): NULL, READ and WRITE of 0 … 20 000 octets at
 * any offset (odd lengths need XDR padding; READs near the end return less than their Write chunk holds), READDIR
 * replies up to 6 KB, LOOKUP names up to 5 000 octets. Each result is checked against the client's model of the
 * server's disk, which it updates in call order (the responder serves calls in arrival order). No Send of either side
 * exceeds the 1024-octet inline threshold (RPCRDMA-07, RPCRDMA-08).
 */
@Tag("verilator")
class RpcRandomMixSystemTest {
    static final Duration WAIT = Duration.ofMillis(8);
    static final int DISK = 64 * 1024;
    static final int[] SIZES = {0, 1, 3, 5, 511, 512, 513, 1000, 1023, 1024, 1025, 2000, 4095, 4097, 9000};

    /**
     * RPCRDMA-05, RPCRDMA-07, RPCRDMA-08, RPCRDMA-14, RPCRDMA-15, RPCRDMA-16, RPCRDMA-17, RPCRDMA-18, RPCRDMA-19,
     * RPCRDMA-20, RPCRDMA-21, RPCRDMA-31: 60 random calls end to end.
     */
    @Test
    void randomMixOfAllSizes() {
        RpcRig.Flag done = new RpcRig.Flag();
        RpcRig.Flag listening = new RpcRig.Flag();
        RpcRdmaConfig cfg = RpcRdmaConfig.defaults().withCredits(4).withSegmentSize(1000);
        List<String> failures = new ArrayList<>();
        TreeMap<String, Integer> shapes = new TreeMap<>();
        int[] sends = new int[2];
        RpcRig.run("rpcRandom", 31, RnicSystem.builder(), t -> {
            try {
                while (!listening.getAsBoolean()) {
                    t.advance();
                }
                RpcHosts.Client c = RpcHosts.connect(t, cfg);
                RpcRdmaRequester rq = c.requester();
                RpcClient rpc = new RpcClient(rq, Auth.sys(new Auth.Sys(3, "a", 0, 0, List.of())), 0x1000);
                byte[] model = BlockService.pattern(DISK, 4);
                Random r = new Random(31);
                List<RpcClient.Pending> window = new ArrayList<>();
                List<Consumer<RpcClient.Result>> checks = new ArrayList<>();
                for (int i = 0; i < 60; i++) {
                    int kind = r.nextInt(5);
                    int size = r.nextInt(4) == 0 ? 1 + r.nextInt(20000) : SIZES[r.nextInt(SIZES.length)];
                    int n = i;
                    switch (kind) {
                        case 0 -> {
                            window.add(rpc.start(BlockService.nullCall()));
                            checks.add(res -> { });
                        }
                        case 1 -> {
                            int off = r.nextInt(DISK);
                            int count = Math.min(size, 32 * 1024);
                            byte[] want = Arrays.copyOfRange(model, off, Math.min(DISK, off + count));
                            window.add(rpc.start(BlockService.read(off, count)));
                            checks.add(res -> {
                                byte[] got = BlockService.readResult(res.results());
                                if (!Arrays.equals(want, got)) {
                                    failures.add("call " + n + ": READ " + off + "+" + count + " differs");
                                }
                            });
                        }
                        case 2 -> {
                            int len = Math.min(size, DISK);
                            int off = r.nextInt(DISK - len + 1);
                            byte[] data = BlockService.pattern(len, 100 + i);
                            System.arraycopy(data, 0, model, off, len);
                            window.add(rpc.start(BlockService.write(off, data)));
                            checks.add(res -> {
                                if (BlockService.writeResult(res.results()) != len) {
                                    failures.add("call " + n + ": WRITE count");
                                }
                            });
                        }
                        case 3 -> {
                            int cookie = r.nextInt(DISK / BlockService.BLOCK);
                            int count = 100 + r.nextInt(6000);
                            byte[] snapshot = model.clone();
                            window.add(rpc.start(BlockService.readdir(cookie, count)));
                            checks.add(res -> BlockService.readdirResult(res.results(), snapshot, cookie));
                        }
                        default -> {
                            String name = "x".repeat(1 + Math.min(size, 5000));
                            window.add(rpc.start(BlockService.lookup(name)));
                            checks.add(res -> {
                                if (BlockService.lookupResult(res.results()) != BlockService.expectedCrc(name)) {
                                    failures.add("call " + n + ": LOOKUP crc");
                                }
                            });
                        }
                    }
                    if (window.size() == 4 || i == 59) {
                        for (int k = 0; k < window.size(); k++) {
                            RpcClient.Pending p = window.get(k);
                            checks.get(k).accept(rpc.await(p, WAIT));
                            shapes.merge(p.transport().shape(), 1, Integer::sum);
                        }
                        window.clear();
                        checks.clear();
                    }
                }
                if (rq.maxInFlight() > 4) {
                    failures.add("in flight " + rq.maxInFlight());
                }
                if (!rq.discarded().isEmpty()) {
                    failures.add("discarded " + rq.discarded());
                }
                sends[0] = rq.maxSendOctets();
            } finally {
                done.set();
            }
        }, t -> {
            RpcHosts.Server s = RpcHosts.serve(t, cfg, listening::set);
            try (rnic.verbs.Device dev = s.device()) {
                s.responder().serve(new RpcServer().register(new BlockService(DISK, 4).program()), done);
                sends[1] = s.responder().maxSendOctets();
                s.responder().served().stream().filter(v -> !v.outcome().equals("replied"))
                        .forEach(v -> failures.add("b: " + v));
            }
        });
        assertEquals(List.of(), failures);
        assertTrue(sends[0] <= 1024 && sends[1] <= 1024, "Sends of " + sends[0] + " / " + sends[1] + " octets");
        for (String want : List.of("inline", "PZRC", "read chunk(s) x1", "inline + reply chunk",
                "inline + 1 write chunk(s)")) {
            assertTrue(shapes.containsKey(want), "no call went " + want + ": " + shapes);
        }
    }
}
