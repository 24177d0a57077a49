package rnic.demo;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Consumer;
import rnic.cm.ConnectParams;
import rnic.cm.Connection;
import rnic.cm.ConnectionManager;
import rnic.cm.Listener;
import rnic.model.rdmap.AtomicAlu;
import rnic.transport.Transport;
import rnic.verbs.Access;
import rnic.verbs.Completion;
import rnic.verbs.CompletionQueue;
import rnic.verbs.CompletionStatus;
import rnic.verbs.Device;
import rnic.verbs.DmaBuffer;
import rnic.verbs.MemoryRegion;
import rnic.verbs.ProtectionDomain;
import rnic.verbs.QueuePair;
import rnic.verbs.RecvRequest;
import rnic.verbs.RemoteBuffer;
import rnic.verbs.Sge;
import rnic.verbs.WorkRequest;
import rnic.wire.QpState;

/**
 * What {@code ./rnic demo} does, as two host programs on the real driver API: host {@code a} (the MPA Initiator, the
 * requester) and host {@code b} (the Responder, whose memory the requests target). Run them side by side with
 * {@link rnic.sim.HostThreads}; afterwards {@link #rows()} and {@link #peerRows()} hold what happened.
 *
 * <p>b advertises its buffers (STag and address of a Write target, a Read source, an atomic target and a buffer that
 * a's Send with Invalidate will invalidate) in its MPA Reply's private data. a then runs every operation of the verbs
 * surface once — RDMA Write (64 B and 4 KB), Write with Immediate, Read (4 KB), Send, Send with Solicited Event, Send
 * inline, Send with Invalidate, Send with Immediate, FetchAdd, CmpSwap, their masked forms, a local invalidate, an
 * unsignaled Write followed by a fenced Read — and finally an RDMA Write to the STag its Send with Invalidate
 * invalidated: b answers with a Terminate (E-D1, 1/1/00), both QPs go to ERR, a's next request is flushed.
 *
 * <p>Every result is checked against values computed here, independently of the device: the data b's buffers hold at
 * the end, what a's Read brought back, and the atomic results from the golden {@link AtomicAlu}. A failed check is
 * reported in the row and by {@link #failures()}.
 */
public final class DemoScenario {
    /** One operation as a host saw it. */
    public record Row(String operation, long bytes, String status, long cycles, String check) {
        /** Octets per cycle, or 0 when not meaningful. */
        public double bytesPerCycle() {
            return bytes >= 1024 && cycles > 0 ? (double) bytes / cycles : 0;
        }
    }

    static final int QP = 0;
    static final int RECV_SIZE = 2048;
    static final int RECV_COUNT = 12;
    static final long TIMEOUT = 200_000;

    /** Where host b listens: its simulated address (RnicSystem: a 10.0.0.1, b 10.0.0.2) and the iWARP port 4791. */
    static final java.net.InetSocketAddress B_LISTENS = new java.net.InetSocketAddress("10.0.0.2", 4791);
    static final long ATOMIC_INITIAL = 0x0123_4567_89AB_CDEFL;

    /**
     * Where b listens and how long each host waits, as multiples of the limits of two simulated RNICs (1: those
     * limits). A board over its serial line needs far more device time per operation (a 4 KB Write crosses a 3 Mbaud
     * line), and a peer in its own simulation runs at its own pace.
     *
     * @param listenAt       b's listening address; port 0: the kernel picks one, which a learns from b
     * @param initiatorWaits multiple of a's waits (completion, connect, MPA)
     * @param responderWaits multiple of b's waits (accept, a's whole run)
     */
    public record Setup(java.net.InetSocketAddress listenAt, int initiatorWaits, int responderWaits) {
        /** Two RNICs of one simulation on its TCP model: b on 10.0.0.2:4791, the limits as they are. */
        public static final Setup SIMULATED = new Setup(B_LISTENS, 1, 1);
    }

