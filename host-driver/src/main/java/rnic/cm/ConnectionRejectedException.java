package rnic.cm;

/**
 * The Responder rejected the connection: its MPA Reply had R=1 (RFC 5044 §7.1.2 rule 3, MPA-35). The TCP connection
 * is left open; the peer's private data and, for an enhanced Reply, its IRD/ORD are passed on (RFC 6581 §9.1).
 */
public final class ConnectionRejectedException extends ConnectionException {
    private static final long serialVersionUID = 1L;
    private final transient byte[] peerPrivateData;
    private final int peerRev;
    private final int peerIrd;
    private final int peerOrd;

    public ConnectionRejectedException(String message, byte[] peerPrivateData, int peerRev, int peerIrd,
            int peerOrd) {
        super(null, message);
        this.peerPrivateData = peerPrivateData.clone();
        this.peerRev = peerRev;
        this.peerIrd = peerIrd;
        this.peerOrd = peerOrd;
    }

    /** The private data of the reject Reply (without RFC 6581 enhanced data). */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /** The Rev of the Reply. */
    public int peerRev() {
        return peerRev;
    }

    /** The Responder's IRD in an enhanced Reply, or -1. */
    public int peerIrd() {
        return peerIrd;
    }

    /** The Responder's ORD in an enhanced Reply (the ORD it requires, when it rejected for IRD), or -1. */
    public int peerOrd() {
        return peerOrd;
    }
}
