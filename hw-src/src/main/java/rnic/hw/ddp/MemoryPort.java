package rnic.hw.ddp;

import static rnic.hdl.Hdl.*;

import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.bus.amba4.axi.Axi4;
import spinal.lib.bus.amba4.axi.Axi4Config;
import spinal.lib.bus.amba4.axi.Axi4ReadOnly;
import spinal.lib.bus.amba4.axi.Axi4SpecRenamer$;
import spinal.lib.bus.amba4.axi.Axi4WriteOnly;
import spinal.lib.master$;

/**
 * The memory port of the DDP/RDMAP engines: where received payload is placed (tagged buffers, DDP-18; untagged
 * buffers) and where transmitted payload is fetched (RDMA Write, Send, Read Response sources). One definition, shared by
 * every engine that touches memory, so they all plug into the same interconnect.
 *
 * <p><b>Why AXI4.</b> The engines sit in front of either host memory or on-chip memory, and both present AXI4 memory
 * mapped ports: host DMA bridges (PCIe DMA IP such as Xilinx XDMA/QDMA's AXI-MM interface, Intel's PCIe
 * Avalon-to-AXI bridges, Corundum-style DMA cores) and block-RAM controllers (Xilinx AXI BRAM Controller, Lattice and
 * Gowin AXI RAM IP). AXI4 bursts (up to 256 beats) with byte strobes let a placement of any length and alignment go out
 * at one data beat per cycle without read-modify-write, and independent read and write channels let the transmit fetch
 * and the receive placement share one port without blocking each other. {@code spinal.lib} has the bundles
 * ({@link Axi4}, {@link Axi4WriteOnly}, {@link Axi4ReadOnly}) and interconnect pieces (crossbar, arbiter, on-chip RAM),
 * so nothing here is a new bus.
 *
 * <p><b>Profile.</b> 64-bit addresses (a host physical or IO-virtual address: STag base + TO is 64-bit, DDP-12),
 * data width = the engine's data-path width W, INCR bursts of full-width beats ({@code size} = log2(W/8)), byte
 * strobes, IDs of {@value #ID_WIDTH} bits; no region, lock, cache, QoS or protection signals (the slave's defaults
 * apply: normal, non-secure, non-modifiable). The engines' promises to a slave, which {@code rnic.sim.Axi4MemorySlave}
 * checks:
 * <ul>
 *   <li>no burst crosses a 4 KiB boundary (AXI's own rule) or exceeds 256 beats; the start address may be unaligned,
 *       the first beat then covers the octets from it to the end of the beat (AXI4
 *       "unaligned transfers");</li>
 *   <li>only the octets to be written are strobed, and a burst's strobes cover one contiguous octet range;</li>
 *   <li>every burst uses one ID, so responses return in order and no reorder buffer is needed;</li>
 *   <li>AW is issued before its W beats (W never runs ahead of its address).</li>
 * </ul>
 * Ports are named {@code axi_awvalid}, {@code axi_awaddr}, {@code axi_wdata}, {@code axi_bresp}, … (the AXI
 * specification's names with the {@code axi_} prefix), so vendor IP integrators and cocotbext-axi bind by prefix.
 */
public final class MemoryPort {
    private MemoryPort() {
    }

    /** Address bits. */
    public static final int ADDRESS_WIDTH = 64;
    /** ID bits: enough for an interconnect to tell a few engines apart; each engine uses one ID. */
    public static final int ID_WIDTH = 4;
    /** AXI's burst boundary: no burst crosses a multiple of 4 KiB. */
    public static final int PAGE = 4096;
    /** AXI4's longest INCR burst in beats. */
    public static final int MAX_BURST_BEATS = 256;
    /** {@code AxBURST} INCR. */
    public static final int BURST_INCR = 1;
    /** {@code xRESP} OKAY; any other value is an error to the engines (SLVERR, DECERR; EXOKAY is never asked for). */
    public static final int RESP_OKAY = 0;
    /** {@code xRESP} SLVERR. */
    public static final int RESP_SLVERR = 2;

    /**
     * The AXI4 configuration of the memory port at data width {@code dataWidth}. Written out against SpinalHDL
     * 1.14.2's {@code Axi4Config} constructor (Java has no Scala default or named arguments), one named local per
     * parameter, in the constructor's order.
     */
    public static Axi4Config axi4Config(int dataWidth) {
        return axi4Config(dataWidth, ADDRESS_WIDTH);
    }

