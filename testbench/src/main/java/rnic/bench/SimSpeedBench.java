package rnic.bench;

import java.math.BigInteger;
import java.util.Locale;
import java.util.Random;
import java.util.zip.CRC32C;
import rnic.hw.axis.AxisBeat;
import rnic.hw.crc.Crc32c;
import rnic.hw.crc.Crc32cConfig;
import rnic.sim.AxisSource;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.StreamSink;
import spinal.core.sim.package$;

/**
 * {@code ./rnic bench sim}: simulation speed of the {@link Crc32c} block at W = 64 driven three ways in one run, on
 * the same compiled model and the same traffic (back-to-back 1500-octet messages, result checked against
 * {@link CRC32C}):
 *
 * <ol>
 *   <li><b>harness</b> — {@code rnic.sim}: {@link AxisSource} and {@link StreamSink} agents called once per cycle
 *       by {@code Tb} inside one SpinalSim callback, scoreboard checking every CRC;</li>
 *   <li><b>bare callback</b> — the same stimulus written as one loop of direct signal accesses inside one callback,
 *       no agents: the ceiling the harness design can approach;</li>
 *   <li><b>SpinalSim threads</b> — SpinalSim's own style: {@code forkStimulus}, one {@code waitSampling()} per cycle
 *       and {@code #=} assignments from a simulation thread.</li>
 * </ol>
 *
 * It prints cycles/s, payload MB/s and the ratios. Figures depend on the machine; compare ratios, not absolutes.
 */
public final class SimSpeedBench {
    private static final int WIDTH = 64;
    private static final int MESSAGE = 1500;

    private SimSpeedBench() {
    }

    /** One measurement. */
    record Figure(String name, long cycles, long octets, double seconds) {
        double cyclesPerSecond() {
            return cycles / seconds;
        }

        double megabytesPerSecond() {
            return octets / seconds / 1e6;
        }
    }

    public static void main(String[] args) {
        long cycles = args.length > 0 ? Long.parseLong(args[0]) : 4_000_000L;
        long threadCycles = Math.max(50_000, cycles / 20);
        SimModel<Crc32c> model = SimModel.of("Crc32c-w" + WIDTH, () -> new Crc32c(new Crc32cConfig(WIDTH)));

        // Warm-up of each style (JIT, page cache), not counted.
        harness(model, 200_000);
        bare(model, 200_000);
        spinalThreads(model, 20_000);

        Figure h = harness(model, cycles);
        Figure b = bare(model, cycles);
        Figure t = spinalThreads(model, threadCycles);

        System.out.println();
        System.out.println("Simulation speed, Crc32c W=" + WIDTH + ", back-to-back " + MESSAGE
                + "-octet messages, every CRC checked");
        System.out.printf(Locale.ROOT, "%-34s %12s %14s %12s%n", "style", "cycles", "cycles/s", "payload MB/s");
        for (Figure f : new Figure[] {h, b, t}) {
            System.out.printf(Locale.ROOT, "%-34s %12d %14.0f %12.1f%n", f.name, f.cycles, f.cyclesPerSecond(),
                    f.megabytesPerSecond());
        }
        System.out.printf(Locale.ROOT, "ratio harness / SpinalSim threads: %.1fx%n",
                h.cyclesPerSecond() / t.cyclesPerSecond());
        System.out.printf(Locale.ROOT, "ratio harness / bare callback:     %.2f%n",
                h.cyclesPerSecond() / b.cyclesPerSecond());
    }

    private static byte[][] messages(long seed, int count) {
        Random rng = new Random(seed);
        byte[][] m = new byte[count][MESSAGE];
        for (byte[] x : m) {
            rng.nextBytes(x);
        }
        return m;
    }

    private static long crc(byte[] m) {
        CRC32C c = new CRC32C();
        c.update(m);
        return c.getValue();
    }

    /** The rnic.sim harness: agents and a scoreboard. */
    static Figure harness(SimModel<Crc32c> model, long cycles) {
        int beatsPerMessage = (MESSAGE + WIDTH / 8 - 1) / (WIDTH / 8);
        int count = (int) (cycles / beatsPerMessage);
        byte[][] msgs = messages(1, Math.min(count, 512));
        double[] seconds = {0};
        long[] done = {0};
        model.run("bench-harness", 1, tb -> {
            Scoreboard<Long> sb = tb.add(new Scoreboard<>("crc"));
            AxisSource src = tb.add(AxisSource.on(tb, tb.dut().io.sAxis, Pacer.always()));
            var m = tb.dut().io.mAxis;
            SimSignal data = tb.signal((spinal.core.BaseType) m.payload());
            tb.add(new StreamSink<Long>("m_axis", tb.signal(m.valid()), tb.signal(m.ready()), data::get,
                    Pacer.always(), sb::actual));
            tb.reset(4);
            for (int i = 0; i < count; i++) {
                byte[] x = msgs[i % msgs.length];
                src.send(x);
                sb.expect(crc(x));
            }
            long c0 = tb.cycle();
            long t0 = System.nanoTime();
            tb.runUntilIdle(10L * cycles + 1000);
            seconds[0] = (System.nanoTime() - t0) / 1e9;
            done[0] = tb.cycle() - c0;
            if (sb.matched() != count) {
                throw new AssertionError("harness bench checked " + sb.matched() + " of " + count);
            }
        });
        return new Figure("rnic.sim harness (agents)", done[0], (long) count * MESSAGE, seconds[0]);
    }

