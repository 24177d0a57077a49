package rnic.model.ddp;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import rnic.wire.TerminateCause;

/**
 * Golden model of the STag table and the memory-protection checks of remote access (RFC 5041 §7.1, §8.2–§8.3;
 * RFC 5040 §7.2, §8.1; RFC 7306 §8–§9; DDP-19, DDP-30, DDP-33, DDP-34, RDMAP-09, RDMAP-13, RDMAP-19, RDMAP-26,
 * RDMAP-34, RDMAP-44).
 *
 * <p>Each access is checked in one order, the first failure deciding: the STag is valid (registered and not
 * invalidated); it belongs to the stream's Protection Domain and, when bound to one, to the stream's QP (DDP-33); it
 * grants the access right; its TO lies inside the buffer; TO + length does not carry out of 64 bits; TO + length does
 * not pass the bound. "Wraps" is read literally as the 64-bit sum overflowing (a sum of exactly 2^64 wraps), which is
 * why it is checked before the bound: a wrapped sum would look small. The same failure is reported with a different
 * layer and code by each kind of access (T-17), so each has its own mapping:
 * <ul>
 * <li>{@link #checkPlacement}: inbound RDMA Write and Read Response, DDP Layer 1/1/xx (E-D1 … E-D6);</li>
 * <li>{@link #checkReadSource}: the source of an inbound Read Request, RDMAP 0/1/xx (E-R1 … E-R5);</li>
 * <li>{@link #checkAtomic}: the target of an inbound Atomic Request, RDMAP 0/1/xx with R=0 (E-R18), then 64-bit
 * alignment of the target address (E-R16);</li>
 * <li>{@link #invalidateRemote}: the Invalidate STag of an inbound Send with (SE and) Invalidate (E-R6).</li>
 * </ul>
 */
public final class StagTable {

    /** A remote access right of a registered buffer. */
    public enum Access {
        /** Target of RDMA Read Requests. */
        REMOTE_READ,
        /**
         * Target of RDMA Writes, and the sink of Read Responses (a Read Response is a tagged placement by the peer).
         */
        REMOTE_WRITE,
        /** Target of Atomic Requests. RFC 7306 defines no such right; this project adds one (Appendix B item 7). */
        REMOTE_ATOMIC
    }

    /**
     * The stream an access arrives on.
     *
     * @param pd its Protection Domain
     * @param qp its queue pair (one DDP stream each)
     */
    public record Stream(int pd, int qp) {
    }

    /**
     * A registered buffer.
     *
     * @param stag      its STag
     * @param pd        the Protection Domain it belongs to
     * @param qp        the QP it is bound to, or empty for every stream of the PD
     * @param access    the remote rights it grants
     * @param va        host address of its first octet
     * @param length    octets
     * @param zeroBased TOs count from 0 at {@code va}; otherwise the TO is the host address itself (VA-based)
     */
    public record Region(int stag, int pd, OptionalInt qp, Set<Access> access, long va, long length,
            boolean zeroBased) {

        public Region {
            access = Set.copyOf(access);
            if (length < 0 || va != 0 && Long.compareUnsigned(length, -va) > 0) {
                throw new IllegalArgumentException("region " + Long.toUnsignedString(va) + " + " + length
                        + " is not inside the 64-bit address space");
            }
        }

        /** The TO of the first octet: 0 when zero-based, else {@code va}. */
        public long firstTo() {
            return zeroBased ? 0 : va;
        }

        /** The host address of the octet at {@code to}. */
        public long address(long to) {
            return zeroBased ? va + to : to;
        }

        boolean usableBy(Stream s) {
            return pd == s.pd() && (qp.isEmpty() || qp.getAsInt() == s.qp());
        }
    }

    /** Why an access fails, before it is mapped to the cause of its kind of access. */
    private enum Fault {
        INVALID, NOT_ASSOCIATED, NO_RIGHT, TO_OUT_OF_RANGE, WRAP, END_OUT_OF_RANGE
    }

    private final Map<Integer, Region> regions = new HashMap<>();

    /** Makes a region's STag valid. */
    public void register(Region r) {
        if (regions.putIfAbsent(r.stag(), r) != null) {
            throw new IllegalArgumentException(String.format("STag %08x is already valid", r.stag()));
        }
    }

    /** Local invalidation or deregistration: the STag is no longer valid (DDP-34). Returns whether it was. */
    public boolean invalidate(int stag) {
        return regions.remove(stag) != null;
    }

    /** Whether the STag is currently valid. */
    public boolean isValid(int stag) {
        return regions.containsKey(stag);
    }

    /**
     * The region a valid STag names, for turning a checked TO into a host address ({@link Region#address}); empty
     * when the STag is not valid. Lookup only: the checks are {@link #checkPlacement} and its siblings.
     */
    public Optional<Region> region(int stag) {
        return Optional.ofNullable(regions.get(stag));
    }

