package rnic.hw.top;

import static rnic.hdl.Hdl.*;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import rnic.hdl.HwBundle;
import rnic.hdl.HwComponent;
import rnic.hdl.Streams;
import rnic.hw.ddp.DdpConfig;
import rnic.hw.ddp.StagProgram;
import rnic.hw.rdmap.RdmapEngine;
import rnic.wire.CqeKind;
import rnic.wire.QpState;
import spinal.core.BaseType;
import spinal.core.Bits;
import spinal.core.Bool;
import spinal.core.UInt;
import spinal.lib.Flow;
import spinal.lib.Stream;
import spinal.lib.bus.amba3.apb.Apb3;
import spinal.lib.bus.amba3.apb.Apb3Config;
import spinal.lib.bus.misc.SizeMapping;
import spinal.lib.bus.regif.AccessType;
import spinal.lib.bus.regif.Apb3BusInterface;
import spinal.lib.bus.regif.ClassName;
import spinal.lib.bus.regif.RegInst;
import spinal.lib.bus.regif.SymbolName;

/**
 * The host's view of one {@link RnicCore}: every register, declared once with SpinalHDL's regif on an APB3 slave
 * (16-bit byte address, 32-bit data), and the QP contexts behind them (the QP state machine, the latched error, the
 * engine's QP setup and the STag programming). {@link RegisterExport} elaborates this component alone and writes the
 * register map (JSON, HTML, C header, Java constants) from the same declaration, so no offset is typed twice.
 *
 * <p>Blocks (each starts with TYPE, a 4-character ASCII tag with the first character in bits 31:24, VERSION and NEXT,
 * the byte offset of the next block or 0 after the last one, as Corundum's register blocks do):
 * <pre>
 *  0x0000 CORE  TYPE VERSION NEXT CONFIG STATUS CYCLE_LO CYCLE_HI LIMITS
 *  0x0100 STAG  TYPE VERSION NEXT INDEX KEY PD QP FLAGS VA_LO VA_HI LEN_LO LEN_HI COMMAND STATUS
 *  0x0200 IRQ   TYPE VERSION NEXT STATUS ENABLE
 *  0x1000 QP q  (0x100 apart) TYPE VERSION NEXT STATE PD IRD ORD MPA EMSS MULPDU RX_SEQ_START
 *               SQ_BASE_LO SQ_BASE_HI SQ_SIZE SQ_PROD SQ_CONS RQ_BASE_LO RQ_BASE_HI RQ_SIZE RQ_PROD RQ_CONS
 *               SQ_CQ RQ_CQ ERROR
 *  0x2000 CQ c  (0x40 apart) TYPE VERSION NEXT BASE_LO BASE_HI SIZE PROD CONS NOTIFY STATUS
 * </pre>
 *
 * <p><b>QP state</b> ({@link QpState}, RFC 5040 §5/§6 meanings with the InfiniBand names): the host writes the state
 * it asks for to {@code QP_STATE}; a request {@link QpState#hostMayMoveTo} refuses is ignored (the rule is compiled
 * from that method into a table, so hardware and driver share it). The core moves a QP to ERR (or SQE) by itself on
 * {@code qpError} (Terminate sent or received, from the ring engine) and when its MPA receiver failed (MPA-44, E-M1…3),
 * latching what happened in {@code QP_ERROR}; a host request for RESET in the same cycle wins. Entering RESET pulses
 * {@code clear}; while a QP is in RESET its producer indices and {@code QP_ERROR} read 0.
 *
 * <p><b>Configuration registers</b> of a QP (PD, IRD, ORD, MPA, EMSS, RX_SEQ_START, ring bases, sizes and CQ numbers)
 * take writes only in RESET and INIT and are ignored otherwise, so the values the connection runs with cannot change
 * under it (MPA-26: the Full-Operation settings of a direction are fixed at its start). IRD and ORD are clamped to the
 * engine's limits ({@code CORE_LIMITS}) when written. The engine's QP is opened (PD, IRD, ORD, MULPDU) when the QP
 * enters RTR and closed when it leaves the RTR…SQE range ({@code setup}, one entry per change, lowest QP first).
 *
 * <p><b>STags</b>: the host fills STAG_INDEX … STAG_LEN_HI and writes 1 to STAG_COMMAND, which programs the entry
 * (deregistration: program with FLAGS.VALID clear, RFC 5040 §8.1, DDP-34). While the previous program waits for the
 * tag validator, STAG_STATUS.BUSY reads 1 and a write to STAG_COMMAND is held (PREADY low) until it is taken.
 *
 * <p><b>Events and the interrupt</b> (the verbs completion and asynchronous events): writing CQ_NOTIFY with ARMED = 1
 * arms CQ c's notify request (SOLICITED_ONLY: only a solicited or failed completion counts, see
 * {@code QpRings.CqEvent}); the next completion entry of that CQ that counts, once it is in host memory, sets bit c of
 * IRQ_STATUS.CQ and disarms the request (ARMED reads 0 again). A QP the core moves to ERR (a Terminate sent or received,
 * an MPA error; QP_ERROR says which) sets IRQ_STATUS.ASYNC, and so does a CQ the core marks overflowed
 * (CQ_STATUS.OVERFLOW: an entry met the CQ full and was dropped, a verbs CQ error; the mark stays until the CQ is given
 * a new ring). IRQ_STATUS bits are cleared by writing 1 to them (an event
 * in the same cycle wins); {@code interrupt} is high while any bit of IRQ_STATUS is set whose IRQ_ENABLE bit is set,
 * one cycle after (a register). IRQ_STATUS.CQ has {@value #IRQ_CQ_BITS} bits, so a core has at most that many CQs.
 */
