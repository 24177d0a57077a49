package rnic.sim.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The MODEL-mode channel as a TCP byte stream, pure Java: random data both ways at once under every combination of
 * re-segmentation, delay (fixed or jittered), rate, loss and window, with hosts that read at random rates
 * (back-pressure).
 *
 * <ul>
 *   <li>MPA-23: the stream is cut as sent, in fixed 7-octet pieces, in 1-octet segments, at random sizes and by the
 *       mixed middlebox — the receiver gets the same octets every time;</li>
 *   <li>DDP-02 / DDP-03: every octet arrives exactly once and in order, with 0, 1 and 10 % loss (retransmitted after
 *       the RTO), jittered delays that reorder segments on the wire, and duplicates (retransmissions of segments that
 *       did arrive) dropped — counted in the statistics, never delivered;</li>
 *   <li>the receive window holds: the sender never has more unacknowledged octets than the window, and a host that
 *       stops reading stops the sender.</li>
 * </ul>
 */
class TcpChannelTest {
    static final long MASK = 0xFFFF_FFFFL;

    static Stream<Arguments> combinations() {
        List<Arguments> out = new ArrayList<>();
        Segmentation[] segs = {Segmentation.asSent(), Segmentation.fixed(7), Segmentation.oneOctet(),
                Segmentation.random(1, 3000), Segmentation.mixed()};
        // one-way delay min, max (cycles), rate (octets per cycle, 0 = unlimited)
        double[][] wires = {{1, 1, 0}, {5, 60, 0}, {10, 10, 5.5}};
        double[] losses = {0, 0.01, 0.1};
        int[] windows = {0xFFFF, 3000};
        long seed = 1;
        for (Segmentation s : segs) {
            for (double[] d : wires) {
                for (double l : losses) {
                    for (int w : windows) {
                        out.add(Arguments.of(s, (int) d[0], (int) d[1], d[2], l, w, seed++));
                    }
                }
            }
        }
        return out.stream();
    }

    /** MPA-23, DDP-02, DDP-03: every octet exactly once, in order, both directions at once. */
    @ParameterizedTest(name = "{0} delay {1}..{2} rate {3} loss {4} window {5}")
    @MethodSource("combinations")
    void deliversEveryOctetOnceInOrder(Segmentation seg, int dMin, int dMax, double rate, double loss, int window,
            long seed) {
        Random rng = new Random(seed);
        TcpOptions o = TcpOptions.defaults().withSegmentation(seg).withDelay(dMin, dMax).withLoss(loss)
                .withWindow(window).withRate(rate);
        TcpChannel ch = new TcpChannel("t", o, rng);
        int size = seg.toString().equals("oneOctet") ? 6_000 : 40_000;
        byte[] da = random(rng, size);
        byte[] db = random(rng, size);
        Pump p = new Pump(ch, da, db, rng);
        p.run(3_000_000);
        assertArrayEquals(da, p.gotB.toByteArray(), "a->b stream");
        assertArrayEquals(db, p.gotA.toByteArray(), "b->a stream");
        for (TcpStats s : List.of(ch.statsAtoB(), ch.statsBtoA())) {
            assertEquals(size, s.octets(), s.toString());
            assertEquals(size, s.delivered(), s.toString());
            assertTrue(s.maxInFlight() <= window, "in flight " + s.maxInFlight() + " over window " + window);
            if (seg.toString().equals("oneOctet")) {
                assertEquals(1, s.maxSegment());
            }
            if (loss == 0) {
                assertEquals(0, s.lost() + s.retransmissions(), s.toString());
            } else {
                assertTrue(s.retransmissions() >= s.lost(), "every lost segment sent again: " + s);
            }
        }
        if (loss >= 0.1) {
            assertTrue(ch.statsAtoB().lost() + ch.statsBtoA().lost() > 0, "losses happened");
        }
        assertEquals((ch.clientIsn() + 1 + size) & MASK, ch.b().receiveSequence());
        assertEquals((ch.serverIsn() + 1 + size) & MASK, ch.a().receiveSequence());
        assertTrue(ch.idle());
    }

    /**
     * DDP-03: a receiver that gets retransmissions of segments it already holds (a lost segment ahead of them keeps
     * them unacknowledged past the RTO) drops the duplicates; the totals still match exactly.
     */
    @Test
    void duplicatesAreDroppedNotDelivered() {
        Random rng = new Random(7);
        // a short RTO against a long, jittered delay: many spurious retransmissions
        TcpOptions o = TcpOptions.defaults().withDelay(20, 80).withRto(40).withLoss(0.05)
                .withSegmentation(Segmentation.random(100, 1460));
        TcpChannel ch = new TcpChannel("dup", o, rng);
        byte[] da = random(rng, 100_000);
        Pump p = new Pump(ch, da, new byte[0], rng);
        p.run(2_000_000);
        assertArrayEquals(da, p.gotB.toByteArray());
        TcpStats s = ch.statsAtoB();
        assertTrue(s.duplicateOctets() > 0, s.toString());
        assertTrue(s.outOfOrder() > 0, s.toString());
        assertEquals(da.length, s.delivered());
        System.out.println(s);
    }