    /**
     * Checks a tagged placement of {@code length} octets at {@code stag}/{@code to} (DDP-30). A zero-length segment is
     * not checked at all (DDP-19).
     */
    public Optional<TerminateCause> checkPlacement(Stream s, int stag, long to, long length) {
        if (length == 0) {
            return Optional.empty();
        }
        return fault(s, stag, to, length, Access.REMOTE_WRITE).map(f -> switch (f) {
            case INVALID -> TerminateCause.DDP_INVALID_STAG;
            case NOT_ASSOCIATED -> TerminateCause.DDP_STAG_NOT_ASSOCIATED;
            case NO_RIGHT -> TerminateCause.DDP_PLACEMENT_NOT_ALLOWED;
            case TO_OUT_OF_RANGE -> TerminateCause.DDP_TO_OUT_OF_BOUNDS;
            case WRAP -> TerminateCause.DDP_TO_WRAP;
            case END_OUT_OF_RANGE -> TerminateCause.DDP_END_OUT_OF_BOUNDS;
        });
    }

    /**
     * Checks the source of a Read Request of {@code readSize} octets (RDMAP-19 a–e). RDMARDSZ = 0 is not checked
     * (RDMAP-09).
     */
    public Optional<TerminateCause> checkReadSource(Stream s, int stag, long to, long readSize) {
        if (readSize == 0) {
            return Optional.empty();
        }
        return fault(s, stag, to, readSize, Access.REMOTE_READ).map(f -> switch (f) {
            case INVALID -> TerminateCause.READ_INVALID_STAG;
            case NOT_ASSOCIATED -> TerminateCause.READ_STAG_NOT_ASSOCIATED;
            case NO_RIGHT -> TerminateCause.READ_ACCESS_RIGHTS;
            case TO_OUT_OF_RANGE, END_OUT_OF_RANGE -> TerminateCause.READ_BASE_BOUNDS;
            case WRAP -> TerminateCause.READ_TO_WRAP;
        });
    }

    /**
     * Checks the 8-octet target of an Atomic Request (RDMAP-44, E-R18), then that its host address is 64-bit aligned
     * (RDMAP-34, E-R16): the address, not the TO, as T-26 recommends (Appendix B item 7).
     */
    public Optional<TerminateCause> checkAtomic(Stream s, int stag, long to) {
        Optional<TerminateCause> protection = fault(s, stag, to, Long.BYTES, Access.REMOTE_ATOMIC).map(f -> switch (f) {
            case INVALID -> TerminateCause.ATOMIC_INVALID_STAG;
            case NOT_ASSOCIATED -> TerminateCause.ATOMIC_STAG_NOT_ASSOCIATED;
            case NO_RIGHT -> TerminateCause.ATOMIC_ACCESS_RIGHTS;
            case TO_OUT_OF_RANGE, END_OUT_OF_RANGE -> TerminateCause.ATOMIC_BASE_BOUNDS;
            case WRAP -> TerminateCause.ATOMIC_TO_WRAP;
        });
        if (protection.isPresent() || (regions.get(stag).address(to) & (Long.BYTES - 1)) == 0) {
            return protection;
        }
        return Optional.of(TerminateCause.ATOMIC_MISALIGNED);
    }

    /**
     * The remote invalidation a Send with (SE and) Invalidate asks for (RDMAP-13). An STag that is unknown or already
     * invalid fails with the operation cause 0/2/09, one of another PD or QP with the protection cause 0/1/09 (E-R6;
     * the EType split follows siw), and so does one bound to no QP: an STag shared by the streams of a PD is not
     * invalidatable by a remote peer (RFC 5040 §8.1.1 item 7, RDMAP-26; E-R6 "not invalidatable"). On
     * success the STag is no longer valid.
     */
    public Optional<TerminateCause> invalidateRemote(Stream s, int stag) {
        Region r = regions.get(stag);
        if (r == null) {
            return Optional.of(TerminateCause.INVALIDATE_OPERATION);
        }
        if (!r.usableBy(s) || r.qp().isEmpty()) {
            return Optional.of(TerminateCause.INVALIDATE_PROTECTION);
        }
        regions.remove(stag);
        return Optional.empty();
    }

    private Optional<Fault> fault(Stream s, int stag, long to, long length, Access right) {
        Region r = regions.get(stag);
        if (r == null) {
            return Optional.of(Fault.INVALID);
        }
        if (!r.usableBy(s)) {
            return Optional.of(Fault.NOT_ASSOCIATED);
        }
        if (!r.access().contains(right)) {
            return Optional.of(Fault.NO_RIGHT);
        }
        long offset = to - r.firstTo();
        if (Long.compareUnsigned(to, r.firstTo()) < 0 || Long.compareUnsigned(offset, r.length()) >= 0) {
            return Optional.of(Fault.TO_OUT_OF_RANGE);
        }
        if (Long.compareUnsigned(to + length, to) < 0) {
            return Optional.of(Fault.WRAP);
        }
        if (Long.compareUnsigned(length, r.length() - offset) > 0) {
            return Optional.of(Fault.END_OUT_OF_RANGE);
        }
        return Optional.empty();
    }
}
