package rnic.hw.mpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import rnic.sim.Agent;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.StreamSink;
import rnic.sim.StreamSource;
import rnic.sim.Tb;

/**
 * {@link MpaRxHold} for 4 connections at W = 32, 64 and 512, and for 5 at W = 32 (its 20-entry descriptor FIFO is the
 * block-RAM {@code StreamFifo}, latency 2, instead of registers), against a plain-Java model of what each connection
 * must deliver. The model cuts each connection's FPDUs (random ULPDU_Length: 0 … 3, small, up to the largest the region is
 * built for; random ULPDU and PAD octets) into pieces the way a parser may: random amounts per beat, spans at random
 * places in the row with garbage around them, A and B both inside one FPDU, B starting the next FPDU, the verdict with
 * the FPDU's last content or in a later piece with an empty span A. Pieces of the connections are interleaved at
 * random, with idle input and random back-pressure on {@code ulpdu}. Expected: every good ULPDU of a delivering
 * connection, octet for octet, in verdict order (one scoreboard for all connections: the FIFO is in verdict order),
 * each one shown only after the cycle its verdict was taken (MPA-25), each error reported in order with nothing of its
 * connection after it (MPA-44), and every beat carrying the ULPDU_Length and connection, {@code max(1, ⌈L/(W/8)⌉)}
 * beats with {@code last} on the final one.
 *
 * <p>Phases: (1) random traffic, connection 3 with {@code deliver} low (its ULPDUs must be dropped and their space
 * freed, or its region would fill and stall the input), connection 2 failing with a bad verdict after part of its FPDU
 * was written; (2) {@code ulpdu} stalled while descriptors of connection 0 queue up, then {@code clear} of connections
 * 0 and 2 (held until their pieces still queued were taken and dropped): none of 0's queued ULPDUs appear, and both
 * start over from the region's start; (3) one connection's region filled with {@code ulpdu} stalled: its
 * {@code room} falls and the writer back-pressures, then everything arrives intact (nothing unread was overwritten),
 * and then many tiny FPDUs fill the descriptor FIFO; (4) throughput, printed: pieces per cycle into the writer and beats
 * per cycle out of the reader while it has a backlog.
 *
 * <p>Requirements: MPA-16 (ULPDU without ULPDU_Length and PAD), MPA-25, MPA-44. Run time: about 10 s for the four
 * runs once their models are compiled; compiling the four models takes about 2.5 min on this 2-core machine (cached
 * under {@code target/sim}).
 */
class MpaRxHoldTest {
    /** Connections of the run ({@link #everyConnectionDeliversItsValidatedUlpdus} sets it). */
    int nConn;

    static int mssFor(int w) {
        return w == 32 ? 200 : w == 64 ? 300 : 1000;
    }

    static SimModel<MpaRxHold> model(int w, int n) {
        MpaRxConfig cfg = new MpaRxConfig(w, mssFor(w));
        return SimModel.of("MpaRxHold-w" + w + "-n" + n + "-r" + cfg.regionRows(), () -> new MpaRxHold(cfg, n));
    }

    /** What a connection must deliver: a ULPDU or an error, with the cycle its verdict was taken. */
    static final class Item {
        final int conn;
        final byte[] ulpdu; // null for an error
        final int code;
        long verdictCycle = -1;
        long firstBeatCycle = -1;

        Item(int conn, byte[] ulpdu, int code) {
            this.conn = conn;
            this.ulpdu = ulpdu;
            this.code = code;
        }

        static boolean matches(Item want, Item got) {
            if (want.conn != got.conn || (want.ulpdu == null) != (got.ulpdu == null)) {
                return false;
            }
            if (want.ulpdu == null) {
                return want.code == got.code;
            }
            // MPA-25: shown only after the verdict was taken.
            return Arrays.equals(want.ulpdu, got.ulpdu) && want.verdictCycle >= 0
                    && got.firstBeatCycle > want.verdictCycle;
        }

        @Override
        public String toString() {
            return "conn " + conn + (ulpdu == null ? " error " + code
                    : " " + ulpdu.length + " octets " + HexFormat.of().formatHex(ulpdu, 0, Math.min(24, ulpdu.length))
                    + " verdict@" + verdictCycle + " first@" + firstBeatCycle);
        }
    }

