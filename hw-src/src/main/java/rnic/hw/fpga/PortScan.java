package rnic.hw.fpga;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Scala;
import spinal.core.BaseType;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.Component;

/**
 * A timing harness around one block for per-block place and route: every input bit of the block comes from a
 * register, every output bit goes into a register, so the critical path nextpnr reports is the block's own
 * (register to register inside it, or through it from an input register to an output register), and the whole thing
 * needs four pins ({@code scanIn}, {@code scanLoad}, {@code scanOut} and the clock) whatever the block's port count.
 *
 * <p>The input registers form one shift chain fed from {@code scanIn}; the output registers ({@code captured}) are
 * sampled every cycle and copied into a second chain ({@code shadow}) when {@code scanLoad} is high, which shifts out
 * on {@code scanOut} otherwise. Every block input is therefore driven and every block output observed: synthesis can
 * trim nothing of the block. The only logic the harness adds in front of a register is the one-LUT load/shift mux of
 * {@code shadow}, which sits after {@code captured}, so it never lengthens a path of the block.
 *
 * <p>Why not registers straight on pins: the atomics unit alone has 350 input bits; an iCE40 HX8K in its largest
 * package has 206 I/O.
 */
public final class PortScan extends HwComponent {

    /** The harness's pins. */
    public static final class Io extends HwBundle {
        public final Bool scanIn;
        public final Bool scanLoad;
        public final Bool scanOut;

        public Io() {
            scanIn = field("scanIn", in(bool()));
            scanLoad = field("scanLoad", in(bool()));
            scanOut = field("scanOut", out(bool()));
        }
    }

    public final Io io;
    public final Component block;
    /** Input chain: one register per block input bit. */
    public final Bits inputs;
    /** The block's outputs, registered every cycle. */
    public final Bits captured;
    /** Output chain: loaded from {@code captured}, shifted out on {@code scanOut}. */
    public final Bits shadow;

    /**
     * @param name    the module name of the harness, e.g. {@code Crc32c_w32_PortScan}
     * @param factory builds the block (inside the harness, as its child {@code block})
     */
    public PortScan(String name, Supplier<? extends Component> factory) {
        noIoPrefix();
        io = io(new Io());
        setDefinitionName(name, true);
        block = child("block", factory::get);

        List<BaseType> ins = new ArrayList<>();
        List<BaseType> outs = new ArrayList<>();
        for (BaseType port : Scala.list(block.getAllIo().toList())) {
            (port.isInput() ? ins : outs).add(port);
        }
        int inWidth = ins.stream().mapToInt(BaseType::getBitsWidth).sum();
        int outWidth = outs.stream().mapToInt(BaseType::getBitsWidth).sum();
        if (inWidth < 1 || outWidth < 1) {
            throw new IllegalArgumentException(block.getClass().getSimpleName() + " needs inputs and outputs");
        }

        inputs = reg("inputs", bits(inWidth));
        set(inputs, inWidth == 1 ? io.scanIn.asBits() : concat(range(inputs, inWidth - 2, 0), io.scanIn.asBits()));
        int lo = 0;
        for (BaseType port : ins) {
            int w = port.getBitsWidth();
            port.assignFromBits(range(inputs, lo + w - 1, lo));
            lo += w;
        }

        captured = reg("captured", bits(outWidth));
        set(captured, catLsbFirst(outs));
        shadow = reg("shadow", bits(outWidth));
        Bits shifted = outWidth == 1 ? io.scanIn.asBits() : concat(range(shadow, outWidth - 2, 0), io.scanIn.asBits());
        set(shadow, mux(io.scanLoad, captured, shifted));
        set(io.scanOut, shadow.apply(outWidth - 1));
    }
}
