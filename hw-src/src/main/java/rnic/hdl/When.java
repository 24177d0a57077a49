package rnic.hdl;

import spinal.core.Bool;
import spinal.core.WhenContext;
import spinal.core.when$;
import spinal.idslplugin.Location;

/**
 * A {@code when / elsewhen / otherwise} chain built from Java lambdas.
 *
 * <pre>{@code
 * when(io.clear, () -> set(count, U(0, 8)))
 *     .elseWhen(io.inc, () -> set(count, add(count, U(1, 8))))
 *     .otherwise(() -> set(count, count));
 * }</pre>
 *
 * The condition is named {@code when_<File>_l<line>} after the Java line, as the Scala plugin would name it.
 */
public final class When {
    private final WhenContext context;

    private When(WhenContext context) {
        this.context = context;
    }

    static When start(Bool cond, Runnable body, Location loc) {
        return new When(when$.MODULE$.apply(cond, Scala.block(body), loc));
    }

    /** {@code .elsewhen(cond) { body }}. */
    public When elseWhen(Bool cond, Runnable body) {
        return new When(context.elsewhen(cond, Scala.block(body), Loc.here()));
    }

    /** {@code .otherwise { body }}; ends the chain. */
    public void otherwise(Runnable body) {
        context.otherwise(Scala.block(body));
    }
}
