package rnic.hw.top;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import rnic.hdl.Rtl;
import rnic.hw.mpa.MpaRxConfig;
import rnic.hw.mpa.MpaRxShared;

/**
 * Every buffer of {@link RnicCore} with more than {@value #SMALL} entries is written so that synthesis maps it to block
 * RAM: in the generated Verilog such a memory is read only inside a clocked {@code always} block (a synchronous read)
 * and carries no {@code ram_style = "distributed"}. And the MPA receive store shared by the connections,
 * {@code 2·W/32} half-word lanes with a region of {@link MpaRxConfig#regionRows()} rows per connection, is bounded by
 * the configured MSS, not by the 16-bit ULPDU_Length (MPA-23, MPA-25, T-10).
 *
 * <p>The check reads the Verilog SpinalHDL writes: a memory is a {@code reg [..] name [a:b];} declaration; a read is any
 * use of {@code name[} other than the left-hand side of a write, and it is synchronous when it sits in an
 * {@code always @(posedge …)} block.
 */
class BlockRamTest {
    /** Memories up to this many entries may be LUT RAM (distributed, asynchronous read). */
    static final int SMALL = 16;

    private static final Pattern MEMORY = Pattern.compile(
            "^\\s*(\\(\\*[^*]*\\*\\)\\s*)?reg\\s*(\\[[^\\]]+\\])?\\s*(\\w+)\\s*\\[\\s*(\\d+)\\s*:\\s*(\\d+)\\s*\\]\\s*;");

    /** One memory of the generated Verilog. */
    record Memory(String module, String name, int entries, boolean distributed, boolean asyncRead) {
    }

    @ParameterizedTest(name = "W={0}")
    @ValueSource(ints = {64, 512})
    void largeMemoriesAreSynchronousBlockRam(int w) throws IOException {
        RnicConfig cfg = RnicConfig.defaults().withDataWidth(w);
        List<Memory> mems = memories(generate(cfg, "w" + w));
        List<String> bad = new ArrayList<>();
        for (Memory m : mems) {
            if (m.entries() > SMALL && (m.distributed() || m.asyncRead())) {
                bad.add(m.toString());
            }
        }
        assertTrue(bad.isEmpty(), "memories of more than " + SMALL + " entries must be synchronous block RAM:\n  "
                + String.join("\n  ", bad));
        // The receive store (one for every connection) is there, one lane per half-word of a beat, each lane one
        // region per connection bounded by the MSS.
        int bound = cfg.qpCount() * cfg.mpaRx().regionRows();
        long lanes = mems.stream().filter(m -> m.entries() == bound && m.module().startsWith("MpaRxHold")).count();
        assertEquals(2 * (w / 32), lanes, "MPA receive store lanes of " + bound + " rows in " + mems);
        int largest = mems.stream().mapToInt(Memory::entries).max().orElse(0);
        assertTrue(largest <= Math.max(bound, cfg.ddp().stagCount()), "a memory of " + largest
                + " entries exceeds the MPA receive store's bound " + bound);
    }

    @Test
    void receiveBufferFollowsTheMss() throws IOException {
        RnicConfig cfg = RnicConfig.defaults().withDataWidth(64).withMss(1460);
        assertEquals(1454, cfg.mpaRx().maxUlpdu());
        // One ULPDU of 1454 octets stored with its PAD, the ULPDU_Length half-word left out (2·⌈(2 + 1454) / 4⌉ − 1
        // half-words), plus 9 rows of 4 half-words in flight (MpaRxShared.MARGIN_ROWS + LAG_ROWS), in rows of 4
        // half-words (W = 64); one such region per connection in each lane.
        assertEquals(9, MpaRxConfig.INFLIGHT_BEATS);
        assertEquals(MpaRxConfig.INFLIGHT_BEATS, MpaRxShared.MARGIN_ROWS + MpaRxShared.LAG_ROWS);
        int region = (2 * ((2 + 1454 + 3) / 4) - 1 + 9 * 4 + 3) / 4;
        assertEquals(191, region);
        assertEquals(region, cfg.mpaRx().regionRows());
        int rows = cfg.qpCount() * region;
        List<Memory> mems = memories(generate(cfg, "mss1460"));
        assertEquals(4, mems.stream().filter(m -> m.entries() == rows && !m.asyncRead() && !m.distributed()
                && m.module().startsWith("MpaRxHold")).count(), "4 synchronous " + rows + "-row lanes in " + mems);
        assertFalse(mems.stream().anyMatch(m -> m.entries() > rows
                && m.entries() > cfg.ddp().stagCount()), "a memory larger than the MSS-bound store: " + mems);
    }