    private final List<Row> rows = new ArrayList<>();
    private final List<Row> peerRows = new ArrayList<>();
    private final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Consumer<String> progress;
    private final Setup setup;
    private final int totalSteps = 18;
    private int step;

    // What a did, for b's final checks. Under HostThreads the hosts alternate strictly; a board's host and a peer in
    // its own simulation run truly side by side, so these are shared safely: a publishes each expectation before it
    // posts the request, and the volatile aDone orders everything a wrote before b's final checks.
    private final byte[] expectedWriteTarget = new byte[8192];
    private final List<byte[]> expectedReceives = java.util.Collections.synchronizedList(new ArrayList<>());
    private final List<Long> expectedImmediates = java.util.Collections.synchronizedList(new ArrayList<>());
    private volatile long expectedAtomic = ATOMIC_INITIAL;
    private volatile int invalidatedStag;
    private volatile boolean aDone;
    private volatile boolean aAborted;
    private volatile java.net.InetSocketAddress bListening;

    public DemoScenario(Consumer<String> progress) {
        this(progress, Setup.SIMULATED);
    }

    public DemoScenario(Consumer<String> progress, Setup setup) {
        this.progress = progress;
        this.setup = setup;
    }

    public List<Row> rows() {
        return List.copyOf(rows);
    }

    public List<Row> peerRows() {
        return List.copyOf(peerRows);
    }

    /** Checks that did not hold (empty when everything was as expected). */
    public List<String> failures() {
        return List.copyOf(failures);
    }

    private synchronized void progress(String what) {
        step++;
        progress.accept(String.format("[%2d/%d] %s", Math.min(step, totalSteps), totalSteps, what));
    }

