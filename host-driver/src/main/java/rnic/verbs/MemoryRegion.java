package rnic.verbs;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import rnic.driver.StagRegistration;

/**
 * A registered range of a DMA buffer (RFC 5040 §8.1): an entry of the core's STag table with the region's protection
 * domain, access rights and bounds. The STag, which is both the lkey and the rkey, is {@code index << 8 | key}; the
 * key changes at every registration of an index, so an STag handed out before a deregistration or an invalidation is
 * refused afterwards (E-D1). Regions are VA-based: the Tagged Offset of an octet is its device address.
 *
 * <p>A region may be bound to one queue pair: only that connection may use it, and only then may the peer invalidate
 * it with a Send with Invalidate (RFC 5040 §8.1.1 item 7, RDMAP-26). Closing deregisters it (STag entry invalid).
 */
public final class MemoryRegion implements AutoCloseable {
    private final ProtectionDomain pd;
    private final DmaBuffer buffer;
    private final long offset;
    private final long length;
    private final Set<Access> access;
    private final QueuePair boundTo;
    private final int index;
    private int key;
    private boolean valid;
    private boolean closed;

    MemoryRegion(ProtectionDomain pd, DmaBuffer buffer, long offset, long length, Set<Access> access,
            QueuePair boundTo, int index) {
        this.pd = pd;
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        this.access = Collections.unmodifiableSet(access.isEmpty() ? EnumSet.noneOf(Access.class)
                : EnumSet.copyOf(access));
        this.boundTo = boundTo;
        this.index = index;
    }

    /** Programs the STag entry with a fresh key. */
    void program() {
        key = pd.device().nextKey(index);
        boolean ok = pd.device().stags().program(new StagRegistration(index, key, pd.number(), boundTo != null,
                boundTo == null ? 0 : boundTo.number(), access.contains(Access.REMOTE_WRITE),
                access.contains(Access.REMOTE_READ), access.contains(Access.REMOTE_ATOMIC), false, address(),
                length));
        if (!ok) {
            throw new DeviceException("STAG block busy: STag index " + index + " not programmed");
        }
        valid = true;
        pd.device().registered(index, this);
    }

    /** The STag: local key and remote key at once. */
    public int stag() {
        return index << 8 | key;
    }

    /** The STag as the local key (verbs lkey). */
    public int lkey() {
        return stag();
    }

    /** The STag as the remote key (verbs rkey) the peer names in RDMA Writes, Reads and Atomics. */
    public int rkey() {
        return stag();
    }

    /** Device address (and TO) of the first octet. */
    public long address() {
        return buffer.address() + offset;
    }

    public long length() {
        return length;
    }

    public Set<Access> access() {
        return access;
    }

    public DmaBuffer buffer() {
        return buffer;
    }

    /** Offset of the region within its buffer. */
    public long bufferOffset() {
        return offset;
    }

    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** The queue pair the region is bound to, or null when every queue pair of the PD may use it. */
    public QueuePair boundTo() {
        return boundTo;
    }

    /** Registered and not invalidated. */
    public boolean isValid() {
        return valid && !closed;
    }

    public boolean isClosed() {
        return closed;
    }

    /** {@code length} octets at {@code offset} of the region, for a work request. */
    public Sge sge(long offset, int length) {
        return Sge.of(this, offset, length);
    }

    /** The whole region (at most 2^31 − 1 octets). */
    public Sge sge() {
        if (length > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("region of " + length + " octets: name a range");
        }
        return Sge.of(this, 0, (int) length);
    }

    /** The region as the peer names it: this side's STag and the TO of octet {@code offset}. */
    public RemoteBuffer remote(long offset) {
        return new RemoteBuffer(stag(), address() + offset);
    }

    /** The region's start as the peer names it. */
    public RemoteBuffer remote() {
        return remote(0);
    }

    /**
     * Registers the region again under a new key (after an invalidation, or to revoke the STag handed out so far).
     */
    public void reregister() {
        ensureOpen();
        program();
    }

    void invalidated() {
        valid = false;
    }

    private void ensureOpen() {
        if (closed) {
            throw new ResourceClosedException(this + " is closed");
        }
    }

    /** Deregisters: the STag entry is written invalid. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        valid = false;
        Device d = pd.device();
        boolean done = d.stags().deregister(index);
        d.releaseStag(index);
        buffer.regions.remove(this);
        pd.forget(this);
        if (!done) {
            throw new DeviceException("STAG block busy: STag index " + index + " not deregistered");
        }
    }

    @Override
    public String toString() {
        if (buffer == null) {
            return String.format("MR[stag=0x%08x, detached]", stag());
        }
        return String.format("MR[stag=0x%08x, 0x%x+%d, %s%s]", stag(), address(), length, access,
                closed ? ", closed" : valid ? "" : ", invalidated");
    }
}
