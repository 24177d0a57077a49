package rnic.hw.top;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import rnic.sim.AxisSink;
import rnic.sim.Axi4MemorySlave;
import rnic.sim.HostMemory;
import rnic.sim.Pacer;
import rnic.sim.Tb;
import rnic.sim.TcpPayloadSource;
import rnic.wire.QpState;

/**
 * A testbench around {@link RnicPair}: for each RNIC an APB master on its registers ({@link ApbHost}), a host memory
 * behind its AXI port ({@link HostMemory}, {@link Axi4MemorySlave}) and, per connection q, an in-order byte pipe from
 * its {@code tcpTx_q} to the peer's {@code tcpRx_q} (sequence numbers from 0, each TCP segment delivered whole after
 * its last octet left). A pipe can be cut ({@link Pipe#forward}) so a test feeds a {@code tcpRx} itself.
 *
 * <p>Register addresses come from the register declaration through {@link RegisterExport#constants}, the same values
 * the host driver's {@code rnic.driver.RnicRegs} holds; the register tests check those against the contract.
 */
final class RnicBench {
    static final int W = 64;

    private static Map<String, Integer> regs;
    private static List<RegisterExport.Register> declared;

    /** The registers as declared (every instance, absolute addresses). */
    static synchronized List<RegisterExport.Register> declared() {
        if (declared == null) {
            try {
                declared = RegisterExport.export(RnicConfig.defaults()).registers();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            regs = RegisterExport.constants(declared);
        }
        return declared;
    }

    /** A register constant (offset, base, stride, shift, mask) by its {@code RnicRegs} name. */
    static int reg(String name) {
        declared();
        Integer v = regs.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no register constant " + name);
        }
        return v;
    }

    /** Byte address of register {@code name} of QP {@code q}. */
    static int qpReg(int q, String name) {
        return reg("QP_BASE") + q * reg("QP_STRIDE") + reg(name);
    }

    /** Byte address of register {@code name} of CQ {@code c}. */
    static int cqReg(int c, String name) {
        return reg("CQ_BASE") + c * reg("CQ_STRIDE") + reg(name);
    }

    final Tb<RnicPair> tb;
    final Side a;
    final Side b;

    private final java.util.function.Supplier<Pacer> tcpTxReady;

    RnicBench(Tb<RnicPair> tb) {
        this(tb, Pacer::always);
    }

    /** A bench whose pipes take each RNIC's {@code tcpTx} beats when {@code tcpTxReady}'s pacers allow. */
    RnicBench(Tb<RnicPair> tb, java.util.function.Supplier<Pacer> tcpTxReady) {
        this.tb = tb;
        this.tcpTxReady = tcpTxReady;
        a = new Side("a", tb.dut().io.a);
        b = new Side("b", tb.dut().io.b);
        a.link(b);
        b.link(a);
        tb.reset(3);
    }

    /** One direction of connection q: what one RNIC sends, delivered in order to the other. */
    final class Pipe {
        final String name;
        final TcpPayloadSource peerIn;
        /** Deliver to the peer (else only record). */
        boolean forward = true;
        /** Sequence number of the next octet delivered to the peer. */
        long seq;
        /** TCP segments sent, in order. */
        final List<byte[]> segments = new ArrayList<>();

        Pipe(String name, TcpPayloadSource peerIn) {
            this.name = name;
            this.peerIn = peerIn;
        }

        void sent(byte[] segment) {
            segments.add(segment);
            if (forward) {
                peerIn.send(seq, segment, () -> peerIn.octets());
                seq += segment.length;
            }
        }
    }

    /** One RNIC and its host. */
    final class Side {
        final String name;
        final RnicCore.Io io;
        final ApbHost apb;
        final HostMemory memory = new HostMemory();
        final Axi4MemorySlave slave;
        /** Per connection: the source into this RNIC's {@code tcpRx_q}. */
        final List<TcpPayloadSource> tcpIn = new ArrayList<>();
        /** Per connection: what this RNIC sends on {@code tcpTx_q}. */
        final List<Pipe> tcpOut = new ArrayList<>();

