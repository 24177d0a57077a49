package rnic.tools.fpga;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Area per block of a design synthesized with its hierarchy kept: yosys {@code stat} lists each module's own cells,
 * with its submodules as cells named after them; a block's area is its own primitives plus, recursively, those of
 * every submodule instance. The table lists the top's children and, one level down, the children of the large ones.
 */
public final class CoreTable {
    private CoreTable() {
    }

    /** Primitive cell counts of {@code module} with everything below it. */
    public static Map<String, Integer> flatten(Map<String, Map<String, Integer>> sections, String module) {
        return flatten(sections, module, new HashMap<>());
    }

    private static Map<String, Integer> flatten(Map<String, Map<String, Integer>> sections, String module,
            Map<String, Map<String, Integer>> memo) {
        Map<String, Integer> known = memo.get(module);
        if (known != null) {
            return known;
        }
        Map<String, Integer> total = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> e : sections.getOrDefault(module, Map.of()).entrySet()) {
            if (sections.containsKey(e.getKey()) && !e.getKey().equals(module)) {
                for (Map.Entry<String, Integer> sub : flatten(sections, e.getKey(), memo).entrySet()) {
                    total.merge(sub.getKey(), sub.getValue() * e.getValue(), Integer::sum);
                }
            } else {
                total.merge(e.getKey(), e.getValue(), Integer::sum);
            }
        }
        memo.put(module, total);
        return total;
    }

    /** The submodules {@code module} instantiates, with their instance counts. */
    public static Map<String, Integer> children(Map<String, Map<String, Integer>> sections, String module) {
        Map<String, Integer> c = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> e : sections.getOrDefault(module, Map.of()).entrySet()) {
            if (sections.containsKey(e.getKey()) && !e.getKey().equals(module)) {
                c.put(e.getKey(), e.getValue());
            }
        }
        return c;
    }

    /**
     * A Markdown table of {@code top}'s blocks in {@code family} terms: each child of the top (area per instance and
     * for all instances), and the children of any child holding more than a tenth of the top's LUTs.
     */
    public static String render(Family family, Map<String, Map<String, Integer>> sections, String top) {
        Family.Area whole = family.area(flatten(sections, top));
        StringBuilder s = new StringBuilder();
        s.append("| block (").append(family.id).append(") | instances | LUT (logic) | FF | BRAM | carry | ")
                .append(family == Family.XILINX ? "LUTRAM (LUT sites)" : "LUTRAM cells").append(" | share of LUT sites |\n");
        s.append("|---|---|---|---|---|---|---|---|\n");
        s.append(line(family, top, 1, whole, whole));
        List<Map.Entry<String, Integer>> kids = new ArrayList<>(children(sections, top).entrySet());
        kids.sort((a, b) -> Integer.compare(lutOf(family, sections, b.getKey()), lutOf(family, sections, a.getKey())));
        Family.Area own = family.area(sections.getOrDefault(top, Map.of()));
        for (Map.Entry<String, Integer> k : kids) {
            Family.Area one = family.area(flatten(sections, k.getKey()));
            s.append(line(family, k.getKey(), k.getValue(), times(one, k.getValue()), whole));
            if (one.lut() * k.getValue() * 10 > whole.lut()) {
                List<Map.Entry<String, Integer>> grand = new ArrayList<>(children(sections, k.getKey()).entrySet());
                grand.sort((a, b) -> Integer.compare(lutOf(family, sections, b.getKey()), lutOf(family, sections, a.getKey())));
                for (Map.Entry<String, Integer> g : grand) {
                    Family.Area ga = family.area(flatten(sections, g.getKey()));
                    s.append(line(family, "&nbsp;&nbsp;└ " + g.getKey(), g.getValue() * k.getValue(),
                            times(ga, g.getValue() * k.getValue()), whole));
                }
            }
        }
        s.append(line(family, "(glue in " + top + ")", 1, own, whole));
        return s.toString();
    }

    private static int lutOf(Family f, Map<String, Map<String, Integer>> sections, String module) {
        return f.area(flatten(sections, module)).lut();
    }

    private static Family.Area times(Family.Area a, int n) {
        return new Family.Area(a.lut() * n, a.ff() * n, a.bram() * n, a.dsp() * n, a.carry() * n, a.lutram() * n);
    }

    private static String line(Family f, String name, int n, Family.Area a, Family.Area whole) {
        return String.format(Locale.ROOT, "| %s | %d | %d | %d | %s | %d | %d | %.1f %% |%n", name, n, a.lut(), a.ff(),
                a.bram() == Math.rint(a.bram()) ? Integer.toString((int) a.bram())
                        : String.format(Locale.ROOT, "%.1f", a.bram()),
                a.carry(), a.lutram(), whole.lutSites(f) == 0 ? 0.0 : 100.0 * a.lutSites(f) / whole.lutSites(f));
    }
}
