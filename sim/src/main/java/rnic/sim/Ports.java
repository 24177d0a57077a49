package rnic.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import spinal.core.BaseType;
import spinal.core.Data;

/**
 * The top-level ports of a design by their Verilog names, for testbenches written against a port naming contract
 * rather than a class (e.g. {@code a_apb_PADDR}, {@code b_tcpTx_0_valid} of the two-RNIC top): a harness can then be
 * compiled and run before, or without, the design's Java class (rnic.sim.RnicSystem against RnicPair).
 */
public final class Ports {
    private final Tb<?> tb;
    private final Map<String, BaseType> byName = new LinkedHashMap<>();

    private Ports(Tb<?> tb) {
        this.tb = tb;
        var it = tb.dut().getAllIo().iterator();
        while (it.hasNext()) {
            BaseType bt = it.next();
            byName.put(bt.getName(), bt);
        }
    }

    /** The ports of {@code tb}'s design. */
    public static Ports of(Tb<?> tb) {
        return new Ports(tb);
    }

    /** Whether a port of that exact name exists. */
    public boolean has(String name) {
        return byName.containsKey(name);
    }

    /** The port {@code name}; fails naming the ports that share its first part when there is none. */
    public SimSignal signal(String name) {
        BaseType bt = byName.get(name);
        if (bt == null) {
            throw new IllegalArgumentException("the design " + tb.dut().definitionName() + " has no port '" + name
                    + "'" + near(name));
        }
        return tb.signal(bt);
    }

    /** The first of {@code names} that exists (for fields a bundle may or may not nest under {@code payload_}). */
    public SimSignal first(String... names) {
        for (String n : names) {
            if (has(n)) {
                return signal(n);
            }
        }
        throw new IllegalArgumentException("the design " + tb.dut().definitionName() + " has none of the ports "
                + List.of(names) + near(names[0]));
    }

    /** A field of stream port {@code stream}: {@code <stream>_payload_<field>} or {@code <stream>_<field>}. */
    public SimSignal streamField(String stream, String field) {
        return first(stream + "_payload_" + field, stream + "_" + field);
    }

    /** The valid of stream port {@code stream}: {@code <stream>_valid} or, AXI-Stream named, {@code <stream>_tvalid}. */
    public SimSignal streamValid(String stream) {
        return first(stream + "_valid", stream + "_tvalid");
    }

    /** The ready of stream port {@code stream}: {@code <stream>_ready} or {@code <stream>_tready}. */
    public SimSignal streamReady(String stream) {
        return first(stream + "_ready", stream + "_tready");
    }

    /** Port names starting with {@code prefix}, in declaration order. */
    public List<String> names(String prefix) {
        List<String> out = new ArrayList<>();
        for (String n : byName.keySet()) {
            if (n.startsWith(prefix)) {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * The port bundle of class {@code type} (e.g. {@code Axi4}) whose leaf ports all start with {@code prefix}, found
     * through the parents of the leaves; fails when there is not exactly one.
     */
    public <T extends Data> T bundle(String prefix, Class<T> type) {
        List<T> found = new ArrayList<>();
        for (Map.Entry<String, BaseType> e : byName.entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                continue;
            }
            for (Data d = e.getValue().parent(); d != null; d = d.parent()) {
                if (type.isInstance(d)) {
                    T t = type.cast(d);
                    if (!found.contains(t)) {
                        found.add(t);
                    }
                    break;
                }
            }
        }
        if (found.size() != 1) {
            throw new IllegalArgumentException("the design " + tb.dut().definitionName() + " has " + found.size()
                    + " " + type.getSimpleName() + " port bundles with ports named " + prefix + "*" + near(prefix));
        }
        return found.get(0);
    }

    private String near(String name) {
        int cut = name.indexOf('_', name.indexOf('_') + 1);
        String stem = cut > 0 ? name.substring(0, cut) : name;
        TreeSet<String> n = new TreeSet<>();
        for (String k : byName.keySet()) {
            if (k.startsWith(stem)) {
                n.add(k);
            }
        }
        if (n.isEmpty()) {
            return "; its ports are " + (byName.size() > 40 ? new ArrayList<>(byName.keySet()).subList(0, 40) + " …"
                    : byName.keySet());
        }
        return "; ports starting " + stem + ": " + n;
    }
}