        Side(String name, RnicCore.Io io) {
            this.name = name;
            this.io = io;
            apb = ApbHost.on(tb, io.apb);
            slave = Axi4MemorySlave.on(tb, io.axi, memory);
            for (int q = 0; q < io.tcpRx.size(); q++) {
                tcpIn.add(TcpPayloadSource.on(tb, io.tcpRx.get(q), Pacer.always()));
            }
        }

        void link(Side peer) {
            for (int q = 0; q < io.tcpTx.size(); q++) {
                Pipe p = new Pipe(name + "->" + peer.name + " connection " + q, peer.tcpIn.get(q));
                tcpOut.add(p);
                AxisSink.on(tb, io.tcpTx.get(q), tcpTxReady.get(), p::sent);
            }
        }

        int read(int address) {
            return apb.read(address);
        }

        void write(int address, int value) {
            apb.write(address, value);
        }

        QpState state(int q) {
            return QpState.of(read(qpReg(q, "QP_STATE")));
        }

        /** Asks for {@code s}; returns the state read back. */
        QpState request(int q, QpState s) {
            write(qpReg(q, "QP_STATE"), s.code());
            return state(q);
        }

        /** Writes the MPA settings and EMSS of QP q (in RESET or INIT). */
        void mpa(int q, boolean txMarkers, boolean rxMarkers, boolean crc, boolean holdTx, int emss, long rxSeqStart) {
            write(qpReg(q, "QP_MPA"), (txMarkers ? reg("QP_MPA_TX_MARKERS_MASK") : 0)
                    | (rxMarkers ? reg("QP_MPA_RX_MARKERS_MASK") : 0) | (crc ? reg("QP_MPA_CRC_MASK") : 0)
                    | (holdTx ? reg("QP_MPA_HOLD_TX_UNTIL_RX_MASK") : 0));
            write(qpReg(q, "QP_EMSS"), emss);
            write(qpReg(q, "QP_RX_SEQ_START"), (int) rxSeqStart);
        }

        /** Registers a region through the STAG block (RFC 5040 §8.1: the host programs the STag table). */
        void programStag(int stag, int pd, int qp, boolean qpBound, boolean remoteWrite, boolean remoteRead,
                boolean remoteAtomic, boolean zeroBased, long va, long length) {
            write(reg("STAG_INDEX"), stag >>> 8);
            write(reg("STAG_KEY"), stag & 0xFF);
            write(reg("STAG_PD"), pd);
            write(reg("STAG_QP"), qp);
            write(reg("STAG_FLAGS"), reg("STAG_FLAGS_VALID_MASK") | (qpBound ? reg("STAG_FLAGS_QP_BOUND_MASK") : 0)
                    | (remoteWrite ? reg("STAG_FLAGS_REMOTE_WRITE_MASK") : 0)
                    | (remoteRead ? reg("STAG_FLAGS_REMOTE_READ_MASK") : 0)
                    | (remoteAtomic ? reg("STAG_FLAGS_REMOTE_ATOMIC_MASK") : 0)
                    | (zeroBased ? reg("STAG_FLAGS_ZERO_BASED_MASK") : 0));
            write(reg("STAG_VA_LO"), (int) va);
            write(reg("STAG_VA_HI"), (int) (va >>> 32));
            write(reg("STAG_LEN_LO"), (int) length);
            write(reg("STAG_LEN_HI"), (int) (length >>> 32));
            write(reg("STAG_COMMAND"), 1);
            for (int polls = 0; (read(reg("STAG_STATUS")) & 1) != 0; polls++) { // BUSY
                if (polls > 100) {
                    throw new AssertionError(name + ": STAG_STATUS.BUSY stays set");
                }
            }
        }
    }
}
