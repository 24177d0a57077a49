package rnic.model.rdmap;

import rnic.wire.AtomicOpcode;
import rnic.wire.Ddp;
import rnic.wire.RdmapOpcode;

/**
 * A requester work request as the host posts it to a QP's send queue ({@link RdmapEndpoint#postSend}): one RDMAP
 * operation (RFC 5040 §5.1–§5.3, RFC 7306 §5–§6), with the caller's {@code wrId} echoed in its completion. Addresses
 * named "local" are host addresses in the endpoint's memory; the remote STag/TO are sent as they are and checked by the
 * peer.
 */
public sealed interface WorkRequest {

    /** The caller's identifier, echoed in the completion. */
    long wrId();

    /** The opcode of the message the request sends. */
    RdmapOpcode opcode();

    /** The length its completion reports: payload octets, RDMARDSZ for a Read, 8 for Immediate Data and Atomics. */
    long completionLength();

    /** Whether it takes an ORD slot: Read Requests and Atomic Requests (RDMAP-24, RFC 7306 §5.2). */
    default boolean usesOrd() {
        return opcode() == RdmapOpcode.RDMA_READ_REQUEST || opcode() == RdmapOpcode.ATOMIC_REQUEST;
    }

    /**
     * RDMA Write (RFC 5040 §5.1): {@code length} octets from {@code localAddress} to the peer's
     * {@code remoteStag}/{@code remoteTo}.
     */
    record Write(long wrId, long localAddress, int length, int remoteStag, long remoteTo) implements WorkRequest {
        public Write {
            requireLength(length);
        }

        @Override
        public long completionLength() {
            return length;
        }

        @Override
        public RdmapOpcode opcode() {
            return RdmapOpcode.RDMA_WRITE;
        }

        @Override
        public String toString() {
            return String.format("Write[wr=%d %d octets from %x to %08x/%016x]", wrId, length, localAddress,
                    remoteStag, remoteTo);
        }
    }

    /**
     * RDMA Read (RFC 5040 §5.2): {@code size} octets from the peer's {@code sourceStag}/{@code sourceTo} into this
     * endpoint's own {@code sinkStag}/{@code sinkTo}, a region registered with the remote-write right (the Read
     * Response is a tagged placement by the peer, checked as one).
     */
    record Read(long wrId, int sinkStag, long sinkTo, int sourceStag, long sourceTo, long size)
            implements WorkRequest {
        public Read {
            if ((size & ~Ddp.U32_MASK) != 0) {
                throw new IllegalArgumentException("RDMARDSZ is 32-bit unsigned: " + size);
            }
        }

        @Override
        public RdmapOpcode opcode() {
            return RdmapOpcode.RDMA_READ_REQUEST;
        }

        @Override
        public long completionLength() {
            return size;
        }

        @Override
        public String toString() {
            return String.format("Read[wr=%d %d octets from %08x/%016x into %08x/%016x]", wrId, size, sourceStag,
                    sourceTo, sinkStag, sinkTo);
        }
    }

    /**
     * Send, Send with Invalidate, Send with SE or Send with SE and Invalidate (RFC 5040 §5.3): {@code length} octets
     * from {@code localAddress}; {@code invalidateStag} is the peer's STag to invalidate for the two Invalidate
     * opcodes and 0 for the others (RDMAP-03).
     */
    record Send(long wrId, RdmapOpcode opcode, long localAddress, int length, int invalidateStag)
            implements WorkRequest {
        public Send {
            new SendMessage(opcode, invalidateStag, new byte[0]); // the opcode and Invalidate STag rules
            requireLength(length);
        }

        @Override
        public long completionLength() {
            return length;
        }

        @Override
        public String toString() {
            return String.format("%s[wr=%d %d octets from %x inval=%08x]", opcode, wrId, length, localAddress,
                    invalidateStag);
        }
    }

    /** Immediate Data or Immediate Data with SE (RFC 7306 §6): the 64-bit {@code data}, sent big-endian. */
    record Immediate(long wrId, RdmapOpcode opcode, long data) implements WorkRequest {
        public Immediate {
            new ImmediateData(opcode, data); // the opcode rule
        }

        @Override
        public long completionLength() {
            return Long.BYTES;
        }

