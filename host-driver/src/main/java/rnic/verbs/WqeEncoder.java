package rnic.verbs;

import rnic.driver.SendWqe;
import rnic.wire.AtomicOpcode;
import rnic.wire.Rdmap;
import rnic.wire.SqWqe;
import rnic.wire.WqeOpcode;

/**
 * How each work request becomes send queue elements (docs/requirements.md §2.6–§2.7, RFC 7306 §5–§6): the opcode, flags and
 * operands of {@link SqWqe}, with RDMA Write with Immediate as two elements.
 */
final class WqeEncoder {
    private WqeEncoder() {
    }

    /**
     * Fills {@code out} with send queue element {@code part} of {@code wr}: part 0, and for an RDMA Write with
     * Immediate part 1, its Immediate Data message. {@code source} is the payload's address (the inline copy or the
     * registered buffer). The Write of a Write with Immediate carries only the fence, the Immediate Data only the
     * signaled flag, so the pair reports one completion and starts as one request would.
     */
    static void encode(WorkRequest wr, int part, long source, SendWqe out) {
        WorkRequest.Operation op = wr.operation();
        int flags = (wr.signaled() ? SqWqe.FLAG_SIGNALED : 0) | (wr.fence() ? SqWqe.FLAG_FENCE : 0);
        Sge l = wr.local();
        RemoteBuffer r = wr.remote();
        out.clear();
        out.flags = flags;
        switch (op) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMMEDIATE -> {
                if (part == 1) {
                    out.opcode = wr.solicitedEvent() ? WqeOpcode.IMMEDIATE_DATA_WITH_SE : WqeOpcode.IMMEDIATE_DATA;
                    out.length = Rdmap.IMMEDIATE_DATA_SIZE;
                    out.data = wr.immediate();
                    out.flags = flags & SqWqe.FLAG_SIGNALED;
                    return;
                }
                out.opcode = WqeOpcode.RDMA_WRITE;
                out.length = l.length();
                out.localAddress = source;
                out.remoteStag = r.stag();
                out.remoteTo = r.address();
                if (op == WorkRequest.Operation.RDMA_WRITE_WITH_IMMEDIATE) {
                    out.flags = flags & SqWqe.FLAG_FENCE;
                }
            }
            case RDMA_READ -> {
                out.opcode = WqeOpcode.RDMA_READ;
                out.length = l.length();
                if (l.region() != null) {
                    out.localStag = l.region().stag();
                    out.localTo = l.address();
                    out.localAddress = l.address();
                }
                out.remoteStag = r.stag();
                out.remoteTo = r.address();
            }
            case SEND, SEND_WITH_INVALIDATE, SEND_WITH_SOLICITED_EVENT, SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE -> {
                out.opcode = switch (op) {
                    case SEND_WITH_INVALIDATE -> WqeOpcode.SEND_WITH_INVALIDATE;
                    case SEND_WITH_SOLICITED_EVENT -> WqeOpcode.SEND_WITH_SE;
                    case SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE -> WqeOpcode.SEND_WITH_SE_AND_INVALIDATE;
                    default -> WqeOpcode.SEND;
                };
                out.length = l.length();
                out.localAddress = source;
                out.invalidateStag = wr.invalidateStag();
            }
            case SEND_WITH_IMMEDIATE -> {
                out.opcode = wr.solicitedEvent() ? WqeOpcode.IMMEDIATE_DATA_WITH_SE : WqeOpcode.IMMEDIATE_DATA;
                out.length = Rdmap.IMMEDIATE_DATA_SIZE;
                out.data = wr.immediate();
            }
            case FETCH_ADD, COMPARE_SWAP, MASKED_FETCH_ADD, MASKED_COMPARE_SWAP -> {
                out.opcode = WqeOpcode.ATOMIC;
                out.aop = op == WorkRequest.Operation.FETCH_ADD || op == WorkRequest.Operation.MASKED_FETCH_ADD
                        ? AtomicOpcode.FETCH_ADD : AtomicOpcode.CMP_SWAP;
                out.length = WorkRequest.ATOMIC_SIZE;
                out.localAddress = l.address();
                out.remoteStag = r.stag();
                out.remoteTo = r.address();
                out.data = wr.data();
                out.mask = wr.mask();
                out.compareData = wr.compare();
                out.compareMask = wr.compareMask();
            }
            case LOCAL_INVALIDATE -> {
                out.opcode = WqeOpcode.LOCAL_INVALIDATE;
                out.invalidateStag = wr.invalidateStag();
            }
            default -> throw new IllegalStateException("unhandled operation " + op);
        }
    }
}
