package rnic.transport.serial;

import java.util.ArrayList;
import java.util.List;

/**
 * The result of the board firmware's power-on self-test of the offload pipeline ('S', docs/host-link.md "Power-on
 * self-test"), run on the board's own RNIC core before the host link starts: QP 0 and QP 1 joined into a loopback pair
 * through the TCP bridge carry the RFC 5044 Fig. 5 and Fig. 6 FPDUs (CRC32c checked as sent and as received), the RFC
 * 7306 masked FetchAdd F1 and masked CmpSwap C1 worked examples, an RDMA Write the STag validator accepts and one
 * with a wrong key it refuses; then, on fresh streams, the Fig. 5 FPDU with one CRC bit flipped on the way, which the
 * receiver must refuse.
 *
 * @param checks    how many checks the firmware knows ({@link #CHECKS} names the first ones)
 * @param passed    bit i: check i passed
 * @param cycles    board clock cycles the self-test took
 * @param fig5Crc   the CRC field of QP 0's first FPDU as the framer sent it (first octet in bits 31:24)
 * @param fig6Crc   the CRC field of QP 1's second FPDU
 * @param fetchAdd  the target after the masked FetchAdd
 * @param cmpSwap   the target after the masked CmpSwap
 * @param terminate octets 0 and 1 of the Terminate QP 0 received (Layer/EType, Error Code), in bits 15:0
 */
public record BoardSelfTest(int checks, int passed, long cycles, int fig5Crc, int fig6Crc, long fetchAdd,
        long cmpSwap, int terminate) {
    /** The checks in bit order, as {@code firmware/board/selftest.h} numbers them. */
    public static final List<String> CHECKS = List.of(
            "CRC32c RFC 5044 Fig. 5 as sent (52 23 99 83)",
            "CRC32c Fig. 5 accepted by the receiver",
            "CRC32c RFC 5044 Fig. 6 as sent (84 92 58 98)",
            "CRC32c Fig. 6 accepted by the receiver",
            "RFC 7306 masked FetchAdd F1",
            "RFC 7306 masked CmpSwap C1",
            "STag: Write inside the region accepted",
            "STag: Write with a wrong key refused (Terminate 1/1/00)",
            "CRC32c: an FPDU with one CRC bit flipped refused by the receiver (E-M2)",
            "core left clean for the host");

    /** Whether every check passed (and there were any: a core with fewer than two QPs runs none). */
    public boolean ok() {
        return checks > 0 && checks <= 32 && passed == (int) ((1L << checks) - 1);
    }

    /** The names of the checks that failed. */
    public List<String> failed() {
        List<String> f = new ArrayList<>();
        for (int i = 0; i < checks; i++) {
            if ((passed >>> i & 1) == 0) {
                f.add(i < CHECKS.size() ? CHECKS.get(i) : "check " + i);
            }
        }
        return f;
    }

    /** One line per check, then what the hardware computed. */
    public String report() {
        StringBuilder s = new StringBuilder();
        s.append(String.format("board self-test: %s (%d of %d checks passed, %d cycles)%n", ok() ? "PASSED" : "FAILED",
                Integer.bitCount(passed), checks, cycles));
        for (int i = 0; i < checks; i++) {
            s.append(String.format("  %-4s %s%n", (passed >>> i & 1) != 0 ? "ok" : "FAIL",
                    i < CHECKS.size() ? CHECKS.get(i) : "check " + i));
        }
        s.append(String.format("  computed: Fig. 5 CRC %08x, Fig. 6 CRC %08x, FetchAdd %016x, CmpSwap %016x, "
                + "Terminate %04x%n", fig5Crc, fig6Crc, fetchAdd, cmpSwap, terminate));
        return s.toString();
    }
}