    @Test
    void checkerSeesAsynchronousAndDistributedMemories() {
        String v = String.join("\n",
                "module A (", "  input clk", ");",
                "  (* ram_style = \"distributed\" *) reg [7:0] ram [0:63];",
                "  reg [7:0] sync [0:63];",
                "  reg [7:0] q;",
                "  assign o = ram[p];",
                "  always @(posedge clk) begin",
                "    if(en) begin", "      sync[a] <= d;", "    end",
                "    q <= sync[b];",
                "  end",
                "endmodule");
        List<Memory> mems = memoriesOf(v);
        assertEquals(List.of(new Memory("A", "ram", 64, true, true), new Memory("A", "sync", 64, false, false)),
                mems);
    }

    private static List<File> generate(RnicConfig cfg, String dir) {
        File out = new File("target/blockram/" + dir);
        List<File> files = new ArrayList<>();
        for (String f : Rtl.generatedFiles(Rtl.generate(out, () -> new RnicCore(cfg)))) {
            files.add(new File(f));
        }
        return files;
    }

    static List<Memory> memories(List<File> files) throws IOException {
        List<Memory> all = new ArrayList<>();
        for (File f : files) {
            all.addAll(memoriesOf(Files.readString(f.toPath())));
        }
        return all;
    }

    static List<Memory> memoriesOf(String verilog) {
        List<Memory> out = new ArrayList<>();
        String module = "?";
        String[] lines = verilog.split("\n");
        List<String[]> declared = new ArrayList<>();
        for (String line : lines) {
            Matcher mod = Pattern.compile("^\\s*module\\s+(\\w+)").matcher(line);
            if (mod.find()) {
                module = mod.group(1);
                declared.clear();
            }
            Matcher m = MEMORY.matcher(line);
            if (m.find()) {
                int entries = Math.abs(Integer.parseInt(m.group(5)) - Integer.parseInt(m.group(4))) + 1;
                boolean distributed = m.group(1) != null && m.group(1).contains("distributed");
                out.add(new Memory(module, m.group(3), entries, distributed, false));
                declared.add(new String[] {m.group(3), String.valueOf(out.size() - 1)});
            }
            if (line.matches("^\\s*endmodule.*")) {
                markAsyncReads(lines, module, declared, out);
            }
        }
        return out;
    }

    /** Marks the memories of {@code module} read outside a clocked always block. */
    private static void markAsyncReads(String[] lines, String module, List<String[]> declared, List<Memory> out) {
        boolean inModule = false;
        int depth = 0;            // begin/end nesting inside a clocked always block
        boolean clocked = false;
        boolean pendingClocked = false;
        for (String raw : lines) {
            String line = raw.replaceAll("//.*", "");
            if (line.matches("^\\s*module\\s+" + Pattern.quote(module) + "\\b.*")) {
                inModule = true;
                continue;
            }
            if (!inModule) {
                continue;
            }
            if (line.matches("^\\s*endmodule.*")) {
                return;
            }
            if (line.matches("^\\s*always\\s*@\\s*\\(\\s*(posedge|negedge).*")) {
                clocked = true;
                pendingClocked = true;
                depth = 0;
            } else if (line.matches("^\\s*(always|assign|initial)\\b.*")) {
                clocked = false;
            }
            if (clocked) {
                depth += count(line, "\\bbegin\\b") - count(line, "\\bend\\b");
            }
            for (String[] d : declared) {
                String name = d[0];
                Matcher use = Pattern.compile("\\b" + Pattern.quote(name) + "\\s*\\[").matcher(line);
                while (use.find()) {
                    if (line.matches("^\\s*(\\(\\*[^*]*\\*\\)\\s*)?reg\\b.*")) {
                        continue; // the declaration
                    }
                    String after = line.substring(use.end());
                    boolean isWrite = after.matches("^[^\\]]*\\]\\s*<=.*") && line.trim().startsWith(name);
                    if (!isWrite && !clocked) {
                        int i = Integer.parseInt(d[1]);
                        Memory m = out.get(i);
                        out.set(i, new Memory(m.module(), m.name(), m.entries(), m.distributed(), true));
                    }
                }
            }
            if (clocked && !pendingClocked && depth <= 0) {
                clocked = false;
            }
            pendingClocked = false;
        }
    }

    private static int count(String s, String regex) {
        Matcher m = Pattern.compile(regex).matcher(s);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