        @Override
        public String toString() {
            return String.format("%s[wr=%d %016x]", opcode, wrId, data);
        }
    }

    /**
     * FetchAdd or CmpSwap (RFC 7306 §5) on the peer's 64-bit {@code remoteStag}/{@code remoteTo} with the operands of
     * {@link AtomicRequest}; the Original Remote Data Value the response returns is stored little-endian (T-26) at
     * {@code localAddress}.
     */
    record Atomic(long wrId, AtomicOpcode aOpCode, int remoteStag, long remoteTo, long addOrSwapData,
            long addOrSwapMask, long compareData, long compareMask, long localAddress) implements WorkRequest {
        @Override
        public RdmapOpcode opcode() {
            return RdmapOpcode.ATOMIC_REQUEST;
        }

        @Override
        public long completionLength() {
            return Long.BYTES;
        }

        /** The request this WR sends, with the Request Identifier the endpoint chose. */
        AtomicRequest request(int requestId) {
            return new AtomicRequest(aOpCode, requestId, remoteStag, remoteTo, addOrSwapData, addOrSwapMask,
                    compareData, compareMask);
        }

        @Override
        public String toString() {
            return String.format("%s[wr=%d %08x/%016x data=%016x mask=%016x cmp=%016x/%016x original to %x]",
                    aOpCode, wrId, remoteStag, remoteTo, addOrSwapData, addOrSwapMask, compareData, compareMask,
                    localAddress);
        }
    }

    /** An RDMA Write. */
    static Write write(long wrId, long localAddress, int length, int remoteStag, long remoteTo) {
        return new Write(wrId, localAddress, length, remoteStag, remoteTo);
    }

    /** An RDMA Read into this endpoint's {@code sinkStag}/{@code sinkTo}. */
    static Read read(long wrId, int sinkStag, long sinkTo, int sourceStag, long sourceTo, long size) {
        return new Read(wrId, sinkStag, sinkTo, sourceStag, sourceTo, size);
    }

    /** A Send. */
    static Send send(long wrId, long localAddress, int length) {
        return new Send(wrId, RdmapOpcode.SEND, localAddress, length, 0);
    }

    /** A Send with Solicited Event. */
    static Send sendWithSe(long wrId, long localAddress, int length) {
        return new Send(wrId, RdmapOpcode.SEND_WITH_SE, localAddress, length, 0);
    }

    /** A Send with Invalidate of the peer's {@code invalidateStag}. */
    static Send sendWithInvalidate(long wrId, long localAddress, int length, int invalidateStag) {
        return new Send(wrId, RdmapOpcode.SEND_WITH_INVALIDATE, localAddress, length, invalidateStag);
    }

    /** A Send with Solicited Event and Invalidate of the peer's {@code invalidateStag}. */
    static Send sendWithSeAndInvalidate(long wrId, long localAddress, int length, int invalidateStag) {
        return new Send(wrId, RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE, localAddress, length, invalidateStag);
    }

    /** Immediate Data. */
    static Immediate immediate(long wrId, long data) {
        return new Immediate(wrId, RdmapOpcode.IMMEDIATE_DATA, data);
    }

    /** Immediate Data with Solicited Event. */
    static Immediate immediateWithSe(long wrId, long data) {
        return new Immediate(wrId, RdmapOpcode.IMMEDIATE_DATA_WITH_SE, data);
    }

    /** A masked FetchAdd; the unused compare fields are sent as 0 and all ones (docs/requirements.md §2.7.3). */
    static Atomic fetchAdd(long wrId, int remoteStag, long remoteTo, long addData, long addMask, long localAddress) {
        return new Atomic(wrId, AtomicOpcode.FETCH_ADD, remoteStag, remoteTo, addData, addMask, 0L, -1L,
                localAddress);
    }

    /** A masked CmpSwap. */
    static Atomic cmpSwap(long wrId, int remoteStag, long remoteTo, long swapData, long swapMask, long compareData,
            long compareMask, long localAddress) {
        return new Atomic(wrId, AtomicOpcode.CMP_SWAP, remoteStag, remoteTo, swapData, swapMask, compareData,
                compareMask, localAddress);
    }

    private static void requireLength(int length) {
        if (length < 0) {
            throw new IllegalArgumentException("length must not be negative: " + length);
        }
    }
}
