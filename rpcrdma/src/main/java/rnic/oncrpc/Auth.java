package rnic.oncrpc;

import java.util.List;
import rnic.xdr.XdrDecoder;
import rnic.xdr.XdrEncoder;

/**
 * An opaque_auth (RFC 5531 §8.2): flavor and body. AUTH_NONE (0) has an empty body; AUTH_SYS (1) carries
 * {@link Sys} (RFC 5531 Appendix A).
 */
public record Auth(int flavor, byte[] body) {
    public static final int AUTH_NONE = 0;
    public static final int AUTH_SYS = 1;
    /** RPCSEC_GSS: not supported (with it nothing could be reduced, RPCRDMA-33). */
    public static final int RPCSEC_GSS = 6;

    public Auth {
        if (body.length > Rpc.MAX_AUTH_BYTES) {
            throw new IllegalArgumentException("auth body of " + body.length + " octets over 400");
        }
        body = body.clone();
    }

    public static Auth none() {
        return new Auth(AUTH_NONE, new byte[0]);
    }

    public static Auth sys(Sys s) {
        return new Auth(AUTH_SYS, s.encode());
    }

    /**
     * AUTH_SYS parameters: {@code struct authsys_parms { unsigned int stamp; string machinename<255>; unsigned int
     * uid; unsigned int gid; unsigned int gids<16>; }}.
     */
    public record Sys(int stamp, String machine, int uid, int gid, List<Integer> gids) {
        public Sys {
            gids = List.copyOf(gids);
            if (gids.size() > 16 || machine.length() > 255) {
                throw new IllegalArgumentException("AUTH_SYS: at most 16 gids and 255 octets of machine name");
            }
        }

        public byte[] encode() {
            XdrEncoder e = new XdrEncoder(64).int32(stamp).string(machine).int32(uid).int32(gid).int32(gids.size());
            gids.forEach(e::int32);
            return e.toByteArray();
        }

        /** Decodes an AUTH_SYS body; the whole body must be used. */
        public static Sys decode(byte[] body) {
            XdrDecoder d = new XdrDecoder(body);
            int stamp = d.int32();
            String machine = d.string(255);
            int uid = d.int32();
            int gid = d.int32();
            long n = d.uint32();
            if (n > 16) {
                throw new rnic.xdr.XdrException("AUTH_SYS with " + n + " gids");
            }
            Integer[] g = new Integer[(int) n];
            for (int i = 0; i < n; i++) {
                g[i] = d.int32();
            }
            if (d.remaining() != 0) {
                throw new rnic.xdr.XdrException("AUTH_SYS body has " + d.remaining() + " extra octets");
            }
            return new Sys(stamp, machine, uid, gid, List.of(g));
        }
    }

    void encode(XdrEncoder e) {
        e.int32(flavor).opaque(body);
    }

    static Auth decode(XdrDecoder d) {
        int f = d.int32();
        return new Auth(f, d.opaque(Rpc.MAX_AUTH_BYTES));
    }
}
