package rnic.board;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import rnic.transport.serial.SerialLine;

/**
 * A {@link SerialLine} to a program's standard input and output — the firmware's host-link engine built natively
 * ({@code firmware/test/link_board.c}) stands in for a board's UART. A reader thread moves the program's output into
 * a queue so reads can time out.
 */
public final class ProcessLine implements SerialLine {
    private final Process process;
    private final OutputStream toProgram;
    private final BlockingQueue<byte[]> fromProgram = new ArrayBlockingQueue<>(4096);
    private byte[] pending = new byte[0];
    private int pendingAt;

    /** Starts {@code program} and joins its standard streams to this line (its stderr is inherited). */
    public ProcessLine(Path program) throws IOException {
        process = new ProcessBuilder(program.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        toProgram = process.getOutputStream();
        InputStream in = process.getInputStream();
        Thread reader = new Thread(() -> {
            byte[] buf = new byte[4096];
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    fromProgram.put(java.util.Arrays.copyOf(buf, n));
                }
            } catch (IOException | InterruptedException e) {
                // The program ended or the line was closed: reads time out from now on.
            }
        }, "process-line-" + program.getFileName());
        reader.setDaemon(true);
        reader.start();
    }

    @Override
    public void write(byte[] data, int offset, int length) throws IOException {
        toProgram.write(data, offset, length);
        toProgram.flush();
    }

    @Override
    public int read(byte[] dst, int offset, int length, Duration timeout) throws IOException {
        if (pendingAt == pending.length) {
            try {
                byte[] next = fromProgram.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
                if (next == null) {
                    return 0;
                }
                pending = next;
                pendingAt = 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
        }
        int n = Math.min(length, pending.length - pendingAt);
        System.arraycopy(pending, pendingAt, dst, offset, n);
        pendingAt += n;
        return n;
    }

    @Override
    public void close() throws IOException {
        toProgram.close();
        process.destroy();
    }
}
