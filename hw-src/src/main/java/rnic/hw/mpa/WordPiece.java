package rnic.hw.mpa;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * Up to {@code words} 32-bit words of a packet, valid from word 0 ({@code count} of them), word 0 in bits 31:0 and
 * octet 0 of each word in its bits 7:0 (the wire order of an AXI-Stream beat). {@code last} ends the packet; a piece with {@code last} carries at least one word.
 */
public final class WordPiece extends HwBundle {
    public final int words;
    public final Bits data;
    public final UInt count;
    public final Bool last;

    public WordPiece(int words) {
        this.words = words;
        data = field("data", bits(32 * words));
        count = field("count", uint(log2Up(words + 1)));
        last = field("last", bool());
    }
}
