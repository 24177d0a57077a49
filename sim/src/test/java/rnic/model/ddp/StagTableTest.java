package rnic.model.ddp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.model.TerminateAssert.assertCause;

import java.math.BigInteger;
import java.util.EnumSet;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import rnic.model.ddp.StagTable.Access;
import rnic.model.ddp.StagTable.Region;
import rnic.model.ddp.StagTable.Stream;
import rnic.wire.TerminateCause;

/**
 * The memory-protection model: every check of DDP-30 and RDMAP-19, with the docs/requirements.md §3.2/§3.3 row each failure
 * produces, zero-based and VA-based buffers, the zero-length exemptions, atomic targets and remote invalidation, and a
 * random comparison against a big-integer restatement of the checks.
 *
 * <p>Requirements: DDP-11, DDP-19, DDP-30, DDP-32, DDP-33, DDP-34, RDMAP-09, RDMAP-13, RDMAP-19, RDMAP-26 (PD and
 * range checks), RDMAP-34, RDMAP-44; rows E-D1 … E-D6, E-R1 … E-R5, E-R6, E-R16, E-R18.
 */
class StagTableTest {
    static final Stream QP7 = new Stream(1, 7);
    static final Stream QP8 = new Stream(1, 8);
    static final Stream OTHER_PD = new Stream(2, 7);
    static final int VA_BASED = 0x100;
    static final int ZERO_BASED = 0x200;
    static final int BOUND_TO_QP7 = 0x300;
    static final int READ_ONLY = 0x400;
    static final int TOP = 0x500;
    static final Set<Access> ALL = EnumSet.allOf(Access.class);

    static StagTable table() {
        StagTable t = new StagTable();
        t.register(new Region(VA_BASED, 1, OptionalInt.empty(), ALL, 0x10000, 0x1000, false));
        t.register(new Region(ZERO_BASED, 1, OptionalInt.empty(), ALL, 0x20004, 0x1000, true));
        t.register(new Region(BOUND_TO_QP7, 1, OptionalInt.of(7), ALL, 0x30000, 0x1000, false));
        t.register(new Region(READ_ONLY, 1, OptionalInt.empty(), Set.of(Access.REMOTE_READ), 0x40000, 0x1000, false));
        t.register(new Region(TOP, 1, OptionalInt.empty(), ALL, 0xFFFF_FFFF_FFFF_F000L, 0x1000, false));
        return t;
    }

    static void assertFails(String table, TerminateCause expected, Optional<TerminateCause> actual) {
        assertTrue(actual.isPresent(), "expected " + expected);
        assertCause(table, expected, actual.get());
    }

    /** DDP-30: accesses that fill a buffer exactly pass, with TOs counted from 0 or from the VA. */
    @Test
    void inBoundsPlacementPasses() {
        StagTable t = table();
        assertEquals(Optional.empty(), t.checkPlacement(QP7, VA_BASED, 0x10000, 0x1000));
        assertEquals(Optional.empty(), t.checkPlacement(QP8, VA_BASED, 0x10FFF, 1));
        assertEquals(Optional.empty(), t.checkPlacement(QP7, ZERO_BASED, 0, 0x1000));
        assertEquals(Optional.empty(), t.checkPlacement(QP7, BOUND_TO_QP7, 0x30800, 0x800));
        assertEquals(Optional.empty(), t.checkPlacement(QP7, TOP, 0xFFFF_FFFF_FFFF_F000L, 0x800));
    }

    /** E-D1: an unknown STag, and one deregistered or invalidated (DDP-30 check 1, DDP-34), is 1/1/00. */
    @Test
    void invalidStag() {
        StagTable t = table();
        assertFails("1/1/00 110", TerminateCause.DDP_INVALID_STAG, t.checkPlacement(QP7, 0x999, 0x10000, 4));
        assertTrue(t.invalidate(VA_BASED));
        assertFalse(t.isValid(VA_BASED));
        assertFails("1/1/00 110", TerminateCause.DDP_INVALID_STAG, t.checkPlacement(QP7, VA_BASED, 0x10000, 4));
        assertFalse(t.invalidate(VA_BASED));
    }

