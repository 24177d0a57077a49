package rnic.sim;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.axis.AxisBeat;
import rnic.hw.ddp.MemoryPort;
import rnic.hw.mpa.TcpRxBeat;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.CountOne$;
import spinal.lib.Stream;
import spinal.lib.bus.amba3.apb.Apb3;
import spinal.lib.bus.amba3.apb.Apb3Config;
import spinal.lib.bus.amba4.axi.Axi4;

/**
 * A stand-in for the two-RNIC top with the port names of the issue-5 contract ({@code a_apb_PADDR} …, {@code a_axi_*},
 * {@code a_tcpTx_<q>}, {@code a_tcpRx_<q>}, the same with {@code b_}) and just enough behind them to test the harness
 * ({@link SimTransport}, {@link RnicSystem}, the TCP agents) in Verilator before the real core exists. Per side:
 * <ul>
 *   <li>APB3 with one wait state per transfer: 16 read/write registers at 0x00–0x3C (register 0 bit q enables the
 *       echo of connection q); 0x40 + 4q: octets taken on tcpRx_q (RO); 0x50 + 4q: {@code seq} of the last tcpRx_q
 *       beat (RO); 0x60/0x64: a DMA address, writing 0x68 reads one beat there over AXI, 0x6C: octets 0–3 of that
 *       beat (RO), 0x70: [0] busy [1] done [2] error (RO); 0x80–0xFC never answer (PREADY stays low); from 0x100
 *       PSLVERROR;</li>
 *   <li>tcpRx_q → tcpTx_q: with the echo on, each received beat goes back out as a one-beat segment; with it off,
 *       beats are taken and only counted.</li>
 * </ul>
 */
public final class FakeRnicPair extends HwComponent {
    public static final int QPS = 2;

