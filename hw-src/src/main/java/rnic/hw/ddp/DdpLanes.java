package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;

/**
 * Octet-lane arithmetic shared by the engines that move payload between a segment's octet grid and memory's address
 * grid ({@link DdpPlacer}, {@link DdpSegmentBuilder}). Not hardware by itself: each method builds logic in the calling
 * component.
 */
final class DdpLanes {
    private DdpLanes() {
    }

    /**
     * {@code x} rotated towards its high lanes by {@code r} octets: lane {@code l} of the result is lane
     * {@code (l − r) mod n} of {@code x}. A logarithmic rotator (one 2:1 mux level per bit of {@code r}); a rotation
     * is a permutation, so every bit of {@code x} is used.
     */
    static Bits rotateOctetsUp(Bits x, UInt r) {
        Bits y = x;
        for (int k = 0; k < r.getBitsWidth(); k++) {
            y = mux(r.apply(k), (Bits) y.rotateLeft(8 << k), y);
        }
        return y;
    }

    /** One bit per octet lane: set for lanes {@code l} with {@code from <= l} ({@code n} lanes, {@code from < n}). */
    static Bits lanesFrom(UInt from, int n) {
        List<Bool> bits = new ArrayList<>();
        for (int l = 0; l < n; l++) {
            // from <= n-1 always: a constant, so that lane is not a comparison (verilator -Wall CMPCONST).
            bits.add(l == n - 1 ? True() : le(from, U(l, from.getBitsWidth())));
        }
        return catLsbFirst(bits);
    }

    /** One bit per octet lane: set for lanes {@code l} with {@code l <= upTo} ({@code n} lanes). */
    static Bits lanesUpTo(UInt upTo, int n) {
        List<Bool> bits = new ArrayList<>();
        for (int l = 0; l < n; l++) {
            bits.add(l == 0 ? True() : le(U(l, upTo.getBitsWidth()), upTo));
        }
        return catLsbFirst(bits);
    }

    /** One bit per octet lane: set for lanes {@code l} with {@code l < below} ({@code n} lanes, {@code below < n}). */
    static Bits lanesBelow(UInt below, int n) {
        List<Bool> bits = new ArrayList<>();
        for (int l = 0; l < n; l++) {
            bits.add(l == n - 1 ? False() : lt(U(l, below.getBitsWidth()), below));
        }
        return catLsbFirst(bits);
    }

    /** Each bit of the per-lane {@code mask} repeated 8 times: a bit mask over the lanes' octets. */
    static Bits octetMask(Bits mask) {
        List<Bool> bits = new ArrayList<>();
        for (int l = 0; l < mask.getBitsWidth(); l++) {
            for (int b = 0; b < 8; b++) {
                bits.add(mask.apply(l));
            }
        }
        return catLsbFirst(bits);
    }
}
