package rnic.hw.top;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import rnic.hdl.Rtl;
import rnic.hdl.Scala;
import spinal.lib.bus.regif.AccessType;
import spinal.lib.bus.regif.BusIf;
import spinal.lib.bus.regif.DocCHeader;
import spinal.lib.bus.regif.DocHtml;
import spinal.lib.bus.regif.DocJson;
import spinal.lib.bus.regif.RegSlice;

/**
 * Writes the register map of {@link RnicCore} from its one declaration, the regif blocks of
 * {@link RnicRegisterFile}: {@code rnic_regs.json}, {@code rnic_regs.html} and {@code rnic_regs.h} (regif's own
 * {@link DocJson}, {@link DocHtml}, {@link DocCHeader}) and the host driver's constants class
 * {@code rnic.driver.RnicRegs}. Only the register file is elaborated, so this takes about a second.
 *
 * <pre>
 *   RegisterExport [--out DIR] [--java DIR] [--width W] [--qps N] [--cqs N]
 *     --out DIR    rnic_regs.json, rnic_regs.html, rnic_regs.h into DIR
 *     --java DIR   DIR/rnic/driver/RnicRegs.java
 *     --width, --qps, --cqs   the configuration (default RnicConfig.defaults(); the offsets do not depend on it)
 * </pre>
 *
 * <p>The Java constants: for every register of the first instance of each block {@code <NAME> = offset} (absolute for
 * CORE and STAG, within the block for the repeated QP and CQ blocks), {@code <BLOCK>_BASE}, and for repeated blocks
 * {@code <BLOCK>_STRIDE}; for each register with several fields {@code <REG>_<FIELD>_SHIFT} (the field's lowest bit)
 * and {@code <REG>_<FIELD>_MASK} (its bits in place, as the C header's: {@code (value & MASK) >>> SHIFT}); and the
 * constant contents of each block's head, {@code <BLOCK>_TYPE_VALUE} and {@code <BLOCK>_VERSION_VALUE}. Blocks are
 * found the way a driver walks them: a block starts at its {@code *_TYPE} register.
 */
public final class RegisterExport {
    private RegisterExport() {
    }

    /** File name stem of the generated documents. */
    public static final String NAME = "rnic_regs";

    /** One register as declared: name, absolute byte address, fields. */
    public record Register(String name, long address, String block, boolean repeated, String instance,
            List<Field> fields) {
    }

    /** One field: name, lowest bit, width, access (regif's name), reset or constant value. */
    public record Field(String name, int lsb, int width, String access, long reset) {
    }

    /** What one elaboration of the register file yields: the registers and regif's three documents. */
    public record Export(List<Register> registers, String json, String html, String cHeader) {
    }

