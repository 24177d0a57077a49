package rnic.hw.ddp;

import java.util.Optional;
import rnic.wire.TerminateCause;

/**
 * The 3-bit verdict of a {@link DdpTagValidator} check, with the Terminate each kind of access reports it with (T-17).
 *
 * <p>Faults are listed in the order the checks are made, the first failure deciding (RFC 5041 §7.1, RFC 5040 §7.2,
 * RFC 7306 §8–§9): the STag is valid, it is associated with the stream's PD and (when bound) QP, it grants the right,
 * its TO lies inside the buffer, TO + length does not carry out of 64 bits, TO + length does not pass the bound, and
 * for an Atomic the target address is 64-bit aligned. The mapping to {@link TerminateCause} is the one of the golden
 * model {@code rnic.model.ddp.StagTable} ({@code checkPlacement}, {@code checkReadSource}, {@code checkAtomic},
 * {@code invalidateRemote}), so the RDMAP receive control can build its Terminate table from it at elaboration.
 */
public enum TagFault {
    /** The access may proceed (for {@link TagOp#INVALIDATE}: the STag is now invalid). */
    NONE(0),
    /** The STag is not valid: its index is beyond the table, its entry is not valid, or its key differs. */
    INVALID(1),
    /** The STag belongs to another Protection Domain, or is bound to another QP (DDP-33). */
    NOT_ASSOCIATED(2),
    /** The buffer does not grant the access right the operation needs. */
    NO_RIGHT(3),
    /** The TO lies outside [first TO, first TO + length) of the buffer. */
    TO_OUT_OF_RANGE(4),
    /** TO + length carries out of 64 bits (a sum of exactly 2^64 wraps). */
    WRAP(5),
    /** TO + length passes the end of the buffer. */
    END_OUT_OF_RANGE(6),
    /** An Atomic target whose host address is not a multiple of 8. */
    MISALIGNED(7);

    private final int code;

    TagFault(int code) {
        this.code = code;
    }

    /** The value on the 3-bit {@code fault} field of a result. */
    public int code() {
        return code;
    }

    /** The fault with 3-bit code {@code code}. */
    public static TagFault fromCode(int code) {
        for (TagFault f : values()) {
            if (f.code == code) {
                return f;
            }
        }
        throw new IllegalArgumentException("no tag fault has code " + code);
    }

    /** Whether a check of kind {@code op} can end with this fault. */
    public boolean possibleFor(TagOp op) {
        return switch (op) {
            case PLACE, READ -> this != MISALIGNED;
            case ATOMIC -> true;
            case INVALIDATE -> this == NONE || this == INVALID || this == NOT_ASSOCIATED;
        };
    }

    /**
     * The Terminate this fault is reported with for a check of kind {@code op}; empty for {@link #NONE}.
     *
     * @throws IllegalArgumentException when the validator never reports this fault for {@code op}
     */
    public Optional<TerminateCause> cause(TagOp op) {
        if (!possibleFor(op)) {
            throw new IllegalArgumentException(this + " is never the outcome of a " + op + " check");
        }
        if (this == NONE) {
            return Optional.empty();
        }
        return Optional.of(switch (op) {
            case PLACE -> switch (this) {
                case INVALID -> TerminateCause.DDP_INVALID_STAG;
                case NOT_ASSOCIATED -> TerminateCause.DDP_STAG_NOT_ASSOCIATED;
                case NO_RIGHT -> TerminateCause.DDP_PLACEMENT_NOT_ALLOWED;
                case TO_OUT_OF_RANGE -> TerminateCause.DDP_TO_OUT_OF_BOUNDS;
                case WRAP -> TerminateCause.DDP_TO_WRAP;
                case END_OUT_OF_RANGE -> TerminateCause.DDP_END_OUT_OF_BOUNDS;
                case NONE, MISALIGNED -> throw new AssertionError(this);
            };
            case READ -> switch (this) {
                case INVALID -> TerminateCause.READ_INVALID_STAG;
                case NOT_ASSOCIATED -> TerminateCause.READ_STAG_NOT_ASSOCIATED;
                case NO_RIGHT -> TerminateCause.READ_ACCESS_RIGHTS;
                case TO_OUT_OF_RANGE, END_OUT_OF_RANGE -> TerminateCause.READ_BASE_BOUNDS;
                case WRAP -> TerminateCause.READ_TO_WRAP;
                case NONE, MISALIGNED -> throw new AssertionError(this);
            };
            case ATOMIC -> switch (this) {
                case INVALID -> TerminateCause.ATOMIC_INVALID_STAG;
                case NOT_ASSOCIATED -> TerminateCause.ATOMIC_STAG_NOT_ASSOCIATED;
                case NO_RIGHT -> TerminateCause.ATOMIC_ACCESS_RIGHTS;
                case TO_OUT_OF_RANGE, END_OUT_OF_RANGE -> TerminateCause.ATOMIC_BASE_BOUNDS;
                case WRAP -> TerminateCause.ATOMIC_TO_WRAP;
                case MISALIGNED -> TerminateCause.ATOMIC_MISALIGNED;
                case NONE -> throw new AssertionError(this);
            };
            case INVALIDATE -> this == INVALID ? TerminateCause.INVALIDATE_OPERATION
                    : TerminateCause.INVALIDATE_PROTECTION;
        });
    }
}
