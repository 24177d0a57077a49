package rnic.hdl;

import java.util.Set;
import spinal.idslplugin.Location;

/**
 * Source locations for SpinalHDL statements written in Java.
 *
 * <p>In Scala, SpinalHDL's {@code Location} is an implicit filled in by a compiler macro at each call site. Java has no
 * macro, so the facade asks the {@link StackWalker} for the first frame that is not part of the facade itself. This
 * location names the conditions of {@code when} blocks ({@code when_Crc32c_l42}) and is attached to assignments, so
 * SpinalHDL's error reports point at the hardware author's Java line.
 */
public final class Loc {
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    /** Facade classes whose frames are skipped; their nested and lambda classes are skipped with them. */
    private static final Set<String> FACADE = Set.of(
            "rnic.hdl.Loc", "rnic.hdl.Hdl", "rnic.hdl.HwComponent", "rnic.hdl.HwBundle", "rnic.hdl.HwArea",
            "rnic.hdl.When", "rnic.hdl.Switch", "rnic.hdl.Streams", "rnic.hdl.Scala", "rnic.hdl.Rtl");

    private Loc() {
    }

    /** The location of the first caller outside the facade. */
    public static Location here() {
        StackWalker.StackFrame frame = WALKER.walk(frames -> frames
                .filter(f -> !isFacade(f.getDeclaringClass()))
                .findFirst()
                .orElse(null));
        if (frame == null) {
            return new Location("unknown", 0, 0);
        }
        // Scala's Location carries the file name without its extension ("Stream" for Stream.scala).
        String file = frame.getFileName() == null ? frame.getDeclaringClass().getSimpleName() : frame.getFileName();
        int dot = file.lastIndexOf('.');
        if (dot > 0) {
            file = file.substring(0, dot);
        }
        return new Location(file, frame.getLineNumber(), 0);
    }

    static boolean isFacade(Class<?> cls) {
        Class<?> top = cls;
        while (top.getEnclosingClass() != null) {
            top = top.getEnclosingClass();
        }
        String name = top.getName();
        int lambda = name.indexOf("$$Lambda");
        if (lambda >= 0) {
            name = name.substring(0, lambda);
        }
        return FACADE.contains(name) || name.startsWith("spinal.") || name.startsWith("scala.");
    }
}
