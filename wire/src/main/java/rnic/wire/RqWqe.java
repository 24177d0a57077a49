package rnic.wire;

/**
 * A receive queue element in host memory: {@value #SIZE} octets per ring slot, little-endian. The buffer at
 * {@link #ADDRESS} of {@link #CAPACITY} octets takes one untagged message (Send family or Immediate Data, RDMAP-12,
 * RFC 7306 §6); its completion carries the slot index as {@code wrId}.
 *
 * <pre>
 *  0 address (u64)   8 capacity (u32)   12 … 31 reserved
 * </pre>
 */
public final class RqWqe {
    private RqWqe() {
    }

    public static final int SIZE = 32;
    public static final int ADDRESS = 0;
    public static final int CAPACITY = 8;
}
