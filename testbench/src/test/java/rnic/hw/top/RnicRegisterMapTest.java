package rnic.hw.top;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.hw.top.RnicBench.qpReg;
import static rnic.hw.top.RnicBench.reg;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.hw.top.RegisterExport.Field;
import rnic.hw.top.RegisterExport.Register;
import rnic.sim.RnicSystem;
import rnic.wire.QpState;

/**
 * The register interface of the RNIC core ({@link RnicRegisterFile}) against the issue-5 contract, in a Verilator model
 * of {@link RnicPair} (W = 64, 4 QPs, 4 CQs, 64 STags), through its APB3 port.
 *
 * <ul>
 *   <li>The declaration's layout is the contract's: block bases and strides, the register names of each block in
 *       order, the documented fields (golden values typed from the contract, not taken from the code).</li>
 *   <li>The hardware is self-describing: walking TYPE / VERSION / NEXT from offset 0 visits CORE, STAG, QP 0…3 and CQ
 *       0…3 with the contract's tags and ends with NEXT = 0.</li>
 *   <li>Every register of every instance reads and writes as declared: constants stay, read-only fields ignore
 *       writes, read-write fields keep exactly their bits (reserved bits read 0), IRD/ORD are clamped to the engine's
 *       limits, producer indices read 0 in RESET, an illegal QP_STATE request is ignored; afterwards every register
 *       still holds its value (no two addresses alias).</li>
 *   <li>CORE_CONFIG, CORE_LIMITS and the cycle counter (CORE_CYCLE_LO latches CORE_CYCLE_HI).</li>
 *   <li>IRQ_STATUS is write-1-to-clear, IRQ_ENABLE and CQ_NOTIFY read back what was written, and with nothing
 *       pending the {@code interrupt} output stays low whatever the enable mask.</li>
 *   <li>A QP's configuration registers take writes in RESET and INIT only (the settings a connection runs with cannot
 *       change under it, MPA-26).</li>
 * </ul>
 */
class RnicRegisterMapTest {
    /** The contract's blocks: name, base, stride, instances, TYPE tag, and register names in order. */
    record ContractBlock(String name, int base, int stride, int count, String tag, List<String> registers) {
    }

    static final List<ContractBlock> CONTRACT = List.of(
            new ContractBlock("CORE", 0x0000, 0, 1, "RNIC", List.of("CORE_TYPE", "CORE_VERSION", "CORE_NEXT",
                    "CORE_CONFIG", "CORE_STATUS", "CORE_CYCLE_LO", "CORE_CYCLE_HI",
                    "CORE_LIMITS")), // CORE_LIMITS: this core's addition (engine limits for the driver)
            new ContractBlock("STAG", 0x0100, 0, 1, "STAG", List.of("STAG_TYPE", "STAG_VERSION", "STAG_NEXT",
                    "STAG_INDEX", "STAG_KEY", "STAG_PD", "STAG_QP", "STAG_FLAGS", "STAG_VA_LO", "STAG_VA_HI",
                    "STAG_LEN_LO", "STAG_LEN_HI", "STAG_COMMAND", "STAG_STATUS")),
            // IRQ: issue 12's events (pending bits write-1-to-clear, an enable mask for the interrupt output)
            new ContractBlock("IRQ", 0x0200, 0, 1, "IRQ ", List.of("IRQ_TYPE", "IRQ_VERSION", "IRQ_NEXT",
                    "IRQ_STATUS", "IRQ_ENABLE")),
            new ContractBlock("QP", 0x1000, 0x100, 4, "QP  ", List.of("QP_TYPE", "QP_VERSION", "QP_NEXT",
                    "QP_STATE", "QP_PD", "QP_IRD", "QP_ORD", "QP_MPA", "QP_EMSS", "QP_MULPDU", "QP_RX_SEQ_START",
                    "QP_SQ_BASE_LO", "QP_SQ_BASE_HI", "QP_SQ_SIZE", "QP_SQ_PROD", "QP_SQ_CONS", "QP_RQ_BASE_LO",
                    "QP_RQ_BASE_HI", "QP_RQ_SIZE", "QP_RQ_PROD", "QP_RQ_CONS", "QP_SQ_CQ", "QP_RQ_CQ", "QP_ERROR")),
            new ContractBlock("CQ", 0x2000, 0x40, 4, "CQ  ", List.of("CQ_TYPE", "CQ_VERSION", "CQ_NEXT",
                    "CQ_BASE_LO", "CQ_BASE_HI", "CQ_SIZE", "CQ_PROD", "CQ_CONS", "CQ_NOTIFY", "CQ_STATUS")));

