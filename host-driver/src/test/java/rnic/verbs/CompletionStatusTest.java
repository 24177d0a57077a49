package rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import rnic.wire.CqeKind;
import rnic.wire.MpaErrorCode;
import rnic.wire.TerminateCause;

/**
 * Completion status mapping for every {@link CqeKind} and every {@link TerminateCause}, and the raw cause kept on the
 * completion: the Terminate octets of a received Terminate, the cause of a sent one, the MPA error code.
 *
 * <p>Requirements: RDMAP-15/RDMAP-16 (Terminate Layer/EType/Code, HdrCt), docs/requirements.md §3.1–§3.3 (rows E-M1…E-M7,
 * E-D0…E-D13, E-R0…E-R21), §3.4 (receivers use M/D/R), STYLE §5 (exceptions and completions carry the Terminate code).
 */
class CompletionStatusTest {

    /** The expected status of a Terminate this side sent, by docs/requirements.md §3 row (written from §3, not from the code). */
    static CompletionStatus expectedSent(String row) {
        return switch (row) {
            case "E-D0", "E-R0", "E-R13", "E-R14" -> CompletionStatus.LOCAL_CATASTROPHIC_ERROR;
            case "E-D1", "E-D2", "E-D3", "E-D4", "E-D5", "E-D6", "E-R1", "E-R2", "E-R3", "E-R4", "E-R5", "E-R6",
                    "E-R7", "E-R18" -> CompletionStatus.PEER_ACCESS_VIOLATION;
            case "E-D9" -> CompletionStatus.NO_RECEIVE_BUFFER;
            case "E-D12" -> CompletionStatus.LOCAL_LENGTH_ERROR;
            case "E-D7", "E-D8", "E-D10", "E-D11", "E-D13", "E-R8", "E-R9", "E-R10", "E-R11", "E-R12", "E-R15",
                    "E-R16", "E-R17", "E-R19", "E-R20" -> CompletionStatus.PEER_PROTOCOL_ERROR;
            case "E-R21" -> CompletionStatus.LOCAL_PROTECTION_ERROR;
            default -> throw new AssertionError("row " + row + " not in the table");
        };
    }

    static long terminateInfo(int layerEtype, int code, int hdrCt) {
        return (long) layerEtype << 56 | (long) code << 48 | (long) hdrCt << 40 | 0x0000_0022_4143L;
    }

    static Completion completion(CqeKind kind, int status, long info) {
        Completion c = new Completion();
        c.reset(Completion.NO_WR_ID, CompletionStatus.of(kind, status, info), CompletionOpcode.QP_ERROR, 1);
        c.raw(kind, status, info);
        return c;
    }

    /** Success kinds: status 0 is SUCCESS, anything else is not silently success. */
    @Test
    void successKinds() {
        for (CqeKind k : CqeKind.values()) {
            if (k == CqeKind.TERMINATE_RECEIVED || k == CqeKind.TERMINATE_SENT || k == CqeKind.MPA_ERROR) {
                continue;
            }
            assertEquals(CompletionStatus.SUCCESS, CompletionStatus.of(k, 0, 123), k.name());
            assertEquals(CompletionStatus.LOCAL_QP_OPERATION_ERROR, CompletionStatus.of(k, 1, 0), k.name());
        }
        assertEquals(CompletionStatus.LOCAL_QP_OPERATION_ERROR, CompletionStatus.of(null, 0, 0));
    }

    /** E-D0…E-D13, E-R0…E-R21: TERMINATE_SENT with status ordinal + 1 maps every cause; the cause is kept. */
    @Test
    void everyTerminateCauseSent() {
        Map<CompletionStatus, Integer> seen = new EnumMap<>(CompletionStatus.class);
        for (TerminateCause cause : TerminateCause.values()) {
            int status = cause.ordinal() + 1;
            CompletionStatus s = CompletionStatus.of(CqeKind.TERMINATE_SENT, status, 0);
            assertEquals(expectedSent(cause.row()), s, cause.toString());
            Completion c = completion(CqeKind.TERMINATE_SENT, status, 0);
            assertSame(cause, c.terminateCause());
            assertEquals(cause.layerEtype(), c.terminateLayerEtype());
            assertEquals(cause.code(), c.terminateErrorCode());
            assertNull(c.mpaError());
            seen.merge(s, 1, Integer::sum);
        }
        assertEquals(CompletionStatus.LOCAL_QP_OPERATION_ERROR, CompletionStatus.of(CqeKind.TERMINATE_SENT, 0, 0));
        assertEquals(CompletionStatus.LOCAL_QP_OPERATION_ERROR,
                CompletionStatus.of(CqeKind.TERMINATE_SENT, TerminateCause.values().length + 1, 0));
        assertEquals(6, seen.size(), "six statuses for the sent causes: " + seen);
    }

