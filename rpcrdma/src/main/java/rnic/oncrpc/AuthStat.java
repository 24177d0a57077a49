package rnic.oncrpc;

/** auth_stat of an AUTH_ERROR rejection (RFC 5531 §9). */
public enum AuthStat {
    AUTH_OK(0), AUTH_BADCRED(1), AUTH_REJECTEDCRED(2), AUTH_BADVERF(3), AUTH_REJECTEDVERF(4), AUTH_TOOWEAK(5),
    AUTH_INVALIDRESP(6), AUTH_FAILED(7);

    private final int code;

    AuthStat(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static AuthStat of(int code) {
        for (AuthStat s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }
}
