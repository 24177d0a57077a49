package rnic.sim.pcap;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a classic libpcap capture file: the 24-octet global header (magic {@code 0xa1b2c3d4}, version 2.4, time zone
 * 0, sigfigs 0, snaplen 65535, LINKTYPE_ETHERNET = 1) followed by one 16-octet record header plus the frame per packet,
 * with microsecond timestamps. Every field is written little-endian, so the file starts {@code d4 c3 b2 a1}; readers
 * recognise the byte order from the magic (pcap-savefile(5), draft-ietf-opsawg-pcap).
 *
 * <p>Frames are stored whole (captured length = original length); a frame longer than the snaplen is rejected rather
 * than truncated. {@link #writeEthernet} builds an Ethernet II frame (destination, source, EtherType, payload) padded
 * with zeros to the 60-octet minimum a receiver sees (no FCS); {@link Frames} builds the IPv4 and TCP layers.
 */
public final class PcapWriter implements AutoCloseable {
    /** The magic number for microsecond timestamps. */
    public static final int MAGIC = 0xa1b2c3d4;
    public static final int VERSION_MAJOR = 2;
    public static final int VERSION_MINOR = 4;
    public static final int SNAPLEN = 65535;
    /** LINKTYPE_ETHERNET: IEEE 802.3 / Ethernet II frames without FCS. */
    public static final int LINKTYPE_ETHERNET = 1;
    /** Size of the global header. */
    public static final int GLOBAL_HEADER_SIZE = 24;
    /** Size of a record header. */
    public static final int RECORD_HEADER_SIZE = 16;
    /** EtherType of IPv4. */
    public static final int ETHERTYPE_IPV4 = 0x0800;
    /** Shortest Ethernet frame without FCS; shorter frames are zero-padded. */
    public static final int MIN_ETHERNET_FRAME = 60;

    private final OutputStream out;
    private long packets;
    private boolean closed;

    /** Writes the global header to {@code out}; the writer owns the stream and closes it. */
    public PcapWriter(OutputStream out) throws IOException {
        this.out = out;
        out.write(globalHeader());
    }

    /** Creates (or truncates) {@code file}, creating its parent directories, and writes the global header. */
    public static PcapWriter create(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        return new PcapWriter(new BufferedOutputStream(Files.newOutputStream(file)));
    }

    /** The 24 octets of the global header. */
    public static byte[] globalHeader() {
        ByteBuffer b = ByteBuffer.allocate(GLOBAL_HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC);
        b.putShort((short) VERSION_MAJOR);
        b.putShort((short) VERSION_MINOR);
        b.putInt(0); // thiszone: GMT
        b.putInt(0); // sigfigs
        b.putInt(SNAPLEN);
        b.putInt(LINKTYPE_ETHERNET);
        return b.array();
    }

    /**
     * Writes one packet record.
     *
     * @param timestampMicros microseconds since the Unix epoch
     * @param frame           the link-layer frame (here: Ethernet without FCS), at most {@link #SNAPLEN} octets
     */
    public void writeRecord(long timestampMicros, byte[] frame) throws IOException {
        if (closed) {
            throw new IOException("pcap writer is closed");
        }
        if (timestampMicros < 0) {
            throw new IllegalArgumentException("negative timestamp " + timestampMicros);
        }
        if (frame.length > SNAPLEN) {
            throw new IllegalArgumentException("frame of " + frame.length + " octets exceeds snaplen " + SNAPLEN);
        }
        long seconds = timestampMicros / 1_000_000;
        if (seconds > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("timestamp beyond the 32-bit seconds field: " + timestampMicros);
        }
        ByteBuffer h = ByteBuffer.allocate(RECORD_HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt((int) seconds);
        h.putInt((int) (timestampMicros % 1_000_000));
        h.putInt(frame.length); // incl_len
        h.putInt(frame.length); // orig_len
        out.write(h.array());
        out.write(frame);
        packets++;
    }

    /**
     * Writes one Ethernet II frame: {@code dst}, {@code src}, {@code etherType}, {@code payload}, zero-padded to
     * {@link #MIN_ETHERNET_FRAME} octets.
     *
     * @return the frame as written
     */
    public byte[] writeEthernet(long timestampMicros, byte[] dst, byte[] src, int etherType, byte[] payload)
            throws IOException {
        byte[] frame = Frames.ethernet(dst, src, etherType, payload);
        writeRecord(timestampMicros, frame);
        return frame;
    }

    /** Number of records written so far. */
    public long packets() {
        return packets;
    }

    /** Flushes buffered records to the stream. */
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            closed = true;
            out.close();
        }
    }
}