    /**
     * §3.4: a received Terminate maps by Layer/EType (RDMA/DDP EType 1 access, RDMA EType 2 operation, DDP EType 2
     * untagged buffer, LLP MPA error, catastrophic otherwise), for the wire values of every cause.
     */
    @Test
    void everyTerminateCauseReceived() {
        for (TerminateCause cause : TerminateCause.values()) {
            int hdrCt = (cause.m() ? 0x80 : 0) | (cause.d() ? 0x40 : 0) | (cause.r() ? 0x20 : 0);
            long info = terminateInfo(cause.layerEtype(), cause.code(), hdrCt);
            CompletionStatus expected = switch (cause.layer()) {
                case RDMA -> cause.etype() == 1 ? CompletionStatus.REMOTE_ACCESS_ERROR
                        : cause.etype() == 2 ? CompletionStatus.REMOTE_OPERATION_ERROR
                        : CompletionStatus.TERMINATED_BY_PEER;
                case DDP -> cause.etype() == 1 ? CompletionStatus.REMOTE_ACCESS_ERROR
                        : cause.etype() == 2 ? CompletionStatus.REMOTE_INVALID_REQUEST
                        : CompletionStatus.TERMINATED_BY_PEER;
                case LLP -> CompletionStatus.MPA_ERROR;
            };
            assertEquals(expected, CompletionStatus.of(CqeKind.TERMINATE_RECEIVED, 0, info), cause.toString());
            Completion c = completion(CqeKind.TERMINATE_RECEIVED, 0, info);
            assertEquals(cause.layerEtype(), c.terminateLayerEtype());
            assertEquals(cause.code(), c.terminateErrorCode());
            assertEquals(hdrCt, c.terminateHdrCt());
            TerminateCause first = c.terminateCause();
            assertEquals(cause.layerEtype(), first.layerEtype(), "a cause with the same wire code");
            assertEquals(cause.code(), first.code());
            assertTrue(first.ordinal() <= cause.ordinal(), "the first in table order");
        }
    }

    /** E-M1…E-M7: an MPA Terminate from the peer and an MPA_ERROR entry both give MPA_ERROR with the code. */
    @Test
    void mpaErrors() {
        for (MpaErrorCode code : MpaErrorCode.values()) {
            Completion received = completion(CqeKind.TERMINATE_RECEIVED, 0, terminateInfo(code.layerEtype(),
                    code.code(), 0));
            assertEquals(CompletionStatus.MPA_ERROR, received.status());
            assertSame(code, received.mpaError());
            Completion local = completion(CqeKind.MPA_ERROR, code.code(), 0x1234_5678L);
            assertEquals(CompletionStatus.MPA_ERROR, local.status());
            assertSame(code, local.mpaError());
            assertNull(local.terminateCause());
        }
    }

    /** Unknown layers and ETypes of a received Terminate are the peer's business: TERMINATED_BY_PEER. */
    @Test
    void unknownReceivedTerminates() {
        assertEquals(CompletionStatus.TERMINATED_BY_PEER, CompletionStatus.ofTerminateReceived(0x00));
        assertEquals(CompletionStatus.TERMINATED_BY_PEER, CompletionStatus.ofTerminateReceived(0x10));
        assertEquals(CompletionStatus.TERMINATED_BY_PEER, CompletionStatus.ofTerminateReceived(0x13));
        assertEquals(CompletionStatus.TERMINATED_BY_PEER, CompletionStatus.ofTerminateReceived(0x21));
        assertEquals(CompletionStatus.TERMINATED_BY_PEER, CompletionStatus.ofTerminateReceived(0xF1));
        assertNull(completion(CqeKind.TERMINATE_RECEIVED, 0, terminateInfo(0x0F, 0x99, 0)).terminateCause());
    }

    /** Terminate octet order in the info field: octet 0 is the most significant. */
    @Test
    void terminateOctets() {
        long info = 0x0102_0304_0506_0708L;
        for (int i = 0; i < 8; i++) {
            assertEquals(i + 1, CompletionStatus.terminateOctet(info, i));
        }
        assertNull(CompletionStatus.cause(0));
        assertSame(TerminateCause.values()[0], CompletionStatus.cause(1));
    }

    /** A completion's text names what a person needs: opcode, status, cause. */
    @Test
    void readableText() {
        Completion c = completion(CqeKind.TERMINATE_SENT, TerminateCause.DDP_INVALID_STAG.ordinal() + 1, 0);
        String s = c.toString();
        assertTrue(s.contains("QP_ERROR") && s.contains("PEER_ACCESS_VIOLATION") && s.contains("E-D1"), s);
    }
}
