package rnic.sim.pcap;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Realistic ULPDUs for the capture tests: alternating RDMAP Sends and RDMA Writes of random sizes. */
final class Traffic {
    /** DDP untagged header (18 octets, RDMAP Send has no header of its own). */
    static final int SEND_HEADER = 18;
    /** DDP tagged header (14 octets). */
    static final int WRITE_HEADER = 14;

    private Traffic() {
    }

    /**
     * {@code count} ULPDUs alternating Send (MSN 1, 2, …) and RDMA Write (STag {@code stag}, TO advancing), each at
     * most {@code mulpdu} octets so every FPDU fits one EMSS segment. Payload octets are random.
     */
    static List<byte[]> sendsAndWrites(Random rng, int count, int mulpdu, int stag) {
        List<byte[]> out = new ArrayList<>();
        int msn = 1;
        long to = 0x10000;
        for (int i = 0; i < count; i++) {
            if (i % 2 == 0) {
                byte[] p = new byte[1 + rng.nextInt(mulpdu - SEND_HEADER)];
                rng.nextBytes(p);
                out.add(MpaCapture.send(msn++, p));
            } else {
                byte[] p = new byte[1 + rng.nextInt(mulpdu - WRITE_HEADER)];
                rng.nextBytes(p);
                out.add(MpaCapture.rdmaWrite(stag, to, p));
                to += p.length;
            }
        }
        return out;
    }

    static boolean tagged(byte[] ulpdu) {
        return (ulpdu[0] & 0x80) != 0;
    }

    static int opcode(byte[] ulpdu) {
        return ulpdu[1] & 0x0F;
    }

    /** MSN of an untagged ULPDU. */
    static long msn(byte[] ulpdu) {
        return PcapFile.u32(ulpdu, 10);
    }

    /** STag of a tagged ULPDU. */
    static long stag(byte[] ulpdu) {
        return PcapFile.u32(ulpdu, 2);
    }

    /** Tagged Offset of a tagged ULPDU. */
    static long to(byte[] ulpdu) {
        return (PcapFile.u32(ulpdu, 6) << 32) | PcapFile.u32(ulpdu, 10);
    }
}
