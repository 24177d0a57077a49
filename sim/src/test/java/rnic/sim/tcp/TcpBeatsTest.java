package rnic.sim.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The core-facing conversions at W = 32, 64 and 512, pure Java, against the byte stream (MPA-23 on the
 * core's side: however the octets are cut into beats, they are the stream).
 *
 * <ul>
 *   <li>{@link TcpRxPacker}: random data through a channel into an end handed over to its core, cut into TcpRxBeats
 *       by each policy: the beats' octets ({@code tkeep} contiguous from octet 0, 1 … W/8 of them, zero beyond) are the
 *       stream, each beat's {@code seq} is the sequence number of its first octet (across the 2<sup>32</sup> wrap),
 *       PER_SEGMENT beats never cross a segment as it arrived, PACKED beats are full unless the buffer ran dry;</li>
 *   <li>{@link TcpTxAssembler}: random segments cut into AxisBeats the way an AXI-Stream master must (full beats, the
 *       last partial, {@code tlast}) come out as the same segments; a hole in {@code tkeep}, an empty beat, a partial
 *       beat before {@code tlast} or too many octets are refused.</li>
 * </ul>
 */
class TcpBeatsTest {
    static Stream<Arguments> widthsAndPolicies() {
        List<Arguments> out = new ArrayList<>();
        for (int w : new int[] {32, 64, 512}) {
            for (TcpRxPacker.Policy p : TcpRxPacker.Policy.values()) {
                out.add(Arguments.of(w, p));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "W={0} {1}")
    @MethodSource("widthsAndPolicies")
    void rxBeatsCarryTheStream(int w, TcpRxPacker.Policy policy) {
        Random rng = new Random(w * 7L + policy.ordinal());
        TcpOptions o = TcpOptions.defaults().withSegmentation(Segmentation.mixed()).withIsn(0xFFFF_F000L, 1)
                .withDelay(1, 5);
        TcpChannel ch = new TcpChannel("beats", o, rng);
        ch.b().handOver();
        byte[] data = TcpChannelTest.random(rng, 20_000);
        ch.a().send(data);
        TcpRxPacker packer = new TcpRxPacker(w, policy, rng);
        int octets = w / 8;
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        long expectSeq = 0xFFFF_F001L;
        int beats = 0;
        int partial = 0;
        for (int c = 0; got.size() < data.length; c++) {
            assertTrue(c < 1_000_000, "stalled");
            ch.tick();
            if (rng.nextInt(3) == 0) {
                continue; // the core is not ready every cycle
            }
            int untilSegmentEnd = ch.b().coreUntilSegmentEnd();
            int available = ch.b().coreAvailable();
            TcpRxPacker.Beat b = packer.next(ch.b());
            if (b == null) {
                assertEquals(0, available);
                continue;
            }
            assertEquals(octets, b.data().length);
            assertTrue(b.len() >= 1 && b.len() <= octets);
            assertEquals(expectSeq, b.seq(), "seq of the beat's first octet");
            assertEquals(TcpRxPacker.keep(b.len()), b.keep());
            assertEquals(b.len(), Long.bitCount(b.keep()));
            for (int i = b.len(); i < octets; i++) {
                assertEquals(0, b.data()[i], "octets beyond tkeep are zero");
            }
            switch (policy) {
                case PER_SEGMENT -> assertTrue(b.len() <= untilSegmentEnd, "beat crosses a segment");
                case PACKED -> assertEquals(Math.min(octets, available), b.len(), "packed beats are full");
                default -> {
                }
            }
            if (b.len() < octets) {
                partial++;
            }
            got.write(b.data(), 0, b.len());
            packer.taken(ch.b(), b);
            expectSeq = (expectSeq + b.len()) & 0xFFFF_FFFFL;
            beats++;
        }
        assertArrayEquals(data, got.toByteArray());
        assertEquals((0xFFFF_F001L + data.length) & 0xFFFF_FFFFL, ch.b().coreReceiveSequence());
        assertTrue(beats >= data.length / octets);
        if (policy != TcpRxPacker.Policy.PACKED) {
            assertTrue(partial > 0, "partial beats seen");
        }
    }

    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {32, 64, 512})
    void txSegmentsFromBeats(int w) {
        Random rng = new Random(w);
        int octets = w / 8;
        TcpTxAssembler asm = new TcpTxAssembler("tcpTx_0", w);
        for (int i = 0; i < 500; i++) {
            int len = i < 3 * octets ? 1 + i : 1 + rng.nextInt(1460);
            byte[] seg = TcpChannelTest.random(rng, len);
            byte[] out = null;
            for (int off = 0; off < len; off += octets) {
                int n = Math.min(octets, len - off);
                byte[] tdata = new byte[octets];
                rng.nextBytes(tdata); // octets beyond tkeep are don't-care
                System.arraycopy(seg, off, tdata, 0, n);
                boolean last = off + n == len;
                byte[] r = asm.beat(tdata, TcpRxPacker.keep(n), last);
                if (!last) {
                    assertNull(r);
                    assertEquals(off + n, asm.pending());
                } else {
                    out = r;
                }
            }
            assertArrayEquals(seg, out, "segment " + i + " of " + len + " octets");
            assertEquals(0, asm.pending());
        }
        assertEquals(500, asm.segments());

        byte[] d = new byte[octets];
        assertThrows(AssertionError.class, () -> new TcpTxAssembler("t", w).beat(d, 0, true), "empty beat");
        assertThrows(AssertionError.class, () -> new TcpTxAssembler("t", w).beat(d, 0b101, true), "hole in tkeep");
        assertThrows(AssertionError.class, () -> new TcpTxAssembler("t", w).beat(d, 1, false),
                "partial beat before tlast");
        if (octets < 64) {
            assertThrows(AssertionError.class,
                    () -> new TcpTxAssembler("t", w).beat(d, TcpRxPacker.keep(octets + 1), true), "tkeep too wide");
        }
        byte[] full = Arrays.copyOf(d, octets);
        assertEquals(octets, new TcpTxAssembler("t", w).beat(full, TcpRxPacker.keep(octets), true).length);
    }
}
