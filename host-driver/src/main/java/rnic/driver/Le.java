package rnic.driver;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Little-endian fields in byte arrays: the byte order of every descriptor in host memory ({@code rnic.wire.SqWqe},
 * {@code RqWqe}, {@code Cqe}). Allocation-free, so the posting and polling paths can use it.
 */
public final class Le {
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Le() {
    }

    public static void putInt(byte[] b, int offset, int value) {
        INT.set(b, offset, value);
    }

    public static void putLong(byte[] b, int offset, long value) {
        LONG.set(b, offset, value);
    }

    public static int getInt(byte[] b, int offset) {
        return (int) INT.get(b, offset);
    }

    public static long getLong(byte[] b, int offset) {
        return (long) LONG.get(b, offset);
    }

    /** The unsigned octet at {@code offset}. */
    public static int getU8(byte[] b, int offset) {
        return b[offset] & 0xFF;
    }
}
