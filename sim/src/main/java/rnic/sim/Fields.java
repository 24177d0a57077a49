package rnic.sim;

import java.util.LinkedHashMap;
import java.util.Map;
import scala.Tuple2;
import spinal.core.BaseType;
import spinal.core.Bundle;
import spinal.core.Data;

/**
 * The leaf signals of a bundle port (a stream's payload, a setup record) by their field names, so a testbench sets
 * and reads a wide record by name instead of holding one {@link SimSignal} per field. Nested bundles are reached with
 * dotted names ({@code "value.qp"}).
 */
public final class Fields {
    private final Map<String, SimSignal> signals = new LinkedHashMap<>();
    private final String what;

    private Fields(String what) {
        this.what = what;
    }

    /** The fields of {@code payload} (a port bundle or a single port signal, named "" then). */
    public static Fields of(Tb<?> tb, Data payload) {
        Fields f = new Fields(payload.getName());
        f.collect(tb, "", payload);
        return f;
    }

    private void collect(Tb<?> tb, String prefix, Data d) {
        if (d instanceof BaseType bt) {
            signals.put(prefix, tb.signal(bt));
        } else if (d instanceof Bundle b) {
            var it = b.elements().iterator();
            while (it.hasNext()) {
                Tuple2<String, Data> e = it.next();
                collect(tb, prefix.isEmpty() ? e._1() : prefix + "." + e._1(), e._2());
            }
        } else {
            throw new IllegalArgumentException("cannot reach " + d + " field by field");
        }
    }

    /** The signal of field {@code name}. */
    public SimSignal signal(String name) {
        SimSignal s = signals.get(name);
        if (s == null) {
            throw new IllegalArgumentException(what + " has no field '" + name + "'; it has " + signals.keySet());
        }
        return s;
    }

    public Fields set(String name, long value) {
        signal(name).set(value);
        return this;
    }

    public Fields set(String name, boolean value) {
        signal(name).set(value);
        return this;
    }

    /** Sets a field from octets, octet 0 into bits 7:0 (zero-extended). */
    public Fields setOctets(String name, byte[] octets) {
        signal(name).setOctets(octets, 0, octets.length);
        return this;
    }

    public long get(String name) {
        return signal(name).get();
    }

    public boolean getBool(String name) {
        return signal(name).getBool();
    }

    /** A field as octets, octet 0 from bits 7:0. */
    public byte[] octets(String name) {
        return signal(name).getOctets();
    }
}
