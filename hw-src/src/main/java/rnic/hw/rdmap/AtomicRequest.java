package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * One Atomic Operation for {@link RdmapAtomicUnit}: the operand fields of an Atomic Request (RFC 7306 §5.2.1,
 * docs/requirements.md §2.7.3) already in the target memory's byte order, the value read from the target, the low bits of the
 * target address, and an opaque {@code tag} the unit hands back unchanged with the result.
 */
public final class AtomicRequest extends HwBundle {
    public final int tagWidth;
    /** Opaque to the unit: whatever the engine needs to finish the operation (address, stream, Request Identifier). */
    public final Bits tag;
    /** CmpSwap (AOpCode 0x2) when set, FetchAdd (0x0) when clear; other AOpCodes never reach the unit (E-R17). */
    public final Bool cmpSwap;
    /**
     * Bits 2:0 of the target address, MR base + Remote Tagged Offset (T-26): anything but 0 is a misaligned target.
     */
    public final UInt addrLow;
    /** The Original Remote Data Value read from the target. */
    public final Bits originalValue;
    /** Add Data (FetchAdd) or Swap Data (CmpSwap). */
    public final Bits addOrSwapData;
    /** Add Mask (a set bit marks the most significant bit of a field) or Swap Mask (a set bit selects Swap Data). */
    public final Bits addOrSwapMask;
    /** Compare Data (CmpSwap only). */
    public final Bits compareData;
    /** Compare Mask (CmpSwap only): the bits that must equal Compare Data. */
    public final Bits compareMask;

    public AtomicRequest(int tagWidth) {
        this.tagWidth = tagWidth;
        tag = field("tag", bits(tagWidth));
        cmpSwap = field("cmpSwap", bool());
        addrLow = field("addrLow", uint(3));
        originalValue = field("originalValue", bits(64));
        addOrSwapData = field("addOrSwapData", bits(64));
        addOrSwapMask = field("addOrSwapMask", bits(64));
        compareData = field("compareData", bits(64));
        compareMask = field("compareMask", bits(64));
    }
}
