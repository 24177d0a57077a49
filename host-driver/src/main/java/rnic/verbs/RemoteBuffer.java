package rnic.verbs;

/**
 * A place in the peer's memory a work request names: the peer's STag (its rkey) and the Tagged Offset there. For the
 * VA-based regions this driver registers, the TO is the address, as in verbs' {@code remote_addr}.
 *
 * @param stag    the peer's STag (index &lt;&lt; 8 | key)
 * @param address the Tagged Offset
 */
public record RemoteBuffer(int stag, long address) {
    /** The place {@code delta} octets further on. */
    public RemoteBuffer plus(long delta) {
        return new RemoteBuffer(stag, address + delta);
    }

    @Override
    public String toString() {
        return String.format("RemoteBuffer[stag=0x%08x, to=0x%x]", stag, address);
    }
}
