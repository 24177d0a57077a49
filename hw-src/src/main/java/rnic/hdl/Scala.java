package rnic.hdl;

import java.util.List;
import java.util.function.Supplier;
import scala.Function0;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.BoxedUnit;

/** Bridges between Java lambdas/collections and the Scala types SpinalHDL's API takes. Internal to the facade. */
public final class Scala {
    private Scala() {
    }

    /** A Scala by-name block ({@code => Unit}) from a Java {@link Runnable}. */
    public static Function0<BoxedUnit> block(Runnable body) {
        return () -> {
            body.run();
            return BoxedUnit.UNIT;
        };
    }

    /** A Scala by-name value ({@code => T}) from a Java {@link Supplier}. */
    public static <T> Function0<T> byName(Supplier<T> body) {
        return body::get;
    }

    /** A Scala {@code T => Unit} function from a Java {@link java.util.function.Consumer}. */
    public static <T> scala.Function1<T, BoxedUnit> function1(java.util.function.Consumer<T> body) {
        return t -> {
            body.accept(t);
            return BoxedUnit.UNIT;
        };
    }

    /** An immutable Scala {@code Seq} holding the given elements in order. */
    @SafeVarargs
    public static <T> scala.collection.immutable.Seq<T> seq(T... elements) {
        return CollectionConverters.asScala(List.of(elements)).toSeq();
    }

    /** An immutable Scala {@code Seq} view of a Java list. */
    public static <T> scala.collection.immutable.Seq<T> seq(List<T> elements) {
        return CollectionConverters.asScala(elements).toSeq();
    }

    /** A Java list copy of a Scala collection. */
    public static <T> List<T> list(scala.collection.Iterable<T> elements) {
        List<T> out = new java.util.ArrayList<>();
        elements.foreach(function1(out::add));
        return List.copyOf(out);
    }
}
