package rnic.hw.ddp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Rtl;
import spinal.lib.bus.amba4.axi.Axi4;
import spinal.lib.bus.amba4.axi.Axi4Config;

/**
 * The memory port profile: the AXI4 configuration has exactly the promised signals, and a port created through
 * {@link MemoryPort} comes out of generation with the AXI specification's names ({@code axi_awvalid}, …).
 */
class MemoryPortTest {

    @Test
    void configurationIsTheDocumentedProfile() {
        for (int w : DdpConfig.WIDTHS) {
            Axi4Config c = MemoryPort.axi4Config(w);
            assertEquals(64, c.addressWidth());
            assertEquals(w, c.dataWidth());
            assertEquals(MemoryPort.ID_WIDTH, c.idWidth());
            assertTrue(c.useId() && c.useBurst() && c.useSize() && c.useLen() && c.useLast() && c.useResp()
                    && c.useStrb());
            assertFalse(c.withAxi3() || c.useRegion() || c.useLock() || c.useCache() || c.useQos() || c.useProt()
                    || c.useAllStrb());
            assertFalse(c.useArUser() || c.useAwUser() || c.useRUser() || c.useWUser() || c.useBUser());
            assertEquals(Integer.numberOfTrailingZeros(w / 8), MemoryPort.size(w));
        }
        assertThrows(IllegalArgumentException.class, () -> MemoryPort.axi4Config(16));
    }

    @Test
    void burstBlockNeverCrossesFourKibibytesNorExceedsTheBeatLimit() {
        assertEquals(1024, MemoryPort.burstBlock(32, 256));
        assertEquals(4096, MemoryPort.burstBlock(128, 256));
        assertEquals(4096, MemoryPort.burstBlock(512, 256));
        assertEquals(2048, MemoryPort.burstBlock(512, 32));
        assertThrows(IllegalArgumentException.class, () -> MemoryPort.burstBlock(64, 3));
    }

    /** A component that only loops one full port back, to look at the generated port names. */
    public static final class PortLoop extends HwComponent {
        /** Ports. */
        public static final class Io extends HwBundle {
            public final Axi4 axi;

            public Io() {
                axi = field("axi", MemoryPort.master(64));
            }
        }

        public final Io io;

        public PortLoop() {
            noIoPrefix();
            io = io(new Io());
            io.axi.setIdle();
        }
    }

    @Test
    void portsCarryTheAxiSpecificationNames() throws Exception {
        File dir = new File("target/memory-port");
        Rtl.generate(dir, PortLoop::new);
        String v = Files.readString(new File(dir, "PortLoop.v").toPath());
        for (String port : List.of("axi_awvalid", "axi_awready", "axi_awaddr", "axi_awid", "axi_awlen", "axi_awsize",
                "axi_awburst", "axi_wvalid", "axi_wdata", "axi_wstrb", "axi_wlast", "axi_bvalid", "axi_bready",
                "axi_bid", "axi_bresp", "axi_arvalid", "axi_araddr", "axi_arlen", "axi_rvalid", "axi_rdata",
                "axi_rresp", "axi_rlast", "axi_rready")) {
            assertTrue(v.matches("(?s).*\\b" + port + "\\b.*"), port + " missing in\n" + v);
        }
        assertFalse(v.contains("payload") || v.contains("awcache") || v.contains("awprot") || v.contains("awlock")
                || v.contains("awqos") || v.contains("awregion"), v);
    }
}
