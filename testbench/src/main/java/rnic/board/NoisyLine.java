package rnic.board;

import java.io.IOException;
import java.time.Duration;
import java.util.Random;
import rnic.transport.serial.SerialLine;

/**
 * A {@link SerialLine} that damages what passes through it, both ways, at set rates (parts per million per octet):
 * flips one bit, drops the octet, or sends it twice — what a noisy or overrun UART does. Seeded: a failure can be
 * reproduced. Counts what it did, so a test can check the noise really happened.
 */
public final class NoisyLine implements SerialLine {
    private final SerialLine line;
    private final int flipPpm;
    private final int dropPpm;
    private final int duplicatePpm;
    private final Random random;
    private long flipped;
    private long dropped;
    private long duplicated;

    /** Damages {@code line}'s octets at the given rates, with a generator seeded by {@code seed}. */
    public NoisyLine(SerialLine line, int flipPpm, int dropPpm, int duplicatePpm, long seed) {
        this.line = line;
        this.flipPpm = flipPpm;
        this.dropPpm = dropPpm;
        this.duplicatePpm = duplicatePpm;
        this.random = new Random(seed);
    }

    @Override
    public void write(byte[] data, int offset, int length) throws IOException {
        byte[] out = damage(data, offset, length);
        line.write(out, 0, out.length);
    }

    @Override
    public int read(byte[] dst, int offset, int length, Duration timeout) throws IOException {
        // Read at most half, so a duplicated octet still fits.
        byte[] in = new byte[Math.max(1, length / 2)];
        int n = line.read(in, 0, in.length, timeout);
        byte[] out = damage(in, 0, n);
        System.arraycopy(out, 0, dst, offset, out.length);
        return out.length;
    }

    private byte[] damage(byte[] data, int offset, int length) {
        byte[] out = new byte[length * 2];
        int o = 0;
        for (int i = 0; i < length; i++) {
            byte b = data[offset + i];
            if (random.nextInt(1_000_000) < dropPpm) {
                dropped++;
                continue;
            }
            if (random.nextInt(1_000_000) < flipPpm) {
                b ^= (byte) (1 << random.nextInt(8));
                flipped++;
            }
            out[o++] = b;
            if (random.nextInt(1_000_000) < duplicatePpm) {
                out[o++] = b;
                duplicated++;
            }
        }
        return java.util.Arrays.copyOf(out, o);
    }

    @Override
    public long nanoTime() {
        return line.nanoTime();
    }

    /** Octets with a flipped bit so far. */
    public long flipped() {
        return flipped;
    }

    /** Octets dropped so far. */
    public long dropped() {
        return dropped;
    }

    /** Octets sent twice so far. */
    public long duplicated() {
        return duplicated;
    }

    @Override
    public void close() throws IOException {
        line.close();
    }
}
