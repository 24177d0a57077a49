package rnic.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The profile-guided build of {@link SimModel#profileGuided} ({@code sim/model-make}, SpinalSim's make command in the
 * Maven build): the model is trained and compiled with its profile, and still does what the design says. The design is
 * {@link TbInputLatchTest.Latched}: a clock, a reset and an input latch, as the training program drives them.
 */
class SimModelProfileGuidedTest {
    private static final String KEY = "TbInputLatch-profileGuided";

    @Test
    void trainedAndCompiledWithItsProfileAndQStillFollowsDTwoEdgesLater(@TempDir Path workspace) throws IOException {
        // A workspace of its own: no model cached on disk, so this run builds it (SpinalSim keeps only the library).
        String key = KEY + "-fresh";
        String before = System.getProperty("rnic.simDir");
        System.setProperty("rnic.simDir", workspace.toString());
        SimModel<TbInputLatchTest.Latched> model;
        try {
            model = SimModel.profileGuided(key, TbInputLatchTest.Latched::new);
        } finally {
            if (before == null) {
                System.clearProperty("rnic.simDir");
            } else {
                System.setProperty("rnic.simDir", before);
            }
        }
        // model-make's account of the build, beside the model's C++ directory in the workspace.
        Path report = workspace.resolve(key).resolve("model-make.txt");
        assertTrue(Files.exists(report), "no " + report + ": the model was not built by sim/model-make");
        String text = Files.readString(report).trim();
        assertTrue(text.matches("V\\w+: profile-guided: " + SimModel.TRAINING_CYCLES
                + " training cycles, [1-9][0-9]* profile files"), text);
        model.run("trained", 3, tb -> {
            SimSignal d = tb.signal(tb.dut().io.d);
            SimSignal q = tb.signal(tb.dut().io.q);
            tb.reset(4);
            for (int v = 1; v <= 200; v++) {
                d.set(v & 0xFF);
                tb.step();
                tb.step();
                // Taken by the input latch with the falling edge, then by the register at the next rising edge.
                assertEquals(v & 0xFF, q.get(), "q two cycles after d = " + v);
            }
        });
    }

    @Test
    void oneKeyNamesOneModel() {
        SimModel.profileGuided(KEY, TbInputLatchTest.Latched::new);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SimModel.of(KEY, TbInputLatchTest.Latched::new));
        assertTrue(e.getMessage().contains("profile-guided"), e.getMessage());
    }
}
