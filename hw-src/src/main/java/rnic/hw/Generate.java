package rnic.hw;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import rnic.hdl.Rtl;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.top.RegisterExport;
import rnic.hw.top.RnicConfig;

/**
 * {@code ./rnic generate [--width W] [--out DIR] [--regs DIR]}: writes the Verilog of every block in {@link Blocks} and
 * a file list ({@code rtl.f}) into {@code DIR} (default {@code build/rtl}); with {@code --regs}, also the register map
 * of the RNIC core (JSON, HTML, C header; {@link RegisterExport}) into that folder.
 */
public final class Generate {
    private Generate() {
    }

    public static void main(String[] args) throws IOException {
        int width = 64;
        File out = new File("build/rtl");
        File regs = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--width" -> width = Integer.parseInt(value(args, ++i, "--width"));
                case "--out" -> out = new File(value(args, ++i, "--out"));
                case "--regs" -> regs = new File(value(args, ++i, "--regs"));
                case "-h", "--help" -> {
                    System.out.println("usage: generate [--width W] [--out DIR] [--regs DIR]   W in " + Blocks.WIDTHS);
                    return;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        List<String> files = generate(width, out);
        System.out.println("wrote " + files.size() + " Verilog file(s) and rtl.f to " + out.getPath());
        if (regs != null) {
            RnicConfig cfg = DdpConfig.WIDTHS.contains(width) ? RnicConfig.defaults().withDataWidth(width)
                    : RnicConfig.defaults();
            RegisterExport.writeDocuments(RegisterExport.export(cfg), regs);
            System.out.println("wrote the register map (" + RegisterExport.NAME + ".json, .html, .h) to "
                    + regs.getPath());
        }
    }

    /** Generates every block at {@code width} into {@code out}; returns the Verilog file names. */
    public static List<String> generate(int width, File out) throws IOException {
        out.mkdirs();
        // Blocks are elaborated one by one into one folder: a module two blocks share must come out the same in both.
        java.util.Map<String, String> written = new java.util.LinkedHashMap<>();
        java.util.Map<String, String> writer = new java.util.HashMap<>();
        for (Blocks.Block b : Blocks.at(width)) {
            for (String path : Rtl.generateBlock(out, b.factory())) {
                File f = new File(out, new File(path).getName());
                if (!f.isFile()) {
                    throw new IOException("SpinalHDL did not write " + f.getName());
                }
                String text = Files.readString(f.toPath());
                String before = written.putIfAbsent(f.getName(), text);
                if (before != null && !before.equals(text)) {
                    throw new IOException(f.getName() + " differs between blocks " + writer.get(f.getName()) + " and "
                            + b.name() + ": give the module a definition name that includes its parameters");
                }
                writer.putIfAbsent(f.getName(), b.name());
            }
        }
        List<String> list = new ArrayList<>(written.keySet());
        Files.write(new File(out, "rtl.f").toPath(), list);
        return list;
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }
}