    /** The ports of both sides. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final List<Apb3> apb = new ArrayList<>();
        public final List<Axi4> axi = new ArrayList<>();
        public final List<List<Stream<TcpRxBeat>>> tcpRx = new ArrayList<>();
        public final List<List<Stream<AxisBeat>>> tcpTx = new ArrayList<>();

        public Io(int dataWidth) {
            this.dataWidth = dataWidth;
            for (String p : List.of("a_", "b_")) {
                apb.add(field(p + "apb", spinal.lib.slave$.MODULE$.apply(new Apb3(new Apb3Config(16, 32, 1, true)))));
                axi.add(field(p + "axi", MemoryPort.master(dataWidth)));
                List<Stream<TcpRxBeat>> rx = new ArrayList<>();
                List<Stream<AxisBeat>> tx = new ArrayList<>();
                for (int q = 0; q < QPS; q++) {
                    rx.add(field(p + "tcpRx_" + q, Streams.slaveStream(() -> new TcpRxBeat(dataWidth))));
                    tx.add(field(p + "tcpTx_" + q, Streams.masterStream(() -> new AxisBeat(dataWidth))));
                }
                tcpRx.add(rx);
                tcpTx.add(tx);
            }
        }
    }

    public final int dataWidth;
    public final Io io;

    public FakeRnicPair(int dataWidth) {
        this.dataWidth = dataWidth;
        noIoPrefix();
        io = io(new Io(dataWidth));
        for (int s = 0; s < 2; s++) {
            side(s == 0 ? "a_" : "b_", io.apb.get(s), io.axi.get(s), io.tcpRx.get(s), io.tcpTx.get(s));
        }
    }

    private void side(String p, Apb3 apb, Axi4 axi, List<Stream<TcpRxBeat>> rx, List<Stream<AxisBeat>> tx) {
        UInt addr = apb.PADDR();
        Bool access = wire(p + "access", and(apb.PSEL().apply(0), apb.PENABLE()));
        Bool waited = regInit(p + "waited", bool(), False());
        Bool silent = wire(p + "silent", and(ge(addr, U(0x80, 16)), lt(addr, U(0x100, 16))));
        Bool ready = wire(p + "ready", and(access, waited, not(silent)));
        when(access, () -> set(waited, not(waited)));
        Bool error = wire(p + "error", ge(addr, U(0x100, 16)));
        set(apb.PREADY(), ready);
        set(apb.PSLVERROR(), and(ready, error));
        Bool write = wire(p + "write", and(ready, apb.PWRITE(), not(error)));
        Bits rdata = wire(p + "rdata", bits(32));
        set(rdata, B(0, 32));
        set(apb.PRDATA(), rdata);

        List<Bits> regs = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            Bits r = regInit(p + "reg_" + i, bits(32), B(0, 32));
            regs.add(r);
            readWrite(addr, write, rdata, apb.PWDATA(), 4 * i, r);
        }
        for (int q = 0; q < QPS; q++) {
            Stream<TcpRxBeat> in = rx.get(q);
            Stream<AxisBeat> out = tx.get(q);
            Bool echo = regs.get(0).apply(q);
            UInt octets = regInit(p + "rxOctets_" + q, uint(32), U(0, 32));
            UInt lastSeq = regInit(p + "lastSeq_" + q, uint(32), U(0, 32));
            // The end of the stream (fin, no octets) is taken, not echoed: a core sends nothing because of it.
            set(out.valid(), and(in.valid(), echo, not(in.payload().fin)));
            set(out.payload().tdata, in.payload().tdata);
            set(out.payload().tkeep, in.payload().tkeep);
            set(out.payload().tlast, True());
            set(in.ready(), or(not(echo), out.ready(), in.payload().fin));
            when(and(in.valid(), in.ready()), () -> {
                set(octets, add(octets, CountOne$.MODULE$.apply(in.payload().tkeep).resize(32)));
                set(lastSeq, in.payload().seq);
            });
            when(eq(addr, U(0x40 + 4 * q, 16)), () -> set(rdata, octets.asBits()));
            when(eq(addr, U(0x50 + 4 * q, 16)), () -> set(rdata, lastSeq.asBits()));
        }

        // one-beat DMA read over AXI
        Bits lo = regInit(p + "dmaLo", bits(32), B(0, 32));
        Bits hi = regInit(p + "dmaHi", bits(32), B(0, 32));
        readWrite(addr, write, rdata, apb.PWDATA(), 0x60, lo);
        readWrite(addr, write, rdata, apb.PWDATA(), 0x64, hi);
        UInt state = regInit(p + "dmaState", uint(2), U(0, 2));
        Bits data = regInit(p + "dmaData", bits(32), B(0, 32));
        Bool done = regInit(p + "dmaDone", bool(), False());
        Bool failed = regInit(p + "dmaError", bool(), False());
        when(and(write, eq(addr, U(0x68, 16))), () -> {
            set(state, U(1, 2));
            set(done, False());
        });
        when(eq(addr, U(0x6C, 16)), () -> set(rdata, data));
        when(eq(addr, U(0x70, 16)), () -> set(rdata, cat(B(0, 29), failed.asBits(), done.asBits(),
                neq(state, U(0, 2)).asBits())));
        var ar = axi.ar();
        set(ar.valid(), eq(state, U(1, 2)));
        set(ar.payload().addr(), concat(hi, lo).asUInt());
        set(ar.payload().id(), U(0, MemoryPort.ID_WIDTH));
        set(ar.payload().len(), U(0, 8));
        set(ar.payload().size(), U(MemoryPort.size(dataWidth), 3));
        set(ar.payload().burst(), B(MemoryPort.BURST_INCR, 2));
        when(and(ar.valid(), ar.ready()), () -> set(state, U(2, 2)));
        var r = axi.r();
        set(r.ready(), eq(state, U(2, 2)));
        when(and(r.valid(), r.ready()), () -> {
            set(data, range(r.payload().data(), 31, 0));
            set(failed, neq(r.payload().resp(), B(0, 2)));
            set(done, True());
            set(state, U(0, 2));
        });
        set(axi.aw().valid(), False());
        axi.aw().payload().assignFromBits(B(0, axi.aw().payload().getBitsWidth()));
        set(axi.w().valid(), False());
        axi.w().payload().assignFromBits(B(0, axi.w().payload().getBitsWidth()));
        set(axi.b().ready(), True());
    }

    private static void readWrite(UInt addr, Bool write, Bits rdata, Bits wdata, int at, Bits reg) {
        Bool here = eq(addr, U(at, 16));
        when(here, () -> set(rdata, reg));
        when(and(write, here), () -> set(reg, wdata));
    }
}
