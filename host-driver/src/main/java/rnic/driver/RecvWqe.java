package rnic.driver;

import java.util.Arrays;
import rnic.wire.RqWqe;

/** Encodes a receive queue element ({@link RqWqe}): buffer address and capacity, little-endian, reserved octets 0. */
public final class RecvWqe {
    private RecvWqe() {
    }

    /** Writes the {@value RqWqe#SIZE} octets of an element into {@code slot} from offset 0. */
    public static void encode(byte[] slot, long address, int capacity) {
        Arrays.fill(slot, 0, RqWqe.SIZE, (byte) 0);
        Le.putLong(slot, RqWqe.ADDRESS, address);
        Le.putInt(slot, RqWqe.CAPACITY, capacity);
    }
}
