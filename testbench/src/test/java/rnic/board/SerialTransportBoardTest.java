package rnic.board;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Random;
import org.junit.jupiter.api.Test;
import rnic.cm.CmEvent;
import rnic.cm.CmEventChannel;
import rnic.cm.ConnectParams;
import rnic.cm.Connection;
import rnic.cm.ConnectionManager;
import rnic.cm.Listener;
import java.util.concurrent.atomic.AtomicReference;
import rnic.sim.serial.PtyUart;
import rnic.sim.serial.SimSerialLine;
import rnic.sim.serial.UartAgent;
import rnic.transport.serial.JsscSerialLine;
import rnic.transport.serial.SerialTransport;
import rnic.verbs.Access;
import rnic.verbs.Completion;
import rnic.verbs.CompletionQueue;
import rnic.verbs.CompletionStatus;
import rnic.verbs.Device;
import rnic.verbs.DmaBuffer;
import rnic.verbs.MemoryRegion;
import rnic.verbs.ProtectionDomain;
import rnic.verbs.QueuePair;
import rnic.verbs.RecvRequest;
import rnic.verbs.WorkRequest;
import rnic.wire.CqeKind;
import rnic.wire.MpaErrorCode;
import rnic.wire.QpState;

/**
 * The unchanged verbs API and connection manager on a board: the host driver runs on {@link SerialTransport}, whose
 * every register access, board-memory access and TCP octet crosses the simulated board's UART pins bit by bit (3
 * Mbaud, 48 MHz) to the real firmware on the SoC's RV32 core. The board's two QPs connect to each other through this
 * host's kernel TCP (loopback): QP 0 connects to a listener of the same device, the MPA exchange runs over the
 * sockets, both QPs are handed to the core, then an RDMA Write and a Send go from QP 0 to QP 1 and the octets land in
 * QP 1's board memory (MPA-26: the hand-over at the exact octet; RDMAP-07, RDMAP-08: Write and Send placed).
 */
class SerialTransportBoardTest {
    static final Duration CALL = Duration.ofMillis(200);
    static final Duration WAIT = Duration.ofSeconds(2);

