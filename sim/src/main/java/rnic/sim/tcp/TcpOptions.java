package rnic.sim.tcp;

/**
 * Settings of one {@link TcpChannel} (both directions use the same). Build from {@link #defaults()} with the
 * {@code withX} methods.
 *
 * <p>MODEL mode only: {@code segmentation}, {@code mss}, {@code delayMin}/{@code delayMax}, {@code loss}, {@code rto},
 * {@code rate}. KERNEL mode only: {@code pollInterval}, {@code socketBuffer}. Both: {@code window}, {@code txBuffer},
 * the ISNs.
 *
 * @param mode         {@link TcpChannel.Mode#MODEL} (the Java model) or {@link TcpChannel.Mode#KERNEL} (a real socket
 *                     pair on 127.0.0.1)
 * @param segmentation how the sender cuts its stream into segments (MPA-23)
 * @param mss          largest segment payload, 1 … 65495 (default 1460: Ethernet MTU 1500 minus IPv4 and TCP headers)
 * @param delayMin     fewest cycles from a segment (or ACK) leaving its sender to reaching the receiver, at least 1
 * @param delayMax     most cycles; each data segment draws its delay uniformly in {@code [delayMin, delayMax]}, so
 *                     segments may overtake each other (the receiver reorders them; ACKs keep their order)
 * @param loss         probability (0 … 0.5) that a transmission of a data segment is lost; the sender retransmits it
 *                     after {@code rto} cycles without an acknowledgment (DDP-03: the receiver still sees each octet
 *                     once, in order)
 * @param rto          retransmission timeout in cycles; 0 = automatic ({@code 4 × delayMax + 32})
 * @param window       receive buffer of each end in octets, 1 … 65535 (advertised as the TCP window; no window
 *                     scaling): octets received in order and not yet taken by the host or the core, plus octets held
 *                     out of order; a full buffer stops the sender (back-pressure)
 * @param rate         octets per cycle a direction may put on the wire (0 = unlimited)
 * @param txBuffer     octets the core may queue for sending before its tcpTx stream is back-pressured
 * @param clientIsn    initial sequence number of end a (the TCP client), or {@link #RANDOM_ISN}
 * @param serverIsn    initial sequence number of end b (the TCP server), or {@link #RANDOM_ISN}
 * @param pollInterval KERNEL: cycles between two polls of the sockets (each poll is a few system calls)
 * @param socketBuffer KERNEL: SO_SNDBUF and SO_RCVBUF in octets (0 = the kernel's default)
 */