public final class RnicRegisterFile extends HwComponent {
    /** APB address bits: a 64 KiB register space. */
    public static final int ADDRESS_WIDTH = 16;
    /** APB data bits. */
    public static final int DATA_WIDTH = 32;
    /** VERSION of every block: 1.0 as major.minor in bits 31:16 and 15:0. */
    public static final int BLOCK_VERSION = 0x0001_0000;

    static final int CORE_BASE = 0x0000;
    static final int STAG_BASE = 0x0100;
    static final int QP_BASE = 0x1000;
    static final int QP_STRIDE = 0x100;
    static final int CQ_BASE = 0x2000;
    static final int CQ_STRIDE = 0x40;
    static final int IRQ_BASE = 0x0200;
    /** Bits of IRQ_STATUS.CQ and IRQ_ENABLE.CQ: one per completion queue. */
    public static final int IRQ_CQ_BITS = 16;

    /** The APB3 configuration of the register port: 16-bit addresses, 32-bit data, PSLVERROR present. */
    public static Apb3Config apbConfig() {
        return new Apb3Config(ADDRESS_WIDTH, DATA_WIDTH, 1, true);
    }

    /** A QP's registers as the core uses them. */
    public static final class QpControl extends HwBundle {
        public final RnicConfig config;
        /** QP_STATE: the {@link QpState} code. */
        public final UInt state;
        /** One cycle, the first cycle of RESET: indices and in-flight bookkeeping of the QP back to 0. */
        public final Bool clear;
        /** The MPA settings of the QP's connection. */
        public final RnicConnection.Settings mpa;
        public final UInt sqBase;
        public final UInt sqSize;
        public final UInt sqProd;
        public final UInt rqBase;
        public final UInt rqSize;
        public final UInt rqProd;
        public final UInt sqCq;
        public final UInt rqCq;

        public QpControl(RnicConfig config) {
            this.config = config;
            state = field("state", uint(3));
            clear = field("clear", bool());
            mpa = field("mpa", new RnicConnection.Settings());
            sqBase = field("sqBase", uint(64));
            sqSize = field("sqSize", uint(5));
            sqProd = field("sqProd", uint(16));
            rqBase = field("rqBase", uint(64));
            rqSize = field("rqSize", uint(5));
            rqProd = field("rqProd", uint(16));
            sqCq = field("sqCq", uint(config.cqBits()));
            rqCq = field("rqCq", uint(config.cqBits()));
        }
    }

    /** What the core reports per QP. */
    public static final class QpStatus extends HwBundle {
        /** The MULPDU the connection's MPA transmitter derives from EMSS and Markers (RFC 5044 §4.5, MPA-21). */
        public final UInt mulpdu;
        public final UInt sqCons;
        public final UInt rqCons;
        /** The connection's MPA receiver has failed (sticky until the QP is reset). */
        public final Bool mpaFailed;
        /** Its MPA Error Code ({@link rnic.wire.MpaErrorCode}). */
        public final UInt mpaCode;

        public QpStatus() {
            mulpdu = field("mulpdu", uint(16));
            sqCons = field("sqCons", uint(16));
            rqCons = field("rqCons", uint(16));
            mpaFailed = field("mpaFailed", bool());
            mpaCode = field("mpaCode", uint(8));
        }
    }

    /** A completion queue's registers as the core uses them. */
    public static final class CqControl extends HwBundle {
        public final UInt base;
        public final UInt size;
        public final UInt cons;

        public CqControl() {
            base = field("base", uint(64));
            size = field("size", uint(5));
            cons = field("cons", uint(16));
        }
    }

    /** A QP moved to {@code state} (ERR or SQE) by the core, with the completion kind and status that caused it. */
    public static final class QpError extends HwBundle {
        public final RnicConfig config;
        public final UInt qp;
        public final UInt state;
        /** A {@link CqeKind} code. */
        public final UInt kind;
        public final UInt status;

        public QpError(RnicConfig config) {
            this.config = config;
            qp = field("qp", uint(config.ddp().qpBits()));
            state = field("state", uint(3));
            kind = field("kind", uint(8));
            status = field("status", uint(8));
        }
    }

    /** Ports. */
    public static final class Io extends HwBundle {
        public final RnicConfig config;
        public final Apb3 apb;
        public final List<QpControl> qp = new ArrayList<>();
        public final List<QpStatus> qpStatus = new ArrayList<>();
        public final List<CqControl> cq = new ArrayList<>();
        public final List<UInt> cqProd = new ArrayList<>();
        /** Per CQ: marked overflowed (CQ_STATUS.OVERFLOW), sticky until a new ring. */
        public final List<Bool> cqOverflow = new ArrayList<>();
        public final Flow<QpError> qpError;
        public final Stream<StagProgram> stagProgram;
        public final Stream<RdmapEngine.Setup> setup;
        /** Sticky: a memory access got an error response (CORE_STATUS.MEMORY_ERROR). */
        public final Bool memoryError;
        /** Level: the receive path holds no ULPDU (CORE_STATUS.RX_IDLE). */
        public final Bool rxIdle;
        /** Each completion entry once it is in host memory, for the CQs' notify requests. */
        public final Flow<rnic.hw.qp.QpRings.CqEvent> cqEvent;
        /** Level: an enabled bit of IRQ_STATUS is set. */
        public final Bool interrupt;

