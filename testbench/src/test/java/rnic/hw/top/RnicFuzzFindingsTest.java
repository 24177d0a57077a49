package rnic.hw.top;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static rnic.hw.top.RnicBench.qpReg;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.model.ddp.DdpSegment;
import rnic.model.mpa.MpaDirection;
import rnic.model.mpa.MpaFramer;
import rnic.model.mpa.TcpSegment;
import rnic.model.rdmap.RdmapDecoder;
import rnic.model.rdmap.Terminate;
import rnic.sim.HostMemory;
import rnic.sim.RnicSystem;
import rnic.sim.TcpPayloadSource;
import rnic.wire.MpaErrorCode;
import rnic.wire.QpState;
import rnic.wire.TerminateCause;

/**
 * Regressions for what the receive-path fuzzer ({@code rnic.fuzz.RxFuzz}, {@code ./rnic fuzz}) found in
 * {@link RnicCore}, each reduced to the sequence that showed it (W = 64, {@link RnicPair}'s core b, its transmit
 * pipes cut so what it sends is only recorded).
 *
 * <ul>
 *   <li>F11/F13 (MPA-44, MPA-45, RDMAP-14, RDMAP-17, DDP-27): the Terminate of an error is sent even when the QP's
 *       close (it goes to ERR) reaches the engine before the responder took the Terminate, and a QP reset after an
 *       MPA error sends the Terminate of its next error: errors on all four connections at once (two MPA, two DDP),
 *       then, after a RESET, an MPA error on each again, give one Terminate per connection and error, each the one
 *       docs/requirements.md §3 gives (§3.1 E-M2, §3.2 E-D1).</li>
 *   <li>F14 (MPA-12, MPA-26, MPA-44): a RESET written while the engine is still dropping the rest of a long ULPDU of
 *       the failed connection restarts the connection all the same: the new stream, from a new start sequence number,
 *       is placed and the QP stays in RTS (before the fix the receiver kept the old sequence state and failed the
 *       new stream with E-M1).</li>
 *   <li>F15 (MPA-25, MPA-44, MPA-45, DDP-27, DDP-31; docs/requirements.md §3.1 E-M2, §3.2 E-D0): with CRC off, a
 *       ULPDU_Length broken short makes the receiver deliver a ULPDU too short for its DDP header and then fail on
 *       the misframed stream after it. The short ULPDU's error is the QP's first: its Terminate (E-D0, 1/0/00) is the
 *       one sent, and the only one — the MPA error that follows must not overtake the decision of the segment
 *       before it (before the fix the core sent the MPA error's 2/0/02 instead).</li>
 *   <li>F16/F17 (RDMAP-14, RDMAP-17, DDP-31, MPA-12): a Terminate decided at the head of a long segment goes out as
 *       soon as it is decided, after the Read Response owed for an earlier Read Request, not once the rest of the
 *       failing segment (dropped anyway) has been taken: the host sees the QP in ERR and may reset it at once. Before
 *       the fix it waited for the whole segment, the core went quiet without it and the reset lost it (or it came
 *       out on the next connection).</li>
 * </ul>
 */
class RnicFuzzFindingsTest {
    static final int PD = 3;

    /** QP q of b: STag for remote write, MPA settings (Markers as given, CRC on), RESET→INIT→RTR→RTS. */
    static MpaFramer openRts(RnicBench.Side b, int q, long seqStart, boolean markers) {
        return openRts(b, q, seqStart, markers, true);
    }

    /** As {@link #openRts(RnicBench.Side, int, long, boolean)}, CRC as given. */
    static MpaFramer openRts(RnicBench.Side b, int q, long seqStart, boolean markers, boolean crc) {
        b.write(qpReg(q, "QP_STATE"), QpState.RESET.code());
        b.write(qpReg(q, "QP_PD"), PD);
        b.write(qpReg(q, "QP_IRD"), 4);
        b.write(qpReg(q, "QP_ORD"), 4);
        b.mpa(q, false, markers, crc, false, 1460, seqStart);
        assertEquals(QpState.INIT, b.request(q, QpState.INIT));
        assertEquals(QpState.RTR, b.request(q, QpState.RTR));
        assertEquals(QpState.RTS, b.request(q, QpState.RTS));
        return new MpaFramer(new MpaDirection(markers, crc, seqStart), 1460);
    }