    /**
     * The same profile with {@code addressWidth} address bits: what an interconnect in front of a smaller memory (a
     * board's on-chip RAM) takes once the upper address bits have been decoded.
     */
    public static Axi4Config axi4Config(int dataWidth, int addressWidth) {
        if (!DdpConfig.WIDTHS.contains(dataWidth)) {
            throw new IllegalArgumentException("memory port data width must be one of " + DdpConfig.WIDTHS + ", got "
                    + dataWidth);
        }
        int idWidth = ID_WIDTH;
        boolean useId = true;
        boolean withAxi3 = false;
        boolean useRegion = false;
        boolean useBurst = true;
        boolean useLock = false;
        boolean useCache = false;
        boolean useSize = true;
        boolean useQos = false;
        boolean useLen = true;
        boolean useLast = true;
        boolean useResp = true;
        boolean useProt = false;
        boolean useStrb = true;
        boolean useAllStrb = false;
        boolean forceAxi4Len = false;
        int noUser = -1;                 // arUserWidth, awUserWidth, rUserWidth, wUserWidth, bUserWidth: absent
        int unknownCapability = -1;      // read/write/combined issuing capability, read reordering depth: unspecified
        return new Axi4Config(addressWidth, dataWidth, idWidth, useId, withAxi3, useRegion, useBurst, useLock,
                useCache, useSize, useQos, useLen, useLast, useResp, useProt, useStrb, useAllStrb, forceAxi4Len,
                noUser, noUser, noUser, noUser, noUser,
                unknownCapability, unknownCapability, unknownCapability, unknownCapability);
    }

    /** A master write port (AW, W, B) named by the AXI specification; create it inside the component's Io. */
    public static Axi4WriteOnly writeMaster(int dataWidth) {
        return Axi4SpecRenamer$.MODULE$.apply(master$.MODULE$.apply(new Axi4WriteOnly(axi4Config(dataWidth))));
    }

    /** A master read port (AR, R) named by the AXI specification; create it inside the component's Io. */
    public static Axi4ReadOnly readMaster(int dataWidth) {
        return Axi4SpecRenamer$.MODULE$.apply(master$.MODULE$.apply(new Axi4ReadOnly(axi4Config(dataWidth))));
    }

    /** A full master port (both halves) named by the AXI specification; create it inside the component's Io. */
    public static Axi4 master(int dataWidth) {
        return Axi4SpecRenamer$.MODULE$.apply(master$.MODULE$.apply(new Axi4(axi4Config(dataWidth))));
    }

    /** {@code AxSIZE} of full-width beats: log2(W/8). */
    public static int size(int dataWidth) {
        return Integer.numberOfTrailingZeros(dataWidth / 8);
    }

    /**
     * The alignment an engine splits its bursts on: {@code min(4096, maxBeats · W/8)} octets, a power of two that
     * divides 4096, so a burst that stays inside one such block neither crosses 4 KiB nor exceeds {@code maxBeats}
     * beats, and the split points are beat-aligned (every burst after the first of a transfer starts on a beat).
     */
    public static int burstBlock(int dataWidth, int maxBeats) {
        if (maxBeats < 1 || maxBeats > MAX_BURST_BEATS || Integer.bitCount(maxBeats) != 1) {
            throw new IllegalArgumentException("maxBeats must be a power of two in 1 … 256, got " + maxBeats);
        }
        return Math.min(PAGE, maxBeats * dataWidth / 8);
    }

    /**
     * The next burst of a transfer being split on {@code block}-octet boundaries ({@link #burstBlock}), built in the
     * calling component.
     *
     * @param room octets from the transfer's next address to the end of its block (1 … block)
     * @param last the transfer ends inside this block: this is its last burst
     * @param len  {@code AxLEN}: beats − 1 of the burst (8 bits)
     */
    public record Burst(UInt room, Bool last, UInt len) {
    }

    /**
     * The next burst of a transfer whose next octet is at {@code addr} with {@code remaining} octets left (at least
     * 1): it runs to the end of {@code addr}'s block, or, when the transfer ends inside that block, to the beat holding
     * its last octet, whose index within the block is {@code endBeat}. After a burst that is not the last,
     * {@link #advance} moves the transfer to the next block (beat-aligned from then on).
     */
    public static Burst nextBurst(UInt addr, UInt remaining, UInt endBeat, int dataWidth, int block) {
        int ln = Integer.numberOfTrailingZeros(dataWidth / 8);
        int bb = Integer.numberOfTrailingZeros(block);
        UInt addrBeat = range(addr, bb - 1, ln);
        UInt room = sub(U(block, bb + 1), range(addr, bb - 1, 0).resize(bb + 1));
        Bool last = le(remaining, room.resize(remaining.getBitsWidth()));
        // Up to the block's last beat, (block/n − 1) − beat, is the complement of the beat index.
        UInt len = mux(last, sub(endBeat, addrBeat), not(addrBeat.asBits()).asUInt()).resize(8);
        return new Burst(room, last, len);
    }

    /** Moves a transfer past a burst that was not its last: {@code addr += room}, {@code remaining −= room}. */
    public static void advance(UInt addr, UInt remaining, UInt room) {
        set(addr, add(addr, room.resize(addr.getBitsWidth())));
        set(remaining, sub(remaining, room.resize(remaining.getBitsWidth())));
    }
}
