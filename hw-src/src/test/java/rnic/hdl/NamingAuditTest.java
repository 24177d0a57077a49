package rnic.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.hdl.Hdl.*;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import rnic.hw.Blocks;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.Bundle;
import spinal.core.Component;
import spinal.core.UInt;

/**
 * The naming audit over the whole of {@code rnic.hw}: every block of {@link Blocks} at every width is elaborated and
 * audited, every hardware class found in {@code rnic.hw} must be reached that way, and every component or bundle class
 * there must extend the facade's base classes. Fixtures below prove the audit catches each kind of mistake.
 */
class NamingAuditTest {

    static NamingAudit auditOf(java.util.function.Supplier<? extends Component> factory, String scopePrefix) {
        NamingAudit audit = new NamingAudit(c -> c.getName().startsWith(scopePrefix));
        File dir = new File("target/naming-audit");
        Rtl.generate(dir, () -> {
            Component top = factory.get();
            // Audit before SpinalHDL allocates names: afterwards every signal has some name.
            audit.check(top);
            return top;
        });
        return audit;
    }

    @Test
    void everyHardwareFieldInRnicHwIsNamed() throws Exception {
        Set<Class<?>> audited = new java.util.HashSet<>();
        List<String> problems = new ArrayList<>();
        List<Blocks.Block> blocks = new ArrayList<>(Blocks.fpgaTops());
        for (int w : Blocks.WIDTHS) {
            blocks.addAll(Blocks.at(w));
        }
        for (Blocks.Block b : blocks) {
            NamingAudit audit = auditOf(b.factory(), "rnic.hw.");
            problems.addAll(audit.problems());
            audited.addAll(audit.componentClasses());
        }
        assertEquals(List.of(), problems);

        Set<String> unreached = new TreeSet<>();
        Set<String> notFacade = new TreeSet<>();
        for (Class<?> c : classesUnder("rnic.hw")) {
            if (Component.class.isAssignableFrom(c) && !java.lang.reflect.Modifier.isAbstract(c.getModifiers())) {
                // A vendor primitive (a BlackBox: pins and parameters, no logic) is exempt from the facade rule.
                if (spinal.core.BlackBox.class.isAssignableFrom(c)) {
                    continue;
                }
                if (!HwComponent.class.isAssignableFrom(c)) {
                    notFacade.add(c.getName());
                } else if (!audited.contains(c)) {
                    unreached.add(c.getName());
                }
            }
            if (Bundle.class.isAssignableFrom(c) && !HwBundle.class.isAssignableFrom(c)) {
                notFacade.add(c.getName());
            }
        }
        assertEquals(Set.of(), notFacade, "hardware classes in rnic.hw must extend HwComponent/HwBundle");
        assertEquals(Set.of(), unreached, "components in rnic.hw not reachable from Blocks (add them there)");
        assertTrue(audited.size() >= 1);
    }

    // ------------------------------------------------------------------ fixtures the audit must reject

    /** A bundle with one element that was never registered. */
    public static final class Leaky extends HwBundle {
        public final Bool good = field("good", in(bool()));
        public final Bits forgotten = in(bits(4));
        public final UInt misnamed = field("other", out(uint(3)));
    }

    /** A component with an unnamed register and a child built without a name. */
    public static final class Sloppy extends HwComponent {
        public final Leaky io = io(new Leaky());
        public final UInt named = regInit("named", uint(3), U(0, 3));
        public final UInt anonymous = Hdl.reg(uint(3));

        public Sloppy() {
            set(named, add(named, U(1, 3)));
            set(anonymous, named);
            set(io.misnamed, anonymous);
        }
    }

    @Test
    void auditReportsUnregisteredBundleElementsMisnamedElementsAndUnnamedSignals() {
        List<String> problems = auditOf(Sloppy::new, "rnic.hdl.").problems();
        assertEquals(3, problems.size(), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("Leaky.forgotten") && p.contains("not an element")));
        assertTrue(problems.stream().anyMatch(p -> p.contains("Leaky.misnamed") && p.contains("'other'")));
        assertTrue(problems.stream().anyMatch(p -> p.contains("Sloppy.anonymous") && p.contains("never named")));
    }

    /** Loads every class compiled under {@code pkg} from this module's classes directory. */
    static List<Class<?>> classesUnder(String pkg) throws IOException, URISyntaxException, ClassNotFoundException {
        Path root = Path.of(Blocks.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path dir = root.resolve(pkg.replace('.', '/'));
        List<Class<?>> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String rel = root.relativize(p).toString();
                if (rel.endsWith(".class")) {
                    out.add(Class.forName(rel.substring(0, rel.length() - 6).replace('/', '.'), false,
                            NamingAuditTest.class.getClassLoader()));
                }
            }
        }
        return out;
    }
}