        public Io(RnicConfig config) {
            this.config = config;
            RnicConfig c = config;
            apb = field("apb", spinal.lib.slave$.MODULE$.apply(new Apb3(apbConfig())));
            for (int q = 0; q < c.qpCount(); q++) {
                qp.add(field("qp_" + q, out(new QpControl(c))));
                qpStatus.add(field("qpStatus_" + q, in(new QpStatus())));
            }
            for (int i = 0; i < c.cqCount(); i++) {
                cq.add(field("cq_" + i, out(new CqControl())));
                cqProd.add(field("cqProd_" + i, in(uint(16))));
                cqOverflow.add(field("cqOverflow_" + i, in(bool())));
            }
            qpError = field("qpError", spinal.lib.slave$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new QpError(c)))));
            stagProgram = field("stagProgram", Streams.masterStream(() -> new StagProgram(c.ddp())));
            setup = field("setup", Streams.masterStream(() -> new RdmapEngine.Setup(c.ddp())));
            memoryError = field("memoryError", in(bool()));
            rxIdle = field("rxIdle", in(bool()));
            cqEvent = field("cqEvent", spinal.lib.slave$.MODULE$.apply(
                    spinal.lib.Flow$.MODULE$.apply(hardType(() -> new rnic.hw.qp.QpRings.CqEvent(c.cqBits())))));
            interrupt = field("interrupt", out(bool()));
        }
    }

    public final RnicConfig config;
    public final Io io;
    /** The register declaration: the one source of every offset. */
    public final Apb3BusInterface busif;
    public final UInt cycle;
    /** Per QP: the Protection Domain, IRD and ORD registers (they go to the engine in its QP setup). */
    public final List<UInt> pd = new ArrayList<>();
    public final List<UInt> ird = new ArrayList<>();
    public final List<UInt> ord = new ArrayList<>();
    /** Per QP: the core moves it to ERR in this cycle (sets IRQ_STATUS.ASYNC). */
    private final List<Bool> qpFailed = new ArrayList<>();

    public RnicRegisterFile(RnicConfig c) {
        this.config = c;
        DdpConfig d = c.ddp();
        io = io(new Io(c));
        busif = field("busif", new Apb3BusInterface(io.apb,
                new SizeMapping(big(0), big(1L << ADDRESS_WIDTH)), "", false, new ClassName("RnicRegisterFile")));
        cycle = regInit("cycle", uint(64), U(0, 64));
        set(cycle, add(cycle, U(1, 64)));

        // ---------------------------------------------------------------------------------------------- CORE
        busif.regPtrReAnchorAt(big(CORE_BASE));
        header("CORE", "RNIC", STAG_BASE, "the RNIC core");
        RegInst config = reg("CORE_CONFIG", "Elaboration parameters of this core");
        parameter(config, "QP_COUNT", c.qpCount(), "queue pairs (and TCP connections)");
        parameter(config, "CQ_COUNT", c.cqCount(), "completion queues");
        parameter(config, "STAG_COUNT_LOG2", Integer.numberOfTrailingZeros(d.stagCount()),
                "log2 of the STag table entries");
        parameter(config, "DATA_BYTES", d.octets(), "data-path width W/8 in octets");
        RegInst status = reg("CORE_STATUS", "Status of the core");
        Bool memError = ro(status, "MEMORY_ERROR", () -> bool(), "sticky: a memory access got an error response",
                "coreMemoryError");
        set(memError, io.memoryError);
        Bool rxIdle = ro(status, "RX_IDLE", () -> bool(), "no connection offers a received ULPDU, none is being "
                + "handed to the engine, and the engine has finished every ULPDU it took (placed, its event taken); "
                + "an FPDU MPA is still receiving or checking is not counted", "coreRxIdle");
        set(rxIdle, io.rxIdle);
        RegInst cycleLo = reg("CORE_CYCLE_LO", "Cycle counter bits 31:0; reading it latches CORE_CYCLE_HI");
        UInt lo = ro(cycleLo, "CYCLE_LO", () -> uint(32), "free-running cycle counter, bits 31:0", "coreCycleLo");
        set(lo, range(cycle, 31, 0));
        RegInst cycleHi = reg("CORE_CYCLE_HI", "Cycle counter bits 63:32 as latched by the last CORE_CYCLE_LO read");
        UInt hi = ro(cycleHi, "CYCLE_HI", () -> uint(32), "bits 63:32 latched when CORE_CYCLE_LO was read", "coreCycleHi");
        UInt hiLatch = regInit("cycleHiLatch", uint(32), U(0, 32));
        // Latched in the cycle CORE_CYCLE_LO's value is sampled (the APB setup phase), so the pair is one count.
        when(readSetup(cycleLo), () -> set(hiLatch, range(cycle, 63, 32)));
        set(hi, hiLatch);
        RegInst limits = reg("CORE_LIMITS", "Engine limits the host must respect");
        parameter(limits, "MAX_IRD", d.maxIrd(), "largest IRD a QP can have (QP_IRD is clamped to it)");
        parameter(limits, "MAX_ORD", d.maxOrd(), "largest ORD a QP can have (QP_ORD is clamped to it)");
        parameter(limits, "RECV_DEPTH_LOG2", Integer.numberOfTrailingZeros(d.recvDepth()),
                "log2 of the receive buffers the engine holds per QP");
        parameter(limits, "PD_WIDTH", d.pdWidth(), "bits of a Protection Domain number");

        // ---------------------------------------------------------------------------------------------- STAG
        busif.regPtrReAnchorAt(big(STAG_BASE));
        header("STAG", "STAG", IRQ_BASE, "STag table programming");
        StagProgram prog = wire("stagEntry", new StagProgram(d));
        set(prog.index, rw(reg("STAG_INDEX", "STag table index (STag bits 31:8) of the entry to program"), "INDEX",
                () -> uint(d.stagIndexBits()), "table index", "stagIndex"));
        set(prog.key, rw(reg("STAG_KEY", "STag key (STag bits 7:0)"), "KEY", () -> uint(DdpConfig.KEY_BITS), "key",
                "stagKey"));
        set(prog.pd, rw(reg("STAG_PD", "Protection Domain of the region"), "PD", () -> uint(d.pdWidth()), "PD",
                "stagPd"));
        set(prog.qp, rw(reg("STAG_QP", "QP the region is bound to (with FLAGS.QP_BOUND)"), "QP",
                () -> uint(d.qpBits()), "QP", "stagQp"));
        RegInst flags = reg("STAG_FLAGS", "Validity and access rights of the entry");
        set(prog.valid, rw(flags, "VALID", () -> bool(), "the entry is valid after the program (clear: deregister)",
                "stagValid"));
        set(prog.qpBound, rw(flags, "QP_BOUND", () -> bool(), "only STAG_QP may use it", "stagQpBound"));
        set(prog.remoteWrite, rw(flags, "REMOTE_WRITE", () -> bool(), "target of RDMA Writes and Read Responses",
                "stagRemoteWrite"));
        set(prog.remoteRead, rw(flags, "REMOTE_READ", () -> bool(), "source of RDMA Reads", "stagRemoteRead"));
        set(prog.remoteAtomic, rw(flags, "REMOTE_ATOMIC", () -> bool(), "target of Atomics", "stagRemoteAtomic"));
        set(prog.zeroBased, rw(flags, "ZERO_BASED", () -> bool(), "TOs count from 0 at VA (else the TO is the address)",
                "stagZeroBased"));
        set(prog.va, wide(rw(reg("STAG_VA_LO", "Host address of the region, bits 31:0"), "VA_LO", () -> uint(32),
                "address bits 31:0", "stagVaLo"), rw(reg("STAG_VA_HI", "Host address of the region, bits 63:32"),
                        "VA_HI", () -> uint(32), "address bits 63:32", "stagVaHi")));
        set(prog.length, wide(rw(reg("STAG_LEN_LO", "Region length in octets, bits 31:0"), "LEN_LO", () -> uint(32),
                "length bits 31:0", "stagLenLo"), rw(reg("STAG_LEN_HI", "Region length in octets, bits 63:32"),
                        "LEN_HI", () -> uint(32), "length bits 63:32", "stagLenHi")));
        RegInst command = reg("STAG_COMMAND", "Write 1 to program the entry from the fields above");
        Bool program = custom(command, "PROGRAM", () -> bool(), "WO", 0,
                "write 1: program the entry (deregistration: program with VALID clear); reads 0", "stagCommand");
        RegInst stagStatus = reg("STAG_STATUS", "STag programming status");
        Bool busy = ro(stagStatus, "BUSY", () -> bool(), "a program waits for the tag validator", "stagBusy");
        Bool pending = regInit("stagPending", bool(), False());
        set(program, and(command.hitDoWrite(), busif.writeData().apply(0)));
        when(io.stagProgram.fire(), () -> set(pending, False()));
        when(program, () -> set(pending, True()));
        set(busy, or(pending, program));
        set(io.stagProgram.valid(), pending);
        set(io.stagProgram.payload(), prog);
        // A command while the previous one waits is held on the bus until the validator has taken it.
        when(and(busy, io.apb.PSEL().apply(0), io.apb.PWRITE(),
                eq(io.apb.PADDR(), U((long) command.getAddr().longValue(), ADDRESS_WIDTH))),
                () -> set(io.apb.PREADY(), False()));

        // ------------------------------------------------------------------------------------------------ IRQ
        if (c.cqCount() > IRQ_CQ_BITS) {
            throw new IllegalArgumentException("IRQ_STATUS has " + IRQ_CQ_BITS + " CQ bits; the core has "
                    + c.cqCount() + " CQs");
        }
        busif.regPtrReAnchorAt(big(IRQ_BASE));
        header("IRQ", "IRQ ", QP_BASE, "events and the interrupt");
        RegInst irqStatus = reg("IRQ_STATUS", "Pending events; write 1 to a bit to clear it");
        Bits cqPending = custom(irqStatus, "CQ", () -> bits(IRQ_CQ_BITS), "W1C", 0,
                "bit c: CQ c's notify request fired (a completion that counts is in CQ c)", "irqCqPending");
        Bool asyncPending = custom(irqStatus, "ASYNC", () -> bool(), "W1C", 0,
                "a QP was moved to ERR by the core (QP_ERROR tells why) or a CQ overflowed (CQ_STATUS)", "irqAsyncPending");
        RegInst irqEnable = reg("IRQ_ENABLE", "Which IRQ_STATUS bits drive the interrupt output");
        Bits cqEnable = rw(irqEnable, "CQ", () -> bits(IRQ_CQ_BITS), "bit c: CQ c's event", "irqCqEnable");
        Bool asyncEnable = rw(irqEnable, "ASYNC", () -> bool(), "the asynchronous (QP or CQ error) event",
                "irqAsyncEnable");

        // ------------------------------------------------------------------------------------------------ QPs
        List<Bool> setupPending = new ArrayList<>();
        Bits legal = B(legalTransitions(), 64);
        for (int q = 0; q < c.qpCount(); q++) {
            pd.add(wire("qp" + q + "_pdValue", uint(d.pdWidth())));
            ird.add(wire("qp" + q + "_irdValue", uint(8)));
            ord.add(wire("qp" + q + "_ordValue", uint(8)));
        }
        for (int q = 0; q < c.qpCount(); q++) {
            int base = QP_BASE + q * QP_STRIDE;
            busif.regPtrReAnchorAt(big(base));
            busif.newBlockTagAt(big(base), "qp" + q, "QP");
            header("QP", "QP  ", q + 1 < c.qpCount() ? base + QP_STRIDE : CQ_BASE, "queue pair " + q);
            setupPending.add(qp(q, io.qp.get(q), io.qpStatus.get(q), legal));
            busif.resetBlockTag();
        }
        engineSetup(setupPending);

        // ------------------------------------------------------------------------------------------------ CQs
        List<Bool> cqFired = new ArrayList<>();
        List<Bool> cqOverflowed = new ArrayList<>();
        for (int i = 0; i < c.cqCount(); i++) {
            int base = CQ_BASE + i * CQ_STRIDE;
            busif.regPtrReAnchorAt(big(base));
            busif.newBlockTagAt(big(base), "cq" + i, "CQ");
            header("CQ", "CQ  ", i + 1 < c.cqCount() ? base + CQ_STRIDE : 0, "completion queue " + i);
            CqControl cq = io.cq.get(i);
            String n = "cq" + i + "_";
            set(cq.base, wide(rw(reg("CQ_BASE_LO", "Ring address bits 31:0 (32-octet entries)"), "BASE_LO", () -> uint(32),
                    "address bits 31:0", n + "baseLo"), rw(reg("CQ_BASE_HI", "Ring address bits 63:32"), "BASE_HI",
                            () -> uint(32), "address bits 63:32", n + "baseHi")));
            set(cq.size, rw(reg("CQ_SIZE", "log2 of the ring's slots"), "SIZE", () -> uint(5), "log2 slots",
                    n + "size"));
            UInt prod = ro(reg("CQ_PROD", "Entries written so far (free-running, 16 bits)"), "PROD", () -> uint(16),
                    "entries written", n + "prod");
            set(prod, io.cqProd.get(i));
            set(cq.cons, rw(reg("CQ_CONS", "Entries the host has consumed (free-running, 16 bits)"), "CONS",
                    () -> uint(16), "entries consumed: the core never overwrites an unconsumed entry", n + "cons"));
            cqFired.add(notify(i, n));
            Bool overflow = ro(reg("CQ_STATUS", "Status of the CQ"), "OVERFLOW", () -> bool(),
                    "an entry met the CQ full and was dropped, and so is every later one (a CQ error) until the CQ is"
                            + " given a new ring (another CQ_BASE or CQ_SIZE)", n + "overflow");
            set(overflow, io.cqOverflow.get(i));
            Bool was = regInit(n + "overflowWas", bool(), False());
            set(was, overflow);
            cqOverflowed.add(wire(n + "overflowRises", and(overflow, not(was))));
            busif.resetBlockTag();
        }

        // ---- events and the interrupt ----
        List<Bool> raise = new ArrayList<>(cqFired);
        while (raise.size() < IRQ_CQ_BITS) {
            raise.add(False());
        }
        Bits cqClear = wire("irqCqClear", mux(irqStatus.hitDoWrite(), range(busif.writeData(), IRQ_CQ_BITS - 1, 0),
                B(0, IRQ_CQ_BITS)));
        set(cqPending, or(and(cqPending, not(cqClear)), catLsbFirst(raise)));
        Bool asyncClear = wire("irqAsyncClear", and(irqStatus.hitDoWrite(), busif.writeData().apply(IRQ_CQ_BITS)));
        Bool asyncEvent = False();
        for (Bool f : qpFailed) {
            asyncEvent = or(asyncEvent, f);
        }
        for (Bool f : cqOverflowed) {
            asyncEvent = or(asyncEvent, f);
        }
        set(asyncPending, or(and(asyncPending, not(asyncClear)), asyncEvent));
        Bool level = regInit("interruptLevel", bool(), False());
        set(level, or(and(cqPending, cqEnable).orR(), and(asyncPending, asyncEnable)));
        set(io.interrupt, level);
    }

    /**
     * CQ_NOTIFY of CQ {@code c}: the notify request, armed by the host and disarmed when it fires; returns "fires
     * now". A host write in the same cycle as a firing event wins (the entry it answers was written before the request).
     */
    private Bool notify(int c, String n) {
        RegInst r = reg("CQ_NOTIFY", "Completion event request: write ARMED = 1 to arm; the core clears ARMED when it"
                + " fires");
        Bool armed = custom(r, "ARMED", () -> bool(), "RW", 0,
                "armed: the next completion entry that counts sets IRQ_STATUS.CQ bit c", n + "notifyArmed");
        Bool solicitedOnly = custom(r, "SOLICITED_ONLY", () -> bool(), "RW", 0,
                "only solicited or failed completions count (else any)", n + "notifySolicitedOnly");
        rnic.hw.qp.QpRings.CqEvent ev = io.cqEvent.payload();
        Bool fires = wire(n + "notifyFires", and(io.cqEvent.valid(), eq(ev.cq, U(c, config.cqBits())), armed,
                or(not(solicitedOnly), ev.solicited)));
        when(fires, () -> set(armed, False()));
        when(r.hitDoWrite(), () -> {
            set(armed, busif.writeData().apply(0));
            set(solicitedOnly, busif.writeData().apply(1));
        });
        return fires;
    }

    /** The registers and state machine of QP {@code q}; returns its "setup pending" flag. */
    private Bool qp(int q, QpControl out, QpStatus in, Bits legal) {
        DdpConfig d = config.ddp();
        String n = "qp" + q + "_";
        RegInst stateReg = reg("QP_STATE", "Write the requested state; reads the current state");
        UInt state = custom(stateReg, "STATE", () -> uint(3), "RW", QpState.RESET.code(),
                "QpState code; illegal requests are ignored", n + "state");
        Bool inReset = wire(n + "inReset", eq(state, U(QpState.RESET.code(), 3)));
        Bool inErr = wire(n + "inErr", eq(state, U(QpState.ERR.code(), 3)));
        Bool configurable = wire(n + "configurable", or(inReset, eq(state, U(QpState.INIT.code(), 3))));

        set(pd.get(q), locked(reg("QP_PD", "Protection Domain"), "PD", () -> uint(d.pdWidth()), "PD", configurable,
                n + "pd"));
        set(ird.get(q), lockedMax(reg("QP_IRD", "Inbound Read/Atomic requests outstanding (IRD)"), "IRD", d.maxIrd(),
                "IRD", configurable, n + "ird"));
        set(ord.get(q), lockedMax(reg("QP_ORD", "Outbound Read/Atomic requests outstanding (ORD)"), "ORD", d.maxOrd(),
                "ORD", configurable, n + "ord"));
        RegInst mpa = reg("QP_MPA", "MPA settings of the connection (negotiated in the MPA Request/Reply)");
        set(out.mpa.txMarkers, locked(mpa, "TX_MARKERS", () -> bool(), "Markers in FPDUs sent", configurable,
                n + "txMarkers"));
        set(out.mpa.rxMarkers, locked(mpa, "RX_MARKERS", () -> bool(), "Markers in FPDUs received", configurable,
                n + "rxMarkers"));
        set(out.mpa.crc, locked(mpa, "CRC", () -> bool(), "CRC32c in both directions", configurable, n + "crc"));
        set(out.mpa.holdTx, locked(mpa, "HOLD_TX_UNTIL_RX", () -> bool(),
                "responder: send nothing before the first FPDU was received (MPA-36)", configurable, n + "holdTx"));
        set(out.mpa.emss, locked(reg("QP_EMSS", "TCP EMSS of the connection; MULPDU is derived from it"), "EMSS",
                () -> uint(16), "EMSS", configurable, n + "emss"));
        UInt mulpdu = ro(reg("QP_MULPDU", "MULPDU the MPA transmitter reports for EMSS and TX_MARKERS"), "MULPDU",
                () -> uint(16), "MULPDU (RFC 5044 4.5)", n + "mulpdu");
        set(mulpdu, in.mulpdu);
        set(out.mpa.rxSeqStart, locked(reg("QP_RX_SEQ_START", "TCP sequence number of the first Full-Operation octet"
                + " received"), "RX_SEQ_START", () -> uint(32), "sequence number", configurable, n + "rxSeqStart"));

        set(out.sqBase, wide(locked(reg("QP_SQ_BASE_LO", "Send queue address bits 31:0 (128-octet WQEs)"),
                "SQ_BASE_LO", () -> uint(32), "address bits 31:0", configurable, n + "sqBaseLo"),
                locked(reg("QP_SQ_BASE_HI", "Send queue address bits 63:32"), "SQ_BASE_HI", () -> uint(32),
                        "address bits 63:32", configurable, n + "sqBaseHi")));
        set(out.sqSize, locked(reg("QP_SQ_SIZE", "log2 of the send queue's slots"), "SQ_SIZE", () -> uint(5), "log2 slots",
                configurable, n + "sqSize"));
        UInt sqProd = producer(reg("QP_SQ_PROD", "Send queue producer index (doorbell; 0 in RESET)"), "SQ_PROD",
                inReset, n + "sqProd");
        set(out.sqProd, sqProd);
        set(ro(reg("QP_SQ_CONS", "Send queue consumer index (completed WQEs)"), "SQ_CONS", () -> uint(16), "index",
                n + "sqCons"), in.sqCons);
        set(out.rqBase, wide(locked(reg("QP_RQ_BASE_LO", "Receive queue address bits 31:0 (32-octet WQEs)"),
                "RQ_BASE_LO", () -> uint(32), "address bits 31:0", configurable, n + "rqBaseLo"),
                locked(reg("QP_RQ_BASE_HI", "Receive queue address bits 63:32"), "RQ_BASE_HI", () -> uint(32),
                        "address bits 63:32", configurable, n + "rqBaseHi")));
        set(out.rqSize, locked(reg("QP_RQ_SIZE", "log2 of the receive queue's slots"), "RQ_SIZE", () -> uint(5),
                "log2 slots", configurable, n + "rqSize"));
        UInt rqProd = producer(reg("QP_RQ_PROD", "Receive queue producer index (doorbell; 0 in RESET)"), "RQ_PROD",
                inReset, n + "rqProd");
        set(out.rqProd, rqProd);
        set(ro(reg("QP_RQ_CONS", "Receive queue consumer index (completed WQEs)"), "RQ_CONS", () -> uint(16), "index",
                n + "rqCons"), in.rqCons);
        set(out.sqCq, locked(reg("QP_SQ_CQ", "CQ of the send queue's completions"), "SQ_CQ",
                () -> uint(config.cqBits()), "CQ number", configurable, n + "sqCq"));
        set(out.rqCq, locked(reg("QP_RQ_CQ", "CQ of the receive queue's completions"), "RQ_CQ",
                () -> uint(config.cqBits()), "CQ number", configurable, n + "rqCq"));
        RegInst error = reg("QP_ERROR", "What moved the QP to ERR (0 in RESET)");
        UInt errKind = custom(error, "KIND", () -> uint(8), "RO", 0, "CqeKind code: TERMINATE_SENT, TERMINATE_RECEIVED or"
                + " MPA_ERROR", n + "errorKind");
        UInt errStatus = custom(error, "STATUS", () -> uint(8), "RO", 0, "the CQE status (Terminate cause + 1, MPA Error"
                + " Code)", n + "errorStatus");

        // ---- state machine ----
        UInt requested = wire(n + "requested", range(busif.writeData(), 2, 0).asUInt());
        Bool hostWrite = stateReg.hitDoWrite();
        Bool allowed = wire(n + "allowed", legal.apply(cat(state, requested).asUInt()));
        Bool hostReset = wire(n + "hostReset", and(hostWrite, eq(requested, U(QpState.RESET.code(), 3))));
        Bool ringError = wire(n + "ringError", and(io.qpError.valid(),
                eq(io.qpError.payload().qp, U(q, config.ddp().qpBits()))));
        Bool canFail = wire(n + "canFail", and(not(inReset), not(inErr), not(hostReset)));
        when(and(hostWrite, allowed), () -> set(state, requested));
        when(and(canFail, ringError), () -> {
            set(state, io.qpError.payload().state);
            set(errKind, io.qpError.payload().kind);
            set(errStatus, io.qpError.payload().status);
        }).elseWhen(and(canFail, in.mpaFailed), () -> {
            set(state, U(QpState.ERR.code(), 3));
            set(errKind, U(CqeKind.MPA_ERROR.code(), 8));
            set(errStatus, in.mpaCode);
        });
        // The core moves the QP to ERR now (a Terminate or an MPA error; SQE is the host's to handle): an async event.
        qpFailed.add(wire(n + "failsNow", and(canFail, or(and(ringError,
                eq(io.qpError.payload().state, U(QpState.ERR.code(), 3))), and(not(ringError), in.mpaFailed)))));
        when(inReset, () -> {
            set(errKind, U(0, 8));
            set(errStatus, U(0, 8));
        });
        set(out.state, state);
        Bool clear = regInit(n + "clear", bool(), False());
        set(clear, and(hostReset, not(inReset)));
        set(out.clear, clear);

        // The engine's QP is open in RTR, RTS, SQD and SQE; every change of that is one setup entry.
        Bool open = wire(n + "open", isOpen(state));
        Bool wasOpen = regInit(n + "wasOpen", bool(), False());
        set(wasOpen, open);
        Bool pending = regInit(n + "setupPending", bool(), False());
        when(neq(open, wasOpen), () -> set(pending, True()));
        return pending;
    }

    /** Sends one {@link RdmapEngine.Setup} per pending QP, lowest number first, from an output register. */
    private void engineSetup(List<Bool> pending) {
        DdpConfig d = config.ddp();
        Bool valid = regInit("setupValid", bool(), False());
        RdmapEngine.Setup su = reg("setupEntry", new RdmapEngine.Setup(d));
        set(io.setup.valid(), valid);
        set(io.setup.payload(), su);
        when(io.setup.fire(), () -> set(valid, False()));
        Bool free = wire("setupFree", or(not(valid), io.setup.ready()));
        Bool taken = False();
        for (int q = 0; q < config.qpCount(); q++) {
            final int qp = q;
            QpControl c = io.qp.get(q);
            Bool pick = wire("setupPick_" + q, and(free, pending.get(q), not(taken)));
            taken = or(taken, pending.get(q));
            // The pending flag's own update (a new change) comes later in the code and wins over this clear.
            when(pick, () -> {
                set(pending.get(qp), False());
                set(valid, True());
                set(su.qp, U(qp, d.qpBits()));
                set(su.open, isOpen(c.state));
                set(su.pd, pd.get(qp));
                set(su.ird, ird.get(qp));
                set(su.ord, ord.get(qp));
                set(su.mulpdu, io.qpStatus.get(qp).mulpdu);
            });
        }
    }

    private static Bool isOpen(UInt state) {
        return or(eq(state, U(QpState.RTR.code(), 3)), eq(state, U(QpState.RTS.code(), 3)),
                eq(state, U(QpState.SQD.code(), 3)), eq(state, U(QpState.SQE.code(), 3)));
    }

    /** Bit {@code from·8 + to} is set when {@link QpState#hostMayMoveTo} allows the host's request. */
    static BigInteger legalTransitions() {
        BigInteger t = BigInteger.ZERO;
        for (QpState from : QpState.values()) {
            for (QpState to : QpState.values()) {
                if (from.hostMayMoveTo(to)) {
                    t = t.setBit(from.code() * 8 + to.code());
                }
            }
        }
        return t;
    }

    // ------------------------------------------------------------------------------------- declaration helpers

    private static scala.math.BigInt big(long v) {
        return scala.math.BigInt.apply(v);
    }

    private static SymbolName sym(String name) {
        return new SymbolName(name);
    }

    /** The next register of the current block. */
    private RegInst reg(String name, String doc) {
        return busif.newReg(doc, null, null, sym(name));
    }

    /** TYPE, VERSION and NEXT: the self-describing head of every block. */
    private void header(String block, String tag, int next, String what) {
        int type = 0;
        for (char ch : tag.toCharArray()) {
            type = (type << 8) | ch;
        }
        constant(reg(block + "_TYPE", "Block type of " + what + ": ASCII '" + tag.strip() + "', first character in"
                + " bits 31:24"), "TYPE", 32, type & 0xFFFF_FFFFL, "block type");
        constant(reg(block + "_VERSION", "Block version, major in bits 31:16"), "VERSION", 32, BLOCK_VERSION,
                "block version");
        constant(reg(block + "_NEXT", "Byte offset of the next block, 0 after the last"), "NEXT", 32, next,
                "next block");
    }

    /** A read-only constant field. */
    private void constant(RegInst r, String name, int width, long value, String doc) {
        r.field(hardType(() -> bits(width)), AccessType.ROV$.MODULE$, big(value), doc, sym(name));
        // regif names a field after its signal, and a constant has none: name the field itself.
        r.getFields().last().setName(name);
    }

    /**
     * An 8-bit read-only field holding an elaboration parameter (RO rather than regif's constant ROV, so the C header
     * also gets its SHIFT and MASK).
     */
    private void parameter(RegInst r, String name, int value, String doc) {
        set(ro(r, name, () -> uint(8), doc, "param" + name), U(value, 8));
    }

    /** A read-only field the hardware drives. */
    private <T extends BaseType> T ro(RegInst r, String name, Supplier<T> type, String doc, String hwName) {
        T v = r.field(hardType(type), AccessType.RO$.MODULE$, big(0), doc, sym(name));
        v.setName(hwName);
        return v;
    }

    /** A read-write field, written at any time. */
    private <T extends BaseType> T rw(RegInst r, String name, Supplier<T> type, String doc, String hwName) {
        T v = r.field(hardType(type), AccessType.RW$.MODULE$, big(0), doc, sym(name));
        v.setName(hwName);
        return v;
    }

    /** A register field whose logic this component writes itself; the map shows {@code access}. */
    private <T extends BaseType> T custom(RegInst r, String name, Supplier<T> type, String access, long reset,
            String doc, String hwName) {
        T v = r.field(hardType(type), new AccessType.CSTM(access), big(reset), doc, sym(name));
        v.setName(hwName);
        return v;
    }

    /** A read-write field that takes writes only while {@code writable}. */
    private <T extends BaseType> T locked(RegInst r, String name, Supplier<T> type, String doc, Bool writable,
            String hwName) {
        int lsb = r.getfieldPtr();
        T v = custom(r, name, type, "RW", 0, doc + " (written in RESET and INIT only)", hwName);
        when(and(r.hitDoWrite(), writable), () -> v.assignFromBits(range(busif.writeData(),
                lsb + v.getBitsWidth() - 1, lsb)));
        return v;
    }

    /** A 16-bit producer index: the host writes it (the doorbell) except in RESET, where it is 0. */
    private UInt producer(RegInst r, String name, Bool inReset, String hwName) {
        UInt v = custom(r, name, () -> uint(16), "RW", 0, "producer index; written in any state but RESET", hwName);
        when(r.hitDoWrite(), () -> set(v, range(busif.writeData(), 15, 0).asUInt()));
        when(inReset, () -> set(v, U(0, 16)));
        return v;
    }

    /** An 8-bit {@link #locked} field clamped to {@code max} as it is written: the value read back is the one used. */
    private UInt lockedMax(RegInst r, String name, int max, String doc, Bool writable, String hwName) {
        int lsb = r.getfieldPtr();
        UInt v = custom(r, name, () -> uint(8), "RW", 0, doc + " (written in RESET and INIT only; clamped to "
                + max + ")", hwName);
        UInt w = wire(hwName + "Written", range(busif.writeData(), lsb + 7, lsb).asUInt());
        when(and(r.hitDoWrite(), writable), () -> set(v, mux(gt(w, U(max, 8)), U(max, 8), w)));
        return v;
    }

    /** {@code hi ## lo} as a 64-bit value. */
    private static UInt wide(UInt lo, UInt hi) {
        return cat(hi, lo).asUInt();
    }

    /** The APB setup phase of a read of {@code r}: the cycle regif samples the register's value. */
    private Bool readSetup(RegInst r) {
        return and(busif.askRead(), eq(busif.readAddress(), U(r.getAddr().longValue(), ADDRESS_WIDTH)));
    }
}
