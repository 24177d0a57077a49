package rnic.driver;

/**
 * One entry of the core's STag table as the host programs it through the STAG block (RFC 5040 §8.1, DDP-34; issue 5
 * contract): the STag is {@code index << 8 | key}; a region is VA-based (its TOs are host addresses) unless
 * {@code zeroBased}. The host keeps {@code va + length ≤ 2^64}; the core does not check it.
 *
 * @param index        table index, STag bits 31:8
 * @param key          STag bits 7:0
 * @param pd           protection domain number
 * @param qpBound      only QP {@code qp} may use it (needed for remote invalidation, RDMAP-26); else every QP of the PD
 * @param qp           the QP when {@code qpBound}
 * @param remoteWrite  target of RDMA Writes and sink of Read Responses
 * @param remoteRead   source of RDMA Reads
 * @param remoteAtomic target of Atomics
 * @param zeroBased    TOs count from 0 at {@code va}
 * @param va           host address of the first octet
 * @param length       octets
 */
public record StagRegistration(int index, int key, int pd, boolean qpBound, int qp, boolean remoteWrite,
        boolean remoteRead, boolean remoteAtomic, boolean zeroBased, long va, long length) {

    public StagRegistration {
        if (index < 0 || index > 0xFF_FFFF || key < 0 || key > 0xFF) {
            throw new IllegalArgumentException("STag index is 24 bits and key 8 bits: " + index + ", " + key);
        }
        if (length < 0 || Long.compareUnsigned(va + length, va) < 0 && va + length != 0) {
            throw new IllegalArgumentException("region " + Long.toHexString(va) + "+" + length
                    + " does not fit the 64-bit address space");
        }
    }

    /** The STag of the entry. */
    public int stag() {
        return index << 8 | key;
    }
}