    /**
     * E-D5: an STag of PD 1 used on a QP of PD 2, and an STag bound to QP 7 used on QP 8, are 1/1/02; association
     * is checked before rights and bounds (DDP-33, RDMAP-26).
     */
    @Test
    void stagNotAssociated() {
        StagTable t = table();
        assertFails("1/1/02 110", TerminateCause.DDP_STAG_NOT_ASSOCIATED, t.checkPlacement(OTHER_PD, VA_BASED, 0, 4));
        assertFails("1/1/02 110", TerminateCause.DDP_STAG_NOT_ASSOCIATED,
                t.checkPlacement(QP8, BOUND_TO_QP7, 0x30000, 4));
    }

    /** E-D2: a Write to a buffer without remote-write right is 1/1/00 (DDP-30 check 2; T-16, Appendix B item 2). */
    @Test
    void placementNotAllowed() {
        assertFails("1/1/00 110", TerminateCause.DDP_PLACEMENT_NOT_ALLOWED,
                table().checkPlacement(QP7, READ_ONLY, 0x40000, 4));
    }

    /**
     * E-D3: a TO below the base or at the bound is 1/1/01; a zero-based buffer's TOs do not include its VA (DDP-30
     * check 3).
     */
    @Test
    void toOutOfBounds() {
        StagTable t = table();
        assertFails("1/1/01 110", TerminateCause.DDP_TO_OUT_OF_BOUNDS, t.checkPlacement(QP7, VA_BASED, 0xFFFF, 1));
        assertFails("1/1/01 110", TerminateCause.DDP_TO_OUT_OF_BOUNDS, t.checkPlacement(QP7, VA_BASED, 0x11000, 1));
        assertFails("1/1/01 110", TerminateCause.DDP_TO_OUT_OF_BOUNDS, t.checkPlacement(QP7, ZERO_BASED, 0x20004, 1));
    }

    /** E-D4: TO in range but TO + length one octet past the bound is 1/1/01 (DDP-30 check 4). */
    @Test
    void endOutOfBounds() {
        StagTable t = table();
        assertFails("1/1/01 110", TerminateCause.DDP_END_OUT_OF_BOUNDS, t.checkPlacement(QP7, VA_BASED, 0x10F00, 0x101));
        assertFails("1/1/01 110", TerminateCause.DDP_END_OUT_OF_BOUNDS, t.checkPlacement(QP7, ZERO_BASED, 1, 0x1000));
    }

    /** E-D6: TO = 2^64−2 with length 4 wraps, 1/1/03 (DDP-30 check 5, its test). */
    @Test
    void toWrap() {
        assertFails("1/1/03 110", TerminateCause.DDP_TO_WRAP, table().checkPlacement(QP7, TOP, -2L, 4));
    }

    /** DDP-19: a zero-length tagged segment is not checked, even with STag 0xFFFFFFFF and TO 2^64−1. */
    @Test
    void zeroLengthIsNotChecked() {
        assertEquals(Optional.empty(), table().checkPlacement(OTHER_PD, 0xFFFF_FFFF, -1L, 0));
    }

    /** E-R1 … E-R5: the Read Request source checks, 0/1/00 … 0/1/04 with the RDMA header (RDMAP-19 a–e, T-17). */
    @Test
    void readSourceChecks() {
        StagTable t = table();
        assertEquals(Optional.empty(), t.checkReadSource(QP7, READ_ONLY, 0x40000, 0x1000));
        assertFails("0/1/00 111", TerminateCause.READ_INVALID_STAG, t.checkReadSource(QP7, 0x999, 0, 1));
        assertFails("0/1/01 111", TerminateCause.READ_BASE_BOUNDS, t.checkReadSource(QP7, READ_ONLY, 0x3FFFF, 1));
        assertFails("0/1/01 111", TerminateCause.READ_BASE_BOUNDS, t.checkReadSource(QP7, READ_ONLY, 0x40001, 0x1000));
        assertFails("0/1/02 111", TerminateCause.READ_ACCESS_RIGHTS, writeOnly().checkReadSource(QP7, 1, 0, 1));
        assertFails("0/1/03 111", TerminateCause.READ_STAG_NOT_ASSOCIATED,
                t.checkReadSource(OTHER_PD, READ_ONLY, 0x40000, 1));
        // SrcTO + RDMARDSZ = 2^64 exactly: the 64-bit sum wraps although the last octet is in the buffer.
        assertFails("0/1/04 111", TerminateCause.READ_TO_WRAP, t.checkReadSource(QP7, TOP, -0x100L, 0x100));
    }