    static int tag(String s) {
        int t = 0;
        for (char c : s.toCharArray()) {
            t = (t << 8) | c;
        }
        return t;
    }

    @Test
    void declarationHasTheContractsLayout() {
        for (ContractBlock cb : CONTRACT) {
            assertEquals(cb.base(), reg(cb.name() + "_BASE"), cb.name() + "_BASE");
            if (cb.count() > 1) {
                assertEquals(cb.stride(), reg(cb.name() + "_STRIDE"), cb.name() + "_STRIDE");
            }
            assertEquals(tag(cb.tag()), reg(cb.name() + "_TYPE_VALUE"), cb.name() + " type tag");
            List<String> names = new ArrayList<>();
            for (Register r : RnicBench.declared()) {
                if (r.address() >= cb.base() && r.address() < cb.base() + (cb.stride() > 0 ? cb.stride() : 0x100)
                        && r.name().startsWith(cb.name() + "_")) {
                    names.add(r.name());
                }
            }
            assertEquals(cb.registers(), names, "registers of block " + cb.name() + " in address order");
            int offset = cb.count() > 1 ? 0 : cb.base();
            assertEquals(offset, reg(cb.name() + "_TYPE"));
            assertEquals(offset + 4, reg(cb.name() + "_VERSION"));
            assertEquals(offset + 8, reg(cb.name() + "_NEXT"));
        }
        // Fields the contract fixes.
        assertEquals(0xFF, reg("CORE_CONFIG_QP_COUNT_MASK"));
        assertEquals(0xFF00, reg("CORE_CONFIG_CQ_COUNT_MASK"));
        assertEquals(0xFF0000, reg("CORE_CONFIG_STAG_COUNT_LOG2_MASK"));
        assertEquals(0xFF000000, reg("CORE_CONFIG_DATA_BYTES_MASK"));
        String[] flags = {"VALID", "QP_BOUND", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "ZERO_BASED"};
        for (int i = 0; i < flags.length; i++) {
            assertEquals(1 << i, reg("STAG_FLAGS_" + flags[i] + "_MASK"), flags[i]);
            assertEquals(i, reg("STAG_FLAGS_" + flags[i] + "_SHIFT"), flags[i]);
        }
        String[] mpa = {"TX_MARKERS", "RX_MARKERS", "CRC", "HOLD_TX_UNTIL_RX"};
        for (int i = 0; i < mpa.length; i++) {
            assertEquals(1 << i, reg("QP_MPA_" + mpa[i] + "_MASK"), mpa[i]);
        }
        assertEquals(1, reg("CORE_STATUS_MEMORY_ERROR_MASK"));
        assertEquals(2, reg("CORE_STATUS_RX_IDLE_MASK"));
        assertEquals(1, reg("STAG_STATUS_BUSY_MASK"));
        assertEquals(0xFF, reg("QP_ERROR_KIND_MASK"));
        assertEquals(0xFF00, reg("QP_ERROR_STATUS_MASK"));
        assertEquals(8, reg("QP_ERROR_STATUS_SHIFT"));
        // Events: one IRQ_STATUS / IRQ_ENABLE bit per CQ in 15:0, the asynchronous (QP error) bit 16.
        for (String r : List.of("IRQ_STATUS", "IRQ_ENABLE")) {
            assertEquals(0xFFFF, reg(r + "_CQ_MASK"), r);
            assertEquals(0x1_0000, reg(r + "_ASYNC_MASK"), r);
        }
        assertEquals(1, reg("CQ_NOTIFY_ARMED_MASK"));
        assertEquals(2, reg("CQ_NOTIFY_SOLICITED_ONLY_MASK"));
    }