    @Test
    void verbsOnTheBoardOverTheSerialLine() throws Exception {
        BoardSim.model().run("serialTransport", 7, tb -> {
            UartAgent uart = BoardSim.boot(tb);
            SimSerialLine line = new SimSerialLine(tb, uart, BoardSocTest.CLOCK, BoardSocTest.BIT);
            try (SerialTransport t = new SerialTransport(line, InetAddress.getLoopbackAddress(),
                    Duration.ofMillis(5), CALL)) {
                long start = tb.cycle();
                long[] marks = loopbackWriteAndSend(t, tb::cycle, true);
                System.out.printf("board over the serial line: open + setup + connect %d cycles, Write 300 B + "
                        + "Send 200 B %d cycles (48 MHz, 3 Mbaud)%n", marks[0] - start, marks[1] - marks[0]);
                assertTrue(uart.framingErrors() == 0, "UART framing errors");
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    /**
     * The same through the exact serial path: the simulated board's UART on a pseudo-terminal, which the driver opens
     * with jssc ({@link JsscSerialLine}) like a board's {@code /dev/ttyUSB0}; the driver runs on its own thread, the
     * simulation on its own, and the link's timers count the simulation's time.
     */
    @Test
    void verbsOnTheBoardThroughAPseudoTerminalOpenedWithJssc() throws Exception {
        BoardSim.model().run("pty", 9, tb -> {
            UartAgent uart = BoardSim.boot(tb);
            try (PtyUart pty = tb.add(new PtyUart(tb, uart, BoardSocTest.CLOCK, BoardSocTest.BIT))) {
                AtomicReference<Throwable> failure = new AtomicReference<>();
                AtomicReference<long[]> result = new AtomicReference<>();
                Thread host = new Thread(() -> {
                    try (SerialTransport t = new SerialTransport(new JsscSerialLine(pty.device(), 3_000_000,
                            pty.clock()), InetAddress.getLoopbackAddress(), Duration.ofMillis(5), CALL)) {
                        result.set(loopbackWriteAndSend(t, () -> t.nanoTime(), false));
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                }, "board-host");
                host.start();
                long limit = tb.cycle() + 400_000_000L;
                while (host.isAlive() && tb.cycle() < limit) {
                    tb.step(256);
                }
                host.interrupt();
                host.join(5000);
                if (failure.get() != null) {
                    throw new AssertionError("the host program failed", failure.get());
                }
                assertTrue(result.get() != null, "the host program did not finish within 400 M cycles");
                System.out.printf("board through a pty opened with jssc: done at cycle %d%n", tb.cycle());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    /**
     * Opens the device on {@code t}, connects its QP 0 to its QP 1 through a listener on loopback, sends an RDMA
     * Write and a Send from QP 0 and checks QP 1's memory; returns {@code clock} after connecting and at the end.
     * With {@code close}, QP 0's side then disconnects (its kernel socket sends a FIN): the driver tells the board
     * ({@code F}, the TCP bridge's FIN beat) and QP 1 goes to ERR with the cause MPA_ERROR / TCP_CLOSED, the receive
     * it still had posted flushed (MPA-41, DDP-28).
     */
    static long[] loopbackWriteAndSend(SerialTransport t, java.util.function.LongSupplier clock, boolean close)
            throws Exception {
        try (Device dev = Device.open(t)) {
            assertEquals(2, dev.queuePairCount());
            ProtectionDomain pd = dev.allocateProtectionDomain();
            CompletionQueue cq0 = dev.createCompletionQueue(32);
            CompletionQueue cq1 = dev.createCompletionQueue(32);
            DmaBuffer src = dev.allocate(1024);
            DmaBuffer dst = dev.allocate(1024);
            MemoryRegion srcMr = pd.registerMemory(src, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion dstMr = pd.registerMemory(dst, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            QueuePair qp0 = pd.createQueuePair(new QueuePair.Config(cq0, cq0, 8, 8, 0, 0));
            QueuePair qp1 = pd.createQueuePair(new QueuePair.Config(cq1, cq1, 8, 8, 0, 1));
            qp1.postRecv(RecvRequest.of(dstMr.sge(512, 256)));

            ConnectionManager cm = new ConnectionManager(dev);
            ConnectParams params = ConnectParams.defaults().withTimeout(WAIT);
            Listener listener = cm.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CmEventChannel events = cm.createEventChannel();
            Connection active = cm.startConnect(listener.localAddress(), qp0, params, events);
            Connection passive = listener.accept(qp1, params, WAIT);
            events.await(CmEvent.Established.class, WAIT);
            assertEquals(Connection.State.ESTABLISHED, active.state());
            assertEquals(Connection.State.ESTABLISHED, passive.state());
            long connected = clock.getAsLong();

            byte[] data = new byte[300];
            new Random(8).nextBytes(data);
            src.put(0, data);
            qp0.postSend(WorkRequest.rdmaWrite(srcMr.sge(0, 300), dstMr.remote(0)).withId(1));
            qp0.postSend(WorkRequest.send(srcMr.sge(100, 200)).withId(2));
            Completion[] out = new Completion[4];
            assertEquals(2, cq0.awaitCount(out, 2, WAIT), "both requests complete");
            assertEquals(CompletionStatus.SUCCESS, out[0].status());
            assertEquals(CompletionStatus.SUCCESS, out[1].status());
            assertEquals(1, cq1.awaitCount(out, 1, WAIT), "the Send is received");
            assertEquals(CompletionStatus.SUCCESS, out[0].status());
            assertEquals(200L, out[0].byteLength());
            assertArrayEquals(data, dst.get(0, 300), "the RDMA Write's octets in QP 1's region");
            byte[] sent = java.util.Arrays.copyOfRange(data, 100, 300);
            assertArrayEquals(sent, dst.get(512, 200), "the Send's octets in the receive buffer");
            long done = clock.getAsLong();
            if (close) {
                qp1.postRecv(RecvRequest.of(dstMr.sge(768, 256)).withId(9));
                active.disconnect();
                long start = t.nanoTime();
                while (qp1.state() != QpState.ERR) {
                    assertTrue(t.nanoTime() - start < WAIT.toNanos(), "QP 1 still " + qp1.state()
                            + " after its peer closed");
                    t.advance();
                }
                assertNotNull(qp1.error(), "QP 1 in ERR without a cause");
                assertEquals(CqeKind.MPA_ERROR, qp1.error().cqeKind(), qp1.error().toString());
                assertEquals(MpaErrorCode.TCP_CLOSED, qp1.error().mpaError(), qp1.error().toString());
                assertEquals(1, cq1.awaitCount(out, 1, WAIT), "the posted receive completes");
                assertEquals(9L, out[0].wrId());
                assertEquals(CompletionStatus.FLUSH_ERROR, out[0].status(), out[0].toString());
            }
            return new long[] {connected, done};
        }
    }
}