    public static void main(String[] args) throws IOException {
        File out = null;
        File java = null;
        RnicConfig cfg = RnicConfig.defaults();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = new File(value(args, ++i));
                case "--java" -> java = new File(value(args, ++i));
                case "--width" -> cfg = cfg.withDataWidth(Integer.parseInt(value(args, ++i)));
                case "--qps" -> cfg = cfg.withQpCount(Integer.parseInt(value(args, ++i)));
                case "--cqs" -> cfg = cfg.withCqCount(Integer.parseInt(value(args, ++i)));
                case "-h", "--help" -> {
                    System.out.println("usage: RegisterExport [--out DIR] [--java DIR] [--width W] [--qps N] [--cqs N]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + " (try --help)");
            }
        }
        if (out == null && java == null) {
            throw new IllegalArgumentException("nothing to do: give --out DIR and/or --java DIR");
        }
        Export e = export(cfg);
        if (out != null) {
            writeDocuments(e, out);
            System.out.println("wrote " + NAME + ".json, .html, .h (" + e.registers().size() + " registers) to "
                    + out.getPath());
        }
        if (java != null) {
            File f = writeJava(e, java);
            System.out.println("wrote " + f.getPath());
        }
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    /** Writes {@code rnic_regs.json}, {@code .html} and {@code .h} into {@code dir}. */
    public static void writeDocuments(Export e, File dir) throws IOException {
        dir.mkdirs();
        Files.writeString(new File(dir, NAME + ".json").toPath(), e.json());
        Files.writeString(new File(dir, NAME + ".html").toPath(), e.html());
        Files.writeString(new File(dir, NAME + ".h").toPath(), e.cHeader());
    }

    /** Writes {@code dir/rnic/driver/RnicRegs.java}; returns the file. */
    public static File writeJava(Export e, File dir) throws IOException {
        File f = new File(dir, "rnic/driver/RnicRegs.java");
        f.getParentFile().mkdirs();
        Files.writeString(f.toPath(), javaSource(e.registers()));
        return f;
    }

    /**
     * Elaborates {@link RnicRegisterFile} for {@code cfg} (its Verilog goes to a temporary folder, deleted after) and
     * reads the register declaration back while SpinalHDL's context is alive, which regif's documents need.
     */
    public static Export export(RnicConfig cfg) throws IOException {
        File tmp = Files.createTempDirectory("rnic-regs").toFile();
        Export[] result = new Export[1];
        try {
            Rtl.config(tmp).generateVerilog(Scala.byName(() -> {
                RnicRegisterFile r = Rtl.elaborate(() -> new RnicRegisterFile(cfg));
                result[0] = read(r.busif);
                return r;
            }));
        } finally {
            deleteTree(tmp);
        }
        return result[0];
    }

    private static Export read(BusIf bi) {
        bi.preCheck();
        List<Register> regs = new ArrayList<>();
        for (RegSlice s : Scala.list(bi.slices())) {
            List<Field> fields = new ArrayList<>();
            for (spinal.lib.bus.regif.Field f : Scala.list(s.getFields())) {
                int width = f.getWidth();
                fields.add(new Field(f.getName(), f.tailBitPos() - width + 1, width, f.getAccessType().toString(),
                        f.getResetValue().longValue()));
            }
            var tag = s.reuseTag();
            boolean repeated = tag.id() != 0;
            regs.add(new Register(s.getName(), s.getAddr().longValue(), repeated ? tag.blockName() : null, repeated,
                    repeated ? tag.instName() : "", List.copyOf(fields)));
        }
        regs.sort((a, b) -> Long.compare(a.address(), b.address()));
        DocJson json = new DocJson(NAME);
        json.setBusIf(bi);
        DocHtml html = new DocHtml(NAME);
        html.setBusIf(bi);
        DocCHeader header = new DocCHeader(NAME, "RNIC", "uint32_t", true, false);
        header.setBusIf(bi);
        return new Export(List.copyOf(regs), json.body(), html.body(), cHeader(header.body()));
    }

    /**
     * Makes regif's C header compile on its own: SpinalHDL 1.14.2's {@link DocCHeader} writes the offset macros of
     * repeated blocks one closing parenthesis short ({@code #define RNIC_QP_STATE(base, size, i) ((base) + ((size) *
     * (i)) + 0x0c}), and its register unions use {@code uint32_t} without including {@code <stdint.h>}.
     */
    static String cHeader(String header) {
        StringBuilder b = new StringBuilder();
        for (String line : header.split("\\n", -1)) {
            if (line.startsWith("#define ") && line.contains("(base, size, i)")) {
                long open = line.chars().filter(ch -> ch == '(').count();
                long close = line.chars().filter(ch -> ch == ')').count();
                line = line + ")".repeat((int) Math.max(0, open - close));
            }
            b.append(line).append('\n');
            if (line.startsWith("#define __") && line.endsWith("_H__")) {
                b.append("\n#include <stdint.h>\n");
            }
        }
        return b.substring(0, b.length() - 1);
    }

    /** A block of the map: its name, the instances' bases and the first instance's registers. */
    record Block(String name, boolean repeated, List<Long> bases, List<Register> registers) {
    }

    /** The blocks in address order, each from its {@code *_TYPE} register up to the next block's. */
    static List<Block> blocks(List<Register> regs) {
        Map<String, List<List<Register>>> instances = new LinkedHashMap<>();
        List<Register> current = null;
        for (Register r : regs) {
            if (r.name().endsWith("_TYPE")) {
                String name = r.name().substring(0, r.name().length() - "_TYPE".length());
                if (r.repeated() && !name.equals(r.block())) {
                    throw new IllegalStateException(r.name() + " heads a block tagged " + r.block());
                }
                current = new ArrayList<>();
                instances.computeIfAbsent(name, k -> new ArrayList<>()).add(current);
            }
            if (current == null) {
                throw new IllegalStateException(r.name() + " comes before any block's TYPE register");
            }
            current.add(r);
        }
        List<Block> out = new ArrayList<>();
        for (Map.Entry<String, List<List<Register>>> e : instances.entrySet()) {
            List<List<Register>> in = e.getValue();
            List<Register> first = in.get(0);
            List<Long> bases = new ArrayList<>();
            for (List<Register> inst : in) {
                long base = inst.get(0).address();
                bases.add(base);
                if (inst.size() != first.size()) {
                    throw new IllegalStateException("instances of block " + e.getKey() + " differ in size");
                }
                for (int i = 0; i < inst.size(); i++) {
                    if (!inst.get(i).name().equals(first.get(i).name())
                            || inst.get(i).address() - base != first.get(i).address() - first.get(0).address()) {
                        throw new IllegalStateException("instances of block " + e.getKey() + " differ at "
                                + inst.get(i).name());
                    }
                }
            }
            if (in.size() > 1) {
                long stride = bases.get(1) - bases.get(0);
                for (int i = 1; i < bases.size(); i++) {
                    if (bases.get(i) - bases.get(i - 1) != stride) {
                        throw new IllegalStateException("block " + e.getKey() + " instances are not evenly spaced");
                    }
                }
            }
            out.add(new Block(e.getKey(), first.get(0).repeated(), List.copyOf(bases), List.copyOf(first)));
        }
        return out;
    }

    /**
     * The constants of {@code rnic.driver.RnicRegs}, name to value, in the order they are written: per block
     * {@code <BLOCK>_BASE}, {@code <BLOCK>_STRIDE}, the register offsets, the TYPE/VERSION values and the field
     * SHIFT/MASK pairs.
     */
    public static Map<String, Integer> constants(List<Register> regs) {
        Map<String, Integer> c = new LinkedHashMap<>();
        for (Block blk : blocks(regs)) {
            long base = blk.bases().get(0);
            put(c, blk.name() + "_BASE", base);
            if (blk.repeated()) {
                if (blk.bases().size() > 1) {
                    put(c, blk.name() + "_STRIDE", blk.bases().get(1) - base);
                } else {
                    System.err.println("[RegisterExport] warning: one instance of block " + blk.name()
                            + ": no " + blk.name() + "_STRIDE (export with at least two)");
                }
            }
            for (Register r : blk.registers()) {
                put(c, r.name(), blk.repeated() ? r.address() - base : r.address());
            }
            for (Register r : blk.registers()) {
                List<Field> named = r.fields().stream().filter(f -> !f.access().equals(AccessType.NA$.MODULE$
                        .toString())).toList();
                if (r.name().equals(blk.name() + "_TYPE") || r.name().equals(blk.name() + "_VERSION")) {
                    put(c, r.name() + "_VALUE", named.get(0).reset());
                }
                if (named.size() > 1) {
                    for (Field f : named) {
                        String n = r.name() + "_" + f.name().toUpperCase();
                        put(c, n + "_SHIFT", f.lsb());
                        put(c, n + "_MASK", ((1L << f.width()) - 1) << f.lsb());
                    }
                }
            }
        }
        return c;
    }

    private static void put(Map<String, Integer> c, String name, long value) {
        if (c.put(name, (int) value) != null) {
            throw new IllegalStateException("register constant " + name + " defined twice");
        }
    }

    /** The source of {@code rnic.driver.RnicRegs}. */
    static String javaSource(List<Register> regs) {
        StringBuilder b = new StringBuilder();
        b.append("package rnic.driver;\n\n");
        b.append("/**\n * Register offsets of the RnicCore, generated by rnic.hw.top.RegisterExport from the regif"
                + " declaration in\n * rnic.hw.top.RnicRegisterFile (do not edit). QP_* and CQ_* offsets are within a"
                + " block: the register of\n * QP q is at QP_BASE + q * QP_STRIDE + QP_x. A field is"
                + " (value & REG_FIELD_MASK) >>> REG_FIELD_SHIFT.\n */\n");
        b.append("public final class RnicRegs {\n    private RnicRegs() {\n    }\n");
        String block = null;
        for (Map.Entry<String, Integer> e : constants(regs).entrySet()) {
            if (e.getKey().endsWith("_BASE") && !e.getKey().equals(block)) {
                block = e.getKey();
                b.append("\n    // ---- block ").append(e.getKey(), 0, e.getKey().length() - "_BASE".length())
                        .append('\n');
            }
            b.append("    public static final int ").append(e.getKey()).append(" = ")
                    .append(String.format("0x%X", e.getValue())).append(";\n");
        }
        b.append("}\n");
        return b.toString();
    }


    private static void deleteTree(File f) {
        File[] children = f.listFiles();
        if (children != null) {
            for (File c : children) {
                deleteTree(c);
            }
        }
        f.delete();
    }
}
