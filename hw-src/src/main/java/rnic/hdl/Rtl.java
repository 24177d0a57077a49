package rnic.hdl;

import java.io.File;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import spinal.core.Component;
import spinal.core.SpinalConfig;
import spinal.core.SpinalConfig$;
import spinal.core.SpinalReport;

/**
 * The one entry point that elaborates a Java component and writes its Verilog.
 *
 * <p>It builds SpinalHDL's default {@link SpinalConfig} (Java cannot use Scala's default arguments, so they are read
 * from the compiled {@code apply$default$N} methods), calls {@code postInitCallback} on the top as the Scala plugin
 * would, and checks that every {@link HwComponent} in the hierarchy was created through {@code child(...)}.
 */
public final class Rtl {
    private Rtl() {
    }

    /**
     * SpinalHDL's default configuration, writing into {@code targetDirectory}, one file per module (so each file's
     * name matches its module, as {@code verilator -Wall} wants, and the file list names every module).
     */
    public static SpinalConfig config(File targetDirectory) {
        SpinalConfig cfg = copyWith(reproducibleConfig(), "oneFilePerComponent", Boolean.TRUE);
        targetDirectory.mkdirs();
        cfg.targetDirectory_$eq(targetDirectory.getPath());
        return cfg;
    }

    /** The Verilog files a generation wrote, in SpinalHDL's order. */
    public static List<String> generatedFiles(SpinalReport<?> report) {
        return Scala.list(report.generatedSourcesPaths());
    }

    /**
     * SpinalHDL's default configuration without the repository's commit hash in each file's header: the Verilog of a
     * design is then the same at every commit that does not change it, so simulation models (whose cache key is the
     * Verilog) and synthesis results are reused across commits. Used for simulation and for every generation here.
     */
    public static SpinalConfig reproducibleConfig() {
        return copyWith(defaultConfig(), "headerWithRepoHash", Boolean.FALSE);
    }

    /**
     * {@code cfg.copy(name = value)}: Java cannot name a Scala default argument, so the copy is made through
     * {@code copy(...)} with every other argument read back from {@code copy$default$N}; the argument's position is
     * found by its name ({@code SpinalConfig} is a case class: {@code productElementName}), so a SpinalHDL release
     * that reorders the fields still gets the right one, and one that drops it fails here loudly.
     */
    private static SpinalConfig copyWith(SpinalConfig cfg, String name, Object value) {
        try {
            Method copy = null;
            for (Method m : SpinalConfig.class.getMethods()) {
                if (m.getName().equals("copy")) {
                    copy = m;
                }
            }
            if (copy == null || copy.getParameterCount() != cfg.productArity()) {
                throw new IllegalStateException("SpinalConfig.copy has an unexpected shape");
            }
            int index = -1;
            for (int i = 0; i < cfg.productArity(); i++) {
                if (cfg.productElementName(i).equals(name)) {
                    index = i;
                }
            }
            if (index < 0) {
                throw new IllegalStateException("SpinalConfig has no field " + name);
            }
            Object[] args = new Object[copy.getParameterCount()];
            for (int i = 0; i < args.length; i++) {
                args[i] = SpinalConfig.class.getMethod("copy$default$" + (i + 1)).invoke(cfg);
            }
            args[index] = value;
            return (SpinalConfig) copy.invoke(cfg, args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot set SpinalConfig." + name + ": " + e, e);
        }
    }

    /** Elaborates {@code top} and writes {@code <Module>.v} into {@code targetDirectory}. */
    public static <T extends Component> SpinalReport<T> generate(File targetDirectory, Supplier<T> top) {
        return generate(config(targetDirectory), top);
    }

    /**
     * Writes the Verilog of one block into {@code targetDirectory} the way it comes out inside a larger design (it is
     * elaborated under a transparent {@link BlockWrapper}, whose own files are removed), so blocks generated one by one
     * into one folder agree with the same modules inside a bigger block. Returns the Verilog files written.
     */
    public static List<String> generateBlock(File targetDirectory, Supplier<? extends Component> block) {
        SpinalReport<BlockWrapper> report = generate(targetDirectory, () -> new BlockWrapper(block));
        String wrapper = report.toplevel().definitionName();
        List<String> files = new ArrayList<>();
        for (String path : generatedFiles(report)) {
            if (new File(path).getName().equals(wrapper + ".v")) {
                new File(targetDirectory, wrapper + ".v").delete();
            } else {
                files.add(path);
            }
        }
        new File(targetDirectory, wrapper + ".lst").delete();
        return files;
    }

    /** Elaborates {@code top} with {@code cfg} and writes Verilog. */
    public static <T extends Component> SpinalReport<T> generate(SpinalConfig cfg, Supplier<T> top) {
        return cfg.generateVerilog(Scala.byName(() -> elaborate(top)));
    }

    /**
     * Calls the constructor as the Scala plugin does ({@code new Top().postInitCallback()}) and checks the scopes.
     * Also used by the simulation runtime, which elaborates through SpinalSim's own {@code compile}.
     */
    public static <T extends Component> T elaborate(Supplier<T> top) {
        T t = top.get();
        t.postInitCallback();
        List<String> bad = new ArrayList<>();
        t.walkComponents(Scala.function1(c -> {
            if (c instanceof HwComponent hc && !hc.isScopeRestored()) {
                bad.add(c.getClass().getName());
            }
        }));
        if (!bad.isEmpty()) {
            throw new IllegalStateException("components created with new instead of child(...): " + bad);
        }
        return t;
    }

    private static SpinalConfig defaultConfig() {
        try {
            Method apply = null;
            for (Method m : SpinalConfig$.class.getMethods()) {
                if (m.getName().equals("apply") && m.getReturnType() == SpinalConfig.class
                        && (apply == null || m.getParameterCount() > apply.getParameterCount())) {
                    apply = m;
                }
            }
            if (apply == null) {
                throw new IllegalStateException("SpinalConfig.apply not found");
            }
            Object[] args = new Object[apply.getParameterCount()];
            for (int i = 0; i < args.length; i++) {
                args[i] = SpinalConfig$.class.getMethod("apply$default$" + (i + 1)).invoke(SpinalConfig$.MODULE$);
            }
            return (SpinalConfig) apply.invoke(SpinalConfig$.MODULE$, args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build SpinalHDL's default SpinalConfig: " + e, e);
        }
    }
}
