package rnic.hw.rdmap;

import static rnic.hdl.Hdl.*;

import java.util.ArrayList;
import java.util.List;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.ddp.MemoryPort;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4;

/**
 * The read-modify-write around {@link RdmapAtomicUnit}: reads the 8-octet target through the memory port, lets the
 * unit compute, writes the new value back when the unit says so, and answers with the original value (RFC 7306 §5.1,
 * §5.2; RDMAP-28, RDMAP-32…RDMAP-34, RDMAP-37). It also performs the requester's store of an Atomic Response's
 * original value into the local buffer.
 *
 * <p><b>Atomicity (RDMAP-37).</b> One job at a time: the next job's read is not issued before the previous job's write
 * response has come back, so the read-modify-write of one address is never interleaved with another Atomic, of any
 * QP (all Atomics of the RNIC go through this one engine). Placements of Writes and Sends use the same memory but
 * are not Atomics; RFC 7306 §5 gives them no atomicity guarantee against Atomics.
 *
 * <p><b>Byte order (T-26).</b> Host memory is little-endian: the 64-bit value at the target is octets A … A+7, the
 * least significant first. The target was validated by the tag validator, 8-octet aligned and inside a region
 * granting the remote-atomic right, so it lies within one beat at W ≥ 64 (two at W = 32).
 */
public final class RdmapAtomicEngine extends HwComponent {

    /** Ports. */
    public static final class Io extends HwBundle {
        public final int dataWidth;
        public final Stream<RdmapResponder.AtomicJob> job;
        public final Stream<RdmapResponder.AtomicDone> done;
        public final Axi4 axi;

        public Io(int dataWidth) {
            this.dataWidth = dataWidth;
            job = field("job", Streams.slaveStream(RdmapResponder.AtomicJob::new));
            done = field("done", Streams.masterStream(RdmapResponder.AtomicDone::new));
            axi = field("axi", MemoryPort.master(dataWidth));
        }
    }

    static final int IDLE = 0;
    static final int READ_ADDRESS = 1;
    static final int READ_DATA = 2;
    static final int COMPUTE = 3;
    static final int RESULT = 4;
    static final int WRITE_ADDRESS = 5;
    static final int WRITE_DATA = 6;
    static final int WRITE_RESPONSE = 7;
    static final int DONE = 8;

    public final Io io;
    public final RdmapAtomicUnit alu;

