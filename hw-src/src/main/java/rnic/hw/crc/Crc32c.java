package rnic.hw.crc;

import static rnic.hdl.Hdl.*;

import rnic.hdl.HwBundle;
import rnic.hw.axis.AxisBeat;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import java.util.ArrayList;
import java.util.List;
import spinal.lib.Stream;

/**
 * CRC32c (Castagnoli) of each message on an AXI-Stream, one beat per cycle, for the MPA FPDU CRC (RFC 5044 §4.4,
 * docs/requirements.md §4: polynomial 0x1EDC6F41, reflected in and out, init and final XOR 0xFFFFFFFF).
 *
 * <p>Ports: {@code s_axis_tdata[W-1:0]}, {@code s_axis_tkeep[W/8-1:0]}, {@code s_axis_tvalid}, {@code s_axis_tready},
 * {@code s_axis_tlast} in; one 32-bit result per message out on {@code m_axis_tdata[31:0]}, {@code m_axis_tvalid},
 * {@code m_axis_tready}. Octet 0 of a beat is {@code tdata[7:0]}; {@code tkeep} must be all ones except on the last
 * beat, where it is contiguous from octet 0 (a last beat with no octet is allowed). The result is the number
 * {@code java.util.zip.CRC32C.getValue()} returns; MPA puts it on the wire least significant octet first.
 *
 * <p><b>Why not {@code spinal.lib.com.eth.Crc}.</b> spinal.lib's {@code Crc} consumes a full word per cycle through a
 * bit-by-bit chain ({@code acc \= f(acc, bit)} for every data bit) and has no octet enables. Measured here with yosys
 * 0.23 + nextpnr-ice40 on an iCE40 HX8K at 64 bits, that chain form reaches 41 MHz while an explicit XOR matrix (each
 * output bit one XOR of a fixed set of state and data bits) reaches 160 MHz: synthesis does not rebalance the chain.
 * So this block reuses spinal.lib's {@code CrcKind} to describe the CRC, and {@link CrcMatrix}/{@link CrcParallel} to
 * build the matrix form. The partial last beat is handled by one small register matrix per octet count plus a shared
 * data matrix on octet-shifted data (see {@link CrcParallel}), not by a byte-serial loop.
 *
 * <p>Throughput: {@code s_axis_tready} is low only while a finished result waits on {@code m_axis_tready}; with the
 * result taken at once, a beat is accepted every cycle, back to back across messages.
 */
public final class Crc32c extends HwComponent {

    /** The ports, named as AXI-Stream so standard agents bind by prefix. */
    public static final class Io extends HwBundle {
        public final Crc32cConfig config;
        public final Stream<AxisBeat> sAxis;
        public final Stream<Bits> mAxis;

        public Io(Crc32cConfig config) {
            this.config = config;
            sAxis = field("sAxis", Streams.slaveStream(() -> new AxisBeat(config.dataWidth())));
            mAxis = field("mAxis", Streams.masterStream(() -> bits(32)));
        }
    }

    public final Crc32cConfig config;
    public final Io io;
    /** Running CRC register (reflected form, before the final XOR). */
    public final Bits state;
    /** The finished CRC waiting to be taken. */
    public final Bits result;
    public final Bool resultValid;
    /** Invalid octets at the top of the current beat (0 except on a partial last beat). */
    public final UInt empty;
    /** The register after the current beat. */
    public final Bits next;

    public Crc32c(Crc32cConfig config) {
        this.config = config;
        CrcMatrix matrix = new CrcMatrix(CrcMatrix.CRC32C);
        noIoPrefix(); // before io(...): the bundle is then named "" and its ports carry no io_ prefix
        io = io(new Io(config));
        Streams.axisNames(io.sAxis, "s_axis");
        Streams.axisNames(io.mAxis, "m_axis");
        setDefinitionName("Crc32c", true);

        state = regInit("state", bits(32), B(matrix.init(), 32));
        result = reg("result", bits(32));
        resultValid = regInit("resultValid", bool(), False());

        AxisBeat beat = io.sAxis.payload();
        UInt emptyOctets = wire("emptyOctets", emptyOctets(beat.tkeep));
        empty = wire("empty", mux(beat.tlast, emptyOctets, U(0, emptyOctets.getBitsWidth())));
        next = wire("next", CrcParallel.next(matrix, state, beat.tdata, empty));

        set(io.sAxis.ready(), or(not(resultValid), io.mAxis.ready()));
        set(io.mAxis.valid(), resultValid);
        set(io.mAxis.payload(), result);

        when(io.mAxis.ready(), () -> set(resultValid, False()));
        when(io.sAxis.fire(), () -> {
            set(state, next);
            when(beat.tlast, () -> {
                set(state, B(matrix.init(), 32));
                set(result, xor(next, B(matrix.finish(0), 32)));
                set(resultValid, True());
            });
        });
    }

    /**
     * The number of invalid octets at the top of a beat, {@code n − popcount(tkeep)}, decoded from the contiguous
     * {@code tkeep} (ones from octet 0) as a thermometer code: "exactly k octets" is {@code tkeep[k-1] & !tkeep[k]},
     * and each bit of the count is an OR of those terms. Why not a population count: on an iCE40 HX8K the adder tree
     * of {@code CountOne} was the head of the critical path (about 3 ns of carry chain before the octet shift and the
     * register matrices, 92 MHz at W = 32); the thermometer decode is two LUT levels.
     */
    private static UInt emptyOctets(Bits tkeep) {
        int n = tkeep.getBitsWidth();
        int width = log2Up(n + 1);
        List<Bool> exactly = new ArrayList<>();
        for (int k = 0; k <= n; k++) {
            exactly.add(k == 0 ? not(tkeep.apply(0)) : k == n ? tkeep.apply(n - 1)
                    : and(tkeep.apply(k - 1), not(tkeep.apply(k))));
        }
        List<Bool> countBits = new ArrayList<>();
        for (int b = 0; b < width; b++) {
            Bool bit = False();
            for (int k = 0; k <= n; k++) {
                if ((((n - k) >> b) & 1) == 1) {
                    bit = or(bit, exactly.get(k));
                }
            }
            countBits.add(bit);
        }
        return catLsbFirst(countBits).asUInt();
    }
}
