package rnic.board;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.hw.board.BoardSoc;
import rnic.sim.Agent;
import rnic.sim.SimSignal;
import rnic.sim.Tb;
import rnic.sim.serial.SimSerialLine;
import rnic.sim.serial.UartAgent;
import rnic.transport.serial.BoardResetException;
import rnic.transport.serial.SerialTransport;
import rnic.verbs.Access;
import rnic.verbs.CompletionQueue;
import rnic.verbs.Device;
import rnic.verbs.DmaBuffer;
import rnic.verbs.ProtectionDomain;
import rnic.verbs.QueuePair;
import rnic.wire.QpState;
import spinal.core.BaseType;

/**
 * A board reset in the middle of a run (issue 15: "a board reset mid-run is detected by the driver and reported"): the
 * host driver talks to the simulated SoC over its UART pins through {@link SerialTransport} and the verbs API — a QP
 * set up, board memory written and read back — when the SoC's reset pin is asserted while a bulk write is on the line.
 * The board restarts (the firmware boots again, reruns its self-test, picks a new link session); the driver's next
 * call must fail with the link's {@link BoardResetException} ("the board restarted … reconnect and set the device up
 * again") as the cause, not time out or return stale data — the restarted board takes the session after the one
 * it had, so the host always sees another number. Opening the transport and the device again on the same
 * line must then work: a new session, the self-test passed again, board memory and a QP usable.
 */
class BoardResetTest {
    static final Duration CALL = Duration.ofMillis(200);

    /** Drives the SoC's reset pin: asserted for {@code cycles} cycles from cycle {@code at}. */
    static final class ResetPin implements Agent {
        private final Tb<BoardSoc> tb;
        private final SimSignal pin;
        private final long idle;
        private long at = -1;
        private int cycles;
        private long pulses;

        ResetPin(Tb<BoardSoc> tb) {
            this.tb = tb;
            // The clock domain's reset as the top level's port (the design pulls it up to the top).
            spinal.core.Bool reset = tb.dut().clockDomain().get().reset();
            var port = tb.dut().pulledDataCache().get(reset);
            this.pin = tb.signal(port.isEmpty() ? reset : (BaseType) port.get());
            this.idle = pin.get();
        }

        void pulseAt(long cycle, int length) {
            at = cycle;
            cycles = length;
        }

        long pulses() {
            return pulses;
        }

        @Override
        public void drive() {
            if (at >= 0 && tb.cycle() >= at) {
                if (tb.cycle() < at + cycles) {
                    pin.set(idle ^ 1);
                } else {
                    pin.set(idle);
                    at = -1;
                    pulses++;
                }
            }
        }
    }

    @Test
    void aResetMidRunIsReportedAndTheDeviceWorksAfterReopening() throws Exception {
        BoardSim.model().run("reset", 11, tb -> {
            UartAgent uart = BoardSim.boot(tb);
            ResetPin reset = tb.add(new ResetPin(tb));
            SimSerialLine line = new SimSerialLine(tb, uart, BoardSocTest.CLOCK, BoardSocTest.BIT);
            InetAddress lo = InetAddress.getLoopbackAddress();
            byte[] data = new byte[2048];
            new Random(12).nextBytes(data);
            try {
                SerialTransport before = new SerialTransport(line, lo, Duration.ofMillis(5), CALL);
                int id = before.info().id();
                Device dev = Device.open(before);
                ProtectionDomain pd = dev.allocateProtectionDomain();
                CompletionQueue cq = dev.createCompletionQueue(16);
                QueuePair qp = pd.createQueuePair(new QueuePair.Config(cq, cq, 4, 4, 0, 0));
                assertEquals(QpState.INIT, qp.state());
                DmaBuffer buf = dev.allocate(data.length);
                pd.registerMemory(buf, EnumSet.of(Access.LOCAL_WRITE));

                // The reset pin rises 30 000 cycles (0.6 ms) into a loop of 2 KB writes and read-backs: a frame is on
                // the line then, both ways.
                long resetAt = tb.cycle() + 30_000;
                reset.pulseAt(resetAt, 16);
                UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> {
                    for (int i = 0; i < 100; i++) {
                        buf.put(0, data);
                        assertArrayEquals(data, buf.get(0, data.length), "read back before the reset");
                    }
                });
                assertEquals(1, reset.pulses(), "the reset pin was pulsed once");
                BoardResetException cause = assertInstanceOf(BoardResetException.class, e.getCause(), e.toString());
                assertTrue(e.getMessage().contains("the board restarted"), e.getMessage());
                assertTrue(cause.getMessage().contains("reconnect and set the device up again"), cause.getMessage());
                // The firmware keeps the last start's session across a reset (.noinit) and takes the next one: a
                // number picked from the cycle count could repeat, and a board that comes back with the old session
                // looks to the host like one that stopped answering.
                assertEquals((cause.before() + 1) & 0xFF, cause.after(), "the session after a reset follows the last");
                long detected = tb.cycle();
                System.out.printf("board reset at cycle %d detected by the driver at cycle %d (%.1f ms later): %s%n",
                        resetAt, detected, (detected - resetAt) * 1e3 / BoardSocTest.CLOCK, e.getMessage());
                before.close();

                // Reopened on the same line: a new link, the self-test ran again, the device works.
                try (SerialTransport after = new SerialTransport(line, lo, Duration.ofMillis(5), CALL);
                        Device again = Device.open(after)) {
                    assertEquals(id, after.info().id(), "the same board");
                    assertTrue(after.selfTest().ok(), after.selfTest().report());
                    ProtectionDomain pd2 = again.allocateProtectionDomain();
                    CompletionQueue cq2 = again.createCompletionQueue(16);
                    QueuePair qp2 = pd2.createQueuePair(new QueuePair.Config(cq2, cq2, 4, 4, 0, 0));
                    assertEquals(QpState.INIT, qp2.state(), "QP 0 is set up again after the reset");
                    DmaBuffer b2 = again.allocate(data.length);
                    b2.put(0, data);
                    assertArrayEquals(data, b2.get(0, data.length), "board memory after reopening");
                    assertNotEquals(0, again.queuePairCount());
                    System.out.printf("reopened and set up again by cycle %d%n", tb.cycle());
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }
}
