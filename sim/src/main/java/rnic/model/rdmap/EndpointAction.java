package rnic.model.rdmap;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.OptionalInt;
import java.util.OptionalLong;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.TerminateException;
import rnic.wire.RdmapOpcode;
import rnic.wire.TerminateCause;

/**
 * One observable effect of {@link RdmapEndpoint}, in the order the endpoint produces them: what a scoreboard compares
 * against the hardware's memory-write port, completion/event port and transmit stream. Every action is a plain value:
 * equal actions are {@code equals}, and {@code toString} reads as the effect ("Place[0x1000 +4: de ad be ef]").
 */
public sealed interface EndpointAction {

    /**
     * Octets written to host memory (already applied to the endpoint's {@code MemoryView}): placed payload of a Write,
     * Read Response or Send (DDP-18), the 8 octets of Immediate Data, an Atomic's write-back at the responder, and the
     * Original Remote Data Value at the requester.
     *
     * @param address host address of the first octet
     * @param data    the octets, never empty
     */
    record Place(long address, byte[] data) implements EndpointAction {
        public Place {
            if (data.length == 0) {
                throw new IllegalArgumentException("a Place writes at least one octet");
            }
            data = data.clone();
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Place p && p.address == address && Arrays.equals(p.data, data);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(address) * 31 + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return String.format("Place[0x%x +%d: %s]", address, data.length, head(data));
        }
    }

    /**
     * A receive completion (RQ, queue 0): a Send-type or Immediate Data message delivered into the receive buffer
     * posted as {@code wrId} (RDMAP-12, RDMAP-13, RDMAP-40, DDP-24).
     *
     * @param qp              the QP
     * @param wrId            the receive buffer's identifier
     * @param opcode          the message's opcode (Send family, Immediate Data, Immediate Data with SE)
     * @param length          the message length (MO + payload length of its L=1 segment; 8 for Immediate Data)
     * @param solicited       whether the opcode asks for a Solicited Event
     * @param immediate       the Immediate Data value (its 8 octets read big-endian), for the two Immediate opcodes
     * @param invalidatedStag the STag this message invalidated, for the two Invalidate opcodes
     */
    record ReceiveCompletion(int qp, long wrId, RdmapOpcode opcode, long length, boolean solicited,
            OptionalLong immediate, OptionalInt invalidatedStag) implements EndpointAction {
        @Override
        public String toString() {
            return String.format("ReceiveCompletion[qp=%d wr=%d %s len=%d%s%s%s]", qp, wrId, opcode, length,
                    solicited ? " SE" : "",
                    immediate.isPresent() ? String.format(" imm=%016x", immediate.getAsLong()) : "",
                    invalidatedStag.isPresent() ? String.format(" invalidated=%08x", invalidatedStag.getAsInt()) : "");
        }
    }

    /**
     * A requester completion (SQ), reported in submission order (RDMAP-23): a Write, Send or Immediate Data once its
     * last segment was sent; a Read once its last Read Response segment was placed (RDMAP-21); an Atomic once its
     * response matched and the original value was stored (RDMAP-38 item 7).
     *
     * @param qp     the QP
     * @param wrId   the work request's identifier
     * @param opcode the opcode of the message the request sent
     * @param length {@link WorkRequest#completionLength()}
     * @param error  null when it succeeded; else the local error it completes with (a payload read of a Write or
     *               Send failed: {@link TerminateCause#RDMAP_LOCAL_CATASTROPHIC}, decision 19 of {@link RdmapEndpoint})
     */
    record RequestCompletion(int qp, long wrId, RdmapOpcode opcode, long length, TerminateCause error)
            implements EndpointAction {
        /** A successful completion. */
        public RequestCompletion(int qp, long wrId, RdmapOpcode opcode, long length) {
            this(qp, wrId, opcode, length, null);
        }

        @Override
        public String toString() {
            return String.format("RequestCompletion[qp=%d wr=%d %s len=%d]", qp, wrId, opcode, length)
                    + (error == null ? "" : " error " + error);
        }
    }

    /**
     * A Terminate from the peer was delivered (RDMAP-14): the QP is failed, sends nothing more and drops every later
     * inbound segment.
     *
     * @param qp        the QP
     * @param terminate its fields as parsed
     */
    record TerminateReceived(int qp, Terminate terminate) implements EndpointAction {
    }

    /**
     * This endpoint found an error on an inbound segment of {@code qp}: the QP is failed, later inbound segments are
     * dropped, and the Terminate reporting {@code cause} is the next and last thing the QP sends
     * ({@link RdmapEndpoint.Source#TERMINATE}).
     *
     * @param qp    the QP
     * @param cause the error, with its docs/requirements.md §3 row
     */
    record Failure(int qp, TerminateCause cause) implements EndpointAction {
    }

    /**
     * A DDP segment (MPA ULPDU) the endpoint sends on {@code qp}.
     *
     * @param qp    the QP
     * @param ulpdu the segment's octets, DDP header first
     */
    record Outbound(int qp, byte[] ulpdu) implements EndpointAction {
        public Outbound {
            ulpdu = ulpdu.clone();
        }

        @Override
        public byte[] ulpdu() {
            return ulpdu.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Outbound p && p.qp == qp && Arrays.equals(p.ulpdu, ulpdu);
        }

        @Override
        public int hashCode() {
            return qp * 31 + Arrays.hashCode(ulpdu);
        }

        @Override
        public String toString() {
            String header;
            try {
                header = DdpSegment.parse(ulpdu).header().toString();
            } catch (TerminateException e) {
                header = "unparsable";
            }
            return String.format("Outbound[qp=%d %d octets %s: %s]", qp, ulpdu.length, header, head(ulpdu));
        }
    }

    /**
     * An inbound segment dropped silently because the QP has failed (DDP-31, RDMAP-14).
     *
     * @param qp     the QP
     * @param length the segment's length
     */
    record Dropped(int qp, int length) implements EndpointAction {
    }

    /** The first octets of {@code b} in hex, for toString. */
    private static String head(byte[] b) {
        int shown = Math.min(b.length, 24);
        return HexFormat.ofDelimiter(" ").formatHex(b, 0, shown) + (shown < b.length ? " …" : "");
    }
}