    public RdmapAtomicEngine(DdpConfig c) {
        noIoPrefix();
        io = io(new Io(c.dataWidth()));
        int w = c.dataWidth();
        int n = w / 8;
        int beats = Math.max(1, 8 / n);
        alu = child("alu", () -> new RdmapAtomicUnit(RdmapAtomicUnit.DEFAULT_TAG_WIDTH));

        UInt state = regInit("state", uint(4), U(IDLE, 4));
        Bits value = regInit("value", bits(64), B(0, 64));
        Bits newValue = regInit("newValue", bits(64), B(0, 64));
        Bool error = regInit("error", bool(), False());
        UInt beat = regInit("beat", uint(1), U(0, 1));
        RdmapResponder.AtomicJob j = io.job.payload();
        Bool store = wire("store", eq(j.op, U(RdmapResponder.OP_STORE, 4)));
        StateTest at = s -> eq(state, U(s, 4));

        // The 64-bit lane of the target inside a beat (W ≥ 64), or the beat's half of it (W = 32).
        int lanes = Math.max(1, n / 8);
        UInt lane = lanes == 1 ? U(0, 1) : wire("lane", range(j.address, log2Up(n) - 1, 3));
        int laneBits = lanes == 1 ? 1 : log2Up(lanes);

        // Read: one burst covering the 8 octets.
        var ar = io.axi.ar();
        set(ar.valid(), at.of(READ_ADDRESS));
        set(ar.payload().addr(), j.address);
        set(ar.payload().id(), U(0, MemoryPort.ID_WIDTH));
        set(ar.payload().len(), U(beats - 1, 8));
        set(ar.payload().size(), U(MemoryPort.size(w), 3));
        set(ar.payload().burst(), B(MemoryPort.BURST_INCR, 2));
        var r = io.axi.r();
        set(r.ready(), at.of(READ_DATA));
        Bits rdata = r.payload().data();
        List<Bits> laneValues = new ArrayList<>();
        for (int i = 0; i < lanes; i++) {
            laneValues.add(range(rdata, Math.min(w, 64 * i + 64) - 1, 64 * i));
        }
        when(r.fire(), () -> {
            when(neq(r.payload().resp(), B(MemoryPort.RESP_OKAY, 2)), () -> set(error, True()));
            if (n == 8) {
                set(value, laneValues.get(0));
            } else if (n > 8) {
                set(value, vec(laneValues).apply(lane.resize(laneBits)));
            } else {
                when(eq(beat, U(0, 1)), () -> set(value, concat(range(value, 63, 32), rdata)))
                        .otherwise(() -> set(value, concat(rdata, range(value, 31, 0))));
                set(beat, add(beat, U(1, 1)));
            }
        });

        // The ALU: one request, one result.
        AtomicRequest req = alu.io.request.payload();
        set(alu.io.request.valid(), at.of(COMPUTE));
        set(req.tag, B(0, RdmapAtomicUnit.DEFAULT_TAG_WIDTH));
        set(req.cmpSwap, eq(j.op, U(RdmapResponder.OP_CMP_SWAP, 4)));
        set(req.addrLow, range(j.address, 2, 0));
        set(req.originalValue, value);
        set(req.addOrSwapData, j.data);
        set(req.addOrSwapMask, j.mask);
        set(req.compareData, j.compareData);
        set(req.compareMask, j.compareMask);
        set(alu.io.result.ready(), at.of(RESULT));

        // Write: the 8 octets strobed.
        var aw = io.axi.aw();
        set(aw.valid(), at.of(WRITE_ADDRESS));
        set(aw.payload().addr(), j.address);
        set(aw.payload().id(), U(0, MemoryPort.ID_WIDTH));
        set(aw.payload().len(), U(beats - 1, 8));
        set(aw.payload().size(), U(MemoryPort.size(w), 3));
        set(aw.payload().burst(), B(MemoryPort.BURST_INCR, 2));
        var wch = io.axi.w();
        set(wch.valid(), at.of(WRITE_DATA));
        if (n >= 8) {
            List<Bits> data = new ArrayList<>();
            List<Bits> strb = new ArrayList<>();
            for (int i = 0; i < lanes; i++) {
                data.add(newValue);
                strb.add(mux(eq(lane.resize(laneBits), U(i, laneBits)), B(0xFF, 8), B(0, 8)));
            }
            set(wch.payload().data(), catLsbFirst(data));
            set(wch.payload().strb(), catLsbFirst(strb));
            set(wch.payload().last(), True());
        } else {
            set(wch.payload().data(), mux(eq(beat, U(0, 1)), range(newValue, 31, 0), range(newValue, 63, 32)));
            set(wch.payload().strb(), B(0xF, 4));
            set(wch.payload().last(), eq(beat, U(1, 1)));
        }
        when(wch.fire(), () -> set(beat, add(beat, U(1, 1))));
        var b = io.axi.b();
        set(b.ready(), at.of(WRITE_RESPONSE));

        set(io.done.valid(), at.of(DONE));
        set(io.done.payload().original, mux(store, B(0, 64), value));
        set(io.done.payload().error, error);
        set(io.job.ready(), and(at.of(DONE), io.done.ready()));

        when(at.of(IDLE), () -> {
            set(error, False());
            set(beat, U(0, 1));
            when(io.job.valid(), () -> {
                when(store, () -> {
                    set(newValue, j.data);
                    set(state, U(WRITE_ADDRESS, 4));
                }).otherwise(() -> set(state, U(READ_ADDRESS, 4)));
            });
        });
        when(and(at.of(READ_ADDRESS), ar.ready()), () -> set(state, U(READ_DATA, 4)));
        when(and(r.fire(), r.payload().last()), () -> set(state, U(COMPUTE, 4)));
        when(alu.io.request.fire(), () -> set(state, U(RESULT, 4)));
        when(alu.io.result.fire(), () -> {
            set(newValue, alu.io.result.payload().newValue);
            set(beat, U(0, 1));
            set(state, mux(alu.io.result.payload().writeEnable, U(WRITE_ADDRESS, 4), U(DONE, 4)));
        });
        when(and(at.of(WRITE_ADDRESS), aw.ready()), () -> set(state, U(WRITE_DATA, 4)));
        when(and(wch.fire(), wch.payload().last()), () -> set(state, U(WRITE_RESPONSE, 4)));
        when(b.fire(), () -> {
            when(neq(b.payload().resp(), B(MemoryPort.RESP_OKAY, 2)), () -> set(error, True()));
            set(state, U(DONE, 4));
        });
        when(io.job.fire(), () -> set(state, U(IDLE, 4)));
    }

    /** A state test. */
    @FunctionalInterface
    private interface StateTest {
        Bool of(int state);
    }
}
