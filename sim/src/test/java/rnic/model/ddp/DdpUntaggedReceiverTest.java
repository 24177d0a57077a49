package rnic.model.ddp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.model.TerminateAssert.assertTerminates;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import rnic.wire.TerminateCause;

/**
 * The untagged receive checks of DDP-29 in their order, each producing its docs/requirements.md §3.2 row, delivery (DDP-23,
 * DDP-24), zero-length Sends (T-15) and the silence after an error (DDP-31).
 *
 * <p>Requirements: DDP-15, DDP-23, DDP-24, DDP-29, DDP-31, DDP-32, RDMAP-12 (a Send larger than the buffer); rows
 * E-D8, E-D9, E-D10, E-D11, E-D12.
 */
class DdpUntaggedReceiverTest {
    static final long SEND_ULP = 0x43_0000_0000L;

    static DdpUntaggedReceiver receiver(long... openQueues) {
        DdpUntaggedReceiver r = new DdpUntaggedReceiver();
        for (long qn : openQueues) {
            r.open(qn);
        }
        return r;
    }

    static DdpUntaggedHeader segment(long qn, long msn, long mo, boolean last) {
        return new DdpUntaggedHeader(last, SEND_ULP, qn, msn, mo);
    }

    /** DDP-16, DDP-23, DDP-24: the two segments of the DDP-16 vector deliver one message of 2048 octets. */
    @Test
    void deliversTheMessageLengthAtTheLastSegment() throws TerminateException {
        DdpUntaggedReceiver r = receiver(0);
        r.post(0, 4096);
        List<DdpSegment> s = new DdpSegmenter().untagged(SEND_ULP, 0, new byte[2048], 1500);
        assertEquals(Optional.empty(), r.receive((DdpUntaggedHeader) s.get(0).header(), 1482));
        assertEquals(Optional.of(new DdpUntaggedReceiver.Delivery(0, 1, 2048, SEND_ULP)),
                r.receive((DdpUntaggedHeader) s.get(1).header(), 566));
    }

    /** E-D8: a QN the stream does not have (QN 4 on an RDMAP stream) is 1/2/01 (DDP-29 check 1). */
    @Test
    void invalidQueue() {
        DdpUntaggedReceiver r = receiver(0, 1, 2, 3);
        assertTerminates("1/2/01 110", TerminateCause.DDP_INVALID_QN, () -> r.receive(segment(4, 1, 0, true), 10));
    }

    /** E-D9: no buffer posted is 1/2/02, also for a zero-length Send (DDP-29 check 2, T-15, RDMAP-12). */
    @Test
    void noBuffer() {
        DdpUntaggedReceiver r = receiver(0);
        assertTerminates("1/2/02 110", TerminateCause.DDP_NO_BUFFER, () -> r.receive(segment(0, 1, 0, true), 0));
    }

    /** E-D10: the MSN after the expected one, or a repeat of a delivered one, is 1/2/03 (DDP-29 check 5, DDP-15). */
    @Test
    void unexpectedMsn() throws TerminateException {
        DdpUntaggedReceiver ahead = receiver(0);
        ahead.post(0, 100);
        ahead.post(0, 100);
        assertTerminates("1/2/03 110", TerminateCause.DDP_INVALID_MSN, () -> ahead.receive(segment(0, 2, 0, true), 10));

        DdpUntaggedReceiver again = receiver(0);
        again.post(0, 100);
        again.post(0, 100);
        again.receive(segment(0, 1, 0, true), 10);
        assertTerminates("1/2/03 110", TerminateCause.DDP_INVALID_MSN, () -> again.receive(segment(0, 1, 0, true), 10));
    }

    /**
     * E-D11: an MO that skips octets, or one at the end of the buffer with payload, is 1/2/04 (DDP-29 check 3, the
     * contiguity rule being the derived one of docs/requirements.md §3.2).
     */
    @Test
    void moOutsideTheBuffer() throws TerminateException {
        DdpUntaggedReceiver gap = receiver(0);
        gap.post(0, 100);
        gap.receive(segment(0, 1, 0, false), 40);
        assertTerminates("1/2/04 110", TerminateCause.DDP_INVALID_MO, () -> gap.receive(segment(0, 1, 50, true), 10));

        DdpUntaggedReceiver atEnd = receiver(0);
        atEnd.post(0, 100);
        atEnd.receive(segment(0, 1, 0, false), 100);
        assertTerminates("1/2/04 110", TerminateCause.DDP_INVALID_MO, () -> atEnd.receive(segment(0, 1, 100, true), 1));
    }

    /** E-D12: a Send one octet larger than the posted buffer is 1/2/05 (DDP-29 check 4, RDMAP-12). */
    @Test
    void sendLargerThanTheBuffer() throws TerminateException {
        DdpUntaggedReceiver r = receiver(0);
        r.post(0, 100);
        r.receive(segment(0, 1, 0, false), 60);
        assertTerminates("1/2/05 110", TerminateCause.DDP_MESSAGE_TOO_LONG,
                () -> r.receive(segment(0, 1, 60, true), 41));
        DdpUntaggedReceiver exact = receiver(0);
        exact.post(0, 100);
        exact.receive(segment(0, 1, 0, false), 60);
        assertEquals(100, exact.receive(segment(0, 1, 60, true), 40).orElseThrow().length(), "an exact fit is fine");
    }

    /** T-15, RDMAP-12: a zero-length Send consumes a buffer, delivers length 0, and the next MSN is expected. */
    @Test
    void zeroLengthSendConsumesABuffer() throws TerminateException {
        DdpUntaggedReceiver r = receiver(0);
        r.post(0, 0);
        assertEquals(0, r.receive(segment(0, 1, 0, true), 0).orElseThrow().length());
        assertTerminates("1/2/02 110", TerminateCause.DDP_NO_BUFFER, () -> r.receive(segment(0, 2, 0, true), 0));
    }

    /** DDP-31: after an error the valid segments that follow are dropped silently and deliver nothing. */
    @Test
    void silentAfterAnError() throws TerminateException {
        DdpUntaggedReceiver r = receiver(0);
        r.post(0, 100);
        r.post(0, 100);
        assertTerminates("1/2/03 110", TerminateCause.DDP_INVALID_MSN, () -> r.receive(segment(0, 5, 0, true), 10));
        assertTrue(r.failed());
        assertEquals(Optional.empty(), r.receive(segment(0, 1, 0, true), 10));
        assertEquals(Optional.empty(), r.receive(segment(9, 1, 0, true), 10), "not even an invalid QN is reported");
    }

    /** DDP-15: per-QN expected MSNs, and the wrap 0xFFFFFFFF → 0 from a preloaded peer. */
    @Test
    void msnPerQueueAndWrap() throws TerminateException {
        DdpUntaggedReceiver r = new DdpUntaggedReceiver(0xFFFF_FFFFL);
        r.open(0);
        r.open(1);
        for (int i = 0; i < 2; i++) {
            r.post(0, 10);
        }
        r.post(1, 28);
        assertEquals(0xFFFF_FFFFL, r.receive(segment(0, 0xFFFF_FFFFL, 0, true), 1).orElseThrow().msn());
        assertEquals(0xFFFF_FFFFL, r.receive(segment(1, 0xFFFF_FFFFL, 0, true), 28).orElseThrow().msn());
        assertEquals(0, r.receive(segment(0, 0, 0, true), 1).orElseThrow().msn());
    }
}
