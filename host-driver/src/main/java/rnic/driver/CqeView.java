package rnic.driver;

import rnic.wire.Cqe;
import rnic.wire.CqeKind;
import rnic.wire.RdmapOpcode;

/**
 * The fields of one completion queue entry ({@link Cqe}, little-endian), decoded in place from a slot read out of
 * host memory. Reused for every entry (no allocation while polling).
 */
public final class CqeView {
    private static final CqeKind[] KINDS = CqeKind.values();
    private static final RdmapOpcode[] OPCODES = new RdmapOpcode[16];

    static {
        for (RdmapOpcode o : RdmapOpcode.values()) {
            OPCODES[o.code()] = o;
        }
    }

    /** SQ or RQ slot index, or {@link Cqe#NO_WR_ID}. */
    public int wrId;
    public int length;
    /**
     * Immediate Data, an Atomic's original value, a received Terminate's octets 0–7 (octet 0 the most significant
     * octet of the value, as the engine's big-endian field), or an MPA error's sequence number.
     */
    public long info;
    /** The STag a received Send with Invalidate invalidated. */
    public int stag;
    public int qp;
    /** The raw {@link CqeKind} code. */
    public int kind;
    /** 0, or the cause (TerminateCause ordinal + 1, MpaErrorCode code). */
    public int status;
    /** The RDMAP opcode of the message or request. */
    public int opcode;
    public int owner;

    /** Decodes the {@value Cqe#SIZE} octets at {@code slot[0…]}. */
    public CqeView decode(byte[] slot) {
        wrId = Le.getInt(slot, Cqe.WR_ID);
        length = Le.getInt(slot, Cqe.LENGTH);
        info = Le.getLong(slot, Cqe.INFO);
        stag = Le.getInt(slot, Cqe.STAG);
        qp = Le.getU8(slot, Cqe.QP);
        kind = Le.getU8(slot, Cqe.KIND);
        status = Le.getU8(slot, Cqe.STATUS);
        opcode = Le.getU8(slot, Cqe.OPCODE);
        owner = Le.getU8(slot, Cqe.OWNER);
        return this;
    }

    /** Whether the entry belongs to a work request (else it reports a QP error: Terminate or MPA error). */
    public boolean hasWorkRequest() {
        return wrId != Cqe.NO_WR_ID;
    }

    /** The kind, or null for a code no {@link CqeKind} has. */
    public CqeKind kindOrNull() {
        return kind(kind);
    }

    /** The {@link CqeKind} of a code, or null for a code none has (a report, not a guess). */
    public static CqeKind kind(int code) {
        for (CqeKind k : KINDS) {
            if (k.code() == code) {
                return k;
            }
        }
        return null;
    }

    /** The RDMAP opcode of octet {@link Cqe#OPCODE}, or null for an unassigned one (no allocation). */
    public RdmapOpcode rdmapOpcode() {
        return OPCODES[opcode & 0xF];
    }
}
