package rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Argument validation of every work request factory and option, and of receive requests: each misuse is an
 * IllegalArgumentException naming what is wrong, made before anything reaches a queue pair.
 *
 * <p>Requirements: RDMAP-07 (Read sink STag), RDMAP-13 (Invalidate STag), RDMAP-28…RDMAP-31 and E-R16 (8-octet,
 * 64-bit aligned Atomic operands), RDMAP-40 (Immediate Data has no payload), STYLE §5 (one validating factory per
 * operation, options as withX).
 */
class WorkRequestTest {
    static final MemoryRegion MR = Detached.region();
    static final Sge PAYLOAD = MR.sge(0, 64);
    static final Sge RESULT = MR.sge(8, 8);
    static final RemoteBuffer REMOTE = new RemoteBuffer(0x1234, 0x8000);

    static void rejects(String fragment, Executable e) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
        assertTrue(x.getMessage().contains(fragment), "message '" + x.getMessage() + "' should name " + fragment);
    }

    @Test
    void rdmaWriteNeedsPayloadAndTarget() {
        rejects("null", () -> WorkRequest.rdmaWrite(null, REMOTE));
        rejects("remote", () -> WorkRequest.rdmaWrite(PAYLOAD, null));
        rejects("null", () -> WorkRequest.rdmaWriteWithImmediate(null, REMOTE, 1));
        rejects("remote", () -> WorkRequest.rdmaWriteWithImmediate(PAYLOAD, null, 1));
        WorkRequest w = WorkRequest.rdmaWriteWithImmediate(PAYLOAD, REMOTE, 42, true);
        assertEquals(42, w.immediate());
        assertTrue(w.solicitedEvent());
        assertEquals(2, w.operation().slots());
        assertEquals(0, WorkRequest.rdmaWrite(Sge.empty(), REMOTE).local().length(), "zero-length Write");
    }

    /** RDMAP-07: the Read sink carries an STag, so it must be registered. */
    @Test
    void rdmaReadSinkMustBeRegistered() {
        rejects("sink", () -> WorkRequest.rdmaRead(null, REMOTE));
        rejects("registered", () -> WorkRequest.rdmaRead(Sge.bytes(new byte[4]), REMOTE));
        rejects("remote", () -> WorkRequest.rdmaRead(PAYLOAD, null));
        assertEquals(WorkRequest.Operation.RDMA_READ, WorkRequest.rdmaRead(Sge.empty(), REMOTE).operation());
    }

    @Test
    void sendFamilyNeedsAPayload() {
        List<Supplier<WorkRequest>> ok = List.of(() -> WorkRequest.send(PAYLOAD),
                () -> WorkRequest.sendWithInvalidate(PAYLOAD, 0x501),
                () -> WorkRequest.sendWithSolicitedEvent(PAYLOAD),
                () -> WorkRequest.sendWithSolicitedEventAndInvalidate(PAYLOAD, 0x501));
        for (Supplier<WorkRequest> s : ok) {
            WorkRequest w = s.get();
            assertTrue(w.operation().carriesPayload());
            assertEquals(null, w.remote());
        }
        rejects("null", () -> WorkRequest.send(null));
        rejects("null", () -> WorkRequest.sendWithInvalidate(null, 1));
        rejects("null", () -> WorkRequest.sendWithSolicitedEvent(null));
        rejects("null", () -> WorkRequest.sendWithSolicitedEventAndInvalidate(null, 1));
        assertEquals(0x501, WorkRequest.sendWithInvalidate(PAYLOAD, 0x501).invalidateStag());
    }

    /** RDMAP-40: Send with Immediate is Immediate Data alone: no payload, nothing to inline. */
    @Test
    void sendWithImmediateHasNoPayload() {
        WorkRequest w = WorkRequest.sendWithImmediate(7);
        assertEquals(0, w.local().length());
        assertFalse(w.operation().carriesPayload());
        rejects("no payload", w::withInline);
        assertTrue(WorkRequest.sendWithImmediate(7, true).solicitedEvent());
    }

    /** RDMAP-28…RDMAP-31, E-R16: atomics take an 8-octet registered result and a 64-bit aligned target. */
    @Test
    void atomicOperands() {
        List<java.util.function.BiFunction<Sge, RemoteBuffer, WorkRequest>> all = List.of(
                (r, t) -> WorkRequest.fetchAdd(r, t, 1),
                (r, t) -> WorkRequest.compareSwap(r, t, 1, 2),
                (r, t) -> WorkRequest.maskedFetchAdd(r, t, 1, 0x80),
                (r, t) -> WorkRequest.maskedCompareSwap(r, t, 1, -1, 2, -1));
        for (var f : all) {
            assertTrue(f.apply(RESULT, REMOTE).operation().atomic());
            rejects("8 octets", () -> f.apply(null, REMOTE));
            rejects("8 octets", () -> f.apply(MR.sge(0, 7), REMOTE));
            rejects("8 octets", () -> f.apply(MR.sge(0, 16), REMOTE));
            rejects("registered", () -> f.apply(Sge.bytes(new byte[8]), REMOTE));
            rejects("remote", () -> f.apply(RESULT, null));
            for (int misalign = 1; misalign < 8; misalign++) {
                RemoteBuffer odd = REMOTE.plus(misalign);
                rejects("aligned", () -> f.apply(RESULT, odd));
            }
        }
        WorkRequest cs = WorkRequest.compareSwap(RESULT, REMOTE, 0x11, 0x22);
        assertEquals(0x22, cs.data());
        assertEquals(0x11, cs.compare());
        assertEquals(-1L, cs.mask());
        assertEquals(-1L, cs.compareMask());
        WorkRequest fa = WorkRequest.fetchAdd(RESULT, REMOTE, 9);
        assertEquals(9, fa.data());
        assertEquals(0, fa.mask());
    }

    @Test
    void localInvalidate() {
        WorkRequest w = WorkRequest.localInvalidate(0x1234_5601);
        assertEquals(0x1234_5601, w.invalidateStag());
        assertFalse(w.operation().carriesPayload());
        rejects("no payload", w::withInline);
    }

    /** Options: defaults, copies (the original is unchanged), inline only where there is a payload. */
    @Test
    void options() {
        WorkRequest w = WorkRequest.send(PAYLOAD);
        assertTrue(w.signaled());
        assertFalse(w.fence());
        assertFalse(w.inline());
        assertEquals(0, w.wrId());
        WorkRequest o = w.withSignaled(false).withFence().withInline().withId(-5);
        assertNotSame(w, o);
        assertTrue(w.signaled());
        assertFalse(o.signaled());
        assertTrue(o.fence());
        assertTrue(o.inline());
        assertEquals(-5, o.wrId());
        assertEquals(PAYLOAD, o.local());
        rejects("no payload", () -> WorkRequest.rdmaRead(PAYLOAD, REMOTE).withInline());
        rejects("no payload", () -> WorkRequest.fetchAdd(RESULT, REMOTE, 1).withInline());
        // unregistered payloads are legal as inline data (checked when posted)
        WorkRequest.send(Sge.bytes(new byte[3])).withInline();
        WorkRequest.rdmaWrite(Sge.unregistered(new DmaBuffer(null, 0x4000, 64), 0, 64), REMOTE).withInline();
    }

    @Test
    void operationProperties() {
        for (WorkRequest.Operation op : WorkRequest.Operation.values()) {
            assertEquals(op == WorkRequest.Operation.RDMA_WRITE_WITH_IMMEDIATE ? 2 : 1, op.slots());
            CompletionOpcode c = op.completionOpcode();
            assertTrue(c != CompletionOpcode.RECV && c != CompletionOpcode.RECV_IMMEDIATE
                    && c != CompletionOpcode.QP_ERROR);
        }
        assertEquals(EnumSet.of(WorkRequest.Operation.FETCH_ADD, WorkRequest.Operation.COMPARE_SWAP,
                WorkRequest.Operation.MASKED_FETCH_ADD, WorkRequest.Operation.MASKED_COMPARE_SWAP),
                EnumSet.copyOf(java.util.Arrays.stream(WorkRequest.Operation.values())
                        .filter(WorkRequest.Operation::atomic).toList()));
    }

    @Test
    void receiveRequests() {
        rejects("null", () -> RecvRequest.of(null));
        rejects("registered", () -> RecvRequest.of(Sge.bytes(new byte[4])));
        RecvRequest r = RecvRequest.of(PAYLOAD).withId(77);
        assertEquals(77, r.wrId());
        assertEquals(PAYLOAD, r.buffer());
        assertEquals(0, RecvRequest.of(Sge.empty()).buffer().length());
    }

    @Test
    void scatterGatherElements() {
        rejects("negative", () -> Sge.of(MR, -1, 4));
        rejects("negative", () -> Sge.of(MR, 0, -4));
        rejects("null", () -> Sge.of(null, 0, 4));
        rejects("null", () -> Sge.bytes(null));
        rejects("null", () -> Sge.unregistered(null, 0, 1));
        assertTrue(Sge.empty().registered());
        assertTrue(PAYLOAD.registered());
        assertFalse(Sge.bytes(new byte[1]).registered());
        assertEquals(MR.address() + 8, RESULT.address());
        assertEquals(new RemoteBuffer(MR.stag(), MR.address() + 12), MR.remote(12));
    }
}
