package rnic.hw.qp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.hw.rdmap.RdmapRxControl;
import rnic.model.ddp.StagTable;
import rnic.model.rdmap.EndpointAction;
import rnic.model.rdmap.RdmapEndpoint;
import rnic.model.rdmap.WorkRequest;
import rnic.sim.Axi4MemorySlave;
import rnic.sim.Fields;
import rnic.sim.HostMemory;
import rnic.sim.Pacer;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.StreamSink;
import rnic.sim.StreamSource;
import rnic.sim.Tb;
import rnic.wire.AtomicOpcode;
import rnic.wire.Cqe;
import rnic.wire.CqeKind;
import rnic.wire.QpState;
import rnic.wire.RdmapOpcode;
import rnic.wire.RqWqe;
import rnic.wire.SqWqe;
import rnic.wire.TerminateCause;
import rnic.wire.WqeOpcode;

/**
 * {@link QpRings} driving a real {@code RdmapEngine} ({@link RingsEngineTop}) against the golden peer
 * {@link RdmapEndpoint}: the host writes send and receive queue elements into host memory and rings the doorbells,
 * the engine talks to the peer over its segment ports, and the host reads the completions from its CQ ring. Checked:
 * every operation the rings can start (RDMA Write unsignaled, Send, fenced RDMA Read, FetchAdd, Immediate Data, local
 * invalidate) reaches the peer as the peer's model expects and completes on the send CQ with the slot as wrId, in
 * submission order (RDMAP-23), with the engine's lengths and the Atomic's original value; the peer's Sends and
 * Immediate Data land in the buffers posted on the receive ring (RDMAP-12, RDMAP-40) and complete on the receive CQ;
 * the memory both sides see; the peer's Write to the STag the local invalidate removed makes the engine send a
 * Terminate (E-D1, T-15): a TERMINATE_SENT entry (wrId 0xFFFFFFFF, status = its cause) and the QP to ERR.
 */
class QpRingsEngineTest {
    static final int PD = 1;
    static final int PEER_PD = 7;
    static final long LOCAL = 0x40_0000L;
    static final long SINK = 0x20_0000L;
    static final long RECV = 0x50_0000L;
    static final long PEER = 0x80_0000L;

    static SimModel<RingsEngineTop> model(int width) {
        QpRingsConfig cfg = QpRingsConfig.defaults().withDataWidth(width);
        return SimModel.of("RingsEngineTop-w" + width, () -> new RingsEngineTop(cfg));
    }