    /** One FPDU of the model: its stored half-words (ULPDU and PAD, or a prefix of them if bad) and its item. */
    static final class Fpdu {
        final int[] content;
        final boolean bad;
        final int code;
        final int length;
        final Item item;

        Fpdu(int[] content, boolean bad, int code, int length, Item item) {
            this.content = content;
            this.bad = bad;
            this.code = code;
            this.length = length;
            this.item = item;
        }
    }

    /** A piece as driven on {@code piece}. */
    static final class Piece {
        int conn;
        byte[] row;
        int aFrom;
        int aTo;
        int bFrom;
        int bTo;
        boolean verdict;
        boolean bad;
        int code;
        int length;
        Item item; // the FPDU the verdict closes
    }

    /** One connection's FPDU stream, cut into pieces. */
    final class Conn {
        final int c;
        Fpdu cur;
        int off;
        boolean dead; // after a bad verdict: nothing more is sent until a clear
        boolean badNext;
        int pending; // pieces queued in the source and not yet taken
        int lenMin = -1;
        int lenMax = -1;

        Conn(int c) {
            this.c = c;
        }

        void restart() {
            cur = null;
            off = 0;
            dead = false;
            badNext = false;
        }

        Fpdu newFpdu() {
            int len;
            if (lenMin >= 0) {
                len = lenMin + rng.nextInt(lenMax - lenMin + 1);
            } else {
                int kind = rng.nextInt(10);
                len = kind < 3 ? rng.nextInt(4) : kind < 8 ? rng.nextInt(maxUlpdu / 3 + 1)
                        : maxUlpdu - rng.nextInt(Math.min(maxUlpdu, 24));
            }
            int stored = MpaRxConfig.storedHalfWords(len);
            byte[] octets = new byte[2 * stored];
            rng.nextBytes(octets);
            int[] hw = new int[stored];
            for (int i = 0; i < stored; i++) {
                hw[i] = (octets[2 * i] & 0xFF) | (octets[2 * i + 1] & 0xFF) << 8;
            }
            if (badNext) {
                badNext = false;
                int code = 1 + rng.nextInt(3);
                return new Fpdu(Arrays.copyOf(hw, rng.nextInt(stored + 1)), true, code, len,
                        new Item(c, null, code));
            }
            return new Fpdu(hw, false, 0, len, new Item(c, Arrays.copyOf(octets, len), 0));
        }

        /** The next piece of this connection, or null if it is dead. */
        Piece next(boolean splitFree) {
            if (dead) {
                return null;
            }
            if (cur == null) {
                cur = newFpdu();
                off = 0;
            }
            Piece p = new Piece();
            p.conn = c;
            int rem = cur.content.length - off;
            List<Integer> a = new ArrayList<>();
            List<Integer> b = new ArrayList<>();
            boolean closes;
            if (rem == 0) {
                closes = true; // its content is all written: the verdict comes with an empty span A
            } else {
                int t = splitFree ? k2 : 1 + rng.nextInt(k2);
                if (rem > t) {
                    int na = splitFree || rng.nextInt(3) != 0 ? t : rng.nextInt(t + 1);
                    for (int i = 0; i < t; i++) {
                        (i < na ? a : b).add(cur.content[off + i]);
                    }
                    off += t;
                    closes = false;
                } else {
                    for (int i = 0; i < rem; i++) {
                        a.add(cur.content[off + i]);
                    }
                    off += rem;
                    closes = splitFree || rng.nextInt(10) < 7;
                }
            }
            if (closes) {
                Fpdu f = cur;
                p.verdict = true;
                p.bad = f.bad;
                p.code = f.code;
                p.length = f.length;
                p.item = f.item;
                if (!f.bad && deliver[c]) {
                    sb.expect(f.item);
                } else if (f.bad) {
                    sb.expect(f.item);
                }
                cur = null;
                off = 0;
                if (f.bad) {
                    dead = true;
                } else {
                    // Span B starts the next FPDU.
                    int room = k2 - a.size();
                    int nb = splitFree ? room : rng.nextInt(room + 1);
                    if (nb > 0) {
                        cur = newFpdu();
                        nb = Math.min(nb, cur.content.length);
                        for (int i = 0; i < nb; i++) {
                            b.add(cur.content[i]);
                        }
                        off = nb;
                    }
                }
            }
            // Place the spans at random in the row, garbage around them.
            p.row = new byte[2 * k2];
            rng.nextBytes(p.row);
            int used = a.size() + b.size();
            int free = k2 - used;
            int gap0 = splitFree ? 0 : rng.nextInt(free + 1);
            int gap1 = splitFree ? 0 : rng.nextInt(free - gap0 + 1);
            p.aFrom = gap0;
            p.aTo = gap0 + a.size();
            p.bFrom = p.aTo + gap1;
            p.bTo = p.bFrom + b.size();
            for (int i = 0; i < a.size(); i++) {
                put(p.row, p.aFrom + i, a.get(i));
            }
            for (int i = 0; i < b.size(); i++) {
                put(p.row, p.bFrom + i, b.get(i));
            }
            return p;
        }
    }