    private void fail(String what) {
        failures.add(what);
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7 + (i >> 8));
        }
        return b;
    }

    private static ConnectParams params(int waits) {
        return ConnectParams.defaults().withReceiveMarkers(true).withCrc(true)
                .withTimeout(java.time.Duration.ofNanos(TIMEOUT * 4 * waits)); // TIMEOUT cycles at 250 MHz
    }

    // ------------------------------------------------------------------------------------------------ host b

    /** Host b: the Responder. Advertises its buffers, counts what arrives, answers the bad Write, checks memory. */
    public void responder(Transport t) {
        try (Device dev = Device.open(t)) {
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue scq = dev.createCompletionQueue(64);
            CompletionQueue rcq = dev.createCompletionQueue(64);
            QueuePair qp = pd.createQueuePair(new QueuePair.Config(scq, rcq, 16, 16, 0, QP));
            DmaBuffer writeTarget = dev.allocate(8192);
            DmaBuffer readSource = dev.allocate(8192);
            readSource.put(0, pattern(8192, 2));
            DmaBuffer atomic = dev.allocate(64);
            atomic.putLong(0, ATOMIC_INITIAL);
            DmaBuffer doomed = dev.allocate(4096);
            DmaBuffer recv = dev.allocate(RECV_SIZE * RECV_COUNT);
            MemoryRegion mrWrite = pd.registerMemory(writeTarget,
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
            MemoryRegion mrRead = pd.registerMemory(readSource, EnumSet.of(Access.REMOTE_READ));
            MemoryRegion mrAtomic = pd.registerMemory(atomic,
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_ATOMIC, Access.REMOTE_READ));
            // bound to the QP: only then may the peer invalidate it remotely (RFC 5040 §8.1.1 item 7, RDMAP-26)
            MemoryRegion mrDoomed = pd.registerMemory(doomed, 0, 4096,
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE), qp);
            MemoryRegion mrRecv = pd.registerMemory(recv, EnumSet.of(Access.LOCAL_WRITE));
            for (int i = 0; i < RECV_COUNT; i++) {
                qp.postRecv(RecvRequest.of(mrRecv.sge((long) i * RECV_SIZE, RECV_SIZE)).withId(1000 + i));
            }
            ByteBuffer pdata = ByteBuffer.allocate(48).order(ByteOrder.BIG_ENDIAN);
            for (MemoryRegion mr : List.of(mrWrite, mrRead, mrAtomic, mrDoomed)) {
                pdata.putInt(mr.rkey()).putLong(mr.address());
            }
            // b listens on its address and port; a connects there (rnic.cm, like rdma_listen / rdma_connect)
            int waits = setup.responderWaits();
            Listener listener = new ConnectionManager(dev).listen(setup.listenAt());
            bListening = listener.localAddress();
            Connection c = listener.accept(qp, params(waits).withPrivateData(pdata.array()),
                    java.time.Duration.ofNanos(TIMEOUT * 40 * waits));
            peerRows.add(new Row("MPA accept: " + describe(c), 0, "RTS", 0,
                    "peer said \"" + new String(c.peerPrivateData(), java.nio.charset.StandardCharsets.US_ASCII)
                            + "\""));

            // Take completions until a's run is over and this QP is in ERR (the Terminate it sent for the bad Write).
            Completion[] out = Completion.array(16);
            int receiveIndex = 0;
            int flushed = 0;
            long start = dev.cycles();
            boolean terminated = false;
            while (!(aDone && (terminated || aAborted))) {
                if (dev.cycles() - start > 50 * TIMEOUT * waits) {
                    fail("b: timed out waiting for a's run to end");
                    break;
                }
                int n = rcq.poll(out);
                for (int i = 0; i < n; i++) {
                    Completion r = out[i];
                    String check = "";
                    if (r.status() == CompletionStatus.SUCCESS) {
                        int slot = (int) (r.wrId() - 1000);
                        if (r.hasImmediate()) {
                            Long want = expectedImmediates.isEmpty() ? null : expectedImmediates.remove(0);
                            check = want != null && want == r.immediate() ? "immediate ok" : "IMMEDIATE MISMATCH";
                            if (check.startsWith("IMM")) {
                                fail("b: immediate " + Long.toHexString(r.immediate()) + ", wanted " + want);
                            }
                        } else {
                            byte[] want = receiveIndex < expectedReceives.size() ? expectedReceives.get(receiveIndex)
                                    : null;
                            receiveIndex++;
                            byte[] got = recv.get((long) slot * RECV_SIZE, (int) r.byteLength());
                            check = Arrays.equals(want, got) ? "payload ok" : "PAYLOAD MISMATCH";
                            if (check.startsWith("PAY")) {
                                fail("b: receive " + receiveIndex + " differs: " + difference(want, got));
                            }
                        }
                        if (r.hasInvalidatedStag()) {
                            check += ", invalidated STag " + hex(r.invalidatedStag());
                            if (r.invalidatedStag() != mrDoomed.rkey()) {
                                fail("b: invalidated " + hex(r.invalidatedStag()) + ", not " + hex(mrDoomed.rkey()));
                            }
                        }
                    }
                    if (r.status() == CompletionStatus.FLUSH_ERROR) {
                        flushed++;
                        continue;
                    }
                    peerRows.add(new Row("receive " + r.opcode(), r.byteLength(), r.status().toString(), 0, check));
                }
                n = scq.poll(out);
                for (int i = 0; i < n; i++) {
                    Completion r = out[i];
                    String detail = r.isQpError() && r.terminateCause() != null
                            ? r.terminateCause().row() + " " + r.terminateCause() : String.valueOf(r.cqeKind());
                    peerRows.add(new Row("QP event " + r.cqeKind(), 0, r.status().toString(), 0, detail));
                    if (r.isQpError()) {
                        terminated = true;
                    }
                }
                if (n == 0) {
                    t.advance();
                }
            }
            // Drain the rest of the flushed receive buffers (FLUSH_ERROR) so the table counts them.
            for (int k = 0; k < 100; k++) {
                int n = rcq.poll(out);
                for (int i = 0; i < n; i++) {
                    if (out[i].status() == CompletionStatus.FLUSH_ERROR) {
                        flushed++;
                    }
                }
                t.advance();
            }
            peerRows.add(new Row("receive buffers flushed", 0, flushed + " × FLUSH_ERROR", 0,
                    "QP " + qp.state()));
            if (qp.state() != QpState.ERR) {
                fail("b: QP state " + qp.state() + " after the Terminate, not ERR");
            }
            byte[] got = writeTarget.get(0, 8192);
            boolean writesOk = Arrays.equals(expectedWriteTarget, got);
            long atomicNow = atomic.getLong(0);
            boolean atomicOk = atomicNow == expectedAtomic;
            boolean doomedUntouched = Arrays.equals(new byte[4096], doomed.get(0, 4096));
            peerRows.add(new Row("memory: Write target", 8192, writesOk ? "as expected" : "DIFFERS", 0,
                    "every octet vs. what a wrote"));
            peerRows.add(new Row("memory: atomic target", 8, atomicOk ? "as expected" : "DIFFERS", 0,
                    String.format("0x%016x (AtomicAlu model: 0x%016x)", atomicNow, expectedAtomic)));
            peerRows.add(new Row("memory: invalidated buffer", 4096, doomedUntouched ? "untouched" : "WRITTEN", 0,
                    "the refused Write placed nothing"));
            if (!writesOk) {
                fail("b: Write target differs from what a wrote: " + difference(expectedWriteTarget, got));
            }
            if (!atomicOk) {
                fail(String.format("b: atomic target 0x%016x, model 0x%016x", atomicNow, expectedAtomic));
            }
            if (!doomedUntouched) {
                fail("b: the Write to an invalidated STag placed data");
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ host a

    /** Host a: the Initiator. Connects, runs every operation, then the protection fault. */
    public void initiator(Transport t) {
        try (Device dev = Device.open(t)) {
            progress("opened " + dev.describe());
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue scq = dev.createCompletionQueue(64);
            CompletionQueue rcq = dev.createCompletionQueue(64);
            QueuePair qp = pd.createQueuePair(new QueuePair.Config(scq, rcq, 16, 16, 64, QP));
            DmaBuffer src = dev.allocate(8192);
            byte[] srcBytes = pattern(8192, 1);
            src.put(0, srcBytes);
            DmaBuffer sink = dev.allocate(8192);
            DmaBuffer results = dev.allocate(64);
            DmaBuffer spare = dev.allocate(4096);
            MemoryRegion mrSrc = pd.registerMemory(src, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion mrSink = pd.registerMemory(sink, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            MemoryRegion mrResults = pd.registerMemory(results, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion mrSpare = pd.registerMemory(spare, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            DmaBuffer recv = dev.allocate(RECV_SIZE * 4);
            MemoryRegion mrRecv = pd.registerMemory(recv, EnumSet.of(Access.LOCAL_WRITE));
            for (int i = 0; i < 4; i++) {
                qp.postRecv(RecvRequest.of(mrRecv.sge((long) i * RECV_SIZE, RECV_SIZE)));
            }

            int waits = setup.initiatorWaits();
            // a connects once b listens: a refused attempt would put a SYN/RST pair into the capture
            for (long w = dev.cycles(); bListening == null && dev.cycles() - w < 40 * TIMEOUT * waits;) {
                t.advance();
            }
            java.net.InetSocketAddress to = bListening != null ? bListening : setup.listenAt();
            progress("connect to " + to.getAddress().getHostAddress() + ":" + to.getPort()
                    + ": MPA Request/Reply (markers, CRC, RFC 6581)");
            long c0 = dev.cycles();
            Connection c = new ConnectionManager(dev).connectWhenListening(to, qp, params(waits).withPrivateData(
                    "hello from a".getBytes(java.nio.charset.StandardCharsets.US_ASCII)),
                    java.time.Duration.ofNanos(TIMEOUT * 40 * waits));
            rows.add(new Row("MPA connect " + c.localAddress().getAddress().getHostAddress() + " → "
                    + to.getAddress().getHostAddress() + ":" + to.getPort() + ": " + describe(c), 0,
                    "RTS", dev.cycles() - c0, "Reply accepted"));
            ByteBuffer pdata = ByteBuffer.wrap(c.peerPrivateData()).order(ByteOrder.BIG_ENDIAN);
            RemoteBuffer writeTarget = new RemoteBuffer(pdata.getInt(), pdata.getLong());
            RemoteBuffer readSource = new RemoteBuffer(pdata.getInt(), pdata.getLong());
            RemoteBuffer atomic = new RemoteBuffer(pdata.getInt(), pdata.getLong());
            RemoteBuffer doomed = new RemoteBuffer(pdata.getInt(), pdata.getLong());
            Completion[] out = Completion.array(4);

            // ---- RDMA Write
            run(dev, scq, out, "RDMA Write", 64, qp, WorkRequest.rdmaWrite(mrSrc.sge(0, 64), writeTarget), null);
            System.arraycopy(srcBytes, 0, expectedWriteTarget, 0, 64);
            run(dev, scq, out, "RDMA Write", 4096, qp,
                    WorkRequest.rdmaWrite(mrSrc.sge(64, 4096), writeTarget.plus(64)), null);
            System.arraycopy(srcBytes, 64, expectedWriteTarget, 64, 4096);
            expectedImmediates.add(0x1111_2222_3333_4444L);
            run(dev, scq, out, "RDMA Write with Immediate", 256, qp, WorkRequest.rdmaWriteWithImmediate(
                    mrSrc.sge(4160, 256), writeTarget.plus(4160), 0x1111_2222_3333_4444L), null);
            System.arraycopy(srcBytes, 4160, expectedWriteTarget, 4160, 256);

            // ---- RDMA Read: the Responder's source pattern must arrive in the sink
            run(dev, scq, out, "RDMA Read", 4096, qp, WorkRequest.rdmaRead(mrSink.sge(0, 4096), readSource),
                    () -> {
                        byte[] want = Arrays.copyOf(pattern(8192, 2), 4096);
                        byte[] got = sink.get(0, 4096);
                        if (!Arrays.equals(want, got)) {
                            fail("a: RDMA Read data: " + difference(want, got));
                            return null;
                        }
                        return "data ok";
                    });

            // ---- Sends
            expectedReceives.add(Arrays.copyOfRange(srcBytes, 0, 1024));
            run(dev, scq, out, "Send", 1024, qp, WorkRequest.send(mrSrc.sge(0, 1024)), null);
            expectedReceives.add(Arrays.copyOfRange(srcBytes, 1024, 1152));
            run(dev, scq, out, "Send with Solicited Event", 128, qp,
                    WorkRequest.sendWithSolicitedEvent(mrSrc.sge(1024, 128)), null);
            byte[] inline = "inline: the driver copies me, no registration needed".getBytes(
                    java.nio.charset.StandardCharsets.US_ASCII);
            expectedReceives.add(inline);
            run(dev, scq, out, "Send inline", inline.length, qp,
                    WorkRequest.send(Sge.bytes(inline)).withInline(), null);
            expectedReceives.add(Arrays.copyOfRange(srcBytes, 2048, 2048 + 512));
            invalidatedStag = doomed.stag();
            run(dev, scq, out, "Send with Invalidate", 512, qp,
                    WorkRequest.sendWithInvalidate(mrSrc.sge(2048, 512), doomed.stag()), null);
            expectedImmediates.add(0x5555_6666_7777_8888L);
            run(dev, scq, out, "Send with Immediate", 8, qp, WorkRequest.sendWithImmediate(0x5555_6666_7777_8888L),
                    null);

            // ---- Atomics, each checked against the golden ALU
            long add = 0x10;
            expectAtomic(dev, scq, out, qp, "FetchAdd", results, AtomicAlu.fetchAdd(expectedAtomic, add),
                    WorkRequest.fetchAdd(mrResults.sge(0, 8), atomic, add));
            long cmp = expectedAtomic;
            long swap = 0x0FED_CBA9_8765_4321L;
            expectAtomic(dev, scq, out, qp, "CmpSwap", results, AtomicAlu.cmpSwap(expectedAtomic, swap, cmp),
                    WorkRequest.compareSwap(mrResults.sge(8, 8), atomic, cmp, swap));
            long mAdd = 0x0001_0001_0001_0001L;
            long mMask = 0x8000_8000_8000_8000L;
            expectAtomic(dev, scq, out, qp, "masked FetchAdd", results,
                    AtomicAlu.fetchAdd(expectedAtomic, mAdd, mMask),
                    WorkRequest.maskedFetchAdd(mrResults.sge(16, 8), atomic, mAdd, mMask));
            long cData = expectedAtomic & 0xFFFF_FFFFL;
            long cMask = 0xFFFF_FFFFL;
            long sData = 0xAAAA_AAAA_0000_0000L;
            long sMask = 0xFFFF_FFFF_0000_0000L;
            expectAtomic(dev, scq, out, qp, "masked CmpSwap", results,
                    AtomicAlu.cmpSwap(expectedAtomic, sData, sMask, cData, cMask),
                    WorkRequest.maskedCompareSwap(mrResults.sge(24, 8), atomic, cData, cMask, sData, sMask));

            // ---- Local invalidate of one of a's own regions
            run(dev, scq, out, "Local Invalidate", 0, qp, WorkRequest.localInvalidate(mrSpare.lkey()),
                    () -> "STag " + hex(mrSpare.lkey()) + " invalid");

            // ---- An unsignaled Write, then a fenced Read of what it wrote: the fence orders them
            progress("unsignaled RDMA Write + fenced RDMA Read");
            long f0 = dev.cycles();
            qp.postSend(WorkRequest.rdmaWrite(mrSrc.sge(6000, 1000), writeTarget.plus(6000)).withSignaled(false));
            System.arraycopy(srcBytes, 6000, expectedWriteTarget, 6000, 1000);
            qp.postSend(WorkRequest.rdmaRead(mrSink.sge(4096, 1000), writeTarget.plus(6000)).withFence());
            Completion r = awaitOne(scq, out);
            boolean fenceOk = r != null && r.status() == CompletionStatus.SUCCESS
                    && Arrays.equals(srcBytes, 6000, 7000, sink.get(4096, 1000), 0, 1000);
            rows.add(new Row("Write (unsignaled) + fenced Read", 1000, r == null ? "TIMEOUT" : r.status().toString(),
                    dev.cycles() - f0, fenceOk ? "Read saw the Write" : "FENCE ORDER BROKEN"));
            if (!fenceOk) {
                fail("a: the fenced Read did not see the unsignaled Write");
            }

            // ---- Protection fault: a Write to the STag the Send with Invalidate invalidated
            progress("RDMA Write to the invalidated STag " + hex(doomed.stag()) + " (expect a Terminate)");
            long p0 = dev.cycles();
            qp.postSend(WorkRequest.rdmaWrite(mrSrc.sge(0, 256), doomed));
            qp.postSend(WorkRequest.rdmaRead(mrSink.sge(0, 64), readSource).withFence());
            List<Completion> seen = new ArrayList<>(); // copies: the polling array is reused
            long w0 = dev.cycles();
            while (seen.size() < 3 && dev.cycles() - w0 < TIMEOUT * waits) {
                int n = scq.poll(out);
                for (int i = 0; i < n; i++) {
                    seen.add(out[i].copy());
                }
                if (n == 0) {
                    t.advance();
                }
            }
            for (Completion x : seen) {
                String detail = x.isQpError()
                        ? String.format("Terminate L/ET %02x code %02x, QP %s", x.terminateLayerEtype(),
                                x.terminateErrorCode(), qp.state())
                        : "";
                rows.add(new Row(x.isQpError() ? "  ← peer's Terminate" : "  " + x.opcode() + " (after it)",
                        0, x.status().toString(), dev.cycles() - p0, detail));
            }
            boolean sawTerminate = seen.stream().anyMatch(x -> x.status() == CompletionStatus.REMOTE_ACCESS_ERROR
                    && x.terminateLayerEtype() == 0x11 && x.terminateErrorCode() == 0x00);
            boolean sawFlush = seen.stream().anyMatch(x -> x.status() == CompletionStatus.FLUSH_ERROR);
            if (!sawTerminate) {
                fail("a: no Terminate 1/1/00 (E-D1 invalid STag) for the Write to an invalidated STag: " + seen);
            }
            if (!sawFlush) {
                fail("a: the request after the refused Write was not flushed: " + seen);
            }
            if (qp.state() != QpState.ERR) {
                fail("a: QP state " + qp.state() + " after the peer's Terminate, not ERR");
            }
        } catch (RuntimeException | Error e) {
            aAborted = true;
            fail("a: " + e);
            throw e;
        } finally {
            aDone = true;
        }
    }

    private void expectAtomic(Device dev, CompletionQueue cq, Completion[] out, QueuePair qp, String name,
            DmaBuffer results, AtomicAlu.Result model, WorkRequest wr) {
        int slot = (int) wr.local().offset();
        long original = expectedAtomic;
        run(dev, cq, out, name, 8, qp, wr, () -> {
            long got = results.getLong(slot);
            return got == original ? String.format("original 0x%016x ok", got) : null;
        });
        expectedAtomic = model.newValue();
    }

    private Completion awaitOne(CompletionQueue cq, Completion[] out) {
        // TIMEOUT cycles at 250 MHz, times a's multiple
        int n = cq.awaitCount(out, 1, java.time.Duration.ofNanos(TIMEOUT * 4 * setup.initiatorWaits()));
        return n == 0 ? null : out[0];
    }

    private void run(Device dev, CompletionQueue cq, Completion[] out, String name, long bytes, QueuePair qp,
            WorkRequest wr, java.util.function.Supplier<String> check) {
        progress(name + (bytes > 0 ? " " + bytes + " B" : ""));
        long t0 = dev.cycles();
        qp.postSend(wr);
        Completion c = awaitOne(cq, out);
        long cycles = dev.cycles() - t0;
        String status = c == null ? "TIMEOUT" : c.status().toString();
        String result = "";
        if (c == null || c.status() != CompletionStatus.SUCCESS) {
            fail("a: " + name + " ended " + status);
        } else if (check != null) {
            String r = check.get();
            if (r == null) {
                fail("a: " + name + " completed but its result is wrong");
                result = "WRONG RESULT";
            } else {
                result = r;
            }
        }
        rows.add(new Row(name, bytes, status, cycles, result));
    }

    private static String describe(Connection c) {
        return "rev " + c.peerRev() + (c.txMarkers() || c.rxMarkers() ? ", markers" : "") + (c.crc() ? ", CRC" : "")
                + (c.rtrForms().isEmpty() ? "" : ", RTR " + c.rtrForms()) + ", IRD/ORD " + c.ird() + "/" + c.ord();
    }

    /** Where two octet arrays first differ, for failure messages. */
    static String difference(byte[] want, byte[] got) {
        if (want == null || got == null) {
            return "missing (" + (want == null ? "nothing expected" : "nothing read") + ")";
        }
        int n = Math.min(want.length, got.length);
        for (int i = 0; i < n; i++) {
            if (want[i] != got[i]) {
                return String.format("first difference at octet %d of %d/%d: want %s… got %s…", i, want.length,
                        got.length, java.util.HexFormat.of().formatHex(want, i, Math.min(n, i + 8)),
                        java.util.HexFormat.of().formatHex(got, i, Math.min(n, i + 8)));
            }
        }
        return "lengths " + want.length + " and " + got.length;
    }

    static String hex(int v) {
        return String.format("0x%08x", v);
    }
}