    @Test
    void typeVersionNextChainVisitsEveryBlock() {
        List<int[]> expected = new ArrayList<>();
        for (ContractBlock cb : CONTRACT) {
            for (int i = 0; i < cb.count(); i++) {
                expected.add(new int[] {cb.base() + i * cb.stride(), tag(cb.tag())});
            }
        }
        RnicSystem.model(RnicBench.W).run("chain", 1, tb -> {
            RnicBench bench = new RnicBench(tb);
            for (RnicBench.Side side : List.of(bench.a, bench.b)) {
                List<int[]> seen = new ArrayList<>();
                int at = 0;
                do {
                    int type = side.read(at);
                    assertEquals(0x0001_0000, side.read(at + 4), "VERSION of the block at 0x" + Integer.toHexString(at));
                    seen.add(new int[] {at, type});
                    at = side.read(at + 8);
                    assertTrue(seen.size() <= expected.size(), "NEXT chain longer than the contract's blocks");
                } while (at != 0);
                assertEquals(expected.size(), seen.size(), "blocks on the chain");
                for (int i = 0; i < expected.size(); i++) {
                    assertEquals(expected.get(i)[0], seen.get(i)[0], "block " + i + " offset");
                    assertEquals(expected.get(i)[1], seen.get(i)[1], "block " + i + " TYPE at 0x"
                            + Integer.toHexString(expected.get(i)[0]));
                }
            }
        });
    }

