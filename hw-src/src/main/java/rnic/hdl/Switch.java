package rnic.hdl;

import java.util.ArrayList;
import java.util.List;
import spinal.core.BaseType;
import spinal.core.Data;
import spinal.core.default$;
import spinal.core.is$;
import spinal.core.switch$;
import spinal.idslplugin.Location;

/**
 * A {@code switch(value) { is(...) ... default ... }} built from Java lambdas.
 *
 * <pre>{@code
 * switchOn(state)
 *     .is(IDLE, () -> ...)
 *     .is(List.of(A, B), () -> ...)
 *     .otherwise(() -> ...);   // or .build() when there is no default
 * }</pre>
 *
 * SpinalHDL records the cases inside the {@code switch} block, so the cases are collected first and emitted together by
 * {@link #otherwise(Runnable)} or {@link #build()}. Case values may be SpinalHDL literals/signals or Java numbers.
 */
public final class Switch {
    private final Data value;
    private final Location loc;
    private final List<Object[]> cases = new ArrayList<>();
    private final List<Runnable> bodies = new ArrayList<>();
    private boolean built;

    Switch(Data value, Location loc) {
        if (!(value instanceof BaseType)) {
            throw new IllegalArgumentException("switchOn needs a Bool, Bits, UInt, SInt or enum signal, got " + value);
        }
        this.value = value;
        this.loc = loc;
    }

    /** {@code is(keys...) { body }}. */
    public Switch is(Object key, Runnable body) {
        return is(List.of(key), body);
    }

    /** {@code is(k0, k1, ...) { body }}. */
    public Switch is(List<?> keys, Runnable body) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("is(...) needs at least one key");
        }
        cases.add(keys.toArray());
        bodies.add(body);
        return this;
    }

    /** {@code default { body }}; emits the switch. */
    public void otherwise(Runnable body) {
        emit(body);
    }

    /** Emits the switch without a default branch. */
    public void build() {
        emit(null);
    }

    private void emit(Runnable dflt) {
        if (built) {
            throw new IllegalStateException("this switch was already emitted");
        }
        built = true;
        switch$.MODULE$.apply((BaseType) value, false, false, Scala.block(() -> {
            for (int i = 0; i < cases.size(); i++) {
                Object[] keys = cases.get(i);
                Object[] rest = java.util.Arrays.copyOfRange(keys, 1, keys.length);
                is$.MODULE$.apply(keys[0], Scala.seq(rest), Scala.block(bodies.get(i)));
            }
            if (dflt != null) {
                default$.MODULE$.apply(Scala.block(dflt));
            }
        }), loc);
    }

}
