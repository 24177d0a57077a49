package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.Bool;

/**
 * The completion of one memory command of {@link DdpPlacer} or {@link DdpSegmentBuilder}, in command order: the
 * command's tag and whether the memory answered any of its bursts with an error ({@code xRESP} ≠ OKAY). The engines
 * turn an error into a local catastrophic error of the stream (docs/requirements.md §3, Terminate 0/0/00 "Local
 * Catastrophic"; RFC 5040 §5.4) — the memory, not the peer, failed.
 */
public final class MemoryDone extends HwBundle {
    public final int tagWidth;
    /** The command's tag, unchanged. */
    public final Bits tag;
    /** A burst of the command was answered SLVERR or DECERR. */
    public final Bool error;

    public MemoryDone(int tagWidth) {
        this.tagWidth = tagWidth;
        tag = field("tag", bits(tagWidth));
        error = field("error", bool());
    }
}
