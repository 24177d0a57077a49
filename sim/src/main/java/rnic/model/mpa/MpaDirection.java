package rnic.model.mpa;

/**
 * The Full-Operation settings of one direction of an MPA connection.
 *
 * @param markers  Markers in this direction (the peer's receiver asked for them: M bit of the other side's frame)
 * @param crc      CRC in use (C=1 in the Request or the Reply); when off, the TX sends zeros and the RX does not check
 * @param seqStart TCP sequence number of the first Full-Operation octet in this direction (the Marker grid origin)
 */
public record MpaDirection(boolean markers, boolean crc, long seqStart) {
    public MpaDirection {
        if (seqStart < 0 || seqStart > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("seqStart must be a 32-bit sequence number, got " + seqStart);
        }
    }
}