public record TcpOptions(TcpChannel.Mode mode, Segmentation segmentation, int mss, int delayMin, int delayMax,
        double loss, int rto, int window, double rate, int txBuffer, long clientIsn, long serverIsn,
        int pollInterval, int socketBuffer) {
    /** ISN value meaning "draw it from the channel's random source". */
    public static final long RANDOM_ISN = -1;
    /** Largest payload of one segment on IPv4 (65535 minus the two 20-octet headers). */
    public static final int MAX_MSS = 0xFFFF - 40;

    public TcpOptions {
        if (mode == null || segmentation == null) {
            throw new IllegalArgumentException("mode and segmentation are required");
        }
        if (mss < 1 || mss > MAX_MSS) {
            throw new IllegalArgumentException("MSS must be 1.." + MAX_MSS + ", got " + mss);
        }
        if (delayMin < 1 || delayMax < delayMin) {
            throw new IllegalArgumentException("need 1 <= delayMin <= delayMax, got " + delayMin + ", " + delayMax);
        }
        if (!(loss >= 0 && loss <= 0.5)) {
            throw new IllegalArgumentException("loss must be in [0, 0.5], got " + loss);
        }
        if (rto < 0) {
            throw new IllegalArgumentException("negative RTO " + rto);
        }
        if (window < 1 || window > 0xFFFF) {
            throw new IllegalArgumentException("window must be 1..65535 (no window scaling), got " + window);
        }
        if (!(rate >= 0)) {
            throw new IllegalArgumentException("rate must be >= 0, got " + rate);
        }
        if (txBuffer < 1) {
            throw new IllegalArgumentException("txBuffer must be positive, got " + txBuffer);
        }
        checkIsn(clientIsn);
        checkIsn(serverIsn);
        if (pollInterval < 1) {
            throw new IllegalArgumentException("pollInterval must be at least 1 cycle, got " + pollInterval);
        }
        if (socketBuffer < 0) {
            throw new IllegalArgumentException("negative socket buffer " + socketBuffer);
        }
    }

    private static void checkIsn(long isn) {
        if (isn != RANDOM_ISN && (isn < 0 || isn > 0xFFFF_FFFFL)) {
            throw new IllegalArgumentException("ISN must be a 32-bit value or RANDOM_ISN, got " + isn);
        }
    }

    /**
     * MODEL mode, segments as sent, MSS 1460, 20 cycles each way, no loss, automatic RTO, 65535-octet windows,
     * unlimited rate, 64 KiB core send buffer, random ISNs; KERNEL polls every 16 cycles with the kernel's buffers.
     */
    public static TcpOptions defaults() {
        return new TcpOptions(TcpChannel.Mode.MODEL, Segmentation.asSent(), 1460, 20, 20, 0, 0, 0xFFFF, 0, 1 << 16,
                RANDOM_ISN, RANDOM_ISN, 16, 0);
    }

    /** The retransmission timeout in effect. */
    public int effectiveRto() {
        return rto != 0 ? rto : 4 * delayMax + 32;
    }

    public TcpOptions withMode(TcpChannel.Mode m) {
        return new TcpOptions(m, segmentation, mss, delayMin, delayMax, loss, rto, window, rate, txBuffer, clientIsn,
                serverIsn, pollInterval, socketBuffer);
    }

    public TcpOptions withSegmentation(Segmentation s) {
        return new TcpOptions(mode, s, mss, delayMin, delayMax, loss, rto, window, rate, txBuffer, clientIsn,
                serverIsn, pollInterval, socketBuffer);
    }

    public TcpOptions withMss(int m) {
        return new TcpOptions(mode, segmentation, m, delayMin, delayMax, loss, rto, window, rate, txBuffer, clientIsn,
                serverIsn, pollInterval, socketBuffer);
    }

    /** A fixed one-way delay of {@code cycles}. */
    public TcpOptions withDelay(int cycles) {
        return withDelay(cycles, cycles);
    }

    /** One-way delays uniform in {@code [min, max]} cycles. */
    public TcpOptions withDelay(int min, int max) {
        return new TcpOptions(mode, segmentation, mss, min, max, loss, rto, window, rate, txBuffer, clientIsn,
                serverIsn, pollInterval, socketBuffer);
    }

    public TcpOptions withLoss(double l) {
        return new TcpOptions(mode, segmentation, mss, delayMin, delayMax, l, rto, window, rate, txBuffer, clientIsn,
                serverIsn, pollInterval, socketBuffer);
    }

    public TcpOptions withRto(int cycles) {
        return new TcpOptions(mode, segmentation, mss, delayMin, delayMax, loss, cycles, window, rate, txBuffer,
                clientIsn, serverIsn, pollInterval, socketBuffer);
    }

    public TcpOptions withWindow(int octets) {
        return new TcpOptions(mode, segmentation, mss, delayMin, delayMax, loss, rto, octets, rate, txBuffer,
                clientIsn, serverIsn, pollInterval, socketBuffer);
    }

    public TcpOptions withRate(double octetsPerCycle) {
        return new TcpOptions(mode, segmentation, mss, delayMin, delayMax, loss, rto, window, octetsPerCycle,
                txBuffer, clientIsn, serverIsn, pollInterval, socketBuffer);
    }

    public TcpOptions withTxBuffer(int octets) {
        return new TcpOptions(mode, segmentation, mss, delayMin, delayMax, loss, rto, window, rate, octets, clientIsn,
                serverIsn, pollInterval, socketBuffer);
    }

    /** Initial sequence numbers of end a (client) and end b (server). */
    public TcpOptions withIsn(long client, long server) {
        return new TcpOptions(mode, segmentation, mss, delayMin, delayMax, loss, rto, window, rate, txBuffer, client,
                server, pollInterval, socketBuffer);
    }

    public TcpOptions withPollInterval(int cycles) {
        return new TcpOptions(mode, segmentation, mss, delayMin, delayMax, loss, rto, window, rate, txBuffer,
                clientIsn, serverIsn, cycles, socketBuffer);
    }

    public TcpOptions withSocketBuffer(int octets) {
        return new TcpOptions(mode, segmentation, mss, delayMin, delayMax, loss, rto, window, rate, txBuffer,
                clientIsn, serverIsn, pollInterval, octets);
    }

    @Override
    public String toString() {
        return mode == TcpChannel.Mode.KERNEL
                ? "KERNEL(poll " + pollInterval + ", sockbuf " + (socketBuffer == 0 ? "default" : socketBuffer)
                        + ", window " + window + ")"
                : "MODEL(" + segmentation + ", mss " + mss + ", delay " + delayMin
                        + (delayMax != delayMin ? ".." + delayMax : "") + ", loss " + loss + ", rto " + effectiveRto()
                        + ", window " + window + (rate > 0 ? ", rate " + rate : "") + ")";
    }
}
