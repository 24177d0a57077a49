package rnic.verbs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import rnic.driver.CoreInfo;
import rnic.driver.Interrupts;
import rnic.driver.Registers;
import rnic.driver.StagProgrammer;
import rnic.transport.Transport;

/**
 * An opened RNIC (pyverbs {@code Context}): reads the CORE block (CORE_TYPE "RNIC", CORE_CONFIG), hands out DMA
 * buffers, protection domains and completion queues, and owns the numbering of STags, PDs, QPs and CQs. Closing it
 * closes every protection domain (with their queue pairs and memory regions), completion queue and buffer it made;
 * the transport stays open (the caller made it).
 *
 * <p>Events: completion channels ({@link #createCompletionChannel()}) and the asynchronous event channel
 * ({@link #asyncEventChannel()}) share the core's one interrupt. Whoever waits services it like an interrupt handler:
 * IRQ_STATUS is read and cleared, and what it held is kept here until the channel it belongs to takes it, so the level
 * interrupt falls and a wait never spins on an event meant for another channel.
 *
 * <p>Not thread-safe, like the transport under it: one driver thread per device.
 */
public final class Device implements AutoCloseable {
    /** Alignment of buffers from {@link #allocate(int)}: a cache line. */
    public static final int DEFAULT_ALIGNMENT = 64;

    private final Transport transport;
    private final Registers regs;
    private final CoreInfo info;
    private final StagProgrammer stags;
    private final boolean[] stagUsed;
    private final int[] stagKeys;
    private final MemoryRegion[] stagRegions;
    private final QueuePair[] queuePairs;
    private final CompletionQueue[] completionQueues;
    private final List<ProtectionDomain> pds = new ArrayList<>();
    private final List<DmaBuffer> buffers = new ArrayList<>();
    private final List<CompletionChannel> channels = new ArrayList<>();
    private final Interrupts interrupts;
    /** CQ events seen in IRQ_STATUS and not yet taken by their channel (bit c: CQ c). */
    private int pendingCq;
    /** The asynchronous event was seen in IRQ_STATUS and not yet taken. */
    private boolean pendingAsync;
    private AsyncEventChannel asyncEvents;
    private int nextPd = 1;
    private boolean closed;

    private Device(Transport transport) {
        this.transport = transport;
        this.regs = new Registers(transport);
        this.info = CoreInfo.read(regs);
        this.stags = new StagProgrammer(regs);
        this.stagUsed = new boolean[info.stagCount()];
        this.stagKeys = new int[info.stagCount()];
        this.stagRegions = new MemoryRegion[info.stagCount()];
        this.queuePairs = new QueuePair[info.qpCount()];
        this.completionQueues = new CompletionQueue[info.cqCount()];
        this.interrupts = new Interrupts(regs);
    }

    /**
     * Opens the RNIC behind {@code transport}.
     *
     * @throws IllegalStateException when no RnicCore answers there (CORE_TYPE is not "RNIC")
     */
    public static Device open(Transport transport) {
        if (transport == null) {
            throw new IllegalArgumentException("transport is null");
        }
        return new Device(transport);
    }

    public Transport transport() {
        return transport;
    }

    Registers registers() {
        return regs;
    }

    Interrupts interrupts() {
        return interrupts;
    }

    StagProgrammer stags() {
        return stags;
    }

    /** CORE_VERSION. */
    public int version() {
        return info.version();
    }

    /** Queue pairs of the core (each can carry one connection at a time). */
    public int queuePairCount() {
        return info.qpCount();
    }

    /** The largest IRD a queue pair can have (CORE_LIMITS.MAX_IRD). */
    public int maxIrd() {
        ensureOpen();
        return CoreInfo.maxIrd(regs);
    }

    /** The largest ORD a queue pair can have (CORE_LIMITS.MAX_ORD). */
    public int maxOrd() {
        ensureOpen();
        return CoreInfo.maxOrd(regs);
    }

    public int completionQueueCount() {
        return info.cqCount();
    }

    public int stagCount() {
        return info.stagCount();
    }

    /** Data-path width W in bits. */
    public int dataWidth() {
        return info.dataBytes() * 8;
    }

    /** The transport's device cycle counter (simulation time). */
    public long cycles() {
        return transport.cycles();
    }

    /** Whether the core saw an error response on its memory port (CORE_STATUS, sticky). */
    public boolean memoryError() {
        ensureOpen();
        return CoreInfo.memoryError(regs);
    }