    /** Sequence numbers wrap at 2^32 without disturbing the stream. */
    @Test
    void sequenceNumbersWrap() {
        Random rng = new Random(3);
        TcpOptions o = TcpOptions.defaults().withIsn(0xFFFF_FF00L, 0xFFFF_FFFFL).withLoss(0.05)
                .withSegmentation(Segmentation.mixed());
        TcpChannel ch = new TcpChannel("wrap", o, rng);
        assertEquals(0xFFFF_FF01L, ch.a().sendSequence());
        assertEquals(0L, ch.b().sendSequence());
        byte[] da = random(rng, 5000);
        byte[] db = random(rng, 5000);
        Pump p = new Pump(ch, da, db, rng);
        p.run(1_000_000);
        assertArrayEquals(da, p.gotB.toByteArray());
        assertArrayEquals(db, p.gotA.toByteArray());
        assertEquals((0xFFFF_FF01L + 5000) & MASK, ch.b().receiveSequence());
        assertEquals(5000L, ch.a().receiveSequence());
    }

    /** A host that stops reading closes the window; the sender waits; reading again lets everything through. */
    @Test
    void windowBackPressure() {
        Random rng = new Random(11);
        int window = 4096;
        TcpChannel ch = new TcpChannel("bp", TcpOptions.defaults().withWindow(window).withDelay(10), rng);
        byte[] da = random(rng, 50_000);
        ch.a().send(da);
        for (int i = 0; i < 2000; i++) {
            ch.tick();
        }
        TcpStats s = ch.statsAtoB();
        // at most one window arrived while the host did not read; silly window avoidance keeps the last MSS back
        assertTrue(s.delivered() <= window && s.delivered() > window - 1460, s.toString());
        assertEquals(s.delivered(), s.octets(), "nothing sent beyond what the window took");
        assertTrue(s.zeroWindowCycles() > 1000, s.toString());
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[1000];
        for (int i = 0; i < 200_000 && got.size() < da.length; i++) {
            int n = ch.b().receive(buf, 0, buf.length);
            got.write(buf, 0, n);
            ch.tick();
        }
        assertArrayEquals(da, got.toByteArray());
        assertTrue(s.maxInFlight() <= window);
    }