    static int stag(int q) {
        return (0x10 + q) << 8 | 0x3C;
    }

    static long va(int q) {
        return 0x0000_0050_0000_0000L * (q + 1);
    }

    /** The Terminates among the ULPDUs core b sent on connection q (Markers off: ULPDU_Length, then the ULPDU). */
    static List<Terminate> terminates(RnicBench.Side b, int q) {
        List<Terminate> out = new ArrayList<>();
        for (byte[] fpdu : b.tcpOut.get(q).segments) {
            int len = (fpdu[0] & 0xFF) << 8 | fpdu[1] & 0xFF;
            byte[] ulpdu = Arrays.copyOfRange(fpdu, 2, 2 + len);
            try {
                if (new RdmapDecoder(true).decode(List.of(DdpSegment.parse(ulpdu))) instanceof Terminate t) {
                    out.add(t);
                }
            } catch (rnic.model.ddp.TerminateException e) {
                throw new AssertionError("core b sent an undecodable FPDU on connection " + q, e);
            }
        }
        return out;
    }

    /** One writable 64 KiB region per QP (STag {@code stag(q)}, PD {@link #PD}); b's transmit kept for the test. */
    static void writableRegionPerQp(RnicBench.Side b) {
        for (int q = 0; q < 4; q++) {
            b.programStag(stag(q), PD, q, true, true, false, false, false, va(q), 65536);
            b.tcpOut.get(q).forward = false;
        }
    }