    private static void put(byte[] row, int hw, int v) {
        row[2 * hw] = (byte) v;
        row[2 * hw + 1] = (byte) (v >>> 8);
    }

    // ---- per-run state
    Random rng;
    int k2;
    int maxUlpdu;
    boolean[] deliver;
    Scoreboard<Item> sb;
    Conn[] conns;
    StreamSource<Piece> src;

    void send(Piece p) {
        conns[p.conn].pending++;
        src.push(p);
    }

    /** {@code count} pieces of connections chosen at random from {@code among} (dead ones send nothing). */
    void traffic(int count, int[] among, boolean splitFree) {
        for (int i = 0; i < count; i++) {
            Piece p = conns[among[rng.nextInt(among.length)]].next(splitFree);
            if (p != null) {
                send(p);
            }
        }
    }

    /** Sends pieces of {@code c} until its current FPDU's verdict went out. */
    void finishFpdu(int c) {
        while (conns[c].cur != null && !conns[c].dead) {
            send(conns[c].next(false));
        }
    }

    /** Ends every connection's stream at an FPDU boundary (so a stalled phase starts with empty regions). */
    void finishAll() {
        for (int c = 0; c < nConn; c++) {
            finishFpdu(c);
        }
    }

    /** Sends pieces of {@code c} until {@code count} of its verdicts went out. */
    void sendFpdus(int c, int count) {
        for (int done = 0; done < count;) {
            Piece p = conns[c].next(false);
            send(p);
            done += p.verdict ? 1 : 0;
        }
    }

