package rnic.hw.rdmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import rnic.hw.ddp.DdpConfig;
import rnic.model.ddp.StagTable;
import rnic.model.rdmap.EndpointAction;
import rnic.model.rdmap.RdmapEndpoint;
import rnic.model.rdmap.WorkRequest;
import rnic.sim.Axi4MemorySlave;
import rnic.sim.Fields;
import rnic.sim.HostMemory;
import rnic.sim.Pacer;
import rnic.sim.SimSignal;
import rnic.sim.StreamSink;
import rnic.sim.StreamSource;
import rnic.sim.Tb;
import rnic.wire.AtomicOpcode;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * A testbench around one {@link RdmapEngine} (the device under test) with its golden twin: every input the engine is
 * given is also given to an {@link RdmapEndpoint} with the same STags, QPs and memory contents, in the engine's own
 * order (a received segment when its last beat is taken, a sent segment when its last beat leaves), and everything
 * the engine does is compared with what the twin says it must do: each sent segment octet for octet, each event,
 * and at the end the whole host memory.
 *
 * <p>The engine's host memory is a {@link HostMemory} behind an {@link Axi4MemorySlave} (random latency and pacing
 * when asked); the twin has its own copy. Every octet the engine writes through the port is checked, as it is
 * written, against the places the engine may write: a region granting remote write to the QP's PD, a posted receive
 * buffer, an atomic target or an atomic result buffer ({@link #allowWrite}); likewise reads.
 */
final class EngineBench {
    /** A segment on the wire side: its QP and ULPDU octets. */
    record Segment(int qp, byte[] ulpdu) {
    }

    /** One beat of a received segment as driven. */
    private record Beat(Segment segment, int index) {
    }

    /** An event as the engine reported it. */
    record Event(RxEventKind kind, int qp, long wrId, long length, long info, TerminateCause cause, int opcode,
            int stag) {
    }

    final Tb<RdmapEngine> tb;
    final DdpConfig cfg;
    final HostMemory memory = new HostMemory();
    final HostMemory twinMemory = new HostMemory();
    final Axi4MemorySlave slave;
    RdmapEndpoint twin;
    final List<Segment> sent = new ArrayList<>();
    final List<Event> events = new ArrayList<>();
    final List<EndpointAction> expectedEvents = new ArrayList<>();
    final List<EndpointAction> twinActions = new ArrayList<>();
    /** Write permissions the memory-protection check allows: [from, to) ranges. */
    final List<long[]> writable = new ArrayList<>();
    final List<long[]> readable = new ArrayList<>();
    long writesChecked;
    private boolean txHeld;
    /** The twin's segment for the one the engine shows on tx and has not finished. */
    private byte[] announced;
    private boolean txInSegment;
    private final StreamSource<Beat> rx;
    private final StreamSource<Consumer<Fields>> requests;
    private final StreamSource<Consumer<Fields>> recv;
    private final StreamSource<Consumer<Fields>> setup;
    private final StreamSource<Consumer<Fields>> program;
    private final StreamSource<Long> invalidate;
    private final StreamSource<long[]> llpErrors;
    private final Map<Integer, ByteBuf> assembling = new HashMap<>();
    private final int octets;
    private final List<StagTable.Region> regions = new ArrayList<>();
    private final List<RdmapEndpoint.QpConfig> qps = new ArrayList<>();
    private final ArrayDeque<Segment> peerInbox = new ArrayDeque<>();
    /** The segment whose beats the engine is taking (its first taken, its last not yet). */
    private Segment taking;
    /** That segment, when the twin has heard it already (a Terminate it caused went out before its last beat). */
    private Segment heardEarly;

    EngineBench(Tb<RdmapEngine> tb, DdpConfig cfg, Pacer in, Pacer out, boolean slowMemory) {
        this.tb = tb;
        this.cfg = cfg;
        this.octets = cfg.octets();
        RdmapEngine.Io io = tb.dut().io;
        slave = Axi4MemorySlave.on(tb, io.axi, memory); // on() adds it
        if (slowMemory) {
            slave.withReadLatency(6).withPacing(Pacer.random(tb.random(), 0.7), Pacer.random(tb.random(), 0.7),
                    Pacer.random(tb.random(), 0.7), Pacer.random(tb.random(), 0.7), Pacer.random(tb.random(), 0.7));
        }
        memory.onAccess((address, length, isWrite) -> checkAccess(address, length, isWrite));

        Fields rxf = Fields.of(tb, io.rx.payload());
        rx = tb.add(new StreamSource<Beat>(tb.signal(io.rx.valid()), tb.signal(io.rx.ready()), b -> {
            byte[] u = b.segment.ulpdu;
            int from = b.index * octets;
            byte[] chunk = new byte[octets];
            System.arraycopy(u, from, chunk, 0, Math.min(octets, u.length - from));
            rxf.setOctets("data", chunk).set("length", u.length).set("qp", b.segment.qp);
        }, in)).onAccepted(b -> {
            if (b.index == 0) {
                taking = b.segment;
            }
            if ((b.index + 1) * octets >= b.segment.ulpdu.length) {
                if (b.segment != heardEarly) {
                    received(b.segment);
                }
                taking = null;
                heardEarly = null;
            }
        });
        requests = source(io.requests.valid(), io.requests.ready(), io.requests.payload(), in);
        recv = source(io.recv.valid(), io.recv.ready(), io.recv.payload(), Pacer.always());
        setup = source(io.setup.valid(), io.setup.ready(), io.setup.payload(), Pacer.always());
        program = source(io.stagProgram.valid(), io.stagProgram.ready(), io.stagProgram.payload(), Pacer.always());
        SimSignal inv = tb.signal(io.stagInvalidate.payload());
        invalidate = tb.add(new StreamSource<Long>(tb.signal(io.stagInvalidate.valid()),
                tb.signal(io.stagInvalidate.ready()), inv::set, Pacer.always()));

        Fields txf = Fields.of(tb, io.tx.payload());
        // The twin sends a segment when the engine shows its first beat: a shown beat must go (stream contract),
        // so from then on the segment is sent even if its QP fails before it is taken.
        SimSignal txValid = tb.signal(io.tx.valid());
        tb.add(new rnic.sim.Agent() {
            @Override
            public void sample() {
                if (twin != null && txValid.getBool() && announced == null && !txInSegment) {
                    int qp = (int) txf.get("qp");
                    byte[] first = txf.octets("data");
                    RdmapEndpoint.Source source = sourceOf(first[1] & 0xFF);
                    // A Terminate decided at the head of the segment the engine is still taking goes without waiting
                    // for the rest of it (dropped anyway; RFC 5040 §7.1): the twin hears that segment now.
                    if (source == RdmapEndpoint.Source.TERMINATE && !twin.canTransmit(qp, source) && taking != null
                            && taking.qp() == qp && heardEarly != taking) {
                        heardEarly = taking;
                        received(taking);
                    }
                    List<EndpointAction> actions = twin.transmit(qp, source);
                    announced = expectedOf(actions);
                    if (announced == null) {
                        throw new AssertionError("cycle " + tb.cycle() + ": the engine starts a segment on QP " + qp
                                + " (opcode octet " + Integer.toHexString(first[1] & 0xFF)
                                + ") but the model sends nothing (" + actions + ")");
                    }
                    record(actions);
                }
            }

            @Override
            public void drive() {
            }

            @Override
            public boolean busy() {
                return false;
            }
        });
        tb.add(new StreamSink<byte[]>("tx", tb.signal(io.tx.valid()), tb.signal(io.tx.ready()), () -> {
            byte[] b = new byte[octets + 4];
            System.arraycopy(txf.octets("data"), 0, b, 0, octets);
            int len = (int) txf.get("length");
            int qp = (int) txf.get("qp");
            b[octets] = (byte) len;
            b[octets + 1] = (byte) (len >>> 8);
            b[octets + 2] = (byte) qp;
            return b;
        }, () -> !txHeld && out.allow(), this::txBeat));
        Fields ev = Fields.of(tb, io.events.payload());
        tb.add(new StreamSink<Event>("events", tb.signal(io.events.valid()), tb.signal(io.events.ready()),
                () -> new Event(RxEventKind.of((int) ev.get("kind")), (int) ev.get("qp"), ev.get("wrId"),
                        ev.get("length"), ev.get("info"), RdmapRxControl.cause((int) ev.get("cause")),
                        (int) ev.get("opcode"), (int) ev.get("stag")), out, events::add));
        // After the tx agent: a segment the engine shows in the cycle it takes an MPA error still goes (the QP fails
        // from the next cycle), so the twin hears of the error after it has sent that segment.
        Fields llpf = Fields.of(tb, io.llpError.payload());
        llpErrors = tb.add(new StreamSource<long[]>(tb.signal(io.llpError.valid()), tb.signal(io.llpError.ready()),
                e -> llpf.set("qp", e[0]).set("code", e[1]), Pacer.always())).onAccepted(e -> {
                    if (twin != null) {
                        twin.llpError((int) e[0], rnic.wire.MpaErrorCode.of((int) e[1]));
                    }
                });
        tb.reset(3);
    }

    private StreamSource<Consumer<Fields>> source(spinal.core.Bool valid, spinal.core.Bool ready,
            spinal.core.Data payload, Pacer pacer) {
        Fields f = Fields.of(tb, payload);
        return tb.add(new StreamSource<Consumer<Fields>>(tb.signal(valid), tb.signal(ready), w -> w.accept(f),
                pacer));
    }

    /** Opens QP {@code qp} on both the engine and the twin (the twin is created at the first {@link #start}). */
    void openQp(int qp, int pd, int ird, int ord, int mulpdu) {
        while (qps.size() <= qp) {
            qps.add(null);
        }
        qps.set(qp, new RdmapEndpoint.QpConfig(pd, ird, ord, mulpdu));
        setup.push(f -> f.set("qp", qp).set("open", true).set("pd", pd).set("ird", ird).set("ord", ord)
                .set("mulpdu", mulpdu));
    }

    /** Registers a region on the engine (its STag table) and, later, the twin. */
    void register(StagTable.Region r) {
        regions.add(r);
        int index = cfg.stagIndex(r.stag());
        program.push(f -> f.set("index", index).set("valid", true).set("key", r.stag() & 0xFF).set("pd", r.pd())
                .set("qpBound", r.qp().isPresent()).set("qp", r.qp().orElse(0))
                .set("remoteWrite", r.access().contains(StagTable.Access.REMOTE_WRITE))
                .set("remoteRead", r.access().contains(StagTable.Access.REMOTE_READ))
                .set("remoteAtomic", r.access().contains(StagTable.Access.REMOTE_ATOMIC))
                .set("zeroBased", r.zeroBased()).set("va", r.va()).set("length", r.length()));
        if (twin != null) {
            twin.register(r);
        }
        if (r.access().contains(StagTable.Access.REMOTE_WRITE) || r.access().contains(StagTable.Access.REMOTE_ATOMIC)) {
            writable.add(new long[] {r.va(), r.va() + r.length()});
        }
        if (r.access().contains(StagTable.Access.REMOTE_READ) || r.access().contains(StagTable.Access.REMOTE_ATOMIC)) {
            readable.add(new long[] {r.va(), r.va() + r.length()});
        }
    }

    /**
     * Reads of {@code [from, to)} fail from now on, on the engine's memory (SLVERR) and in the twin
     * ({@link RdmapEndpoint#readFault}); the range should cover whole read bursts (e.g. 4 KiB pages).
     */
    void readFault(long from, long to) {
        slave.withFault(from, to);
        twin.readFault(from, to);
    }

    /** The MPA receiver of QP {@code qp}'s connection failed with {@code code}: told to the engine and the twin. */
    void llpError(int qp, rnic.wire.MpaErrorCode code) {
        llpErrors.push(new long[] {qp, code.code()});
    }

    /** Fills host memory (engine and twin alike). */
    void fill(long address, byte[] data) {
        memory.write(address, data);
        twinMemory.write(address, data);
    }

    /** Makes the twin, after the QPs are opened and the initial regions registered; runs the setup in. */
    void start() {
        twin = new RdmapEndpoint(twinMemory, List.copyOf(qps));
        regions.forEach(twin::register);
        startWithoutTwin();
    }

    /** Runs the setup in with no twin: the test checks the engine itself (nothing is compared with a model). */
    void startWithoutTwin() {
        tb.runUntil(() -> !setup.busy() && !program.busy(), 10_000, "setup");
        tb.step(5);
    }

    /** Re-opens QP {@code qp} on the engine alone (no twin), e.g. after it failed. */
    void reopen(int qp) {
        RdmapEndpoint.QpConfig c = qps.get(qp);
        setup.push(f -> f.set("qp", qp).set("open", true).set("pd", c.pd()).set("ird", c.ird()).set("ord", c.ord())
                .set("mulpdu", c.mulpdu()));
    }

    /** Posts a receive buffer to the engine alone (a bench without twin). */
    void postReceiveToEngine(int qp, long address, int capacity, long wrId) {
        writable.add(new long[] {address, address + capacity});
        recv.push(f -> f.set("qp", qp).set("address", address).set("capacity", capacity).set("wrId", wrId));
    }

    /** Closes QP {@code qp} on the engine (a setup with open = 0). */
    void close(int qp) {
        setup.push(f -> f.set("qp", qp).set("open", false).set("pd", 0).set("ird", 0).set("ord", 0)
                .set("mulpdu", 0));
    }

    /** Posts a receive buffer to the engine and the twin. */
    void postReceive(int qp, long address, int capacity, long wrId) {
        assertTrue(twin.postReceive(qp, address, capacity, wrId));
        writable.add(new long[] {address, address + capacity});
        recv.push(f -> f.set("qp", qp).set("address", address).set("capacity", capacity).set("wrId", wrId));
    }

    /** Posts a work request to the engine and the twin. */
    void postSend(int qp, WorkRequest wr) {
        assertTrue(twin.postSend(qp, wr));
        postSendToEngine(qp, wr);
    }

    /** Posts a work request to the engine alone (a bench without twin, or a QP the twin no longer follows). */
    void postSendToEngine(int qp, WorkRequest wr) {
        requests.push(f -> {
            f.set("qp", qp).set("opcode", wr.opcode().code()).set("wrId", wr.wrId()).set("localAddress", 0)
                    .set("length", 0).set("localStag", 0).set("localTo", 0).set("remoteStag", 0).set("remoteTo", 0)
                    .set("invalidateStag", 0).set("data", 0).set("mask", 0).set("compareData", 0)
                    .set("compareMask", 0).set("aop", 0);
            if (wr instanceof WorkRequest.Write w) {
                f.set("localAddress", w.localAddress()).set("length", w.length()).set("remoteStag", w.remoteStag())
                        .set("remoteTo", w.remoteTo());
            } else if (wr instanceof WorkRequest.Read r) {
                f.set("localStag", r.sinkStag()).set("localTo", r.sinkTo()).set("remoteStag", r.sourceStag())
                        .set("remoteTo", r.sourceTo()).set("length", r.size());
            } else if (wr instanceof WorkRequest.Send s) {
                f.set("localAddress", s.localAddress()).set("length", s.length())
                        .set("invalidateStag", s.invalidateStag());
            } else if (wr instanceof WorkRequest.Immediate i) {
                f.set("data", i.data());
            } else if (wr instanceof WorkRequest.Atomic a) {
                f.set("remoteStag", a.remoteStag()).set("remoteTo", a.remoteTo()).set("data", a.addOrSwapData())
                        .set("mask", a.addOrSwapMask()).set("compareData", a.compareData())
                        .set("compareMask", a.compareMask())
                        .set("aop", a.aOpCode() == AtomicOpcode.CMP_SWAP ? 2 : 0)
                        .set("localAddress", a.localAddress());
            }
        });
        if (wr instanceof WorkRequest.Atomic a) {
            writable.add(new long[] {a.localAddress(), a.localAddress() + 8});
        }
    }

    /** Queues a received segment for the engine. */
    void receive(int qp, byte[] ulpdu) {
        Segment s = new Segment(qp, ulpdu.clone());
        int beats = Math.max(1, (ulpdu.length + octets - 1) / octets);
        for (int i = 0; i < beats; i++) {
            rx.push(new Beat(s, i));
        }
    }

    /** The engine took the last beat of {@code s}: the twin receives it too. */
    private void received(Segment s) {
        if (twin != null) {
            record(twin.receive(s.qp, s.ulpdu));
        }
    }

    private void txBeat(byte[] beat) {
        int len = (beat[octets] & 0xFF) | (beat[octets + 1] & 0xFF) << 8;
        int qp = beat[octets + 2] & 0xFF;
        ByteBuf b = assembling.computeIfAbsent(qp, k -> new ByteBuf());
        if (b.size == 0) {
            b.expected = announced;
            announced = null;
            txInSegment = true;
        }
        b.add(beat, Math.min(octets, len - b.size));
        if (b.size >= len) {
            assembling.remove(qp);
            txInSegment = false;
            byte[] ulpdu = b.bytes(len);
            sent.add(new Segment(qp, ulpdu));
            byte[] expected = b.expected;
            if (twin != null && !java.util.Arrays.equals(expected, ulpdu)) {
                int at = java.util.Arrays.mismatch(expected, ulpdu);
                throw new AssertionError("cycle " + tb.cycle() + ": segment sent on QP " + qp + " differs at octet "
                        + at + " of " + ulpdu.length + " (model " + expected.length + ")\n  engine "
                        + Hex.window(ulpdu, at) + "\n  model  " + Hex.window(expected, at));
            }
            peerInbox.add(new Segment(qp, ulpdu));
        }
    }

    /** The model's source of a segment the engine sends, from its RDMAP opcode. */
    private static RdmapEndpoint.Source sourceOf(int rdmapControl) {
        int op = rdmapControl & 0x0F;
        if (op == RdmapOpcode.TERMINATE.code()) {
            return RdmapEndpoint.Source.TERMINATE;
        }
        return op == RdmapOpcode.RDMA_READ_RESPONSE.code() || op == RdmapOpcode.ATOMIC_RESPONSE.code()
                ? RdmapEndpoint.Source.RESPONSE : RdmapEndpoint.Source.REQUEST;
    }

    private static byte[] expectedOf(List<EndpointAction> actions) {
        for (EndpointAction a : actions) {
            if (a instanceof EndpointAction.Outbound o) {
                return o.ulpdu();
            }
        }
        return null;
    }

    private void record(List<EndpointAction> actions) {
        for (EndpointAction a : actions) {
            twinActions.add(a);
            if (a instanceof EndpointAction.ReceiveCompletion || a instanceof EndpointAction.RequestCompletion
                    || a instanceof EndpointAction.Failure || a instanceof EndpointAction.TerminateReceived) {
                expectedEvents.add(a);
            }
        }
    }

    /** Holds the transmit side (ready low) while {@code held}: what the engine would send waits. */
    void holdTx(boolean held) {
        txHeld = held;
    }

    /** Segments the engine sent, for a peer, oldest first. */
    Segment nextSent() {
        return peerInbox.poll();
    }

    /** Runs until nothing is left to drive and the engine is quiet for a while. */
    void settle(long maxCycles) {
        settle(maxCycles, 200);
    }

    /** {@link #settle(long)} with a quiet window of {@code window} cycles. */
    void settle(long maxCycles, int window) {
        tb.runUntil(this::inputsIdle, maxCycles, "inputs taken");
        quiet(maxCycles, window);
    }

    /** Which input queues still hold items, for a deadlock report. */
    String pendingInputs() {
        return "rx " + rx.pending() + ", requests " + requests.pending() + ", recv " + recv.pending() + ", setup "
                + setup.pending() + ", stagProgram " + program.pending() + ", invalidate " + invalidate.pending()
                + "; sent " + sent.size() + ", events " + events.size() + ", twin " + twinState();
    }

    private String twinState() {
        StringBuilder b = new StringBuilder();
        for (int q = 0; q < qps.size(); q++) {
            b.append(" [qp ").append(q).append(twin.failed(q) ? " failed" : "").append(']');
        }
        return b.toString();
    }

    /** Whether every input queue has been taken by the engine. */
    boolean inputsIdle() {
        return !rx.busy() && !requests.busy() && !recv.busy() && !setup.busy() && !program.busy()
                && !invalidate.busy() && !llpErrors.busy();
    }

    /** Runs until nothing is sent, reported or accessed for 200 cycles (inputs may still wait, e.g. for ORD). */
    void quiet(long maxCycles) {
        quiet(maxCycles, 200);
    }

    /** {@link #quiet(long)} with a quiet window of {@code window} cycles. */
    void quiet(long maxCycles, int window) {
        long quietSince = tb.cycle();
        long lastSent = sent.size();
        long lastEvents = events.size();
        long lastWrites = slave.writeBeats() + slave.readBeats();
        long end = tb.cycle() + maxCycles;
        while (tb.cycle() - quietSince < window) {
            if (tb.cycle() > end) {
                throw new AssertionError("engine not quiet after " + maxCycles + " cycles");
            }
            tb.step();
            long w = slave.writeBeats() + slave.readBeats();
            if (sent.size() != lastSent || events.size() != lastEvents || w != lastWrites) {
                quietSince = tb.cycle();
                lastSent = sent.size();
                lastEvents = events.size();
                lastWrites = w;
            }
        }
    }

    /**
     * The engine's events equal the twin's completions, failures and received Terminates: per QP, the receive-side
     * events in their order and the requester's completions in theirs (submission order, RDMAP-23); the two kinds
     * are not ordered against each other.
     */
    void checkEvents() {
        Map<Integer, List<String>> engine = new HashMap<>();
        Map<Integer, List<String>> model = new HashMap<>();
        for (Event e : events) {
            engine.computeIfAbsent(e.qp, k -> new ArrayList<>()).add(describe(e));
        }
        for (EndpointAction a : expectedEvents) {
            String d = describe(a);
            model.computeIfAbsent(qpOf(a), k -> new ArrayList<>()).add(d);
        }
        for (int qp : union(engine, model)) {
            List<String> got = engine.getOrDefault(qp, List.of());
            List<String> want = model.getOrDefault(qp, List.of());
            assertEquals(String.join("\n", sortedRequests(want)), String.join("\n", sortedRequests(got)),
                    "events of QP " + qp);
        }
    }

    /** The engine's memory equals the twin's. */
    void checkMemory() {
        memory.assertSameAs(twinMemory, "host memory after the run");
    }

    private static List<Integer> union(Map<Integer, ?> a, Map<Integer, ?> b) {
        java.util.TreeSet<Integer> s = new java.util.TreeSet<>(a.keySet());
        s.addAll(b.keySet());
        return List.copyOf(s);
    }

    /** Receive-side lines, then requester completions ("done …"), each kind in its own order. */
    private static List<String> sortedRequests(List<String> lines) {
        List<String> rx = new ArrayList<>();
        List<String> done = new ArrayList<>();
        for (String l : lines) {
            (l.startsWith("done ") ? done : rx).add(l);
        }
        rx.addAll(done);
        return rx;
    }

    private static int qpOf(EndpointAction a) {
        if (a instanceof EndpointAction.ReceiveCompletion r) {
            return r.qp();
        } else if (a instanceof EndpointAction.RequestCompletion r) {
            return r.qp();
        } else if (a instanceof EndpointAction.Failure f) {
            return f.qp();
        } else if (a instanceof EndpointAction.TerminateReceived t) {
            return t.qp();
        }
        return -1;
    }

    static String describe(Event e) {
        return switch (e.kind) {
            case RECEIVE -> String.format("recv wr=%d %s len=%d inv=%08x", e.wrId, opName(e.opcode),
                    e.length, e.stag);
            case RECEIVE_IMMEDIATE -> String.format("recv wr=%d %s len=%d imm=%016x", e.wrId,
                    opName(e.opcode), e.length, e.info);
            case READ_DONE -> String.format("done wr=%d RDMA_READ_REQUEST len=%d", e.wrId, e.length);
            case ATOMIC_DONE -> String.format("done wr=%d ATOMIC_REQUEST len=8", e.wrId);
            case SEND_DONE -> String.format("done wr=%d %s len=%d", e.wrId, opName(e.opcode), e.length)
                    + (e.cause == null ? "" : " error " + e.cause);
            case TERMINATE_SENT -> "failure " + e.cause;
            case TERMINATE_RECEIVED -> String.format("terminate received %016x", e.info);
        };
    }

    private static String opName(int code) {
        return RdmapOpcode.decode(code).map(Enum::name).orElse("opcode " + code);
    }

    static String describe(EndpointAction a) {
        if (a instanceof EndpointAction.ReceiveCompletion r) {
            return r.immediate().isPresent()
                    ? String.format("recv wr=%d %s len=%d imm=%016x", r.wrId(), r.opcode(), r.length(),
                            r.immediate().getAsLong())
                    : String.format("recv wr=%d %s len=%d inv=%08x", r.wrId(), r.opcode(), r.length(),
                            r.invalidatedStag().orElse(0));
        } else if (a instanceof EndpointAction.RequestCompletion r) {
            return String.format("done wr=%d %s len=%d", r.wrId(), r.opcode(), r.length())
                    + (r.error() == null ? "" : " error " + r.error());
        } else if (a instanceof EndpointAction.Failure f) {
            return "failure " + f.cause();
        } else if (a instanceof EndpointAction.TerminateReceived t) {
            return String.format("terminate received %016x", terminatePrefix(t.terminate()));
        }
        return a.toString();
    }

    private static long terminatePrefix(rnic.model.rdmap.Terminate t) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(128);
        t.writeTo(b);
        b.flip();
        byte[] o = new byte[8];
        b.get(o, 0, Math.min(8, b.remaining()));
        return java.nio.ByteBuffer.wrap(o).getLong();
    }

    private void checkAccess(long address, int length, boolean isWrite) {
        List<long[]> allowed = isWrite ? writable : readable;
        if (!isWrite) {
            return; // reads of local source buffers are the host's own; see the protection test for remote reads
        }
        for (long[] r : allowed) {
            // [r[0], r[1]) with r[1] = 0 meaning the top of the space: compare offsets, which do not wrap.
            long off = address - r[0];
            long size = r[1] - r[0];
            if (Long.compareUnsigned(off, size) < 0 && Long.compareUnsigned(off + length, size) <= 0) {
                writesChecked++;
                return;
            }
        }
        throw new AssertionError("cycle " + tb.cycle() + ": the engine wrote " + length + " octets at "
                + HostMemory.hex(address) + ", outside every region it may write");
    }

    /** A growing octet buffer for reassembling sent segments. */
    private static final class ByteBuf {
        byte[] data = new byte[256];
        int size;
        byte[] expected;

        void add(byte[] src, int n) {
            if (size + n > data.length) {
                data = java.util.Arrays.copyOf(data, Math.max(data.length * 2, size + n));
            }
            System.arraycopy(src, 0, data, size, n);
            size += n;
        }

        byte[] bytes(int n) {
            return java.util.Arrays.copyOf(data, n);
        }
    }

    /** Hex dumps for messages. */
    static final class Hex {
        /** Up to 32 octets around {@code at}, with their offset. */
        static String window(byte[] b, int at) {
            int from = Math.max(0, at - 8);
            int to = Math.min(b.length, at + 24);
            return "@" + from + " " + of(java.util.Arrays.copyOfRange(b, from, to));
        }

        static String of(byte[] b) {
            StringBuilder s = new StringBuilder();
            for (byte x : b) {
                s.append(String.format("%02x", x));
            }
            return s.toString();
        }
    }
}
