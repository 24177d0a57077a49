package rnic.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import rnic.driver.MpaNegotiation;

/**
 * Connection parameters: defaults, the limits of docs/requirements.md §2.4 checked where the mistake is made, and what the
 * driver's negotiation gets from them.
 *
 * <p>Requirements: MPA-32/MPA-48 (512 octets of private data, 508 with enhanced data), MPA-49 (IRD/ORD, 0x3FFF),
 * MPA-50 (A and the RTR forms; a Responder offers a Send RTR only when it can take it), MPA-39 (timeout as a
 * Duration of device time).
 */
class ConnectParamsTest {

    @Test
    void defaults() {
        ConnectParams p = ConnectParams.defaults();
        assertTrue(p.enhanced());
        assertTrue(p.peerToPeer());
        assertEquals(EnumSet.allOf(RtrForm.class), p.rtrForms());
        assertFalse(p.receiveMarkers());
        assertTrue(p.crc());
        assertEquals(4, p.ird());
        assertEquals(4, p.ord());
        assertEquals(0, p.privateData().length);
        assertEquals(1460, p.emss());
        assertEquals(508, p.maxPrivateData());
        assertEquals(512, p.withRev1().maxPrivateData());
        assertEquals(Duration.ofMillis(4), p.timeout(), "4 ms of device time (1 000 000 cycles at 250 MHz)");
    }

    @Test
    void privateDataLimits() {
        ConnectParams.defaults().withPrivateData(new byte[508]);
        ConnectParams.defaults().withRev1().withPrivateData(new byte[512]);
        assertThrows(IllegalArgumentException.class, () -> ConnectParams.defaults().withPrivateData(new byte[509]));
        assertThrows(IllegalArgumentException.class,
                () -> ConnectParams.defaults().withRev1().withPrivateData(new byte[513]));
        // switching to enhanced frames with a full 512-octet payload is refused too
        ConnectParams big = ConnectParams.defaults().withRev1().withPrivateData(new byte[512]);
        assertThrows(IllegalArgumentException.class, () -> big.withEnhanced(false));
        byte[] pd = {1, 2};
        ConnectParams p = ConnectParams.defaults().withPrivateData(pd);
        pd[0] = 9;
        assertEquals(1, p.privateData()[0], "the data is copied");
    }

    @Test
    void numericLimits() {
        assertThrows(IllegalArgumentException.class, () -> ConnectParams.defaults().withIrdOrd(256, 1));
        assertThrows(IllegalArgumentException.class, () -> ConnectParams.defaults().withIrdOrd(1, -1));
        assertThrows(IllegalArgumentException.class, () -> ConnectParams.defaults().withRequiredOrd(300));
        assertThrows(IllegalArgumentException.class, () -> ConnectParams.defaults().withEmss(0));
        assertThrows(IllegalArgumentException.class, () -> ConnectParams.defaults().withTimeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class,
                () -> ConnectParams.defaults().withTimeout(Duration.ofNanos(-1)));
        assertThrows(IllegalArgumentException.class, () -> ConnectParams.defaults().withTimeout(null));
        assertEquals(Duration.ofMillis(7), ConnectParams.defaults().withTimeout(Duration.ofMillis(7)).timeout());
    }

    /** What the negotiation gets: Rev 1 has no A, and a Responder that cannot take a Send RTR does not offer it. */
    @Test
    void offerForTheDriver() {
        MpaNegotiation.Offer rev1 = ConnectParams.defaults().withRev1().offer(true);
        assertFalse(rev1.enhanced());
        assertFalse(rev1.peerToPeer());
        MpaNegotiation.Offer cs = ConnectParams.defaults().withEnhanced(false).offer(true);
        assertTrue(cs.enhanced());
        assertFalse(cs.peerToPeer());
        MpaNegotiation.Offer busy = ConnectParams.defaults().offer(false);
        assertFalse(busy.sendRtr());
        assertTrue(busy.writeRtr() && busy.readRtr());
        MpaNegotiation.Offer only = ConnectParams.defaults().withRtrForms(EnumSet.of(RtrForm.RDMA_READ)).offer(true);
        assertFalse(only.sendRtr() || only.writeRtr());
        assertTrue(only.readRtr());
        MpaNegotiation.Offer all = ConnectParams.defaults().withReceiveMarkers(true).withCrc(false)
                .withIrdOrd(7, 3).withRequiredOrd(2).withoutIrdOrdNegotiation().offer(true);
        assertTrue(all.receiveMarkers());
        assertFalse(all.crc());
        assertEquals(7, all.ird());
        assertEquals(3, all.ord());
        assertEquals(2, all.requiredOrd());
        assertFalse(all.negotiate());
        assertEquals(MpaNegotiation.NO_NEGOTIATION, MpaNegotiation.request(all).enhanced().ird());
        assertEquals(7, all.irdLimit(), "strict form: the IRD is not raised");
        assertFalse(all.adoptPeerRtr());
        MpaNegotiation.Offer interop = ConnectParams.defaults().withIrdOrd(2, 2).offer(true, 16);
        assertEquals(16, interop.irdLimit(), "the connection manager lets the IRD rise to the device's MAX_IRD");
        assertTrue(interop.adoptPeerRtr());
        assertEquals(2, ConnectParams.defaults().withIrdOrd(2, 2).offer(true, 1).irdLimit(), "never below the IRD");
    }

    /** RtrForm ↔ send queue opcode. */
    @Test
    void rtrForms() {
        for (RtrForm f : RtrForm.values()) {
            assertEquals(f, RtrForm.of(f.wqeOpcode()));
        }
    }
}