    /** One beat of a segment for rx. */
    record Beat(byte[] ulpdu, int index) {
    }

    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void everyOperationThroughTheEngine(int width) {
        model(width).run("throughTheEngine", 70, tb -> {
            RingsEngineTop.Io io = tb.dut().io;
            int octets = width / 8;
            Random rnd = new Random(7);
            HostMemory mem = new HostMemory();
            HostMemory peerMem = new HostMemory();
            Axi4MemorySlave.on(tb, io.ringsAxi, mem);
            Axi4MemorySlave.on(tb, io.engineAxi, mem);
            RdmapEndpoint peer = new RdmapEndpoint(peerMem, List.of(new RdmapEndpoint.QpConfig(PEER_PD, 8, 8, 1500)));
            List<EndpointAction> peerActions = new ArrayList<>();

            // ---- the engine's segment ports ----
            Fields rxf = Fields.of(tb, io.rx.payload());
            StreamSource<Beat> rx = tb.add(new StreamSource<Beat>(tb.signal(io.rx.valid()), tb.signal(io.rx.ready()),
                    b -> {
                        byte[] chunk = new byte[octets];
                        int from = b.index * octets;
                        System.arraycopy(b.ulpdu, from, chunk, 0, Math.min(octets, b.ulpdu.length - from));
                        rxf.setOctets("data", chunk).set("length", b.ulpdu.length).set("qp", 0);
                    }, Pacer.always()));
            Fields txf = Fields.of(tb, io.tx.payload());
            java.io.ByteArrayOutputStream assembling = new java.io.ByteArrayOutputStream();
            List<byte[]> sent = new ArrayList<>();
            tb.add(new StreamSink<byte[]>("tx", tb.signal(io.tx.valid()), tb.signal(io.tx.ready()), () -> {
                byte[] d = txf.octets("data");
                int len = (int) txf.get("length");
                byte[] b = new byte[octets + 2];
                System.arraycopy(d, 0, b, 0, octets);
                b[octets] = (byte) len;
                b[octets + 1] = (byte) (len >>> 8);
                return b;
            }, Pacer.always(), b -> {
                int len = (b[octets] & 0xFF) | (b[octets + 1] & 0xFF) << 8;
                assembling.write(b, 0, Math.min(octets, len - assembling.size()));
                if (assembling.size() >= len) {
                    sent.add(assembling.toByteArray());
                    assembling.reset();
                }
            }));
            StreamSource<Consumer<Fields>> setup = source(tb, io.setup.valid(), io.setup.ready(), io.setup.payload());
            StreamSource<Consumer<Fields>> program = source(tb, io.stagProgram.valid(), io.stagProgram.ready(),
                    io.stagProgram.payload());
            List<int[]> qpErrors = new ArrayList<>();
            SimSignal errValid = tb.signal(io.qpError.valid());
            Fields errf = Fields.of(tb, io.qpError.payload());
            tb.add(new rnic.sim.Agent() {
                @Override
                public void sample() {
                    if (errValid.getBool()) {
                        qpErrors.add(new int[] {(int) errf.get("qp"), (int) errf.get("state"), (int) errf.get("kind"),
                                (int) errf.get("status")});
                    }
                }
            });
            // Every register input starts at 0 (RESET, no rings), as after the register block's reset.
            int qps = tb.dut().config.qpCount();
            for (int q = 0; q < qps; q++) {
                for (spinal.core.BaseType s : List.<spinal.core.BaseType>of(io.state.apply(q), io.sqBase.apply(q),
                        io.sqSize.apply(q), io.sqProd.apply(q), io.sqCq.apply(q), io.rqBase.apply(q),
                        io.rqSize.apply(q), io.rqProd.apply(q), io.rqCq.apply(q), io.clear.apply(q))) {
                    tb.signal(s).set(0);
                }
            }
            for (int c = 0; c < tb.dut().config.cqCount(); c++) {
                tb.signal(io.cqBase.apply(c)).set(0);
                tb.signal(io.cqSize.apply(c)).set(0);
                tb.signal(io.cqCons.apply(c)).set(0);
            }
            List<String> seen = new ArrayList<>();
            Fields mq = Fields.of(tb, io.requestsSeen.payload());
            Fields mr = Fields.of(tb, io.recvSeen.payload());
            Fields me = Fields.of(tb, io.eventsSeen.payload());
            SimSignal mqv = tb.signal(io.requestsSeen.valid());
            SimSignal mrv = tb.signal(io.recvSeen.valid());
            SimSignal mev = tb.signal(io.eventsSeen.valid());
            tb.add(new rnic.sim.Agent() {
                @Override
                public void sample() {
                    if (mqv.getBool()) {
                        seen.add(String.format("@%d request op %x wrId %x len %d", tb.cycle(), mq.get("opcode"),
                                mq.get("wrId"), mq.get("length")));
                    }
                    if (mrv.getBool()) {
                        seen.add(String.format("@%d recv %x cap %d wrId %x", tb.cycle(), mr.get("address"),
                                mr.get("capacity"), mr.get("wrId")));
                    }
                    if (mev.getBool()) {
                        seen.add(String.format("@%d event %s wrId %x len %d info %x cause %d op %x", tb.cycle(),
                                rnic.hw.rdmap.RxEventKind.of((int) me.get("kind")), me.get("wrId"), me.get("length"),
                                me.get("info"), me.get("cause"), me.get("opcode")));
                    }
                }
            });
            tb.reset(3);

            // ---- the host: rings of QP 0 (8 slots each) and CQ 0 (send) / CQ 1 (receive) of 16 ----
            long sqBase = 0x100_0000L;
            long rqBase = 0x101_0000L;
            long[] cqBase = {0x102_0000L, 0x103_0000L};
            int log = 3;
            int cqLog = 4;
            tb.signal(io.sqBase.apply(0)).set(sqBase);
            tb.signal(io.rqBase.apply(0)).set(rqBase);
            tb.signal(io.sqSize.apply(0)).set(log);
            tb.signal(io.rqSize.apply(0)).set(log);
            tb.signal(io.sqCq.apply(0)).set(0);
            tb.signal(io.rqCq.apply(0)).set(1);
            for (int c = 0; c < 2; c++) {
                tb.signal(io.cqBase.apply(c)).set(cqBase[c]);
                tb.signal(io.cqSize.apply(c)).set(cqLog);
            }
            SimSignal state = tb.signal(io.state.apply(0));
            state.set(QpState.INIT.code());
            byte[] local = new byte[0x4000];
            rnd.nextBytes(local);
            mem.write(LOCAL, local);
            byte[] peerData = new byte[0x4000];
            rnd.nextBytes(peerData);
            peerMem.write(PEER, peerData);
            long atomicBefore = peerMem.readLong(PEER + 0x2000);

            // STags: the engine's Read sink (remote write), the peer's region (everything).
            StagTable.Region sink = new StagTable.Region(0x0201, PD, OptionalInt.empty(),
                    EnumSet.of(StagTable.Access.REMOTE_WRITE), SINK, 0x4000, false);
            program.push(f -> f.set("index", 2).set("valid", true).set("key", 1).set("pd", PD).set("qpBound", false)
                    .set("qp", 0).set("remoteWrite", true).set("remoteRead", false).set("remoteAtomic", false)
                    .set("zeroBased", false).set("va", SINK).set("length", 0x4000));
            peer.register(new StagTable.Region(0x0500, PEER_PD, OptionalInt.empty(),
                    EnumSet.allOf(StagTable.Access.class), PEER, 0x4000, false));

            // Receive buffers from INIT on: taken by the engine before the QP opens.
            for (int i = 0; i < 3; i++) {
                ByteBuffer r = ByteBuffer.allocate(RqWqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
                r.putLong(RqWqe.ADDRESS, RECV + 0x1000L * i).putInt(RqWqe.CAPACITY, 0x1000);
                mem.write(rqBase + (long) RqWqe.SIZE * i, r.array());
            }
            tb.signal(io.rqProd.apply(0)).set(3);
            tb.step(50);
            // INIT → RTR: the engine QP opens; → RTS.
            setup.push(f -> f.set("qp", 0).set("open", true).set("pd", PD).set("ird", 8).set("ord", 8)
                    .set("mulpdu", 1500));
            tb.step(10);
            state.set(QpState.RTS.code());

            // ---- the send queue ----
            List<byte[]> wqes = new ArrayList<>();
            wqes.add(wqe(WqeOpcode.RDMA_WRITE, 0, 0, 1500, LOCAL, 0, 0x0500, 0, PEER + 0x100, 0, 0, 0));
            wqes.add(wqe(WqeOpcode.SEND, SqWqe.FLAG_SIGNALED, 0, 700, LOCAL + 0x800, 0, 0, 0, 0, 0, 0, 0));
            wqes.add(wqe(WqeOpcode.RDMA_READ, SqWqe.FLAG_SIGNALED | SqWqe.FLAG_FENCE, 0, 2000, 0, 0x0201, 0x0500,
                    SINK + 0x10, PEER + 0x1000, 0, 0, 0));
            wqes.add(wqe(WqeOpcode.ATOMIC, SqWqe.FLAG_SIGNALED, AtomicOpcode.FETCH_ADD.code(), 0, LOCAL + 0x3000, 0,
                    0x0500, 0, PEER + 0x2000, 0, 5, 0));
            wqes.add(wqe(WqeOpcode.IMMEDIATE_DATA, SqWqe.FLAG_SIGNALED, 0, 0, 0, 0, 0, 0, 0, 0,
                    0x0123_4567_89AB_CDEFL, 0));
            wqes.add(wqe(WqeOpcode.LOCAL_INVALIDATE, SqWqe.FLAG_SIGNALED, 0, 0, 0, 0, 0, 0, 0, 0x0201, 0, 0));
            for (int i = 0; i < wqes.size(); i++) {
                mem.write(sqBase + (long) SqWqe.SIZE * i, wqes.get(i));
            }
            peer.postReceive(0, 0xC0_0000L, 0x1000, 200);
            peer.postReceive(0, 0xC1_0000L, 0x1000, 201);
            // The peer's Sends into the receive ring's buffers.
            peer.postSend(0, WorkRequest.send(21, PEER + 0x3000, 400));
            peer.postSend(0, WorkRequest.immediate(22, 42));
            peer.postSend(0, WorkRequest.send(23, PEER + 0x3400, 0));
            tb.signal(io.sqProd.apply(0)).set(wqes.size());

            Runnable exchange = () -> {
                int quiet = 0;
                long end = tb.cycle() + 100_000;
                while (quiet < 300) {
                    assertTrue(tb.cycle() < end, "no quiet");
                    tb.step();
                    boolean moved = false;
                    while (!sent.isEmpty()) {
                        peerActions.addAll(peer.receive(0, sent.remove(0)));
                        moved = true;
                    }
                    for (EndpointAction a : peer.transmitAll(0)) {
                        peerActions.add(a);
                        if (a instanceof EndpointAction.Outbound o) {
                            byte[] u = o.ulpdu();
                            for (int i = 0; i * octets < Math.max(1, u.length); i++) {
                                rx.push(new Beat(u, i));
                            }
                            moved = true;
                        }
                    }
                    quiet = moved || rx.busy() ? 0 : quiet + 1;
                }
            };
            exchange.run();

            // ---- what the host reads ----
            String trace = "\nbetween rings and engine:\n" + String.join("\n", seen);
            List<long[]> sq = entries(mem, cqBase[0], cqLog);
            List<long[]> rq = entries(mem, cqBase[1], cqLog);
            long atomicAfter = peerMem.readLong(PEER + 0x2000);
            assertEquals(atomicBefore + 5, atomicAfter, "FetchAdd at the peer");
            String sqText = describe(sq);
            assertEquals(5, sq.size(), "send completions " + sqText + trace);
            // wrId (slot), length, info, stag, kind, status, opcode
            assertEntry(sq.get(0), 1, 700, 0, 0, CqeKind.SEND_DONE, 0, RdmapOpcode.SEND.code());
            assertEntry(sq.get(1), 2, 2000, 0, 0, CqeKind.READ_DONE, 0, RdmapOpcode.RDMA_READ_REQUEST.code());
            assertEntry(sq.get(2), 3, 8, atomicBefore, 0, CqeKind.ATOMIC_DONE, 0, RdmapOpcode.ATOMIC_REQUEST.code());
            assertEntry(sq.get(3), 4, 8, 0, 0, CqeKind.SEND_DONE, 0, RdmapOpcode.IMMEDIATE_DATA.code());
            assertEntry(sq.get(4), 5, 0, 0, 0x0201, CqeKind.LOCAL_INVALIDATE_DONE, 0, WqeOpcode.LOCAL_INVALIDATE_CODE);
            assertEquals(3, rq.size(), "receive completions " + describe(rq) + trace);
            assertEntry(rq.get(0), 0, 400, 0, 0, CqeKind.RECEIVE, 0, RdmapOpcode.SEND.code());
            assertEntry(rq.get(1), 1, 8, 42, 0, CqeKind.RECEIVE_IMMEDIATE, 0, RdmapOpcode.IMMEDIATE_DATA.code());
            assertEntry(rq.get(2), 2, 0, 0, 0, CqeKind.RECEIVE, 0, RdmapOpcode.SEND.code());
            assertEquals(6, tb.signal(io.sqCons.apply(0)).get());
            assertEquals(3, tb.signal(io.rqCons.apply(0)).get());
            assertEquals(5, tb.signal(io.cqProd.apply(0)).get());
            assertEquals(3, tb.signal(io.cqProd.apply(1)).get());
            // Memory as both sides see it: the Write and the Send at the peer, the Read, the Atomic's original value
            // and the peer's Send here.
            assertArrayEquals(java.util.Arrays.copyOfRange(local, 0, 1500), peerMem.read(PEER + 0x100, 1500));
            assertArrayEquals(java.util.Arrays.copyOfRange(local, 0x800, 0x800 + 700), peerMem.read(0xC0_0000L, 700));
            assertArrayEquals(java.util.Arrays.copyOfRange(peerData, 0x1000, 0x1000 + 2000),
                    mem.read(SINK + 0x10, 2000));
            assertEquals(atomicBefore, mem.readLong(LOCAL + 0x3000));
            assertArrayEquals(java.util.Arrays.copyOfRange(peerData, 0x3000, 0x3000 + 400), mem.read(RECV, 400));
            long peerReceives = peerActions.stream().filter(a -> a instanceof EndpointAction.ReceiveCompletion).count();
            assertEquals(2, peerReceives, "the peer's receive completions: " + peerActions);
            assertTrue(peerActions.stream().noneMatch(a -> a instanceof EndpointAction.Failure
                    || a instanceof EndpointAction.TerminateReceived), () -> "peer: " + peerActions);

            // ---- the invalidated STag: the peer's Write to it makes the engine terminate; the QP goes to ERR ----
            peer.postSend(0, WorkRequest.write(24, PEER, 64, 0x0201, SINK));
            exchange.run();
            List<long[]> after = entries(mem, cqBase[0], cqLog);
            assertEquals(6, after.size(), "send completions " + describe(after));
            int cause = RdmapRxControl.causeCode(TerminateCause.DDP_INVALID_STAG);
            assertEquals(0xFFFFFFFFL, after.get(5)[0]);
            assertEquals(CqeKind.TERMINATE_SENT.code(), after.get(5)[4]);
            assertEquals(cause, after.get(5)[5]);
            assertEquals(1, qpErrors.size());
            assertArrayEquals(new int[] {0, QpState.ERR.code(), CqeKind.TERMINATE_SENT.code(), cause},
                    qpErrors.get(0));
            assertTrue(peerActions.stream().anyMatch(a -> a instanceof EndpointAction.TerminateReceived),
                    "the peer got the Terminate");
            System.out.printf("[QpRings+RdmapEngine W=%d] %d send and %d receive completions, Terminate %s, done at "
                    + "cycle %d%n", width, after.size() - 1, rq.size(), TerminateCause.DDP_INVALID_STAG, tb.cycle());
        });
    }

    private static StreamSource<Consumer<Fields>> source(Tb<?> tb, spinal.core.Bool valid, spinal.core.Bool ready,
            spinal.core.Data payload) {
        Fields f = Fields.of(tb, payload);
        return tb.add(new StreamSource<Consumer<Fields>>(tb.signal(valid), tb.signal(ready), w -> w.accept(f),
                Pacer.always()));
    }

    /** A send queue element in the {@link SqWqe} layout. */
    private static byte[] wqe(WqeOpcode op, int flags, int aop, long length, long localAddress, int localStag,
            int remoteStag, long localTo, long remoteTo, int invalidateStag, long data, long mask) {
        ByteBuffer b = ByteBuffer.allocate(SqWqe.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.put(SqWqe.OPCODE, (byte) op.code()).put(SqWqe.FLAGS, (byte) flags).put(SqWqe.AOP, (byte) aop);
        b.putInt(SqWqe.LENGTH, (int) length).putLong(SqWqe.LOCAL_ADDRESS, localAddress);
        b.putInt(SqWqe.LOCAL_STAG, localStag).putInt(SqWqe.REMOTE_STAG, remoteStag);
        b.putLong(SqWqe.LOCAL_TO, localTo).putLong(SqWqe.REMOTE_TO, remoteTo);
        b.putInt(SqWqe.INVALIDATE_STAG, invalidateStag).putLong(SqWqe.DATA, data).putLong(SqWqe.MASK, mask);
        b.putLong(SqWqe.COMPARE_DATA, 0).putLong(SqWqe.COMPARE_MASK, -1L);
        return b.array();
    }

    /** The entries of a CQ written so far (phase 1: first pass), each {wrId, length, info, stag, kind, status, op}. */
    private static List<long[]> entries(HostMemory mem, long base, int log) {
        List<long[]> out = new ArrayList<>();
        for (int i = 0; i < (1 << log); i++) {
            ByteBuffer e = ByteBuffer.wrap(mem.read(base + (long) Cqe.SIZE * i, Cqe.SIZE))
                    .order(ByteOrder.LITTLE_ENDIAN);
            if ((e.get(Cqe.OWNER) & 1) == 0) {
                break;
            }
            assertEquals(0, e.get(Cqe.QP));
            out.add(new long[] {e.getInt(Cqe.WR_ID) & 0xFFFFFFFFL, e.getInt(Cqe.LENGTH) & 0xFFFFFFFFL,
                e.getLong(Cqe.INFO), e.getInt(Cqe.STAG) & 0xFFFFFFFFL, e.get(Cqe.KIND) & 0xFF,
                e.get(Cqe.STATUS) & 0xFF, e.get(Cqe.OPCODE) & 0xFF});
        }
        return out;
    }

    private static void assertEntry(long[] e, long wrId, long length, long info, long stag, CqeKind kind,
            int status, int opcode) {
        assertArrayEquals(new long[] {wrId, length, info, stag, kind.code(), status, opcode}, e,
                "entry " + java.util.Arrays.toString(e));
    }

    private static String describe(List<long[]> entries) {
        StringBuilder b = new StringBuilder();
        for (long[] e : entries) {
            b.append(java.util.Arrays.toString(e));
        }
        return b.toString();
    }
}
