package rnic.hw;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import rnic.hdl.Rtl;
import spinal.core.SpinalReport;

/**
 * {@code ./rnic generate [--width W] [--out DIR]}: writes the Verilog of every block in {@link Blocks} and a file list
 * ({@code rtl.f}) into {@code DIR} (default {@code build/rtl}).
 */
public final class Generate {
    private Generate() {
    }

    public static void main(String[] args) throws IOException {
        int width = 64;
        File out = new File("build/rtl");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--width" -> width = Integer.parseInt(value(args, ++i, "--width"));
                case "--out" -> out = new File(value(args, ++i, "--out"));
                case "-h", "--help" -> {
                    System.out.println("usage: generate [--width W] [--out DIR]   W in " + Blocks.WIDTHS);
                    return;
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        List<String> files = generate(width, out);
        System.out.println("wrote " + files.size() + " Verilog file(s) and rtl.f to " + out.getPath());
    }

    /** Generates every block at {@code width} into {@code out}; returns the Verilog file names. */
    public static List<String> generate(int width, File out) throws IOException {
        out.mkdirs();
        java.util.LinkedHashSet<String> files = new java.util.LinkedHashSet<>();
        for (Blocks.Block b : Blocks.at(width)) {
            SpinalReport<?> report = Rtl.generate(out, b.factory());
            for (String path : Rtl.generatedFiles(report)) {
                String file = new File(path).getName();
                if (!new File(out, file).isFile()) {
                    throw new IOException("SpinalHDL did not write " + file);
                }
                files.add(file);
            }
        }
        List<String> list = new ArrayList<>(files);
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
