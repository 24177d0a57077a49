package rnic.wire;

/**
 * The Atomic Operation codes (AOpCode, the low nibble of octet 3 of the Atomic Request header; RFC 7306 §5.2.1 and
 * the registry of §10.1, docs/requirements.md §2.7.3). 0x1 is Reserved and 0x3–0xF are unassigned: a request carrying one of
 * them is answered with an error (E-R17), never executed. An RNIC that supports Atomics supports both (RDMAP-28).
 */
public enum AtomicOpcode {
    /** FetchAdd: masked add, returns the original value (RFC 7306 §5.1.1). */
    FETCH_ADD(0x0),
    /** CmpSwap: masked compare, masked swap on a match, returns the original value (RFC 7306 §5.1.2). */
    CMP_SWAP(0x2);

    private final int code;

    AtomicOpcode(int code) {
        this.code = code;
    }

    /** The AOpCode value on the wire. */
    public int code() {
        return code;
    }
}