    /** E.g. "simulated RnicCore a (W=64, 4 QPs)". */
    public String describe() {
        return transport.describe();
    }

    public boolean isClosed() {
        return closed;
    }

    void ensureOpen() {
        if (closed) {
            throw new ResourceClosedException("device " + transport.describe() + " is closed");
        }
    }

    /** A buffer of {@code size} octets aligned to {@value #DEFAULT_ALIGNMENT}, reading as zero. */
    public DmaBuffer allocate(int size) {
        return allocate(size, DEFAULT_ALIGNMENT);
    }

    /** A buffer of {@code size} octets aligned to {@code alignment} (a power of two), reading as zero. */
    public DmaBuffer allocate(int size, int alignment) {
        ensureOpen();
        if (size < 1 || alignment < 1 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("size must be positive and alignment a power of two: " + size + ", "
                    + alignment);
        }
        long address;
        try {
            address = transport.allocate(size, alignment);
        } catch (IllegalStateException e) {
            throw new ResourceExhaustedException("no " + size + " octets of DMA memory left on "
                    + transport.describe() + ": " + e.getMessage());
        }
        DmaBuffer b = new DmaBuffer(this, address, size);
        buffers.add(b);
        return b;
    }

    /** A new protection domain. */
    public ProtectionDomain allocateProtectionDomain() {
        ensureOpen();
        int used = 0;
        for (int n = nextPd; used < 0xFFFF; n = n % 0xFFFF + 1, used++) {
            int number = n;
            if (pds.stream().noneMatch(p -> p.number() == number)) {
                nextPd = number % 0xFFFF + 1;
                ProtectionDomain pd = new ProtectionDomain(this, number);
                pds.add(pd);
                return pd;
            }
        }
        throw new ResourceExhaustedException("all 65535 protection domain numbers are in use");
    }

    /** A completion queue of at least {@code minEntries} entries (rounded up to a power of two). */
    public CompletionQueue createCompletionQueue(int minEntries) {
        return createCompletionQueue(minEntries, null);
    }

    /**
     * A completion queue of at least {@code minEntries} entries on {@code channel} (null: none): its notify requests
     * ({@link CompletionQueue#requestNotify}) end in {@link CompletionChannel#await} of that channel.
     */
    public CompletionQueue createCompletionQueue(int minEntries, CompletionChannel channel) {
        ensureOpen();
        if (channel != null) {
            if (channel.device() != this) {
                throw new IllegalArgumentException("the completion channel belongs to " + channel.device().describe());
            }
            channel.ensureOpen();
        }
        for (int c = 0; c < completionQueues.length; c++) {
            if (completionQueues[c] == null) {
                CompletionQueue cq = CompletionQueue.create(this, c, minEntries, channel);
                completionQueues[c] = cq;
                return cq;
            }
        }
        throw new ResourceExhaustedException("all " + completionQueues.length + " completion queues of "
                + transport.describe() + " are in use");
    }

    /** A new completion channel (verbs {@code ibv_create_comp_channel}). */
    public CompletionChannel createCompletionChannel() {
        ensureOpen();
        CompletionChannel ch = new CompletionChannel(this);
        channels.add(ch);
        return ch;
    }

    /**
     * The device's asynchronous event channel (verbs {@code ibv_get_async_event}): queue pairs the core moved to ERR
     * (Terminate sent or received, MPA error) and TCP connections the peer closed. Created at the first call; from
     * then on the asynchronous event drives the interrupt.
     */
    public AsyncEventChannel asyncEventChannel() {
        ensureOpen();
        if (asyncEvents == null) {
            asyncEvents = new AsyncEventChannel(this);
            interrupts.enableAsync(true);
        }
        return asyncEvents;
    }

    /** Device time in nanoseconds (the transport's cycle counter at the core's declared clock). */
    public long nanoTime() {
        return transport.nanoTime();
    }

    /** Reads and clears IRQ_STATUS, keeping what it held for the channels. */
    void serviceInterrupt() {
        int status = interrupts.take();
        pendingCq |= Interrupts.cqBits(status);
        pendingAsync |= Interrupts.async(status);
    }

    /**
     * Lets the device run until its interrupt is raised (then services it) or device time reaches {@code deadline}
     * (nanoseconds, {@link #nanoTime()}); false at the deadline.
     */
    boolean waitForInterrupt(long deadline) {
        long remaining = deadline - nanoTime();
        if (remaining <= 0) {
            return false;
        }
        if (!transport.awaitInterrupt(Duration.ofNanos(remaining))) {
            return false;
        }
        serviceInterrupt();
        return true;
    }

