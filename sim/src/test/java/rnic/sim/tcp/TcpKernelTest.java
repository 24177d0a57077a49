package rnic.sim.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * KERNEL mode: each channel is a real TCP connection through Linux on 127.0.0.1, polled without blocking from the
 * test thread.
 *
 * <ul>
 *   <li>DDP-02 / DDP-03: random data both ways arrives exactly once and in order, with the hosts sending in random
 *       pieces and reading at random rates (so the kernel's buffers fill and its flow control stops the sender);</li>
 *   <li>MPA-23 in practice: the receiver sees the stream cut where Linux cut it — the test reports the distribution of
 *       read sizes and requires more than one distinct size;</li>
 *   <li>MPA-26: the hand-over switches at the exact octet over a real socket as well.</li>
 * </ul>
 */
class TcpKernelTest {
    @ParameterizedTest(name = "poll {0} sockbuf {1}")
    @CsvSource({"1, 0", "16, 0", "4, 16384"})
    void deliversInOrderOverRealSockets(int poll, int sockbuf) {
        Random rng = new Random(poll * 31L + sockbuf);
        TcpOptions o = TcpOptions.defaults().withMode(TcpChannel.Mode.KERNEL).withPollInterval(poll)
                .withSocketBuffer(sockbuf).withWindow(32768);
        try (TcpChannel ch = new TcpChannel("k", o, rng)) {
            byte[] da = TcpChannelTest.random(rng, 2_000_000);
            byte[] db = TcpChannelTest.random(rng, 1_000_000);
            TcpChannelTest.Pump p = new TcpChannelTest.Pump(ch, da, db, rng);
            long t0 = System.nanoTime();
            p.run(20_000_000);
            double s = (System.nanoTime() - t0) / 1e9;
            assertArrayEquals(da, p.gotB.toByteArray(), "a->b stream");
            assertArrayEquals(db, p.gotA.toByteArray(), "b->a stream");
            assertTrue(ch.idle());
            for (TcpStats st : new TcpStats[] {ch.statsAtoB(), ch.statsBtoA()}) {
                assertTrue(st.sizeHistogram().size() > 1 || st.minSegment() != st.maxSegment(),
                        "Linux cut the stream in more than one way: " + st);
                System.out.println(ch.describe() + "\n  " + st);
            }
            System.out.printf("  %.1f MB/s both ways in %.2f s%n", (da.length + db.length) / s / 1e6, s);
            assertEquals(da.length, ch.statsAtoB().delivered());
        }
    }

    /** MPA-26 over a real socket: b's core gets exactly the octets after what b's host read. */
    @Test
    void handOverAtTheExactOctet() {
        Random rng = new Random(42);
        TcpOptions o = TcpOptions.defaults().withMode(TcpChannel.Mode.KERNEL).withPollInterval(1)
                .withIsn(0xFFFF_FFF0L, 5);
        try (TcpChannel ch = new TcpChannel("k", o, rng)) {
            byte[] request = TcpChannelTest.random(rng, 40);
            byte[] rest = TcpChannelTest.random(rng, 100_000);
            ch.a().send(request);
            ch.a().send(rest);
            byte[] buf = new byte[40];
            int got = 0;
            for (int i = 0; got < 40 && i < 1_000_000; i++) {
                ch.tick();
                got += ch.b().receive(buf, got, 40 - got);
            }
            assertArrayEquals(request, buf);
            ch.b().handOver();
            assertEquals((0xFFFF_FFF1L + 40) & 0xFFFF_FFFFL, ch.b().handOverReceiveSequence());
            ByteArrayOutputStream core = new ByteArrayOutputStream();
            byte[] c = new byte[7000];
            for (int i = 0; core.size() < rest.length && i < 1_000_000; i++) {
                ch.tick();
                int n = ch.b().corePeek(c, 0, c.length);
                ch.b().coreConsume(n);
                core.write(c, 0, n);
            }
            assertArrayEquals(rest, core.toByteArray());
        }
    }

    /** A host's close() over a real socket: everything queued arrives, then the peer sees closed(). */
    @Test
    void hostCloseSendsEverythingThenFin() {
        Random rng = new Random(8);
        try (TcpChannel ch = new TcpChannel("k", TcpOptions.defaults().withMode(TcpChannel.Mode.KERNEL)
                .withPollInterval(2).withWindow(4096), rng)) {
            byte[] data = TcpChannelTest.random(rng, 300_000);
            ch.a().send(data);
            ch.a().close();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[1000];
            for (int i = 0; !ch.b().closed(); i++) {
                assertTrue(i < 10_000_000, "no FIN");
                ch.tick();
                if (ch.b().closed()) {
                    assertEquals(data.length, got.size() + ch.b().rx.size(), "FIN only after the last octet");
                }
                got.write(buf, 0, ch.b().receive(buf, 0, buf.length));
            }
            while (got.size() < data.length) {
                got.write(buf, 0, ch.b().receive(buf, 0, buf.length));
            }
            assertArrayEquals(data, got.toByteArray());
            ch.b().close();
            for (int i = 0; i < 1_000_000 && !ch.idle(); i++) {
                ch.tick();
            }
            assertTrue(ch.a().closed() && ch.idle());
        }
    }

    /** Closing the channel closes both ends. */
    @Test
    void closeClosesBothEnds() {
        TcpChannel ch = new TcpChannel("k", TcpOptions.defaults().withMode(TcpChannel.Mode.KERNEL), new Random(1));
        assertTrue(!ch.a().closed() && !ch.b().closed());
        ch.close();
        assertTrue(ch.a().closed() && ch.b().closed());
        ch.close();
    }
}
