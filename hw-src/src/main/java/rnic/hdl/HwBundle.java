package rnic.hdl;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import spinal.core.Bundle;
import spinal.core.Data;

/**
 * Base class of bundles written in Java.
 *
 * <p>A SpinalHDL {@link Bundle} only knows the elements that were registered with it; Scala's plugin registers every
 * {@code val}. In Java each element is declared with {@link #field}, <b>in wire order</b> (the first field is the least
 * significant part of {@code asBits}):
 *
 * <pre>{@code
 * public static final class Beat extends HwBundle {
 *     public final int width;                                  // constructor argument kept as a field
 *     public final Bits tdata;
 *     public final Bool tlast = field("tlast", bool());
 *     public Beat(int width) { this.width = width; tdata = field("tdata", bits(width)); }
 * }
 * }</pre>
 *
 * SpinalHDL copies bundles (for registers, FIFOs, {@code cloneOf}) by calling the constructor again. {@link #clone()}
 * does that from the fields that carry the constructor's parameter names (compiled with {@code -parameters}), as
 * Scala does from a case class's vals. Bundles must be top-level or static nested classes with one public
 * constructor.
 */
public class HwBundle extends Bundle {

    /** Registers {@code element} under {@code name}; call in wire order. */
    protected final <T extends Data> T field(String name, T element) {
        valCallback(element, name);
        return element;
    }

    @Override
    public Bundle clone() {
        Class<?> cls = getClass();
        if (cls.getEnclosingClass() != null && !Modifier.isStatic(cls.getModifiers())) {
            throw new IllegalStateException(cls.getName() + " must be a static nested or top-level class to be copied");
        }
        Constructor<?>[] ctors = cls.getConstructors();
        if (ctors.length != 1) {
            throw new IllegalStateException(cls.getName() + " needs exactly one public constructor to be copied, has "
                    + ctors.length);
        }
        Constructor<?> ctor = ctors[0];
        Parameter[] params = ctor.getParameters();
        Object[] args = new Object[params.length];
        for (int i = 0; i < params.length; i++) {
            Parameter p = params[i];
            if (!p.isNamePresent()) {
                throw new IllegalStateException("compile " + cls.getName() + " with -parameters so it can be copied");
            }
            args[i] = readField(cls, p.getName());
            if (args[i] instanceof Data) {
                throw new IllegalStateException(cls.getName() + ": constructor parameter '" + p.getName()
                        + "' is hardware; pass a configuration value instead");
            }
        }
        try {
            Bundle copy = (Bundle) ctor.newInstance(args);
            copy.purify();
            return copy;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot copy " + cls.getName() + ": " + e, e);
        }
    }

    private Object readField(Class<?> cls, String name) {
        for (Class<?> c = cls; c != null && c != HwBundle.class; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(this);
            } catch (NoSuchFieldException e) {
                // keep looking in the superclass
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException(cls.getName() + ": constructor parameter '" + name
                + "' must also be kept in a field of the same name so the bundle can be copied");
    }
}