    @Test
    void coreConfigLimitsAndCycleCounter() {
        RnicSystem.model(RnicBench.W).run("core", 2, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side a = bench.a;
            // CORE_CONFIG: [7:0] qpCount, [15:8] cqCount, [23:16] log2 stagCount, [31:24] W/8.
            assertEquals(4 | 4 << 8 | 6 << 16 | 8 << 24, a.read(reg("CORE_CONFIG")));
            // CORE_LIMITS: IRD 8, ORD 8, 16 receive buffers per QP, 16-bit PDs (DdpConfig.defaults()).
            assertEquals(8 | 8 << 8 | 4 << 16 | 16 << 24, a.read(reg("CORE_LIMITS")));
            // CORE_STATUS: no memory error; the receive path idle (nothing received yet).
            assertEquals(reg("CORE_STATUS_RX_IDLE_MASK"), a.read(reg("CORE_STATUS")));
            long before = cycle(a);
            long tbBefore = tb.cycle();
            tb.step(1234);
            long after = cycle(a);
            assertEquals(tb.cycle() - tbBefore, after - before, "cycles counted between two reads");
            int hi = a.read(reg("CORE_CYCLE_HI"));
            tb.step(50);
            assertEquals(hi, a.read(reg("CORE_CYCLE_HI")), "CORE_CYCLE_HI holds the value latched by the LO read");
        });
    }

    static long cycle(RnicBench.Side s) {
        long lo = s.read(reg("CORE_CYCLE_LO")) & 0xFFFF_FFFFL;
        long hi = s.read(reg("CORE_CYCLE_HI")) & 0xFFFF_FFFFL;
        return hi << 32 | lo;
    }

    /** What a read of {@code r} returns after {@code written} was written to it, field by field (null: don't care). */
    static Integer expectedAfterWrite(Register r, int written, int before) {
        int value = 0;
        for (Field f : r.fields()) {
            long mask = ((1L << f.width()) - 1) << f.lsb();
            int w = (int) ((written & mask) >>> f.lsb());
            int was = (int) ((before & mask) >>> f.lsb());
            int v;
            switch (f.access()) {
                case "NA" -> v = 0;
                case "ROV" -> v = (int) f.reset();
                case "RO" -> {
                    if (r.name().startsWith("CORE_CYCLE")) {
                        return null; // counting
                    }
                    v = was;
                }
                case "WO" -> v = 0; // STAG_COMMAND: writing 1 programs an entry; reads 0
                case "W1C" -> v = was & ~w; // IRQ_STATUS: writing 1 clears (nothing is pending in the walk)
                case "RW" -> {
                    if (r.name().equals("QP_STATE")) {
                        v = QpState.RESET.code(); // the walk asks only for code 7: no state, ignored
                    } else if (r.name().equals("QP_IRD") || r.name().equals("QP_ORD")) {
                        v = Math.min(w, 8); // clamped to CORE_LIMITS.MAX_IRD / MAX_ORD
                    } else if (r.name().endsWith("_PROD")) {
                        v = 0; // producer indices are 0 while the QP is in RESET
                    } else {
                        v = w;
                    }
                }
                default -> throw new AssertionError("unexpected access " + f.access() + " in " + r.name());
            }
            value |= v << f.lsb();
        }
        return value;
    }

    @Test
    void everyRegisterReadsAndWritesAsDeclared() {
        RnicSystem.model(RnicBench.W).run("walk", 3, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side a = bench.a;
            Random rng = tb.random();
            Map<Register, Integer> last = new LinkedHashMap<>();
            int checked = 0;
            for (Register r : RnicBench.declared()) {
                int addr = (int) r.address();
                int before = a.read(addr);
                for (int written : new int[] {0xFFFF_FFFF, rng.nextInt(), 0x5555_5555 ^ rng.nextInt(1 << 16)}) {
                    if (r.name().equals("QP_STATE")) {
                        written |= 7; // QP state changes are the state test's; 7 is no state
                    }
                    a.write(addr, written);
                    int got = a.read(addr);
                    Integer want = expectedAfterWrite(r, written, before);
                    if (want != null) {
                        assertEquals(String.format("0x%08x", want), String.format("0x%08x", got),
                                r.name() + " at 0x" + Integer.toHexString(addr) + " after writing 0x"
                                        + Integer.toHexString(written));
                        checked++;
                    }
                    before = got;
                    last.put(r, want);
                }
            }
            // Nothing aliased: every register still reads what it read after its own writes.
            for (Map.Entry<Register, Integer> e : last.entrySet()) {
                Register r = e.getKey();
                if (e.getValue() != null && !r.name().equals("QP_MULPDU")) {
                    assertEquals(String.format("0x%08x", e.getValue()),
                            String.format("0x%08x", a.read((int) r.address())), r.name() + " kept its value");
                }
            }
            assertTrue(checked > 400, "checked " + checked + " register reads");
        });
    }

    @Test
    void interruptRegistersAtRest() {
        RnicSystem.model(RnicBench.W).run("irq-rest", 5, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side a = bench.a;
            assertEquals(0, a.read(reg("IRQ_STATUS")), "nothing pending after reset");
            assertEquals(0, a.read(reg("IRQ_ENABLE")), "nothing enabled after reset");
            a.write(reg("IRQ_ENABLE"), 0xFFFF_FFFF);
            assertEquals(0x1_FFFF, a.read(reg("IRQ_ENABLE")), "16 CQ bits and ASYNC, reserved bits read 0");
            a.write(reg("IRQ_STATUS"), 0xFFFF_FFFF);
            assertEquals(0, a.read(reg("IRQ_STATUS")), "writing 1 to a clear bit leaves it clear");
            for (int c = 0; c < 4; c++) {
                assertEquals(0, a.read(RnicBench.cqReg(c, "CQ_NOTIFY")), "CQ " + c + " not armed after reset");
                a.write(RnicBench.cqReg(c, "CQ_NOTIFY"), c % 2 == 0 ? 3 : 1);
            }
            tb.step(20);
            for (int c = 0; c < 4; c++) {
                assertEquals(c % 2 == 0 ? 3 : 1, a.read(RnicBench.cqReg(c, "CQ_NOTIFY")),
                        "CQ " + c + " stays armed while no entry is written");
            }
            assertEquals(0, a.read(reg("IRQ_STATUS")));
            assertTrue(!tb.signal(tb.dut().io.a.interrupt).getBool(), "interrupt low with nothing pending");
        });
    }

    @Test
    void qpConfigurationIsWritableInResetAndInitOnly() {
        String[] config = {"QP_PD", "QP_EMSS", "QP_RX_SEQ_START", "QP_SQ_BASE_LO", "QP_SQ_SIZE", "QP_RQ_BASE_HI",
            "QP_SQ_CQ"};
        RnicSystem.model(RnicBench.W).run("lock", 4, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side a = bench.a;
            int q = 2;
            assertEquals(QpState.INIT, a.request(q, QpState.INIT));
            for (String r : config) {
                a.write(qpReg(q, r), 3);
                assertEquals(3, a.read(qpReg(q, r)), r + " written in INIT");
            }
            assertEquals(QpState.RTR, a.request(q, QpState.RTR));
            for (String r : config) {
                a.write(qpReg(q, r), 1);
                assertEquals(3, a.read(qpReg(q, r)), r + " ignores a write in RTR");
            }
            a.write(qpReg(q, "QP_SQ_PROD"), 9);
            assertEquals(9, a.read(qpReg(q, "QP_SQ_PROD")), "the doorbell is written in RTR");
            assertEquals(QpState.RESET, a.request(q, QpState.RESET));
            for (String r : config) {
                a.write(qpReg(q, r), 1);
                assertEquals(1, a.read(qpReg(q, r)), r + " written in RESET");
            }
            assertEquals(0, a.read(qpReg(q, "QP_SQ_PROD")), "doorbell index 0 in RESET");
        });
    }
}
