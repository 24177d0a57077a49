package rnic.hdl;

import java.math.BigInteger;
import java.util.List;
import java.util.function.Supplier;
import spinal.core.B$;
import spinal.core.BitCount;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.Cat$;
import spinal.core.CombInit$;
import spinal.core.Data;
import spinal.core.HardType;
import spinal.core.HardType$;
import spinal.core.Mux$;
import spinal.core.Reg$;
import spinal.core.U$;
import spinal.core.UInt;
import spinal.core.Vec;
import spinal.core.in$;
import spinal.core.out$;

/**
 * The static vocabulary of hardware written in Java: {@code import static rnic.hdl.Hdl.*;}.
 *
 * <p>Each method is a thin, located call into SpinalHDL's Scala API, so the values are SpinalHDL's own types
 * ({@link Bool}, {@link UInt}, {@link Bits}, {@code Stream<T>}) and {@code spinal.lib} works on them unchanged. The
 * Scala-to-Java table is in {@code hw-src/README.md}.
 */
public final class Hdl {
    private Hdl() {
    }

    // ---------------------------------------------------------------------------------------------------- types

    /** {@code Bool()}: a one-bit signal. */
    public static Bool bool() {
        return new Bool();
    }

    /** {@code UInt(w bits)}. */
    public static UInt uint(int width) {
        return spinal.core.package$.MODULE$.UInt(new BitCount(width));
    }

    /** {@code Bits(w bits)}. */
    public static Bits bits(int width) {
        return spinal.core.package$.MODULE$.Bits(new BitCount(width));
    }

    /** {@code HardType(gen)}: a type that can be instantiated again (for streams, FIFOs and registers). */
    public static <T extends Data> HardType<T> hardType(Supplier<T> gen) {
        return HardType$.MODULE$.apply(Scala.byName(gen));
    }

    /** {@code Vec(elements)}: an indexable vector of signals of one type ({@code vec.apply(UInt)} selects). */
    public static <T extends Data> Vec<T> vec(List<T> elements) {
        return spinal.core.package$.MODULE$.Vec(Scala.seq(elements), null);
    }

