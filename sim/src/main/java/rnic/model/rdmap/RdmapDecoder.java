package rnic.model.rdmap;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import rnic.model.ddp.DdpHeader;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.DdpTaggedHeader;
import rnic.model.ddp.DdpUntaggedHeader;
import rnic.model.ddp.TerminateException;
import rnic.wire.DdpQueue;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * Golden model of the RDMAP receive checks that need no connection state (RFC 5040 §7.2 items 1–3, RFC 7306 §8.2,
 * RDMAP-02, RDMAP-04, RDMAP-19, RDMAP-29, RDMAP-41, RDMAP-42), and of turning a received message back into an
 * {@link RdmapMessage}. Buffer, MSN and STag checks belong to {@code DdpUntaggedReceiver} and {@code StagTable}.
 *
 * <p>Every segment is checked in this order, the first failure deciding:
 * <ol>
 * <li>an untagged segment's QN is an RDMAP queue (0–2, and 3 with RFC 7306), else DDP
 * {@link TerminateCause#DDP_INVALID_QN} (E-D8): DDP's own fields come first (RFC 5040 §7.2 item 1);</li>
 * <li>RV and opcode, see {@link RdmapControl#parse} (E-R8, E-R9);</li>
 * <li>the T flag and the QN are the ones the opcode table gives, else {@link TerminateCause#OPCODE_MISMATCH}
 * (E-R10; Appendix B item 3 chosen as RDMAP 0/2/06, DDP's code being kept for a QN that is no RDMAP queue).</li>
 * </ol>
 * A whole message is then checked for the length its opcode fixes: Immediate Data not 8 octets is
 * {@link TerminateCause#IMMEDIATE_DATA_LENGTH} (E-R20, RDMAP-41); a Read Request, Atomic Request or Atomic Response of
 * the wrong length, or a malformed Terminate, is {@link TerminateCause#UNSPECIFIED_REMOTE_OPERATION} (E-R15; RFC 5040
 * and RFC 7306 name no code for these, Appendix B item 5 extended to them). An unsupported AOpCode is
 * {@link TerminateCause#ATOMIC_UNSUPPORTED_OPCODE} (E-R17).
 */
public final class RdmapDecoder {
    private final boolean extensions;

    /** @param extensions whether this endpoint supports RFC 7306 (Atomics and Immediate Data, queue 3) */
    public RdmapDecoder(boolean extensions) {
        this.extensions = extensions;
    }

    /** The untagged queues of a stream at this endpoint, to open in the DDP receiver. */
    public List<DdpQueue> queues() {
        List<DdpQueue> out = new ArrayList<>();
        for (DdpQueue q : DdpQueue.values()) {
            queue(q.qn()).ifPresent(out::add);
        }
        return out;
    }

    private Optional<DdpQueue> queue(long qn) {
        return DdpQueue.decode(qn).filter(q -> extensions || q != DdpQueue.ATOMIC_RESPONSE);
    }

    /** Checks one received segment's header and returns its opcode. */
    public RdmapOpcode check(DdpHeader h) throws TerminateException {
        if (h instanceof DdpUntaggedHeader u && queue(u.qn()).isEmpty()) {
            throw new TerminateException(TerminateCause.DDP_INVALID_QN, "QN " + u.qn() + " is no RDMAP queue");
        }
        RdmapOpcode opcode = RdmapControl.parse(h.rsvdUlpFirstOctet(), extensions).opcode();
        boolean tagged = h instanceof DdpTaggedHeader;
        if (opcode.tagged() != tagged) {
            throw new TerminateException(TerminateCause.OPCODE_MISMATCH,
                    opcode + " in a" + (tagged ? " tagged" : "n untagged") + " segment");
        }
        if (h instanceof DdpUntaggedHeader u && opcode.queue().orElseThrow().qn() != u.qn()) {
            throw new TerminateException(TerminateCause.OPCODE_MISMATCH, opcode + " on QN " + u.qn());
        }
        return opcode;
    }

    /**
     * Checks the segments of one message and returns the message. They must be one whole message, in order: only the
     * last has L=1 and each continues the previous one's TO or MO (reassembly is the caller's, as a DDP receiver
     * delivers; violations are {@link IllegalArgumentException}s).
     */
    public RdmapMessage decode(List<DdpSegment> segments) throws TerminateException {
        if (segments.isEmpty()) {
            throw new IllegalArgumentException("a message has at least one segment");
        }
        DdpHeader first = segments.get(0).header();
        RdmapOpcode opcode = check(first);
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (int i = 0; i < segments.size(); i++) {
            DdpSegment s = segments.get(i);
            DdpHeader h = s.header();
            if ((i > 0 && check(h) != opcode) || h.last() != (i == segments.size() - 1)
                    || !sameMessage(first, h) || offset(h) - offset(first) != joined.size()) {
                throw new IllegalArgumentException("segment " + i + " " + s + " does not continue " + first);
            }
            joined.writeBytes(s.payload());
        }
        byte[] payload = joined.toByteArray();
        if (!opcode.ulpPayload() && opcode != RdmapOpcode.TERMINATE && payload.length != opcode.headerSize()) {
            boolean immediate = opcode == RdmapOpcode.IMMEDIATE_DATA || opcode == RdmapOpcode.IMMEDIATE_DATA_WITH_SE;
            throw new TerminateException(immediate ? TerminateCause.IMMEDIATE_DATA_LENGTH
                    : TerminateCause.UNSPECIFIED_REMOTE_OPERATION, opcode + " of " + payload.length + " octets, not "
                    + opcode.headerSize());
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        return switch (opcode) {
            case RDMA_WRITE, RDMA_READ_RESPONSE -> {
                DdpTaggedHeader t = (DdpTaggedHeader) first;
                yield new TaggedMessage(opcode, t.stag(), t.to(), payload);
            }
            case SEND, SEND_WITH_INVALIDATE, SEND_WITH_SE, SEND_WITH_SE_AND_INVALIDATE ->
                    new SendMessage(opcode, opcode.invalidates() ? (int) ((DdpUntaggedHeader) first).rsvdUlp() : 0,
                            payload);
            case RDMA_READ_REQUEST -> ReadRequest.read(b);
            case TERMINATE -> Terminate.parse(b);
            case IMMEDIATE_DATA, IMMEDIATE_DATA_WITH_SE -> new ImmediateData(opcode, b.getLong());
            case ATOMIC_REQUEST -> AtomicRequest.read(b);
            case ATOMIC_RESPONSE -> AtomicResponse.read(b);
        };
    }

    /** Whether {@code h} names the message {@code first} starts: same STag, or same QN and MSN. */
    private static boolean sameMessage(DdpHeader first, DdpHeader h) {
        if (first instanceof DdpTaggedHeader f) {
            return h instanceof DdpTaggedHeader t && t.stag() == f.stag();
        }
        DdpUntaggedHeader f = (DdpUntaggedHeader) first;
        return h instanceof DdpUntaggedHeader u && u.qn() == f.qn() && u.msn() == f.msn();
    }

    /** TO or MO of a segment's first payload octet. */
    private static long offset(DdpHeader h) {
        return h instanceof DdpTaggedHeader t ? t.to() : ((DdpUntaggedHeader) h).mo();
    }
}