    /** STag 1: a zero-based buffer with the remote-write right only. */
    static StagTable writeOnly() {
        StagTable t = new StagTable();
        t.register(new Region(1, 1, OptionalInt.empty(), Set.of(Access.REMOTE_WRITE), 0, 0x100, true));
        return t;
    }

    /** RDMAP-09: a zero-length Read (RDMARDSZ = 0) validates neither SrcSTag nor SrcTO. */
    @Test
    void zeroLengthReadIsNotChecked() {
        assertEquals(Optional.empty(), table().checkReadSource(OTHER_PD, 0xDEAD, -1L, 0));
    }

    /**
     * E-R18: the Atomic target checks, 0/1/00 … 0/1/04 with R=0 (RFC 7306 §8.1), the range covering 8 octets
     * (RDMAP-44; the remote-atomic right of Appendix B item 7).
     */
    @Test
    void atomicTargetChecks() {
        StagTable t = table();
        assertEquals(Optional.empty(), t.checkAtomic(QP7, VA_BASED, 0x10FF8));
        assertFails("0/1/00 110", TerminateCause.ATOMIC_INVALID_STAG, t.checkAtomic(QP7, 0x999, 0));
        assertFails("0/1/01 110", TerminateCause.ATOMIC_BASE_BOUNDS, t.checkAtomic(QP7, VA_BASED, 0x11000));
        assertFails("0/1/01 110", TerminateCause.ATOMIC_BASE_BOUNDS, t.checkAtomic(QP7, VA_BASED, 0x10FFC));
        assertFails("0/1/02 110", TerminateCause.ATOMIC_ACCESS_RIGHTS, t.checkAtomic(QP7, READ_ONLY, 0x40000));
        assertFails("0/1/03 110", TerminateCause.ATOMIC_STAG_NOT_ASSOCIATED, t.checkAtomic(QP8, BOUND_TO_QP7, 0x30000));
        assertFails("0/1/04 110", TerminateCause.ATOMIC_TO_WRAP, t.checkAtomic(QP7, TOP, -8L));
    }

    /**
     * E-R16: a target address not 64-bit aligned is 0/2/07 (RDMAP-34, T-27): TO = base + 4 of an aligned VA-based
     * buffer, and TO 0 of a zero-based buffer registered at an address ending in 4, whose TO 4 is aligned (T-26).
     */
    @Test
    void atomicAlignment() {
        StagTable t = table();
        assertFails("0/2/07 110", TerminateCause.ATOMIC_MISALIGNED, t.checkAtomic(QP7, VA_BASED, 0x10004));
        assertFails("0/2/07 110", TerminateCause.ATOMIC_MISALIGNED, t.checkAtomic(QP7, ZERO_BASED, 0));
        assertEquals(Optional.empty(), t.checkAtomic(QP7, ZERO_BASED, 4));
    }

    /**
     * E-R6 and RDMAP-13: invalidating an unknown STag is 0/2/09, one of another PD 0/1/09 (both M D R = 1 1 0,
     * T-46); a valid one is invalidated, and a later Write to it fails with E-D1 (DDP-34).
     */
    @Test
    void remoteInvalidation() {
        StagTable t = table();
        assertFails("0/2/09 110", TerminateCause.INVALIDATE_OPERATION, t.invalidateRemote(QP7, 0x999));
        assertFails("0/1/09 110", TerminateCause.INVALIDATE_PROTECTION, t.invalidateRemote(OTHER_PD, VA_BASED));
        assertFails("0/1/09 110", TerminateCause.INVALIDATE_PROTECTION, t.invalidateRemote(QP8, BOUND_TO_QP7));
        // Shared by every stream of the PD: not invalidatable by a remote peer (RFC 5040 §8.1.1 item 7, RDMAP-26).
        assertFails("0/1/09 110", TerminateCause.INVALIDATE_PROTECTION, t.invalidateRemote(QP7, VA_BASED));
        assertTrue(t.isValid(VA_BASED), "a refused invalidation leaves the STag valid");
        assertTrue(t.isValid(BOUND_TO_QP7), "a refused invalidation leaves the STag valid");
        assertEquals(Optional.empty(), t.invalidateRemote(QP7, BOUND_TO_QP7));
        assertFalse(t.isValid(BOUND_TO_QP7));
        assertFails("1/1/00 110", TerminateCause.DDP_INVALID_STAG, t.checkPlacement(QP7, BOUND_TO_QP7, 0x30000, 4));
        assertFails("0/2/09 110", TerminateCause.INVALIDATE_OPERATION, t.invalidateRemote(QP7, BOUND_TO_QP7));
    }