    /** The same traffic as one loop of direct accesses in one callback. */
    static Figure bare(SimModel<Crc32c> model, long cycles) {
        int octets = WIDTH / 8;
        int beatsPerMessage = (MESSAGE + octets - 1) / octets;
        int count = (int) (cycles / beatsPerMessage);
        byte[][] msgs = messages(2, Math.min(count, 512));
        long[] crcs = new long[msgs.length];
        for (int i = 0; i < msgs.length; i++) {
            crcs[i] = crc(msgs[i]);
        }
        double[] seconds = {0};
        long[] done = {0};
        model.run("bench-bare", 2, tb -> {
            Crc32c dut = tb.dut();
            AxisBeat p = dut.io.sAxis.payload();
            SimSignal valid = tb.signal(dut.io.sAxis.valid());
            SimSignal ready = tb.signal(dut.io.sAxis.ready());
            SimSignal tdata = tb.signal(p.tdata);
            SimSignal tkeep = tb.signal(p.tkeep);
            SimSignal tlast = tb.signal(p.tlast);
            SimSignal mValid = tb.signal(dut.io.mAxis.valid());
            SimSignal mReady = tb.signal(dut.io.mAxis.ready());
            SimSignal mData = tb.signal((spinal.core.BaseType) dut.io.mAxis.payload());
            tb.reset(4);
            mReady.set(true);
            long c0 = tb.cycle();
            long t0 = System.nanoTime();
            int results = 0;
            for (int i = 0; i < count; i++) {
                byte[] x = msgs[i % msgs.length];
                for (int off = 0; off < x.length; off += octets) {
                    int len = Math.min(octets, x.length - off);
                    tdata.setOctets(x, off, len);
                    tkeep.set(len == 64 ? -1L : (1L << len) - 1);
                    tlast.set(off + len == x.length);
                    valid.set(true);
                    do {
                        tb.step();
                        if (mValid.getBool()) {
                            results++;
                            if (mData.get() != crcs[(results - 1) % msgs.length]) {
                                throw new AssertionError("bare bench: wrong CRC");
                            }
                        }
                    } while (!ready.getBool());
                }
            }
            valid.set(false);
            tb.step(2);
            if (results != count) {
                throw new AssertionError("bare bench checked " + results + " of " + count);
            }
            seconds[0] = (System.nanoTime() - t0) / 1e9;
            done[0] = tb.cycle() - c0;
        });
        return new Figure("bare callback (direct accesses)", done[0], (long) count * MESSAGE, seconds[0]);
    }

    /** SpinalSim's threaded style: forkStimulus, waitSampling() per cycle, #= assignments. */
    static Figure spinalThreads(SimModel<Crc32c> model, long cycles) {
        int octets = WIDTH / 8;
        int beatsPerMessage = (MESSAGE + octets - 1) / octets;
        int count = (int) Math.max(1, cycles / beatsPerMessage);
        byte[][] msgs = messages(3, Math.min(count, 512));
        double[] seconds = {0};
        long[] done = {0};
        var sim = package$.MODULE$;
        model.runSpinalThread("bench-threads", 3, dut -> {
            var cd = sim.SimClockDomainPimper(dut.clockDomain().get());
            cd.forkStimulus(10L);
            AxisBeat p = dut.io.sAxis.payload();
            sim.SimBoolPimper(dut.io.sAxis.valid()).$hash$eq(false);
            sim.SimBoolPimper(dut.io.mAxis.ready()).$hash$eq(true);
            cd.waitSampling();
            for (int i = 0; i < 20; i++) {
                cd.waitSampling();
            }
            long t0 = System.nanoTime();
            long cyc = 0;
            int results = 0;
            for (int i = 0; i < count; i++) {
                byte[] x = msgs[i % msgs.length];
                for (int off = 0; off < x.length; off += octets) {
                    int len = Math.min(octets, x.length - off);
                    byte[] be = new byte[len + 1];
                    for (int k = 0; k < len; k++) {
                        be[len - k] = x[off + k];
                    }
                    sim.SimEquivBitVectorBigIntPimper(p.tdata).$hash$eq(scala.math.BigInt.apply(new BigInteger(be)));
                    sim.SimEquivBitVectorLongPimper(p.tkeep).$hash$eq((1L << len) - 1);
                    sim.SimBoolPimper(p.tlast).$hash$eq(off + len == x.length);
                    sim.SimBoolPimper(dut.io.sAxis.valid()).$hash$eq(true);
                    boolean accepted;
                    do {
                        cd.waitSampling();
                        cyc++;
                        accepted = sim.SimBoolPimper(dut.io.sAxis.ready()).toBoolean();
                        if (sim.SimBoolPimper(dut.io.mAxis.valid()).toBoolean()) {
                            results++;
                            long got = sim.SimBitVectorPimper(dut.io.mAxis.payload()).toLong();
                            if (got != crc(msgs[(results - 1) % msgs.length])) {
                                throw new AssertionError("thread bench: wrong CRC");
                            }
                        }
                    } while (!accepted);
                }
            }
            seconds[0] = (System.nanoTime() - t0) / 1e9;
            done[0] = cyc;
        });
        return new Figure("SpinalSim threads (waitSampling)", done[0], (long) count * MESSAGE, seconds[0]);
    }
}
