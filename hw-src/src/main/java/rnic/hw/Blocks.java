package rnic.hw;

import java.util.List;
import java.util.function.Supplier;
import rnic.hw.crc.Crc32c;
import rnic.hw.crc.Crc32cConfig;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.ddp.DdpPlacer;
import rnic.hw.ddp.DdpRxHeader;
import rnic.hw.ddp.DdpSegmentBuilder;
import rnic.hw.ddp.DdpTagValidator;
import rnic.hw.mpa.MpaRxDeframer;
import rnic.hw.mpa.MpaTxFramer;
import rnic.hw.qp.QpRings;
import rnic.hw.qp.QpRingsConfig;
import rnic.hw.rdmap.RdmapAtomicUnit;
import rnic.hw.rdmap.RdmapEngine;
import rnic.hw.rdmap.RdmapRxControl;
import rnic.hw.top.RnicConfig;
import rnic.hw.top.RnicCore;
import rnic.hw.top.RnicPair;
import spinal.core.Component;

/**
 * Every hardware block the project generates, for one data-path width. {@code ./rnic generate} writes each of these;
 * the naming audit and the lint test walk the same list, so a new block is covered by adding it here.
 */
public final class Blocks {
    private Blocks() {
    }

    /** A named generator of one top-level block. */
    public record Block(String name, Supplier<? extends Component> factory) {
    }

    /** Data-path widths {@code ./rnic generate --width} accepts. */
    public static final List<Integer> WIDTHS = Crc32cConfig.WIDTHS;

    /** The blocks at data-path width {@code width}. */
    public static List<Block> at(int width) {
        if (!WIDTHS.contains(width)) {
            throw new IllegalArgumentException("unsupported width " + width + "; choose one of " + WIDTHS);
        }
        List<Block> blocks = new java.util.ArrayList<>();
        blocks.add(new Block("Crc32c", () -> new Crc32c(new Crc32cConfig(width))));
        if (width >= 32) {
            blocks.add(new Block("MpaTxFramer", () -> new MpaTxFramer(width)));
            blocks.add(new Block("MpaRxDeframer", () -> new MpaRxDeframer(width)));
            DdpConfig ddp = DdpConfig.defaults().withDataWidth(width);
            blocks.add(new Block("DdpRxHeader", () -> new DdpRxHeader(ddp)));
        }
        if (DdpConfig.WIDTHS.contains(width)) {
            DdpConfig ddp = DdpConfig.defaults().withDataWidth(width);
            blocks.add(new Block("DdpPlacer", () -> new DdpPlacer(ddp, DdpPlacer.DEFAULT_TAG_WIDTH)));
            blocks.add(new Block("RdmapEngine", () -> new RdmapEngine(ddp)));
            blocks.add(new Block("DdpSegmentBuilder",
                    () -> new DdpSegmentBuilder(ddp, DdpSegmentBuilder.DEFAULT_TAG_WIDTH)));
            blocks.add(new Block("QpRings", () -> new QpRings(QpRingsConfig.defaults().withDataWidth(width))));
        }
        // The whole RNIC (seconds to elaborate, so at the narrow and the wide end only) and the two-RNIC simulation
        // top, which holds the same modules, at one width.
        if (width == 64 || width == 512) {
            blocks.add(new Block("RnicCore", () -> new RnicCore(RnicConfig.defaults().withDataWidth(width))));
        }
        if (width == 64) {
            blocks.add(new Block("RnicPair", () -> new RnicPair(RnicConfig.defaults().withDataWidth(width))));
        }
        // Width-independent: the same units at every width.
        blocks.add(new Block("RdmapRxControl", () -> new RdmapRxControl(DdpConfig.defaults())));
        blocks.add(new Block("RdmapAtomicUnit", () -> new RdmapAtomicUnit(RdmapAtomicUnit.DEFAULT_TAG_WIDTH)));
        blocks.add(new Block("DdpTagValidator",
                () -> new DdpTagValidator(DdpConfig.defaults(), DdpTagValidator.DEFAULT_TAG_WIDTH)));
        return List.copyOf(blocks);
    }
}
