package rnic.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A protection domain (RFC 5040 §2.1, §8.1): memory regions and queue pairs of one PD may be used together, a remote
 * access through an STag of another PD is refused by the core (E-D5, E-R4). Closing it closes its queue pairs, then
 * its memory regions.
 */
public final class ProtectionDomain implements AutoCloseable {
    private final Device device;
    private final int number;
    private final List<QueuePair> queuePairs = new ArrayList<>();
    private final List<MemoryRegion> regions = new ArrayList<>();
    private boolean closed;

    ProtectionDomain(Device device, int number) {
        this.device = device;
        this.number = number;
    }

    public Device device() {
        return device;
    }

    /** The PD number the core compares (STAG_PD, QP_PD). */
    public int number() {
        return number;
    }

    public boolean isClosed() {
        return closed;
    }

    void ensureOpen() {
        if (closed) {
            throw new ResourceClosedException("protection domain " + number + " is closed");
        }
        device.ensureOpen();
    }

    /** Registers the whole buffer. */
    public MemoryRegion registerMemory(DmaBuffer buffer, Set<Access> access) {
        return registerMemory(buffer, 0, buffer.size(), access, null);
    }

    /** Registers {@code length} octets of {@code buffer} from {@code offset}, usable by every QP of this PD. */
    public MemoryRegion registerMemory(DmaBuffer buffer, long offset, long length, Set<Access> access) {
        return registerMemory(buffer, offset, length, access, null);
    }

    /**
     * Registers a range bound to one queue pair of this PD ({@code boundTo} null: every QP of the PD). Only a bound
     * region may be invalidated by the peer (Send with Invalidate, RDMAP-26).
     *
     * @throws IllegalArgumentException for a range outside the buffer, REMOTE_WRITE or REMOTE_ATOMIC without
     *                                  LOCAL_WRITE (as verbs), or a queue pair of another PD
     */
    public MemoryRegion registerMemory(DmaBuffer buffer, long offset, long length, Set<Access> access,
            QueuePair boundTo) {
        ensureOpen();
        if (buffer == null || access == null) {
            throw new IllegalArgumentException("buffer and access must not be null");
        }
        if (buffer.device() != device) {
            throw new IllegalArgumentException(buffer + " belongs to another device");
        }
        buffer.check(offset, length);
        if ((access.contains(Access.REMOTE_WRITE) || access.contains(Access.REMOTE_ATOMIC))
                && !access.contains(Access.LOCAL_WRITE)) {
            throw new IllegalArgumentException("REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE too: " + access);
        }
        if (boundTo != null) {
            boundTo.ensureOpen();
            if (boundTo.protectionDomain() != this) {
                throw new IllegalArgumentException("QP " + boundTo.number() + " belongs to protection domain "
                        + boundTo.protectionDomain().number() + ", not " + number);
            }
        }
        int index = device.allocateStag();
        MemoryRegion mr = new MemoryRegion(this, buffer, offset, length, access, boundTo, index);
        try {
            mr.program();
        } catch (RuntimeException e) {
            device.releaseStag(index);
            throw e;
        }
        regions.add(mr);
        buffer.regions.add(mr);
        return mr;
    }

    /** Creates a queue pair in INIT with its rings, attached to its completion queues. */
    public QueuePair createQueuePair(QueuePair.Config config) {
        ensureOpen();
        QueuePair qp = QueuePair.create(this, config);
        queuePairs.add(qp);
        return qp;
    }

    /** The live regions bound to {@code qp}. */
    List<MemoryRegion> regionsBoundTo(QueuePair qp) {
        List<MemoryRegion> bound = new ArrayList<>();
        for (MemoryRegion mr : regions) {
            if (mr.boundTo() == qp) {
                bound.add(mr);
            }
        }
        return bound;
    }

    void forget(MemoryRegion mr) {
        regions.remove(mr);
    }

    void forget(QueuePair qp) {
        queuePairs.remove(qp);
    }

    /** Closes the queue pairs, then the memory regions of the domain. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        for (QueuePair qp : List.copyOf(queuePairs)) {
            qp.close();
        }
        for (MemoryRegion mr : List.copyOf(regions)) {
            mr.close();
        }
        closed = true;
        device.forget(this);
    }

    @Override
    public String toString() {
        return "PD[" + number + (closed ? ", closed" : "") + "]";
    }
}
