package rnic.transport.serial;

import java.io.IOException;
import java.time.Duration;
import jssc.SerialPort;
import jssc.SerialPortException;
import jssc.SerialPortTimeoutException;

/**
 * A real serial port through jssc: a board's USB-UART ({@code /dev/ttyUSB0}, {@code /dev/ttyACM0}, {@code COM3}) or
 * any terminal device, such as a pseudo-terminal joined to a simulated board. 8N1, no flow control.
 */
public final class JsscSerialLine implements SerialLine {
    private final SerialPort port;
    private final java.util.function.LongSupplier clock;

    /**
     * Opens {@code device} at {@code baud}.
     *
     * @throws IOException when the port cannot be opened or set up (it names the device and jssc's reason)
     */
    public JsscSerialLine(String device, int baud) throws IOException {
        this(device, baud, System::nanoTime);
    }

    /**
     * Opens {@code device} at {@code baud}, with {@code clock} (nanoseconds) as the line's time: a board simulated
     * behind a pseudo-terminal runs far slower than real time, so the link's timers must count its time, not the
     * host's.
     */
    public JsscSerialLine(String device, int baud, java.util.function.LongSupplier clock) throws IOException {
        this.clock = clock;
        port = new SerialPort(device);
        try {
            port.openPort();
            port.setParams(baud, SerialPort.DATABITS_8, SerialPort.STOPBITS_1, SerialPort.PARITY_NONE);
            port.setFlowControlMode(SerialPort.FLOWCONTROL_NONE);
            port.purgePort(SerialPort.PURGE_RXCLEAR | SerialPort.PURGE_TXCLEAR);
        } catch (SerialPortException e) {
            try {
                if (port.isOpened()) {
                    port.closePort();
                }
            } catch (SerialPortException ignored) {
                // the original failure is the one to report
            }
            throw new IOException("cannot open serial port " + device + " at " + baud + " baud: "
                    + e.getExceptionType(), e);
        }
    }

    @Override
    public void write(byte[] data, int offset, int length) throws IOException {
        byte[] b = offset == 0 && length == data.length ? data : java.util.Arrays.copyOfRange(data, offset,
                offset + length);
        try {
            if (!port.writeBytes(b)) {
                throw new IOException("writing " + length + " octets to " + port.getPortName() + " failed");
            }
        } catch (SerialPortException e) {
            throw new IOException("writing to " + port.getPortName() + ": " + e.getExceptionType(), e);
        }
    }

    @Override
    public int read(byte[] dst, int offset, int length, Duration timeout) throws IOException {
        try {
            int available = port.getInputBufferBytesCount();
            if (available <= 0) {
                // Wait for one octet (jssc polls), then take whatever else has come.
                int ms = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
                byte[] first;
                try {
                    first = port.readBytes(1, ms);
                } catch (SerialPortTimeoutException e) {
                    return 0;
                }
                dst[offset] = first[0];
                available = Math.min(length - 1, Math.max(0, port.getInputBufferBytesCount()));
                if (available > 0) {
                    byte[] more = port.readBytes(available);
                    System.arraycopy(more, 0, dst, offset + 1, more.length);
                    return 1 + more.length;
                }
                return 1;
            }
            byte[] b = port.readBytes(Math.min(length, available));
            System.arraycopy(b, 0, dst, offset, b.length);
            return b.length;
        } catch (SerialPortException e) {
            throw new IOException("reading from " + port.getPortName() + ": " + e.getExceptionType(), e);
        }
    }

    @Override
    public long nanoTime() {
        return clock.getAsLong();
    }

    @Override
    public void close() throws IOException {
        try {
            if (port.isOpened()) {
                port.closePort();
            }
        } catch (SerialPortException e) {
            throw new IOException("closing " + port.getPortName() + ": " + e.getExceptionType(), e);
        }
    }
}