    /** A {@code Vec} of {@code n} new signals of one type (a port's element {@code i} becomes {@code <port>_i}). */
    public static <T extends Data> Vec<T> vec(int n, Supplier<T> type) {
        List<T> list = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(type.get());
        }
        return vec(list);
    }

    /** {@code in(x)}: marks {@code x} as an input port of the component under construction. */
    public static <T extends Data> T in(T data) {
        return in$.MODULE$.apply(data);
    }

    /** {@code out(x)}: marks {@code x} as an output port of the component under construction. */
    public static <T extends Data> T out(T data) {
        return out$.MODULE$.apply(data);
    }

    // ------------------------------------------------------------------------------------------------- literals

    /** {@code True}. */
    public static Bool True() {
        return spinal.core.package$.MODULE$.True(Loc.here());
    }

    /** {@code False}. */
    public static Bool False() {
        return spinal.core.package$.MODULE$.False(Loc.here());
    }

    /** {@code U(value, width bits)}; {@code value} is taken as unsigned. */
    public static UInt U(long value, int width) {
        return U$.MODULE$.apply(unsigned(value), new BitCount(width));
    }

    /** {@code U(value, width bits)} for values wider than 63 bits. */
    public static UInt U(BigInteger value, int width) {
        return U$.MODULE$.apply(scala.math.BigInt.apply(value), new BitCount(width));
    }

    /** {@code B(value, width bits)}; {@code value} is taken as unsigned. */
    public static Bits B(long value, int width) {
        return B$.MODULE$.apply(unsigned(value), new BitCount(width));
    }

    /** {@code B(value, width bits)} for values wider than 63 bits. */
    public static Bits B(BigInteger value, int width) {
        return B$.MODULE$.apply(scala.math.BigInt.apply(value), new BitCount(width));
    }

    private static scala.math.BigInt unsigned(long value) {
        return scala.math.BigInt.apply(value >= 0 ? BigInteger.valueOf(value)
                : BigInteger.valueOf(value).add(BigInteger.ONE.shiftLeft(64)));
    }

    // ------------------------------------------------------------------------------------------ assignment, regs

    /** {@code target := source}. */
    public static void set(Data target, Data source) {
        target.assignFrom(source, target, Loc.here());
    }

    /** {@code target := value} for a Bool. */
    public static void set(Bool target, boolean value) {
        target.assignFrom(value ? True() : False(), target, Loc.here());
    }

    /** {@code Reg(type)}: a register without reset value. */
    public static <T extends Data> T reg(T type) {
        return Reg$.MODULE$.apply(HardType$.MODULE$.implFactory(Scala.byName(() -> type)), null, null);
    }

    /** {@code Reg(type) init(value)}: a register reset to {@code init}. */
    public static <T extends Data> T regInit(T type, Data init) {
        T r = reg(type);
        r.initFrom(init, r.initFrom$default$2());
        return r;
    }

    /** {@code RegNext(that)}: {@code that} delayed by one cycle. */
    public static <T extends Data> T regNext(T that) {
        return spinal.core.RegNext$.MODULE$.apply(that, null);
    }

    /** {@code CombInit(that)}: a combinational signal that starts as {@code that} and may be overridden later. */
    public static <T extends Data> T combInit(T that) {
        return CombInit$.MODULE$.apply(that);
    }

    // ------------------------------------------------------------------------------------------------ operators

    /** {@code a === b}. */
    public static Bool eq(Data a, Data b) {
        return a.isEqualTo(b);
    }

    /** {@code a =/= b}. */
    public static Bool neq(Data a, Data b) {
        return a.isNotEqualTo(b);
    }

    /** {@code a + b} (result width: the wider operand). */
    public static UInt add(UInt a, UInt b) {
        return a.$plus(b);
    }

    /** {@code a - b} (result width: the wider operand). */
    public static UInt sub(UInt a, UInt b) {
        return a.$minus(b);
    }

    /** {@code a < b}. */
    public static Bool lt(UInt a, UInt b) {
        return a.$less(b);
    }

    /** {@code a <= b}. */
    public static Bool le(UInt a, UInt b) {
        return a.$less$eq(b);
    }

    /**
     * {@code a <= b} for operands of different widths with the carry chain only as wide as the narrower one: the
     * wider operand's extra bits are or-reduced beside it (timing; {@link #le} would extend the narrower one and chain
     * over the full width).
     */
    public static Bool leNarrow(UInt a, UInt b) {
        int aw = a.getBitsWidth();
        int bw = b.getBitsWidth();
        if (aw > bw) {
            return and(not(range(a, aw - 1, bw).orR()), le(range(a, bw - 1, 0), b));
        }
        if (bw > aw) {
            return or(range(b, bw - 1, aw).orR(), le(a, range(b, aw - 1, 0)));
        }
        return le(a, b);
    }

    /** {@code a > b}. */
    public static Bool gt(UInt a, UInt b) {
        return a.$greater(b);
    }

    /** {@code a >= b}. */
    public static Bool ge(UInt a, UInt b) {
        return a.$greater$eq(b);
    }

    /** {@code a & b}. */
    public static Bool and(Bool a, Bool b) {
        return a.$amp$amp(b);
    }

    /** {@code a & b & ...}. */
    public static Bool and(Bool a, Bool b, Bool... more) {
        Bool r = a.$amp$amp(b);
        for (Bool m : more) {
            r = r.$amp$amp(m);
        }
        return r;
    }

    /** {@code a | b}. */
    public static Bool or(Bool a, Bool b) {
        return a.$bar$bar(b);
    }

    /** {@code a | b | ...}. */
    public static Bool or(Bool a, Bool b, Bool... more) {
        Bool r = a.$bar$bar(b);
        for (Bool m : more) {
            r = r.$bar$bar(m);
        }
        return r;
    }

    /** {@code a ^ b}. */
    public static Bool xor(Bool a, Bool b) {
        return a.$up(b);
    }

    /** {@code !a}. */
    public static Bool not(Bool a) {
        return a.unary_$bang();
    }

    /** {@code a & b} on Bits. */
    public static Bits and(Bits a, Bits b) {
        return a.$amp(b);
    }

    /** {@code a | b} on Bits. */
    public static Bits or(Bits a, Bits b) {
        return a.$bar(b);
    }

    /** {@code a ^ b} on Bits. */
    public static Bits xor(Bits a, Bits b) {
        return a.$up(b);
    }

    /** {@code ~a} on Bits. */
    public static Bits not(Bits a) {
        return a.unary_$tilde();
    }

    /** {@code a ^ b} on UInt. */
    public static UInt xor(UInt a, UInt b) {
        return a.$up(b);
    }

    /** {@code Mux(cond, whenTrue, whenFalse)}. */
    public static <T extends Data> T mux(Bool cond, T whenTrue, T whenFalse) {
        return Mux$.MODULE$.apply(cond, whenTrue, whenFalse);
    }

    /** {@code Cat(a, b, c)}: as in Scala, the first argument is the most significant ({@code a ## b ## c}). */
    public static Bits cat(Data... parts) {
        return Cat$.MODULE$.apply(Scala.seq(List.of(parts)));
    }

    /** {@code Cat(list)} of a collection: element 0 is the least significant, as for a {@code Vec}'s bits. */
    public static Bits catLsbFirst(List<? extends Data> parts) {
        return Cat$.MODULE$.apply((scala.collection.Iterable<Data>) (Object) Scala.seq(List.copyOf(parts)));
    }

    /** {@code x(hi downto lo)}. */
    public static Bits range(Bits x, int hi, int lo) {
        return x.apply(lo, new BitCount(hi - lo + 1));
    }

    /** {@code x(hi downto lo)}. */
    public static UInt range(UInt x, int hi, int lo) {
        return x.apply(lo, new BitCount(hi - lo + 1));
    }

    /** {@code x << n} widened by {@code n} bits, written as a concatenation so the Verilog widths match. */
    public static UInt shl(UInt x, int n) {
        return concat(x.asBits(), B(0, n)).asUInt();
    }

    /** {@code x >> n} narrowed by {@code n} bits, written as a slice so the Verilog widths match. */
    public static UInt shr(UInt x, int n) {
        return range(x, x.getBitsWidth() - 1, n);
    }

    /** {@code a ## b}: {@code a} in the most significant bits. */
    public static Bits concat(Bits high, Bits low) {
        return high.$hash$hash(low);
    }

    // ------------------------------------------------------------------------------------------ control flow

    /** {@code when(cond) { body }}; chain {@link When#elseWhen} and {@link When#otherwise}. */
    public static When when(Bool cond, Runnable body) {
        return When.start(cond, body, Loc.here());
    }

    /** {@code switch(value) { is(...) {...} default {...} }}; close the chain with {@link Switch#build()}. */
    public static Switch switchOn(Data value) {
        return new Switch(value, Loc.here());
    }

    /** {@code log2Up(n)}: bits needed to encode {@code n} distinct values (at least 1). */
    public static int log2Up(long n) {
        return n <= 1 ? 1 : 64 - Long.numberOfLeadingZeros(n - 1);
    }

    /**
     * Round robin: the first index after {@code last} (wrapping to the lowest) whose {@code eligible} bit is set; any
     * value when none is. Linear in the number of candidates (two priority encoders): the first eligible index above
     * {@code last}, else the first eligible one from 0 (which reaches {@code last} itself last). The result has
     * {@code last}'s width.
     */
    public static UInt roundRobin(List<Bool> eligible, UInt last) {
        int n = eligible.size();
        int w = last.getBitsWidth();
        if (n == 1) {
            return U(0, w);
        }
        UInt first = U(0, w);
        UInt after = U(0, w);
        Bool anyAfter = False();
        for (int q = n - 1; q >= 0; q--) {
            first = mux(eligible.get(q), U(q, w), first);
            if (q > 0) { // index 0 never comes after another
                Bool later = and(eligible.get(q), gt(U(q, w), last));
                after = mux(later, U(q, w), after);
                anyAfter = or(anyAfter, later);
            }
        }
        return mux(anyAfter, after, first);
    }
}
