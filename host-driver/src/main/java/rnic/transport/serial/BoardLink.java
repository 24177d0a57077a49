package rnic.transport.serial;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The board firmware's services over a {@link HostLink}, one call per message of docs/host-link.md ("Messages"):
 * board info, 32-bit register access, bulk board memory, TCP payload toward the RNIC core's connections; and the
 * board's own messages — TCP payload the core sent, interrupt edges — kept as {@link Event}s in arrival order.
 * Calls are answered in order (the firmware serves one message at a time), so a call waits for its answer and keeps
 * the events that arrive meanwhile.
 */
public final class BoardLink implements AutoCloseable {
    /** What the board says about itself ('I'). */
    public record Info(int id, long clockHz, long baud, int buildId, long memoryBase, long memoryBytes,
            long rnicBase, long retransmissions, long droppedDamaged, long droppedOutOfOrder) {
    }

    /** Something the board sent on its own. */
    public sealed interface Event permits TcpOutput, Interrupt {
    }

    /** Octets the RNIC core sent on connection {@code connection}, in order. */
    public record TcpOutput(int connection, byte[] octets) implements Event {
    }

    /** The RNIC core's interrupt line rose. */
    public record Interrupt() implements Event {
    }

    /** Largest bulk transfer in one message. */
    public static final int CHUNK = HostLink.MAX_PAYLOAD - 8;

    private final HostLink link;
    private final Duration timeout;
    private final ArrayDeque<Event> events = new ArrayDeque<>();

    /** Services over {@code link} (connected), each call waiting at most {@code timeout} for its answer. */
    public BoardLink(HostLink link, Duration timeout) {
        this.link = link;
        this.timeout = timeout;
    }

    /** The board's identity, clock, link rate, build, memory, where the RNIC's registers are, and link counters. */
    public Info info() throws IOException {
        ByteBuffer b = ByteBuffer.wrap(call(new byte[] {'I'}, 'i'));
        b.get();
        return new Info(b.getInt(), b.getInt() & 0xFFFF_FFFFL, b.getInt() & 0xFFFF_FFFFL, b.getInt(),
                b.getInt() & 0xFFFF_FFFFL, b.getInt() & 0xFFFF_FFFFL, b.getInt() & 0xFFFF_FFFFL,
                b.getInt() & 0xFFFF_FFFFL, b.getInt() & 0xFFFF_FFFFL, b.getInt() & 0xFFFF_FFFFL);
    }

    /** The result of the firmware's power-on self-test ('S'). */
    public BoardSelfTest selfTest() throws IOException {
        ByteBuffer b = ByteBuffer.wrap(call(new byte[] {'S'}, 's'));
        b.get();
        return new BoardSelfTest(b.get() & 0xFF, b.getInt(), b.getInt() & 0xFFFF_FFFFL, b.getInt(), b.getInt(),
                b.getLong(), b.getLong(), b.getInt());
    }

    /** Reads the 32-bit word at {@code address} of the board's bus. */
    public int read32(long address) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(call(ByteBuffer.allocate(5).put((byte) 'R').putInt((int) address).array(),
                'r'));
        b.get();
        return b.getInt();
    }

    /** Writes the 32-bit word at {@code address} of the board's bus. */
    public void write32(long address, int value) throws IOException {
        call(ByteBuffer.allocate(9).put((byte) 'W').putInt((int) address).putInt(value).array(), 'w');
    }

    /** Copies {@code length} octets of {@code data} from {@code offset} to board memory at {@code address}. */
    public void writeMemory(long address, byte[] data, int offset, int length) throws IOException {
        for (int done = 0; done < length; ) {
            int n = Math.min(CHUNK, length - done);
            ByteBuffer m = ByteBuffer.allocate(5 + n).put((byte) 'M').putInt((int) (address + done))
                    .put(data, offset + done, n);
            call(m.array(), 'm');
            done += n;
        }
    }

    /** Copies {@code length} octets of board memory at {@code address} into {@code dst} from {@code offset}. */
    public void readMemory(long address, byte[] dst, int offset, int length) throws IOException {
        for (int done = 0; done < length; ) {
            int n = Math.min(CHUNK, length - done);
            byte[] a = call(ByteBuffer.allocate(7).put((byte) 'N').putInt((int) (address + done)).putShort((short) n)
                    .array(), 'n');
            if (a.length != n + 1) {
                throw new HostLinkException("board memory read of " + n + " octets answered " + (a.length - 1));
            }
            System.arraycopy(a, 1, dst, offset + done, n);
            done += n;
        }
    }

    /**
     * Offers {@code octets} to the core's connection {@code connection}, the first with TCP sequence number
     * {@code seq}; returns how many the board's TCP bridge took (as many as it has room for, from the first): the
     * caller offers the rest again later.
     */
    public int pushTcp(int connection, long seq, byte[] octets, int offset, int length) throws IOException {
        int done = 0;
        while (done < length) {
            int n = Math.min(CHUNK, length - done);
            ByteBuffer m = ByteBuffer.allocate(6 + n).put((byte) 'T').put((byte) connection)
                    .putInt((int) (seq + done)).put(octets, offset + done, n);
            ByteBuffer a = ByteBuffer.wrap(call(m.array(), 't'));
            a.get();
            int taken = a.getShort() & 0xFFFF;
            done += taken;
            if (taken < n) {
                break;
            }
        }
        return done;
    }

    /**
     * Ends the stream toward the core's connection {@code connection} after every octet offered so far (the peer's
     * FIN or RST, {@code TcpRxBeat.fin}); returns whether the board's TCP bridge took it (it had room), else the caller
     * asks again later.
     */
    public boolean finTcp(int connection) throws IOException {
        byte[] a = call(new byte[] {'F', (byte) connection}, 'f');
        return a.length > 1 && a[1] != 0;
    }

    /** The oldest event the board sent, waiting at most {@code wait} for one; null when none came. */
    public Event nextEvent(Duration wait) throws IOException {
        if (events.isEmpty()) {
            byte[] m = link.receive(wait);
            if (m != null) {
                keepEvent(m);
            }
        }
        return events.poll();
    }

    @Override
    public void close() throws IOException {
        link.close();
    }

    private byte[] call(byte[] request, char answer) throws IOException {
        link.send(request, timeout);
        while (true) {
            byte[] m = link.receive(timeout);
            if (m == null) {
                throw new HostLinkException("the board did not answer '" + (char) request[0] + "' within " + timeout);
            }
            if (m.length > 0 && m[0] == answer) {
                return m;
            }
            if (m.length > 1 && m[0] == '?') {
                throw new HostLinkException("the board does not know message '" + (char) m[1] + "'");
            }
            if (!keepEvent(m)) {
                throw new HostLinkException("unexpected answer '" + (m.length > 0 ? (char) m[0] : ' ') + "' to '"
                        + (char) request[0] + "'");
            }
        }
    }

    private boolean keepEvent(byte[] m) {
        if (m.length >= 2 && m[0] == 'X') {
            events.add(new TcpOutput(m[1] & 0xFF, Arrays.copyOfRange(m, 2, m.length)));
            return true;
        }
        if (m.length == 1 && m[0] == 'Q') {
            events.add(new Interrupt());
            return true;
        }
        return false;
    }
}