    /** A region must lie inside the 64-bit address space, and an STag is registered once until invalidated. */
    @Test
    void registrationRules() {
        StagTable t = table();
        assertThrows(IllegalArgumentException.class,
                () -> new Region(9, 1, OptionalInt.empty(), ALL, 0xFFFF_FFFF_FFFF_F000L, 0x1001, false));
        assertThrows(IllegalArgumentException.class,
                () -> t.register(new Region(VA_BASED, 1, OptionalInt.empty(), ALL, 0, 1, true)));
        t.invalidate(VA_BASED);
        t.register(new Region(VA_BASED, 1, OptionalInt.empty(), ALL, 0, 1, true));
        assertEquals(Optional.empty(), t.checkPlacement(QP7, VA_BASED, 0, 1));
    }

    /**
     * DDP-30, RDMAP-19: random buffers (zero-based and VA-based, up to the top of the address space) and random
     * accesses near their edges give the cause the checks give when restated in unbounded integers.
     */
    @Test
    void randomAccessesAgainstBigIntegers() {
        Random rng = new Random(5042);
        BigInteger two64 = BigInteger.ONE.shiftLeft(64);
        for (int i = 0; i < 20000; i++) {
            long length = 1 + rng.nextInt(1 << rng.nextInt(20));
            long va = switch (rng.nextInt(3)) {
                case 0 -> -length - rng.nextInt(64); // ends at or just below 2^64
                case 1 -> rng.nextInt(1 << 20);
                default -> rng.nextLong() & 0x7FFF_FFFF_FFFF_FFFFL;
            };
            if (Long.compareUnsigned(length, -va) > 0 && va != 0) {
                va = -length;
            }
            boolean zeroBased = rng.nextBoolean();
            Set<Access> access = rng.nextInt(4) == 0 ? Set.of(Access.REMOTE_READ) : ALL;
            int pd = rng.nextInt(2);
            OptionalInt qp = rng.nextBoolean() ? OptionalInt.empty() : OptionalInt.of(rng.nextInt(2));
            StagTable t = new StagTable();
            t.register(new Region(42, pd, qp, access, va, length, zeroBased));
            Stream s = new Stream(rng.nextInt(2), rng.nextInt(2));
            int stag = rng.nextInt(8) == 0 ? 43 : 42;
            long first = zeroBased ? 0 : va;
            long to = switch (rng.nextInt(6)) {
                case 0 -> first - 1 - rng.nextInt(4);
                case 1 -> first + rng.nextInt(4);
                case 2 -> first + length - rng.nextInt(8);
                case 3 -> -1L - rng.nextInt(16);
                case 4 -> first + (long) (rng.nextDouble() * length);
                default -> rng.nextLong();
            };
            long len = 1 + rng.nextInt(rng.nextBoolean() ? 16 : 1 << 16);

            TerminateCause expected = null;
            BigInteger f = new BigInteger(Long.toUnsignedString(first));
            BigInteger bound = f.add(BigInteger.valueOf(length));
            BigInteger start = new BigInteger(Long.toUnsignedString(to));
            BigInteger end = start.add(BigInteger.valueOf(len));
            if (stag != 42) {
                expected = TerminateCause.DDP_INVALID_STAG;
            } else if (s.pd() != pd || qp.isPresent() && qp.getAsInt() != s.qp()) {
                expected = TerminateCause.DDP_STAG_NOT_ASSOCIATED;
            } else if (!access.contains(Access.REMOTE_WRITE)) {
                expected = TerminateCause.DDP_PLACEMENT_NOT_ALLOWED;
            } else if (start.compareTo(f) < 0 || start.compareTo(bound) >= 0) {
                expected = TerminateCause.DDP_TO_OUT_OF_BOUNDS;
            } else if (end.compareTo(two64) >= 0) {
                expected = TerminateCause.DDP_TO_WRAP;
            } else if (end.compareTo(bound) > 0) {
                expected = TerminateCause.DDP_END_OUT_OF_BOUNDS;
            }
            assertEquals(Optional.ofNullable(expected), t.checkPlacement(s, stag, to, len),
                    () -> String.format("va=%x len=%x zero=%b to=%x n=%x", first, length, zeroBased, to, len));
        }
    }
}
