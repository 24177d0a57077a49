package rnic.hdl;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import scala.Tuple2;
import spinal.core.Area;
import spinal.core.Bundle;
import spinal.core.Component;
import spinal.core.Data;
import spinal.core.Nameable;

/**
 * Finds public hardware fields that were never registered: the Java counterpart of what SpinalHDL's Scala plugin
 * guarantees. Run it on a freshly elaborated hierarchy, before SpinalHDL allocates names (after that, every signal has
 * some name, e.g. {@code _zz_12}).
 *
 * <ul>
 *   <li>In a component, every public field holding a {@link Data}, {@link Component} or {@link Area} must carry a name
 *       (given by {@code field/reg/wire/child/io}); the port bundle is checked under the name {@code io}.</li>
 *   <li>In a {@link Bundle}, every public {@link Data} field must be one of the bundle's elements, under the field's
 *       name; nested bundles are checked the same way.</li>
 * </ul>
 */
public final class NamingAudit {
    private final List<String> problems = new ArrayList<>();
    private final Map<Object, Boolean> seen = new IdentityHashMap<>();
    private final java.util.function.Predicate<Class<?>> scope;

    /** Audits classes accepted by {@code scope} (e.g. those in {@code rnic.hw}). */
    public NamingAudit(java.util.function.Predicate<Class<?>> scope) {
        this.scope = scope;
    }

    /** Audits {@code top} and every component below it. */
    public NamingAudit check(Component top) {
        top.walkComponents(Scala.function1(this::checkComponent));
        return this;
    }

    /** Every problem found so far, one line each. */
    public List<String> problems() {
        return List.copyOf(problems);
    }

    /** Component classes seen by {@link #check}. */
    public java.util.Set<Class<?>> componentClasses() {
        java.util.Set<Class<?>> out = new java.util.HashSet<>();
        for (Object o : seen.keySet()) {
            if (o instanceof Component) {
                out.add(o.getClass());
            }
        }
        return out;
    }

    private void checkComponent(Component c) {
        if (seen.put(c, Boolean.TRUE) != null || !scope.test(c.getClass())) {
            return;
        }
        for (Field f : publicFields(c.getClass(), Component.class)) {
            Object v = read(f, c);
            String where = c.getClass().getName() + "." + f.getName();
            if (v instanceof Bundle b && f.getName().equals("io")) {
                checkBundle(b, where);
            } else if (v instanceof Data || v instanceof Component || v instanceof Area) {
                if (((Nameable) v).isUnnamed()) {
                    problems.add(where + " is hardware but was never named (use field/reg/wire/child/io)");
                }
                if (v instanceof Bundle b) {
                    checkBundle(b, where);
                }
            }
        }
    }

    private void checkBundle(Bundle b, String where) {
        if (seen.put(b, Boolean.TRUE) != null) {
            return;
        }
        Map<Object, String> elements = new IdentityHashMap<>();
        var it = b.elements().iterator();
        while (it.hasNext()) {
            Tuple2<String, Data> e = it.next();
            elements.put(e._2(), e._1());
        }
        if (!scope.test(b.getClass())) {
            return; // spinal.lib bundles (Stream, Flow, ...) are named by the Scala plugin
        }
        for (Field f : publicFields(b.getClass(), Bundle.class)) {
            Object v = read(f, b);
            if (!(v instanceof Data d)) {
                continue;
            }
            String name = elements.get(v);
            String at = where + " -> " + b.getClass().getSimpleName() + "." + f.getName();
            if (name == null) {
                problems.add(at + " is not an element of its bundle (register it with field(\"" + f.getName()
                        + "\", ...))");
            } else if (!name.equals(f.getName())) {
                problems.add(at + " is registered as '" + name + "', not under its field name");
            }
            if (d instanceof Bundle inner) {
                checkBundle(inner, at);
            }
        }
    }

    private static List<Field> publicFields(Class<?> cls, Class<?> stop) {
        List<Field> out = new ArrayList<>();
        for (Class<?> c = cls; c != null && c != stop && c != HwComponent.class && c != HwBundle.class;
                c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isPublic(m) && !Modifier.isStatic(m)) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    private static Object read(Field f, Object o) {
        try {
            return f.get(o);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