    /**
     * MPA-26: the hand-over switches each direction at the exact octet. The host of b reads exactly the "Request"
     * while the octets after it are already arriving (1-octet segments), hands over, and the core side gets exactly
     * the rest, starting at the receive sequence number of the switch; the host of b queues its "Reply" and the
     * core's segments follow it on the wire, so a sees Reply then the core's octets.
     */
    @Test
    void handOverSwitchesAtTheExactOctet() {
        Random rng = new Random(5);
        TcpOptions o = TcpOptions.defaults().withSegmentation(Segmentation.oneOctet()).withDelay(3, 9)
                .withLoss(0.05);
        TcpChannel ch = new TcpChannel("ho", o, rng);
        byte[] request = random(rng, 24);
        byte[] fpdus = random(rng, 3000);
        TcpEnd a = ch.a();
        TcpEnd b = ch.b();
        long aStart = a.sendSequence();
        a.send(request);
        a.send(fpdus); // the Initiator's first FPDUs follow the Request at once
        // b's host reads the request one octet at a time while the rest keeps arriving
        ByteArrayOutputStream req = new ByteArrayOutputStream();
        byte[] one = new byte[1];
        int guard = 0;
        while (req.size() < request.length) {
            if (b.receive(one, 0, 1) == 1) {
                req.write(one[0]);
            }
            ch.tick();
            assertTrue(++guard < 100_000);
        }
        for (int i = 0; i < 200; i++) {
            ch.tick(); // let FPDU octets pile up in b's buffer before the switch
        }
        assertTrue(b.rx.size() > 0, "octets after the Request already waiting");
        assertArrayEquals(request, req.toByteArray());
        byte[] reply = random(rng, 28);
        b.send(reply);
        long bCoreStart = b.sendSequence();
        b.handOver();
        assertEquals((aStart + request.length) & MASK, b.handOverReceiveSequence(), "first core octet = SeqStart");
        assertEquals(bCoreStart, b.handOverSendSequence());
        assertThrows(IllegalStateException.class, () -> b.send(new byte[1]));
        assertThrows(IllegalStateException.class, () -> b.receive(new byte[1], 0, 1));
        assertThrows(IllegalStateException.class, () -> a.coreSend(new byte[1]), "a's core before a's hand-over");
        assertEquals(0, a.coreAvailable());

        List<byte[]> coreSegments = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            coreSegments.add(random(rng, 1 + rng.nextInt(1400)));
        }
        ByteArrayOutputStream bCore = new ByteArrayOutputStream();
        ByteArrayOutputStream aHost = new ByteArrayOutputStream();
        ByteArrayOutputStream aCore = new ByteArrayOutputStream();
        byte[] buf = new byte[64];
        int next = 0;
        long bFirstSeq = -1;
        for (int i = 0; i < 200_000 && (bCore.size() < fpdus.length || aHost.size() + aCore.size()
                < reply.length + sum(coreSegments)); i++) {
            if (next < coreSegments.size() && b.coreCanSend()) {
                b.coreSend(coreSegments.get(next++));
            }
            int n = b.corePeek(buf, 0, buf.length);
            if (n > 0) {
                if (bFirstSeq < 0) {
                    bFirstSeq = b.coreReceiveSequence();
                }
                b.coreConsume(n);
                bCore.write(buf, 0, n);
            }
            if (!a.handedOver()) {
                int want = reply.length - aHost.size();
                int m = a.receive(buf, 0, Math.min(want, buf.length));
                aHost.write(buf, 0, m);
                if (aHost.size() == reply.length) {
                    a.handOver();
                    assertEquals(bCoreStart, a.handOverReceiveSequence());
                }
            } else {
                int m = a.corePeek(buf, 0, buf.length);
                a.coreConsume(m);
                aCore.write(buf, 0, m);
            }
            ch.tick();
        }
        assertEquals((aStart + request.length) & MASK, bFirstSeq);
        assertArrayEquals(fpdus, bCore.toByteArray(), "b's core gets exactly the octets after the Request");
        assertArrayEquals(reply, aHost.toByteArray());
        assertArrayEquals(concat(coreSegments), aCore.toByteArray(), "b's core octets follow its host's Reply");
        assertEquals(b.handOverReceiveSequence(), b.receiveSequence(), "the host's view stays at the switch point");
        assertEquals(b.handOverSendSequence(), b.sendSequence());
        assertEquals((b.handOverReceiveSequence() + fpdus.length) & MASK, b.coreReceiveSequence());
        assertEquals((b.handOverSendSequence() + sum(coreSegments)) & MASK, b.coreSendSequence());
    }

    /**
     * A host's close(): what it queued still arrives, in order, then the peer sees closed() — never before the last
     * octet; the closing host can no longer send or receive; the channel goes idle.
     */
    @Test
    void hostCloseSendsEverythingThenFin() {
        Random rng = new Random(21);
        TcpOptions o = TcpOptions.defaults().withDelay(5, 50).withLoss(0.05).withSegmentation(Segmentation.mixed());
        TcpChannel ch = new TcpChannel("fin", o, rng);
        byte[] data = random(rng, 20_000);
        ch.a().send(data);
        ch.a().close();
        assertThrows(IllegalStateException.class, () -> ch.a().send(new byte[1]));
        assertThrows(IllegalStateException.class, () -> ch.a().receive(new byte[1], 0, 1));
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[777];
        for (int i = 0; !ch.b().closed(); i++) {
            assertTrue(i < 1_000_000, "no FIN");
            ch.tick();
            if (ch.b().closed()) {
                assertEquals(data.length, got.size() + ch.b().rx.size(), "FIN only after the last octet");
            }
            got.write(buf, 0, ch.b().receive(buf, 0, buf.length));
        }
        got.write(buf, 0, ch.b().receive(buf, 0, buf.length));
        while (got.size() < data.length) {
            got.write(buf, 0, ch.b().receive(buf, 0, buf.length));
        }
        assertArrayEquals(data, got.toByteArray());
        assertFalse(ch.a().closed(), "b has not closed its side");
        ch.b().close();
        for (int i = 0; i < 10_000 && !ch.idle(); i++) {
            ch.tick();
        }
        assertTrue(ch.a().closed());
        assertTrue(ch.idle());
    }

    /** The core's send buffer back-pressures: coreCanSend turns false at txBuffer octets queued. */
    @Test
    void coreSendBackPressure() {
        TcpChannel ch = new TcpChannel("tx", TcpOptions.defaults().withTxBuffer(3000).withWindow(1000), new Random(1));
        ch.a().handOver();
        ch.b().handOver();
        int sent = 0;
        while (ch.a().coreCanSend()) {
            ch.a().coreSend(new byte[1000]);
            sent++;
        }
        assertEquals(3, sent);
        assertFalse(ch.a().coreCanSend());
        for (int i = 0; i < 100; i++) {
            ch.tick();
        }
        assertTrue(ch.a().coreCanSend(), "the window's worth left the send buffer");
        assertEquals(1000, ch.b().coreAvailable());
    }

    /**
     * Figure, not a timed assertion: octets per second of wall time through the model, one direction, FPDU-sized
     * writes consumed at once, for segments as sent without and with 1 % loss, and 1-octet segments.
     */
    @Test
    void modelThroughput() {
        for (TcpOptions o : List.of(TcpOptions.defaults().withMss(1000), // JIT warm-up, not reported
                TcpOptions.defaults(), TcpOptions.defaults().withLoss(0.01),
                TcpOptions.defaults().withSegmentation(Segmentation.oneOctet()),
                TcpOptions.defaults().withRate(8))) {
            Random rng = new Random(9);
            TcpChannel ch = new TcpChannel("perf", o, rng);
            int total = o.segmentation().toString().equals("oneOctet") ? 2_000_000 : o.rate() > 0 ? 8_000_000
                    : 32_000_000;
            byte[] chunk = random(rng, 1456);
            byte[] buf = new byte[65536];
            long got = 0;
            long sent = 0;
            long t0 = System.nanoTime();
            long cycles = 0;
            while (got < total) {
                while (sent < total && ch.a().tx.size() < 65536) {
                    ch.a().send(chunk);
                    sent += chunk.length;
                }
                got += ch.b().receive(buf, 0, buf.length);
                ch.tick();
                cycles++;
            }
            double s = (System.nanoTime() - t0) / 1e9;
            if (o.mss() == 1000) {
                continue;
            }
            System.out.printf("model throughput %s: %.1f MB/s of wall time, %.1f octets/cycle, %.2f Mcycles/s%n", o,
                    got / s / 1e6, (double) got / cycles, cycles / s / 1e6);
            assertTrue(got >= total);
        }
        TcpChannel idle = new TcpChannel("idle", TcpOptions.defaults(), new Random(1));
        long t0 = System.nanoTime();
        for (int i = 0; i < 10_000_000; i++) {
            idle.tick();
        }
        System.out.printf("idle channel: %.1f Mcycles/s%n", 10_000_000 / ((System.nanoTime() - t0) / 1e9) / 1e6);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Two hosts sending in random pieces and reading at random rates, until both streams are in. */
    static final class Pump {
        final TcpChannel ch;
        final byte[] da;
        final byte[] db;
        final Random rng;
        final ByteArrayOutputStream gotA = new ByteArrayOutputStream();
        final ByteArrayOutputStream gotB = new ByteArrayOutputStream();
        int sentA;
        int sentB;
        final double readP;

        Pump(TcpChannel ch, byte[] da, byte[] db, Random rng) {
            this.ch = ch;
            this.da = da;
            this.db = db;
            this.rng = rng;
            this.readP = 0.2 + 0.8 * rng.nextDouble();
        }

        void run(long maxCycles) {
            byte[] buf = new byte[4096];
            for (long c = 0; gotA.size() < db.length || gotB.size() < da.length; c++) {
                if (c >= maxCycles) {
                    throw new AssertionError("stalled after " + c + " cycles: a->b " + gotB.size() + "/" + da.length
                            + ", b->a " + gotA.size() + "/" + db.length + "; " + ch.statsAtoB() + "; "
                            + ch.statsBtoA());
                }
                sentA = feed(ch.a(), da, sentA);
                sentB = feed(ch.b(), db, sentB);
                read(ch.a(), gotA, buf);
                read(ch.b(), gotB, buf);
                ch.tick();
            }
            for (int i = 0; i < 100_000 && !ch.idle(); i++) {
                ch.tick();
            }
        }

        private int feed(TcpEnd e, byte[] data, int sent) {
            if (sent < data.length && rng.nextInt(4) == 0) {
                int n = Math.min(data.length - sent, 1 + rng.nextInt(3000));
                e.send(Arrays.copyOfRange(data, sent, sent + n));
                return sent + n;
            }
            return sent;
        }

        private void read(TcpEnd e, ByteArrayOutputStream got, byte[] buf) {
            if (rng.nextDouble() < readP) {
                int n = e.receive(buf, 0, 1 + rng.nextInt(buf.length));
                got.write(buf, 0, n);
            }
        }
    }

    static byte[] random(Random rng, int n) {
        byte[] b = new byte[n];
        rng.nextBytes(b);
        return b;
    }

    static int sum(List<byte[]> l) {
        return l.stream().mapToInt(x -> x.length).sum();
    }

    static byte[] concat(List<byte[]> l) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        l.forEach(x -> o.write(x, 0, x.length));
        return o.toByteArray();
    }
}