    /** Takes CQ {@code cq}'s event if one was seen. */
    boolean takeCqEvent(int cq) {
        int bit = 1 << cq;
        if ((pendingCq & bit) == 0) {
            return false;
        }
        pendingCq &= ~bit;
        return true;
    }

    /** Takes the asynchronous event if it was seen. */
    boolean takeAsyncEvent() {
        boolean was = pendingAsync;
        pendingAsync = false;
        return was;
    }

    /** Forgets CQ {@code cq}'s events (a new queue takes the number, or it closes). */
    void clearCqEvent(int cq) {
        pendingCq &= ~(1 << cq);
    }

    /** The open completion queues. */
    List<CompletionQueue> completionQueues() {
        List<CompletionQueue> open = new ArrayList<>();
        for (CompletionQueue cq : completionQueues) {
            if (cq != null && !cq.isClosed()) {
                open.add(cq);
            }
        }
        return open;
    }

    /** The live queue pairs. */
    List<QueuePair> queuePairs() {
        List<QueuePair> live = new ArrayList<>();
        for (QueuePair qp : queuePairs) {
            if (qp != null) {
                live.add(qp);
            }
        }
        return live;
    }

    int allocateQueuePair(int wanted, QueuePair qp) {
        if (wanted >= 0) {
            if (wanted >= queuePairs.length) {
                throw new IllegalArgumentException("QP " + wanted + " does not exist: the core has "
                        + queuePairs.length);
            }
            if (queuePairs[wanted] != null) {
                throw new ResourceExhaustedException("QP " + wanted + " is in use");
            }
            queuePairs[wanted] = qp;
            return wanted;
        }
        for (int q = 0; q < queuePairs.length; q++) {
            if (queuePairs[q] == null) {
                queuePairs[q] = qp;
                return q;
            }
        }
        throw new ResourceExhaustedException("all " + queuePairs.length + " queue pairs of " + transport.describe()
                + " are in use");
    }

    void releaseQueuePair(int number, QueuePair qp) {
        if (number >= 0 && number < queuePairs.length && queuePairs[number] == qp) {
            queuePairs[number] = null;
        }
    }

    /** The live queue pair of a number, or null. */
    QueuePair queuePair(int number) {
        return number >= 0 && number < queuePairs.length ? queuePairs[number] : null;
    }

    int allocateStag() {
        for (int i = 0; i < stagUsed.length; i++) {
            if (!stagUsed[i]) {
                stagUsed[i] = true;
                return i;
            }
        }
        throw new ResourceExhaustedException("all " + stagUsed.length + " STags of " + transport.describe()
                + " are in use");
    }

    /** The next key of STag index {@code index}: a new one at every registration, never making STag 0. */
    int nextKey(int index) {
        int key = (stagKeys[index] + 1) & 0xFF;
        if (index == 0 && key == 0) {
            key = 1;
        }
        stagKeys[index] = key;
        return key;
    }

    void registered(int index, MemoryRegion mr) {
        stagRegions[index] = mr;
    }

    void releaseStag(int index) {
        stagUsed[index] = false;
        stagRegions[index] = null;
    }

    /** The core invalidated {@code stag} (a Local Invalidate here, or the peer's Send with Invalidate). */
    void invalidated(int stag) {
        int index = stag >>> 8;
        if (index < stagRegions.length && stagRegions[index] != null && stagRegions[index].stag() == stag) {
            stagRegions[index].invalidated();
        }
    }

    void forget(ProtectionDomain pd) {
        pds.remove(pd);
    }

    void forget(DmaBuffer b) {
        buffers.remove(b);
    }

    void forget(CompletionChannel ch) {
        channels.remove(ch);
    }

    void forget(CompletionQueue cq) {
        if (completionQueues[cq.number()] == cq) {
            completionQueues[cq.number()] = null;
        }
    }

    /** Closes protection domains, completion queues and buffers, in that order. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        for (ProtectionDomain pd : List.copyOf(pds)) {
            pd.close();
        }
        for (CompletionQueue cq : completionQueues.clone()) {
            if (cq != null) {
                cq.close();
            }
        }
        for (DmaBuffer b : List.copyOf(buffers)) {
            b.close();
        }
        for (CompletionChannel ch : List.copyOf(channels)) {
            ch.close();
        }
        interrupts.enableAsync(false);
        closed = true;
    }

    @Override
    public String toString() {
        return "Device[" + transport.describe() + ", " + info + (closed ? ", closed" : "") + "]";
    }
}
