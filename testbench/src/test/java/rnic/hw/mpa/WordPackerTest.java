package rnic.hw.mpa;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimModel;
import rnic.sim.SimSignal;
import rnic.sim.StreamSink;
import rnic.sim.StreamSource;
import rnic.sim.Tb;

/**
 * {@link WordPacker} against a Java model (concatenate a packet's words, cut into beats of {@code outWords}), with
 * random piece sizes including empty pieces, random packet lengths, idle and back-pressure. The geometries include the
 * MPA transmitter's: {@code inWords = W/32 + 2}, {@code outWords = W/32} for W = 32 … 512.
 */
class WordPackerTest {

    /** One piece or beat: words (as ints), count, last. */
    record Piece(int[] words, boolean last) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Piece p && p.last == last && Arrays.equals(p.words, words);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(words) * 2 + (last ? 1 : 0);
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("[");
            for (int w : words) {
                sb.append(String.format("%08x ", w));
            }
            return sb.append(last ? "LAST]" : "]").toString();
        }
    }

    @ParameterizedTest(name = "in={0} out={1}")
    @CsvSource({"1,1", "4,4", "3,1", "4,2", "6,4", "10,8", "18,16"})
    void packsLikeTheModel(int inWords, int outWords) {
        SimModel<WordPacker> model = SimModel.of("WordPacker-" + inWords + "-" + outWords,
                () -> new WordPacker(inWords, outWords));
        for (int run = 0; run < 3; run++) {
            long seed = 1000L * inWords + outWords * 10L + run;
            int runIndex = run;
            model.run("pack" + run, seed, tb -> check(tb, inWords, outWords, runIndex));
        }
    }

    private static void check(Tb<WordPacker> tb, int inWords, int outWords, int run) {
        Random rng = tb.random();
        WordPacker dut = tb.dut();
        WordPiece ip = dut.io.input.payload();
        WordPiece op = dut.io.output.payload();
        SimSignal inData = tb.signal(ip.data);
        SimSignal inCount = tb.signal(ip.count);
        SimSignal inLast = tb.signal(ip.last);
        SimSignal outData = tb.signal(op.data);
        SimSignal outCount = tb.signal(op.count);
        SimSignal outLast = tb.signal(op.last);
        Scoreboard<Piece> sb = tb.add(new Scoreboard<>("packer " + inWords + "/" + outWords + " seed " + tb.seed()));
        StreamSource<Piece> src = tb.add(new StreamSource<>(tb.signal(dut.io.input.valid()),
                tb.signal(dut.io.input.ready()), p -> {
                    byte[] b = new byte[4 * inWords];
                    for (int i = 0; i < inWords; i++) {
                        // Words past count carry garbage on purpose: the packer must ignore them.
                        int w = i < p.words.length ? p.words[i] : 0xDEAD0000 | i;
                        for (int k = 0; k < 4; k++) {
                            b[4 * i + k] = (byte) (w >>> (8 * k));
                        }
                    }
                    inData.setOctets(b, 0, b.length);
                    inCount.set(p.words.length);
                    inLast.set(p.last);
                }, run == 0 ? Pacer.always() : Pacer.randomMix(rng)));
        tb.add(new StreamSink<>("output", tb.signal(dut.io.output.valid()), tb.signal(dut.io.output.ready()),
                () -> {
                    int n = (int) outCount.get();
                    byte[] b = outData.getOctets();
                    int[] w = new int[n];
                    for (int i = 0; i < n; i++) {
                        for (int k = 0; k < 4; k++) {
                            w[i] |= (b[4 * i + k] & 0xFF) << (8 * k);
                        }
                    }
                    return new Piece(w, outLast.getBool());
                }, run == 0 ? Pacer.always() : Pacer.randomMix(rng), sb::actual));
        tb.reset(3);
        int packets = 400;
        int words = 0;
        int totalPieces = 0;
        for (int p = 0; p < packets; p++) {
            List<Integer> all = new ArrayList<>();
            int pieces = 1 + rng.nextInt(8);
            totalPieces += pieces;
            for (int i = 0; i < pieces; i++) {
                int n = rng.nextInt(8) == 0 ? 0 : 1 + rng.nextInt(inWords);
                if (i == pieces - 1 && n == 0) {
                    n = 1; // the contract: a packet's last piece carries at least one word
                }
                int[] w = new int[n];
                for (int k = 0; k < n; k++) {
                    w[k] = rng.nextInt();
                    all.add(w[k]);
                }
                src.push(new Piece(w, i == pieces - 1));
            }
            for (int off = 0; off < all.size(); off += outWords) {
                int n = Math.min(outWords, all.size() - off);
                int[] w = new int[n];
                for (int k = 0; k < n; k++) {
                    w[k] = all.get(off + k);
                }
                sb.expect(new Piece(w, off + n == all.size()));
            }
            words += all.size();
        }
        long start = tb.cycle();
        tb.runUntilIdle(200_000);
        if (run == 0) {
            // Full rate both sides: a piece taken or a beat sent every cycle, except while a packet's tail drains
            // (at most ceil(inWords / outWords) extra beats per packet).
            long bound = Math.max(totalPieces, sb.matched()) + (long) packets * ((inWords + outWords - 1) / outWords)
                    + 4;
            assertTrue(tb.cycle() - start <= bound, "cycles " + (tb.cycle() - start) + " > " + bound + " for "
                    + totalPieces + " pieces, " + packets + " packets");
        }
        assertTrue(words > 0);
    }
}
