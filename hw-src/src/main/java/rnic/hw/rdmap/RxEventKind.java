package rnic.hw.rdmap;

/**
 * What an event of the RDMAP receive side reports to the host (the completion and asynchronous-event sources of the
 * verbs layer; RFC 5040 §5, §6.2, RFC 7306 §5.4, §6.4). The code is the value of the event's {@code kind} field.
 */
public enum RxEventKind {
    /** A Send (any of the four) was placed into the receive buffer it consumed: wrId, length, opcode, SE. */
    RECEIVE(0),
    /** Immediate Data (with SE) consumed a receive buffer: wrId, the 64-bit value in {@code info}. */
    RECEIVE_IMMEDIATE(1),
    /** The last Read Response segment of the oldest outstanding Read was placed: the Read's wrId. */
    READ_DONE(2),
    /** The Atomic Response of the oldest outstanding Atomic arrived: its wrId, the original value in {@code info}. */
    ATOMIC_DONE(3),
    /** A Terminate arrived: Terminate octets 0–7 in {@code info} (Layer/EType, Error Code, HdrCt, …); QP failed. */
    TERMINATE_RECEIVED(4),
    /** This side detected an error and sends the Terminate of {@code cause}; QP failed. */
    TERMINATE_SENT(5),
    /** A Write, Send (any) or Immediate Data of this side's work requests was sent: wrId, opcode. */
    SEND_DONE(6);

    private final int code;

    RxEventKind(int code) {
        this.code = code;
    }

    /** The value of the {@code kind} field. */
    public int code() {
        return code;
    }

    /** The kind of {@code code}. */
    public static RxEventKind of(int code) {
        for (RxEventKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        throw new IllegalArgumentException("no event kind " + code);
    }
}