    @Test
    void errorsOnEveryConnectionAtOnceEachSendOneTerminateAlsoAfterAReset() {
        RnicSystem.model(RnicBench.W).run("fuzz-f13", 31, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side b = bench.b;
            Random rng = tb.random();
            writableRegionPerQp(b);
            for (int pass = 0; pass < 2; pass++) {
                // Pass 0: connections 0 and 2 a CRC error (E-M2, the engine's own Terminate), 1 and 3 a Write to an
                // unknown STag (E-D1, the receive side's Terminate) after a good Write; pass 1, after the RESET: a CRC
                // error on every connection.
                List<TerminateCause> want = new ArrayList<>();
                for (int q = 0; q < 4; q++) {
                    MpaFramer f = openRts(b, q, rng.nextInt(1 << 20), q % 2 == 0);
                    TcpPayloadSource in = b.tcpIn.get(q);
                    List<TcpSegment> segs = new ArrayList<>(RnicQpStateTest.write(f, stag(q), va(q),
                            RnicQpStateTest.randomBytes(rng, 200 + rng.nextInt(2000))));
                    if (q % 2 == 0 || pass == 1) {
                        TcpSegment bad = RnicQpStateTest.write(f, stag(q), va(q) + 8192,
                                RnicQpStateTest.randomBytes(rng, 100)).get(0);
                        byte[] corrupt = bad.payload().clone();
                        corrupt[corrupt.length - 1] ^= 0x04;
                        segs.add(new TcpSegment(bad.seq(), corrupt));
                        want.add(null);
                    } else {
                        segs.addAll(RnicQpStateTest.write(f, stag(q) ^ 0x01, va(q),
                                RnicQpStateTest.randomBytes(rng, 64)));
                        want.add(TerminateCause.DDP_INVALID_STAG);
                    }
                    for (TcpSegment s : segs) {
                        in.send(s.seq(), s.payload(), TcpPayloadSource.resegmenting(rng, 8));
                    }
                }
                tb.runUntil(() -> b.tcpIn.stream().noneMatch(TcpPayloadSource::busy), 50_000, "the input taken");
                tb.step(2000);
                for (int q = 0; q < 4; q++) {
                    assertEquals(QpState.ERR, b.state(q), "pass " + pass + " QP " + q);
                    List<Terminate> t = terminates(b, q);
                    assertEquals(1, t.size(), "pass " + pass + ": one Terminate on connection " + q);
                    if (want.get(q) == null) {
                        assertEquals(Terminate.llp(MpaErrorCode.CRC_ERROR), t.get(0), "E-M2, connection " + q);
                    } else {
                        assertTrue(t.get(0).reports(want.get(q)), "E-D1, connection " + q + ": " + t.get(0));
                    }
                    b.tcpOut.get(q).segments.clear();
                }
            }
        });
    }

    @Test
    void aResetWhileTheEngineDropsALongUlpduRestartsTheConnection() {
        RnicSystem.model(RnicBench.W).run("fuzz-f14", 32, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side b = bench.b;
            Random rng = tb.random();
            int q = 1;
            b.programStag(stag(q), PD, q, true, true, false, false, false, va(q), 65536);
            b.tcpOut.get(q).forward = false;
            HostMemory expected = new HostMemory();
            for (int round = 0; round < 6; round++) {
                MpaFramer f = openRts(b, q, rng.nextInt(1 << 30), round % 2 == 0);
                // An unknown STag fails the QP at once; then an 8000-octet Write the engine takes and drops.
                List<TcpSegment> segs = new ArrayList<>(RnicQpStateTest.write(f, stag(q) ^ 0x01, va(q),
                        RnicQpStateTest.randomBytes(rng, 16)));
                MpaFramer big = new MpaFramer(new MpaDirection(round % 2 == 0, true, f.nextSeq()), 8100);
                segs.addAll(RnicQpStateTest.write(big, stag(q), va(q), RnicQpStateTest.randomBytes(rng, 8000)));
                TcpPayloadSource in = b.tcpIn.get(q);
                for (TcpSegment s : segs) {
                    in.send(s.seq(), s.payload(), () -> 8);
                }
                tb.runUntil(() -> !in.busy(), 20_000, "the input taken");
                // At once, while the engine still drops the long ULPDU: RESET and a new connection.
                MpaFramer g = openRts(b, q, rng.nextInt(1 << 30), round % 2 == 1);
                byte[] payload = RnicQpStateTest.randomBytes(rng, 300 + rng.nextInt(900));
                long to = va(q) + 16384 + 4096 * round;
                for (TcpSegment s : RnicQpStateTest.write(g, stag(q), to, payload)) {
                    in.send(s.seq(), s.payload(), TcpPayloadSource.resegmenting(rng, 8));
                }
                expected.write(to, payload);
                tb.runUntil(() -> !in.busy(), 20_000, "the new stream taken");
                tb.step(3000);
                assertEquals(QpState.RTS, b.state(q), "round " + round + ": the restarted connection takes its stream"
                        + " (QP_ERROR " + Integer.toHexString(b.read(qpReg(q, "QP_ERROR"))) + ")");
                assertTrue(Arrays.equals(payload, b.memory.read(to, payload.length)), "round " + round
                        + ": the Write on the restarted connection is placed");
            }
            assertTrue(Arrays.equals(expected.read(va(q), 65536), b.memory.read(va(q), 65536)),
                    "the region holds the Writes of the restarted connections only");
        });
    }

    @Test
    void aShortUlpduBeforeAnMpaErrorSendsItsOwnTerminate() throws Exception {
        RnicSystem.model(RnicBench.W).run("fuzz-f15", 33, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side b = bench.b;
            Random rng = tb.random();
            writableRegionPerQp(b);
            for (int pass = 0; pass < 3; pass++) {
                for (int q = 0; q < 4; q++) {
                    long seqStart = rng.nextInt(1 << 30);
                    MpaFramer f = openRts(b, q, seqStart, false, false);
                    // Good Writes, then an FPDU whose ULPDU_Length was broken to 2 … 13 (the ULPDU is cut inside its
                    // 14-octet tagged DDP header), then octets whose ULPDU_Length is beyond the receive bound.
                    java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
                    for (int m = 0; m < 1 + rng.nextInt(3); m++) {
                        for (TcpSegment s : RnicQpStateTest.write(f, stag(q), va(q) + 4096 * m,
                                RnicQpStateTest.randomBytes(rng, 64 + rng.nextInt(1200)))) {
                            stream.writeBytes(s.payload());
                        }
                    }
                    byte[] bad = RnicQpStateTest.write(f, stag(q), va(q) + 32768,
                            RnicQpStateTest.randomBytes(rng, 400)).get(0).payload();
                    int shortLen = 2 + rng.nextInt(12);
                    bad[0] = 0;
                    bad[1] = (byte) shortLen;
                    int end = 2 + shortLen + (-(2 + shortLen) & 3) + 4; // header, ULPDU, PAD, CRC field (zero)
                    java.util.Arrays.fill(bad, 2 + shortLen, end, (byte) 0);
                    bad[end] = (byte) 0xFF;
                    bad[end + 1] = (byte) 0xF0;
                    stream.writeBytes(bad);
                    byte[] octets = stream.toByteArray();
                    // Golden: the MPA receiver delivers the short ULPDU, then fails; DDP rejects the ULPDU (E-D0).
                    rnic.model.mpa.MpaDeframer golden = new rnic.model.mpa.MpaDeframer(
                            new MpaDirection(false, false, seqStart), 8994);
                    List<rnic.model.mpa.MpaDeframer.Event> events = golden.receive(new TcpSegment(seqStart, octets));
                    assertTrue(golden.failed(), "the golden receiver fails after the short ULPDU");
                    rnic.model.mpa.MpaDeframer.Ulpdu shortOne = (rnic.model.mpa.MpaDeframer.Ulpdu)
                            events.get(events.size() - 2);
                    assertEquals(shortLen, shortOne.data().length);
                    TerminateCause want = null;
                    try {
                        DdpSegment.parse(shortOne.data());
                    } catch (rnic.model.ddp.TerminateException e) {
                        want = e.cause();
                    }
                    assertEquals(TerminateCause.DDP_LOCAL_CATASTROPHIC, want, "golden: E-D0");
                    b.tcpIn.get(q).send(seqStart, octets, TcpPayloadSource.resegmenting(rng, 8));
                }
                tb.runUntil(() -> b.tcpIn.stream().noneMatch(TcpPayloadSource::busy), 50_000, "the input taken");
                tb.step(3000);
                for (int q = 0; q < 4; q++) {
                    assertEquals(QpState.ERR, b.state(q), "pass " + pass + " QP " + q);
                    List<Terminate> t = terminates(b, q);
                    assertEquals(1, t.size(), "pass " + pass + ": one Terminate on connection " + q + ": " + t);
                    assertTrue(t.get(0).reports(TerminateCause.DDP_LOCAL_CATASTROPHIC),
                            "pass " + pass + ", connection " + q + ": E-D0, not the MPA error: " + t.get(0));
                    b.tcpOut.get(q).segments.clear();
                }
            }
        });
    }

    /**
     * F16/F17 (RDMAP-14: one Terminate per stream, the last FPDU sent; RDMAP-17, RFC 5040 §7.1: sent as soon as
     * possible, for the first error; DDP-31: the rest of the failing stream dropped; MPA-12: a reset QP restarts its
     * connection). On QP 1 a Read Request, then an 8000-octet Write to an unknown STag (E-D1, decided at its head)
     * whose FPDU the MPA receiver releases whole, after all the input was taken; the other QPs receive good Writes.
     * Once QP 1 is in ERR and the core has then been quiet for 96 cycles (no memory beat, no FPDU sent: the fuzzer's
     * criterion) QP 1 has sent its Read Response, then exactly one Terminate (E-D1), its last FPDU; it is then reset and its
     * next connection takes a Write with nothing sent on it. Before the fix the Terminate waited for the whole 8000
     * octets to be taken (1 000 cycles at W = 64, with no memory traffic), so it was missing when the core went quiet.
     * Run time: about 30 s under load (its model is the one the other tests here build).
     */
    @Test
    void aTerminateDecidedAtTheHeadOfALongSegmentIsSentBeforeTheCoreIsQuiet() {
        RnicSystem.model(RnicBench.W).run("fuzz-f16", 34, tb -> {
            RnicBench bench = new RnicBench(tb);
            RnicBench.Side b = bench.b;
            Random rng = tb.random();
            writableRegionPerQp(b);
            int q = 1;
            int readStag = 0x21 << 8 | 0x5A;
            long readVa = va(q) + 0x2_0000;
            byte[] source = RnicQpStateTest.randomBytes(rng, 4096);
            b.memory.write(readVa, source);
            b.programStag(readStag, PD, q, true, false, true, false, false, readVa, source.length);
            // QP 1's completion queue: room for the QP_ERROR entry of every pass (the test does not consume them).
            long cq = 0x0000_0070_0000_0000L;
            b.write(RnicBench.cqReg(0, "CQ_BASE_LO"), (int) cq);
            b.write(RnicBench.cqReg(0, "CQ_BASE_HI"), (int) (cq >>> 32));
            b.write(RnicBench.cqReg(0, "CQ_SIZE"), 4);
            b.write(RnicBench.cqReg(0, "CQ_CONS"), 0);
            for (int pass = 0; pass < 3; pass++) {
                for (int p = 0; p < 4; p++) {
                    long seqStart = rng.nextInt(1 << 30);
                    boolean markers = (p + pass) % 2 == 0;
                    MpaFramer f = openRts(b, p, seqStart, markers);
                    List<TcpSegment> segs = new ArrayList<>();
                    if (p == q) {
                        MpaFramer big = new MpaFramer(new MpaDirection(markers, true, seqStart), 8100);
                        int size = 200 + rng.nextInt(1200); // one Read Response segment (MULPDU 1454)
                        for (DdpSegment s : new rnic.model.rdmap.ReadRequest(0x7700 + pass, 0x1000L * pass, size,
                                readStag, readVa).segments(new rnic.model.ddp.DdpSegmenter(), big.mulpdu())) {
                            segs.addAll(big.send(s.encode()));
                        }
                        segs.addAll(RnicQpStateTest.write(big, stag(q) ^ 0x01, va(q),
                                RnicQpStateTest.randomBytes(rng, 8000)));
                    } else {
                        segs.addAll(RnicQpStateTest.write(f, stag(p), va(p) + 4096 * pass,
                                RnicQpStateTest.randomBytes(rng, 500 + rng.nextInt(3000))));
                    }
                    for (TcpSegment s : segs) {
                        b.tcpIn.get(p).send(s.seq(), s.payload(), TcpPayloadSource.resegmenting(rng, 8));
                    }
                }
                tb.runUntil(() -> b.tcpIn.stream().noneMatch(TcpPayloadSource::busy), 50_000, "the input taken");
                // CORE_STATUS.RX_IDLE falls once MPA offers the 8000-octet ULPDU (its CRC checked, a few cycles
                // after its last octet) and stays clear while the engine takes it (1 000 beats).
                long t2 = tb.cycle();
                while ((b.read(RnicBench.reg("CORE_STATUS")) & RnicBench.reg("CORE_STATUS_RX_IDLE_MASK")) != 0) {
                    assertTrue(tb.cycle() - t2 < 200, "pass " + pass + ": RX_IDLE clear while the long Write is taken");
                    tb.step(1);
                }
                // The host sees the failure (TERMINATE_SENT, the QP in ERR) ...
                long t0 = tb.cycle();
                while (b.state(q) != QpState.ERR) {
                    assertTrue(tb.cycle() - t0 < 20_000, "pass " + pass + ": QP " + q + " fails");
                    tb.step(16);
                }
                // ... and from then on waits until the core is quiet.
                long[] seen = {-1};
                long[] lastActivity = {tb.cycle()};
                tb.runUntil(() -> {
                    long n = b.slave.readBeats() + b.slave.writeBeats()
                            + b.tcpOut.stream().mapToLong(o -> o.segments.size()).sum();
                    if (n != seen[0]) {
                        seen[0] = n;
                        lastActivity[0] = tb.cycle();
                    }
                    return tb.cycle() - lastActivity[0] >= 96;
                }, 20_000, "the core quiet");
                assertEquals(QpState.ERR, b.state(q), "pass " + pass + ": QP " + q + " failed");
                // Quiet is not idle: RX_IDLE comes once the engine has dropped the rest of the long Write.
                long t1 = tb.cycle();
                while ((b.read(RnicBench.reg("CORE_STATUS")) & RnicBench.reg("CORE_STATUS_RX_IDLE_MASK")) == 0) {
                    assertTrue(tb.cycle() - t1 < 2_000, "pass " + pass + ": RX_IDLE within 2 000 cycles");
                    tb.step(8);
                }
                List<byte[]> sent = new ArrayList<>(b.tcpOut.get(q).segments);
                List<Terminate> t = terminates(b, q);
                assertEquals(1, t.size(), "pass " + pass + ": one Terminate on connection " + q
                        + " when the core is quiet: " + t);
                assertTrue(t.get(0).reports(TerminateCause.DDP_INVALID_STAG), "pass " + pass + ": E-D1: " + t.get(0));
                byte[] lastFpdu = sent.get(sent.size() - 1);
                assertEquals(0x47, lastFpdu[3] & 0xFF, "pass " + pass + ": the Terminate is the last FPDU sent");
                assertTrue(sent.size() >= 2 && (sent.get(0)[3] & 0xFF) == 0x42, "pass " + pass
                        + ": the Read Response owed before the error goes first (" + sent.size() + " FPDUs)");
                for (int p = 0; p < 4; p++) {
                    if (p != q) {
                        assertEquals(QpState.RTS, b.state(p), "pass " + pass + ": QP " + p);
                        assertTrue(terminates(b, p).isEmpty(), "pass " + pass + ": no Terminate on " + p);
                    }
                    b.tcpOut.get(p).segments.clear();
                }
                // At once: the failed QP reset; its next connection takes a Write and sends nothing.
                MpaFramer g = openRts(b, q, rng.nextInt(1 << 30), pass % 2 == 1);
                byte[] payload = RnicQpStateTest.randomBytes(rng, 200 + rng.nextInt(1000));
                long to = va(q) + 32768 + 4096 * pass;
                for (TcpSegment s : RnicQpStateTest.write(g, stag(q), to, payload)) {
                    b.tcpIn.get(q).send(s.seq(), s.payload(), TcpPayloadSource.resegmenting(rng, 8));
                }
                tb.runUntil(() -> !b.tcpIn.get(q).busy(), 20_000, "the new stream taken");
                tb.step(3000);
                assertEquals(QpState.RTS, b.state(q), "pass " + pass + ": the new connection works");
                assertTrue(Arrays.equals(payload, b.memory.read(to, payload.length)), "pass " + pass
                        + ": the Write on the new connection is placed");
                assertEquals(List.of(), terminates(b, q), "pass " + pass + ": nothing of the old error on the new"
                        + " connection");
                assertEquals(0, b.tcpOut.get(q).segments.size(), "pass " + pass + ": nothing sent on the new"
                        + " connection");
            }
        });
    }
}