    @ParameterizedTest(name = "W={0} n={1}")
    @CsvSource({"32, 4", "64, 4", "512, 4", "32, 5"})
    void everyConnectionDeliversItsValidatedUlpdus(int w, int n) {
        SimModel<MpaRxHold> model = model(w, n);
        nConn = n;
        final int N = n;
        model.run("hold", 7919L * w + (n - 4), tb -> {
            MpaRxHold dut = tb.dut();
            MpaRxHold.Io io = dut.io;
            rng = tb.random();
            k2 = 2 * (w / 32);
            maxUlpdu = new MpaRxConfig(w, mssFor(w)).maxUlpdu();
            int octets = w / 8;
            deliver = new boolean[N];
            Arrays.fill(deliver, true);
            deliver[3] = false;
            sb = tb.add(new Scoreboard<Item>("MpaRxHold W=" + w, Item::matches, String::valueOf));
            conns = new Conn[N];
            for (int c = 0; c < N; c++) {
                conns[c] = new Conn(c);
            }

            // ---- input
            MpaRxPiece pp = io.piece.payload();
            SimSignal conn = tb.signal(pp.conn);
            SimSignal data = tb.signal(pp.data);
            SimSignal aFrom = tb.signal(pp.aFrom);
            SimSignal aTo = tb.signal(pp.aTo);
            SimSignal bFrom = tb.signal(pp.bFrom);
            SimSignal bTo = tb.signal(pp.bTo);
            SimSignal verdict = tb.signal(pp.verdict);
            SimSignal bad = tb.signal(pp.bad);
            SimSignal code = tb.signal(pp.code);
            SimSignal length = tb.signal(pp.length);
            Pacer[] inPace = {Pacer.randomMix(new Random(rng.nextLong()))};
            src = tb.add(new StreamSource<>(tb.signal(io.piece.valid()), tb.signal(io.piece.ready()), p -> {
                conn.set(p.conn);
                data.setOctets(p.row, 0, p.row.length);
                aFrom.set(p.aFrom);
                aTo.set(p.aTo);
                bFrom.set(p.bFrom);
                bTo.set(p.bTo);
                verdict.set(p.verdict);
                bad.set(p.bad);
                code.set(p.code);
                length.set(p.length);
            }, () -> inPace[0].allow()));
            src.onAccepted(p -> {
                conns[p.conn].pending--;
                if (p.verdict) {
                    p.item.verdictCycle = tb.cycle();
                }
            });

            // ---- per-connection inputs, driven in the drive step
            SimSignal[] clearSig = new SimSignal[N];
            SimSignal[] deliverSig = new SimSignal[N];
            SimSignal[] roomSig = new SimSignal[N];
            SimSignal[] midSig = new SimSignal[N];
            SimSignal[] failedSig = new SimSignal[N];
            boolean[] clearWanted = new boolean[N];
            boolean[] armClear = new boolean[N];
            long[] discarded = {0};
            for (int c = 0; c < N; c++) {
                clearSig[c] = tb.signal(io.clear.apply(c));
                deliverSig[c] = tb.signal(io.deliver.apply(c));
                roomSig[c] = tb.signal(io.room.apply(c));
                midSig[c] = tb.signal(io.mid.apply(c));
                failedSig[c] = tb.signal(io.failed.apply(c));
                clearSig[c].set(false);
                deliverSig[c].set(deliver[c]);
            }
            tb.add(new Agent() {
                @Override
                public void drive() {
                    for (int c = 0; c < N; c++) {
                        // Raised only in a cycle where no ULPDU of c is inside the reader (the block's contract);
                        // what c still owes is then never delivered.
                        if (armClear[c] && !midSig[c].getBool()) {
                            armClear[c] = false;
                            clearWanted[c] = true;
                            int cc = c;
                            discarded[0] += sb.discard(it -> it.conn == cc);
                        }
                        clearSig[c].set(clearWanted[c]);
                        deliverSig[c].set(deliver[c]);
                    }
                }
            });

            // ---- output: ULPDUs reassembled, errors
            MpaRxHoldBeat ob = io.ulpdu.payload();
            SimSignal oData = tb.signal(ob.data);
            SimSignal oLen = tb.signal(ob.length);
            SimSignal oConn = tb.signal(ob.conn);
            SimSignal oLast = tb.signal(ob.last);
            boolean[] outOpen = {true};
            Pacer[] outPace = {Pacer.randomMix(new Random(rng.nextLong()))};
            long[] beatsOut = {0};
            long[] lastBeatCycle = {0};
            java.io.ByteArrayOutputStream asm = new java.io.ByteArrayOutputStream();
            int[] asmState = {-1, -1, 0}; // conn, length, beats
            long[] asmFirst = {0};
            tb.add(new StreamSink<Object[]>("ulpdu", tb.signal(io.ulpdu.valid()), tb.signal(io.ulpdu.ready()),
                    () -> new Object[] {oData.getOctets(), oLen.get(), oConn.get(), oLast.getBool()},
                    () -> outOpen[0] && outPace[0].allow(), b -> {
                        int bc = (int) (long) (Long) b[2];
                        int bl = (int) (long) (Long) b[1];
                        beatsOut[0]++;
                        lastBeatCycle[0] = tb.cycle();
                        if (asmState[0] < 0) {
                            asmState[0] = bc;
                            asmState[1] = bl;
                            asmState[2] = 0;
                            asmFirst[0] = tb.cycle();
                            assertTrue(!failedSig[bc].getBool(), "a ULPDU of connection " + bc + " after its error");
                        }
                        assertEquals(asmState[0], bc, "connection changed inside a ULPDU");
                        assertEquals(asmState[1], bl, "length changed inside a ULPDU");
                        asm.write((byte[]) b[0], 0, octets);
                        asmState[2]++;
                        int want = Math.max(1, (bl + octets - 1) / octets);
                        if ((Boolean) b[3]) {
                            assertEquals(want, asmState[2], "beats of a " + bl + "-octet ULPDU");
                            Item got = new Item(bc, Arrays.copyOf(asm.toByteArray(), bl), 0);
                            got.firstBeatCycle = asmFirst[0];
                            sb.actual(got);
                            asm.reset();
                            asmState[0] = -1;
                        } else {
                            assertTrue(asmState[2] < want, "no last on beat " + asmState[2] + " of " + want);
                        }
                    }));
            SimSignal eValid = tb.signal(io.error.valid());
            SimSignal eConn = tb.signal(io.error.payload().conn);
            SimSignal eCode = tb.signal(io.error.payload().code);
            tb.add(new Agent() {
                @Override
                public void sample() {
                    if (eValid.getBool()) {
                        sb.actual(new Item((int) eConn.get(), null, (int) eCode.get()));
                    }
                }
            });
            tb.reset(3);
            int[] all = java.util.stream.IntStream.range(0, N).toArray();

            // ---- phase 1: random traffic; connection 3 not delivering; connection 2 fails halfway
            int phase1 = w == 512 ? 6000 : 12000;
            traffic(phase1 / 2, all, false);
            finishFpdu(2);
            conns[2].badNext = true;
            traffic(phase1 / 2, all, false);
            while (!conns[2].dead) {
                send(conns[2].next(false)); // up to its bad verdict
            }
            tb.runUntil(() -> !src.busy() && sb.pending() == 0, 5_000_000L, "phase 1");
            tb.step(50);
            assertTrue(failedSig[2].getBool(), "connection 2 failed");
            long phase1Matched = sb.matched();

            // ---- phase 2: ulpdu stalled inside a long ULPDU of connection 1, another of 1 and four of connection 0
            // queued behind it; then clear 0 and 2
            finishAll();
            tb.runUntil(() -> !src.busy() && sb.pending() == 0, 1_000_000L, "phase 1 ends");
            outOpen[0] = false;
            tb.step(2);
            conns[1].lenMin = 4 * octets;
            conns[1].lenMax = 4 * octets;
            conns[0].lenMin = 0;
            conns[0].lenMax = maxUlpdu / 8;
            sendFpdus(1, 2); // the second waits at the FIFO's head, so the clear cannot drop what is behind it
            sendFpdus(0, 4);
            tb.runUntil(() -> conns[0].pending == 0, 100_000, "connection 0's pieces in");
            tb.step(20);
            // Two more of connection 0 on the input: taken and dropped while its clear is held.
            sendFpdus(0, 2);
            armClear[0] = true;
            armClear[2] = true;
            tb.step(1);
            assertTrue(clearWanted[0], "the reader holds connection 1's ULPDU, nothing of connection 0");
            tb.runUntil(() -> conns[0].pending == 0 && conns[2].pending == 0, 100_000, "pieces under clear");
            tb.step(1);
            clearWanted[0] = false;
            clearWanted[2] = false;
            tb.step(5);
            // Connection 0's old descriptors are still queued behind connection 1's ULPDU: skipped, never shown.
            outOpen[0] = true;
            traffic(200, new int[] {1, 3}, false);
            for (Conn c : conns) {
                c.lenMin = -1;
            }
            conns[0].restart();
            conns[2].restart();
            assertTrue(!failedSig[2].getBool(), "a cleared connection forgets its error");
            assertTrue(discarded[0] > 0, "ULPDUs of connection 0 were queued at the clear: " + discarded[0]);
            tb.runUntil(() -> !src.busy() && sb.pending() == 0, 5_000_000L, "phase 2 drain");
            tb.step(50);
            deliver[3] = true;
            tb.step(2);
            traffic(3000, all, false);
            tb.runUntil(() -> !src.busy() && sb.pending() == 0, 5_000_000L, "phase 2");

            // ---- phase 3: a full region back-pressures; then a full descriptor FIFO
            finishAll();
            tb.runUntil(() -> !src.busy() && sb.pending() == 0, 1_000_000L, "phase 2 ends");
            outOpen[0] = false;
            inPace[0] = Pacer.always();
            conns[1].lenMin = maxUlpdu / 2;
            conns[1].lenMax = maxUlpdu;
            tb.step(2);
            int rhw = dut.regionHalfWords;
            traffic(3 * rhw / k2 + 20, new int[] {1}, false);
            int[] stalls = {0};
            boolean[] roomLow = {false};
            SimSignal inValid = tb.signal(io.piece.valid());
            SimSignal inReady = tb.signal(io.piece.ready());
            tb.add(new Agent() {
                @Override
                public void sample() {
                    if (inValid.getBool() && !inReady.getBool()) {
                        stalls[0]++;
                    }
                    roomLow[0] |= !roomSig[1].getBool();
                }
            });
            tb.step(rhw + 200);
            assertTrue(src.busy(), "input held while connection 1's region is full");
            assertTrue(stalls[0] > 100, "writer back-pressured: " + stalls[0] + " stalled cycles");
            assertTrue(roomLow[0], "room[1] fell");
            outOpen[0] = true;
            tb.runUntil(() -> !src.busy() && sb.pending() == 0, 1_000_000L, "phase 3 full region");
            tb.runUntil(() -> roomSig[1].getBool(), 100, "room[1] back");
            finishAll();
            tb.runUntil(() -> !src.busy() && sb.pending() == 0, 1_000_000L, "phase 3 full region ends");
            outOpen[0] = false;
            tb.step(2);
            for (Conn c : conns) {
                c.lenMin = 0;
                c.lenMax = 3;
            }
            traffic(400, all, false);
            for (int c = 0; c < N; c++) {
                finishFpdu(c);
            }
            stalls[0] = 0;
            tb.step(300);
            assertTrue(stalls[0] > 100, "descriptor FIFO full holds the writer: " + stalls[0]);
            outOpen[0] = true;
            tb.runUntil(() -> !src.busy() && sb.pending() == 0, 1_000_000L, "phase 3 descriptors");

            // ---- phase 4: throughput, full-rate pieces, ULPDUs of whole beats
            finishAll();
            tb.runUntil(() -> !src.busy() && sb.pending() == 0, 1_000_000L, "phase 3 ends");
            outPace[0] = Pacer.always();
            for (Conn c : conns) {
                c.lenMin = octets * Math.max(1, maxUlpdu / octets / 4);
                c.lenMax = c.lenMin;
            }
            long t0 = tb.cycle();
            long b0 = beatsOut[0];
            long sent0 = src.sent();
            traffic(w == 512 ? 3000 : 6000, all, true);
            tb.runUntil(() -> !src.busy(), 2_000_000L, "phase 4 input");
            long inCycles = tb.cycle() - t0;
            tb.runUntil(() -> sb.pending() == 0, 100_000L, "phase 4 output");
            double inRate = (double) (src.sent() - sent0) / inCycles;
            double outRate = (double) (beatsOut[0] - b0) / (lastBeatCycle[0] - t0);
            // The reader alone: fill the regions with ulpdu stalled, then drain with ready always high, over as many
            // cycles as there are beats of validated ULPDUs waiting.
            outOpen[0] = false;
            tb.step(2);
            traffic(N * rhw / k2, all, true);
            tb.runUntil(() -> src.busy() && !inReady.getBool(), 100_000L, "regions full");
            tb.step(200);
            int perUlpdu = (conns[0].lenMin + octets - 1) / octets;
            long window = sb.count(it -> it.verdictCycle >= 0) * perUlpdu;
            outOpen[0] = true;
            tb.step(1); // the sink's ready follows one cycle later
            long b1 = beatsOut[0];
            tb.step(window);
            double drainRate = (double) (beatsOut[0] - b1) / window;
            tb.runUntil(() -> !src.busy() && sb.pending() == 0, 1_000_000L, "phase 4 drain");
            System.out.printf("[MpaRxHold W=%d n=%d R=%d] %d items matched (%d in phase 1, %d discarded at clear);"
                    + " writer %.3f pieces/cycle at full input, reader %.3f beats/cycle overall and %.3f"
                    + " beats/cycle draining a backlog (%d-octet ULPDUs, %d beats each)%n",
                    w, N, dut.regionRows, sb.matched(), phase1Matched, discarded[0], inRate, outRate, drainRate,
                    conns[0].lenMin, (conns[0].lenMin + octets - 1) / octets);
            assertTrue(window >= 8, "a backlog to drain: " + window + " beats");
            // Back to back: every cycle of the window shows a beat, a ULPDU's first the cycle after the one before's last.
            assertEquals(window, (long) (drainRate * window + 0.5), "reader drains a backlog at one beat per cycle");
            assertTrue(inRate >= 0.9, "writer takes a piece per cycle: " + inRate);
        });
    }
}
