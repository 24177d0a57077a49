package rnic.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import rnic.sim.pcap.Tshark;

/** What tshark must find in the capture of an rping run at 65000 octets with CRC on (MPA-25). */
final class RpingCapture {
    private RpingCapture() {
    }

    /**
     * One MPA Request and Reply; per iteration at least 4 Sends, a Read Request, 45 Read Response FPDUs and 45 Write
     * FPDUs; every CRC good; no malformed frame. {@code what} names the run in failure messages.
     */
    static void assertCrcRun(Tshark.Summary s, int iterations, String what) {
        assertEquals(1, s.mpaRequests(), what);
        assertEquals(1, s.mpaReplies(), what);
        assertTrue(s.fpdus() >= iterations * (4 + 1 + 45 + 45), what);
        assertEquals(0, s.badCrcs(), what);
        assertTrue(s.goodCrcs() >= s.fpdus(), what);
        assertEquals(0, s.malformed(), what);
    }
}
