package rnic.hdl;

import java.util.List;
import java.util.function.Supplier;
import spinal.core.BaseType;
import spinal.core.Component;
import spinal.core.cloneOf$;

/**
 * A transparent top around one block, used by {@link Rtl#generateBlock}: every port of the block is a port of the
 * wrapper under the same name, wired straight through, so the block's own Verilog comes out as it does when the block
 * sits inside a larger design.
 *
 * <p>Why: SpinalHDL drops the toplevel from the name path of signals derived from a child's ports (a child's
 * {@code done.fire} is {@code done_fire} in the toplevel, {@code placer_done_fire} one level down), so a block generated
 * as the toplevel and the same block inside another design would write two different files of one module name.
 */
final class BlockWrapper extends HwComponent {
    /** Suffix of the wrapper's module name; its file is not part of the output. */
    static final String SUFFIX = "_BlockWrapper";

    final Component block;

    BlockWrapper(Supplier<? extends Component> factory) {
        block = child("block", factory::get);
        setDefinitionName(block.getClass().getSimpleName() + SUFFIX, true);
        List<BaseType> ports = Scala.list(block.getAllIo().toList());
        for (BaseType port : ports) {
            BaseType mirror = (BaseType) cloneOf$.MODULE$.apply(port);
            if (port.isInput()) {
                Hdl.in(mirror);
                Hdl.set(port, mirror);
            } else {
                Hdl.out(mirror);
                Hdl.set(mirror, port);
            }
            mirror.setName(port.getName());
        }
    }
}
