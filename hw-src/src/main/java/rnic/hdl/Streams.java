package rnic.hdl;

import java.util.function.Supplier;
import spinal.core.BaseType;
import spinal.core.Bundle;
import spinal.core.Data;
import spinal.lib.Stream;
import spinal.lib.Stream$;
import spinal.lib.StreamFifo;
import spinal.lib.master$;
import spinal.lib.slave$;
import scala.Tuple2;

/**
 * Stream helpers: SpinalHDL's own {@link Stream} (valid/ready/payload, with its contract: valid never depends
 * combinationally on ready, payload stable until accepted) created and connected from Java.
 */
public final class Streams {
    private Streams() {
    }

    /** {@code Stream(payloadType)}. */
    public static <T extends Data> Stream<T> stream(Supplier<T> payload) {
        return Stream$.MODULE$.apply(Hdl.hardType(payload));
    }

    /** {@code master(Stream(payloadType))}: an outgoing stream port. */
    public static <T extends Data> Stream<T> masterStream(Supplier<T> payload) {
        return master$.MODULE$.apply(stream(payload));
    }

    /** {@code slave(Stream(payloadType))}: an incoming stream port. */
    public static <T extends Data> Stream<T> slaveStream(Supplier<T> payload) {
        return slave$.MODULE$.apply(stream(payload));
    }

    /** {@code sink << source}. */
    public static <T extends Data> void connect(Stream<T> source, Stream<T> sink) {
        sink.$less$less(source);
    }

    /** {@code source.queue(depth)}: a {@link StreamFifo} of {@code depth} entries behind {@code source}. */
    public static <T extends Data> Stream<T> fifo(Stream<T> source, int depth) {
        return fifo(source, depth, 0);
    }

    /**
     * {@code source.queue(depth, latency)}: latency 0 passes a beat through an empty FIFO in the same cycle (the pop
     * side then depends combinationally on the push side); 1 or 2 register it, which breaks a combinational path
     * between the two sides at the cost of that many cycles.
     */
    public static <T extends Data> Stream<T> fifo(Stream<T> source, int depth, int latency) {
        Stream<T> pop = source.queue(depth, latency, false);
        // Every block is generated on its own into one folder, one module per file: a FIFO's module name must say
        // what it holds, or two blocks' different StreamFifo.v would collide.
        T payload = source.payload();
        pop.component().setDefinitionName("StreamFifo_" + payload.getClass().getSimpleName() + "_"
                + payload.getBitsWidth() + "x" + depth, false);
        return pop;
    }

    /**
     * A small {@link spinal.lib.StreamFifo} built from registers ({@code useVec}) instead of a memory, with the timing
     * of {@link #fifo(Stream, int, int)}: latency 0 passes a beat through an empty FIFO in the same cycle, 1 registers
     * the pop side. For a few entries: an FPGA without LUT RAM (iCE40) cannot map an asynchronously read memory, and a
     * handful of flip-flops is cheaper than a block RAM.
     */
    public static <T extends Data> Stream<T> regFifo(Stream<T> source, int depth, int latency) {
        if (latency < 0 || latency > 1) {
            throw new IllegalArgumentException("regFifo latency is 0 or 1, got " + latency);
        }
        spinal.lib.StreamFifo<T> fifo = new spinal.lib.StreamFifo<>(source.payloadType(), depth, true, latency == 0,
                true, false, true, Scala.byName(() -> scala.Option.empty()));
        fifo.postInitCallback(); // back to the parent's scope (what Scala's compiler plugin does after a new Component)
        fifo.setPartialName(source, "fifo", true); // <source>_fifo, as queue(...) names it
        T payload = source.payload();
        fifo.setDefinitionName("StreamFifo_" + payload.getClass().getSimpleName() + "_" + payload.getBitsWidth() + "x"
                + depth + "_regs", false);
        Stream<T> push = fifoPort(fifo, "push");
        connect(source, push);
        return fifoPort(fifo, "pop");
    }

    @SuppressWarnings("unchecked")
    private static <T extends Data> Stream<T> fifoPort(spinal.lib.StreamFifo<T> fifo, String name) {
        // StreamFifo's io is an anonymous Scala bundle: its push and pop are reached by name.
        try {
            java.lang.reflect.Method m = fifo.io().getClass().getMethod(name);
            m.setAccessible(true);
            return (Stream<T>) m.invoke(fifo.io());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("StreamFifo.io." + name, e);
        }
    }

    /**
     * {@code source.queue(depth)} with the FIFO's module named {@code definitionName}: spinal.lib names every FIFO
     * {@code StreamFifo}, {@code StreamFifo_1}, … per elaboration, so two blocks generated into one folder would write
     * different {@code StreamFifo.v}; a block-specific name keeps them apart.
     */
    public static <T extends Data> Stream<T> fifo(Stream<T> source, int depth, String definitionName) {
        Stream<T> out = fifo(source, depth);
        out.component().setDefinitionName(definitionName, true);
        return out;
    }

    /** {@link #fifo(Stream, int, int)} with the FIFO's module named {@code definitionName}. */
    public static <T extends Data> Stream<T> fifo(Stream<T> source, int depth, int latency, String definitionName) {
        Stream<T> out = fifo(source, depth, latency);
        out.component().setDefinitionName(definitionName, true);
        return out;
    }

    /**
     * {@code source.translateWith(payload)}: a stream with {@code source}'s valid and ready and {@code payload} (a
     * combinational function of {@code source.payload}) as its payload.
     */
    public static <T extends Data, U extends Data> Stream<U> translateWith(Stream<T> source, U payload) {
        return source.translateWith(payload);
    }

    /**
     * {@code source.m2sPipe()}: registers valid and payload (one cycle of latency, full throughput); an empty register
     * takes a beat even while the sink is stalled (SpinalHDL's default {@code collapsBubble = true}).
     */
    public static <T extends Data> Stream<T> m2sPipe(Stream<T> source) {
        // The last parameter is Scala's by-name initPayload: a function returning null means "no reset value".
        return source.m2sPipe(true, false, null, false, false, Scala.byName(() -> null));
    }

    /**
     * {@code source.s2mPipe()}: registers ready (a skid buffer of one beat: the source sees a ready that depends on no
     * logic behind the pipe; full throughput, valid and payload pass through a mux).
     */
    public static <T extends Data> Stream<T> s2mPipe(Stream<T> source) {
        return source.s2mPipe(1);
    }

    /**
     * Renames a stream port to AXI-Stream names so standard agents (cocotbext-axi, Xilinx IP) bind by prefix:
     * {@code <prefix>_tvalid}, {@code <prefix>_tready}, and {@code <prefix>_<element>} for each payload element
     * (a plain {@code Bits} payload becomes {@code <prefix>_tdata}).
     */
    public static void axisNames(Stream<?> stream, String prefix) {
        stream.valid().setName(prefix + "_tvalid");
        stream.ready().setName(prefix + "_tready");
        Data payload = stream.payload();
        if (payload instanceof Bundle bundle) {
            var it = bundle.elements().iterator();
            while (it.hasNext()) {
                Tuple2<String, Data> e = it.next();
                e._2().setName(prefix + "_" + e._1());
            }
        } else if (payload instanceof BaseType) {
            payload.setName(prefix + "_tdata");
        } else {
            throw new IllegalArgumentException("axisNames: unsupported payload " + payload);
        }
    }
}
