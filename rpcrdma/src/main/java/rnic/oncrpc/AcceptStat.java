package rnic.oncrpc;

/** accept_stat of an accepted reply (RFC 5531 §9). */
public enum AcceptStat {
    SUCCESS(0), PROG_UNAVAIL(1), PROG_MISMATCH(2), PROC_UNAVAIL(3), GARBAGE_ARGS(4), SYSTEM_ERR(5);

    private final int code;

    AcceptStat(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static AcceptStat of(int code) {
        for (AcceptStat s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }
}
