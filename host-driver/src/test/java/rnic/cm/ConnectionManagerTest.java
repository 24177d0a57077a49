package rnic.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import rnic.driver.MpaFpdu;
import rnic.verbs.WrongStateException;
import rnic.wire.MpaErrorCode;
import rnic.wire.MpaStartupFrame;
import rnic.wire.MpaStartupFrame.Enhanced;
import rnic.wire.QpState;
import rnic.wire.WqeOpcode;

/**
 * The connection manager over a test network (two hosts, 10.0.0.1 and 10.0.0.2) with recording queue-pair
 * endpoints: listen/connect by address and port, the request event, accept/reject, the RFC 6581 variations a peer
 * may answer with, the private data limit, timeouts as Durations of device time, disconnect and error events.
 *
 * <p>Requirements: MPA-26 (the stream handed to the QP's slot at the octet after the startup frames), MPA-29 (Markers
 * only when asked), MPA-31/MPA-32 (Rev and private data to the ULP), MPA-34/MPA-35 (accept, reject with private data,
 * TCP left open), MPA-36 (Responder holds its transmit side), MPA-38/MPA-39 (timeouts), MPA-41 (FIN reported),
 * MPA-48 (508 octets with enhanced data), MPA-49 (IRD/ORD to the ULP; ORD lowered to the peer's IRD, IRD raised to
 * the peer's ORD), MPA-50 (RTR form adopted from the Responder), E-M4 (malformed Reply), E-M5 (Terminate 2/0/5).
 */
class ConnectionManagerTest {
    static final InetSocketAddress B_PORT = new InetSocketAddress("10.0.0.2", 4791);
    static final Duration WAIT = Duration.ofMillis(1);

    final TestNetwork net = new TestNetwork();
    final TestNetwork.Host hostA = net.host("10.0.0.1");
    final TestNetwork.Host hostB = net.host("10.0.0.2");
    final ConnectionManager cmA = new ConnectionManager(hostA);
    final ConnectionManager cmB = new ConnectionManager(hostB);
    final TestEndpoint qpA = new TestEndpoint(2);
    final TestEndpoint qpB = new TestEndpoint(3);

    {
        net.onAdvance(qpA::tick);
        net.onAdvance(qpB::tick);
    }

    static Duration us(long micros) {
        return Duration.ofNanos(micros * 1000);
    }

    static ConnectParams params() {
        return ConnectParams.defaults().withTimeout(us(200));
    }

    /** B answers every Request on its channel with accept(qpB, params) while A waits. */
    CmEventChannel autoAccept(ConnectParams params, List<Connection> accepted) {
        CmEventChannel ch = cmB.createEventChannel();
        net.onAdvance(() -> {
            CmEvent e = ch.poll();
            if (e instanceof CmEvent.ConnectRequest r) {
                accepted.add(r.request().accept(qpB, params));
            }
        });
        return ch;
    }

    /** A peer that is not this driver: reads the Request octets and answers with {@code reply} as given. */
    void rawResponder(byte[] reply) {
        net.onAdvance(answerOnce((TestNetwork.Socket) hostB.listen(B_PORT), reply));
    }

    /**
     * MPA-26, MPA-29, MPA-31, MPA-32, MPA-36, MPA-49, MPA-50: B listens on 10.0.0.2:4791, A connects; the request
     * event carries A's private data, Rev, IRD/ORD, RTR offer, M and C; both ends get the agreed values, the RTR and
     * the stream handed to their QP's slot right after the startup frames.
     */
    @Test
    void listenConnectAcceptWithEvents() throws Exception {
        CmEventChannel chA = cmA.createEventChannel();
        CmEventChannel chB = cmB.createEventChannel();
        net.onAdvance(cmA::progress); // A's host runs while B waits (in simulation: its own thread)
        Listener l = cmB.listen(B_PORT, chB);
        assertEquals(B_PORT, l.localAddress());
        Connection a = cmA.start(B_PORT, qpA, params().withIrdOrd(6, 3).withPrivateData("hello".getBytes()),
                chA);
        assertEquals(Connection.State.CONNECTING, a.state());
        assertThrows(IllegalStateException.class, a::ord, "nothing agreed yet");

        ConnectionRequest r = chB.await(CmEvent.ConnectRequest.class, WAIT).request();
        assertArrayEquals("hello".getBytes(), r.privateData());
        assertEquals(2, r.rev());
        assertTrue(r.enhanced());
        assertEquals(6, r.peerIrd());
        assertEquals(3, r.peerOrd());
        assertTrue(r.peerToPeer());
        assertEquals(EnumSet.allOf(RtrForm.class), r.offeredRtr());
        assertFalse(r.peerRequiresMarkers(), "Markers only when the application asks (MPA-29)");
        assertTrue(r.peerWantsCrc());
        assertEquals(hostA.address, r.remoteAddress().getAddress());
        assertEquals(B_PORT, r.localAddress());

        Connection b = r.accept(qpB, params().withIrdOrd(4, 4).withPrivateData("world!".getBytes()));
        assertEquals(Connection.State.ESTABLISHED, b.state());
        assertInstanceOf(CmEvent.Established.class, chB.await(WAIT));
        assertEquals(3, b.ird(), "min(Initiator ORD 3, own IRD 4)");
        assertEquals(4, b.ord(), "min(own ORD 4, Initiator IRD 6)");
        assertEquals(6, b.peerIrd());
        assertArrayEquals("hello".getBytes(), b.peerPrivateData());
        assertEquals(Set.of(RtrForm.RDMA_WRITE, RtrForm.RDMA_READ), b.rtrForms());

        CmEvent.Established e = chA.await(CmEvent.Established.class, WAIT);
        assertEquals(a, e.connection());
        assertEquals(6, a.ird());
        assertEquals(3, a.ord(), "min(own ORD 3, Responder IRD 3)");
        assertEquals(3, a.peerIrd());
        assertEquals(4, a.peerOrd());
        assertArrayEquals("world!".getBytes(), a.peerPrivateData());
        assertEquals(Set.of(RtrForm.RDMA_WRITE), a.rtrForms());
        assertEquals(1444, a.mulpdu());
        assertTrue(a.initiator() && !b.initiator());
        assertEquals(B_PORT, a.remoteAddress());

        // what the queue pairs were given
        assertEquals(WqeOpcode.RDMA_WRITE, qpA.rtr, "the Initiator sends the RTR (MPA-50)");
        assertNull(qpB.rtr);
        assertFalse(qpB.receiveSendRtr);
        assertFalse(qpA.settings.holdTxUntilRx());
        assertTrue(qpB.settings.holdTxUntilRx(), "MPA-36");
        assertFalse(qpA.settings.txMarkers() || qpA.settings.rxMarkers());
        assertTrue(qpA.settings.crc() && qpB.settings.crc());
        assertEquals(6, qpA.settings.ird());
        assertEquals(3, qpA.settings.ord());
        TestNetwork.End endA = hostA.opened.get(0);
        assertEquals(qpA.slot, endA.handedOverTo, "handed to the QP's slot");
        assertEquals(qpB.slot, endA.peer.handedOverTo);
        int requestLength = 20 + 4 + 5;
        int replyLength = 20 + 4 + 6;
        assertEquals(1000 + requestLength, a.txSeqStart());
        assertEquals(9000 + replyLength, a.rxSeqStart(), "MPA-26: SeqStart right after the Reply");
        assertEquals(a.rxSeqStart(), qpA.settings.rxSeqStart());
        assertEquals(1000 + requestLength, b.rxSeqStart());
        assertEquals(0, endA.unreadAtHandOver.length);
        assertEquals(List.of("RTR", "hand-over"), qpA.log);
        assertEquals(QpState.RTS, qpA.state);
        assertEquals(QpState.RTS, qpB.state);
        assertEquals(0, chA.pending());
    }

    /** MPA-34, MPA-35: the blocking forms: connect() returns the established connection; getRequest/accept wait. */
    @Test
    void blockingConnectAndAccept() {
        List<Connection> accepted = new java.util.ArrayList<>();
        cmB.listen(B_PORT, autoAccept(params().withIrdOrd(2, 2), accepted));
        Connection a = cmA.connect(B_PORT, qpA, params().withIrdOrd(8, 8));
        assertEquals(Connection.State.ESTABLISHED, a.state());
        assertEquals(2, a.ord(), "ORD lowered to the Responder's IRD 2 (MPA-49)");
        assertEquals(1, accepted.size());
        assertEquals(2, accepted.get(0).ord());

        // the other way: A starts with events, B blocks in getRequest, then accepts
        ConnectionManager cmB2 = new ConnectionManager(hostB);
        Listener l = cmB2.listen(new InetSocketAddress("10.0.0.2", 4792));
        assertThrows(ConnectionTimeoutException.class, () -> l.getRequest(us(5)));
        TestEndpoint qpA2 = new TestEndpoint(1);
        TestEndpoint qpB2 = new TestEndpoint(0);
        CmEventChannel chA = cmA.createEventChannel();
        cmA.start(l.localAddress(), qpA2, params(), chA);
        net.onAdvance(cmA::progress);
        long t0 = net.now();
        ConnectionRequest r = l.getRequest(WAIT);
        assertTrue(net.now() - t0 < WAIT.toNanos());
        Connection b = r.accept(qpB2, params());
        assertThrows(IllegalStateException.class, () -> r.reject(null), "answered once");
        assertEquals(Connection.State.ESTABLISHED, b.state());
        assertEquals(Connection.State.ESTABLISHED, chA.await(CmEvent.Established.class, WAIT).connection().state());
    }

    /** MPA-34, MPA-35: a reject carries the Responder's private data; TCP stays open; the QP stays in INIT. */
    @Test
    void rejectWithPrivateData() {
        CmEventChannel chB = cmB.createEventChannel();
        net.onAdvance(() -> {
            CmEvent e = chB.poll();
            if (e instanceof CmEvent.ConnectRequest r) {
                r.request().reject("busy".getBytes());
            }
        });
        cmB.listen(B_PORT, chB);
        ConnectionRejectedException x = assertThrows(ConnectionRejectedException.class,
                () -> cmA.connect(B_PORT, qpA, params()));
        assertArrayEquals("busy".getBytes(), x.peerPrivateData());
        assertEquals(2, x.peerRev());
        assertEquals(4, x.peerOrd());
        assertFalse(hostA.opened.get(0).fin, "TCP left open after a reject (MPA-35)");
        assertEquals(QpState.INIT, qpA.state);
        assertNull(qpA.settings, "nothing programmed");

        // as an event, and the QP can be connected again afterwards
        CmEventChannel chA = cmA.createEventChannel();
        Connection c = cmA.start(B_PORT, qpA, params(), chA);
        CmEvent.Rejected e = chA.await(CmEvent.Rejected.class, WAIT);
        assertEquals(c, e.connection());
        assertEquals(Connection.State.FAILED, c.state());
        assertArrayEquals("busy".getBytes(), e.cause().peerPrivateData());
        c.disconnect();
        assertTrue(hostA.opened.get(1).fin, "disconnect of a rejected connection closes its TCP connection");
    }

    /** Nothing listening: the TCP open is refused (blocking: exception; events: Refused). */
    @Test
    void refused() {
        ConnectionRefusedException x = assertThrows(ConnectionRefusedException.class,
                () -> cmA.connect(B_PORT, qpA, params()));
        assertTrue(x.getMessage().contains("10.0.0.2:4791"), x.getMessage());
        Listener l = cmB.listen(B_PORT);
        l.close();
        CmEventChannel chA = cmA.createEventChannel();
        cmA.start(B_PORT, qpA, params(), chA);
        assertInstanceOf(CmEvent.Refused.class, chA.await(WAIT), "a closed listener refuses");
        assertEquals(QpState.INIT, qpA.state);
    }

    /** connectWhenListening tries again while refused, and connects once the peer listens; gives up after patience. */
    @Test
    void connectWhenListeningWaitsForTheListener() {
        InetSocketAddress late = new InetSocketAddress("10.0.0.2", 4999);
        long t0 = net.now();
        assertThrows(ConnectionRefusedException.class,
                () -> cmA.connectWhenListening(late, qpA, params(), us(20)));
        assertTrue(net.now() - t0 >= 20_000, "kept trying for the patience");
        assertTrue(hostA.opened.size() > 2, "several attempts: " + hostA.opened.size());
        List<Connection> accepted = new java.util.ArrayList<>();
        CmEventChannel chB = cmB.createEventChannel();
        long listenAt = net.now() + 30_000;
        net.onAdvance(() -> {
            if (net.now() == listenAt) {
                cmB.listen(late, chB);
            }
            CmEvent e = chB.poll();
            if (e instanceof CmEvent.ConnectRequest r) {
                accepted.add(r.request().accept(qpB, params()));
            }
        });
        Connection c = cmA.connectWhenListening(late, qpA, params(), us(100));
        assertEquals(Connection.State.ESTABLISHED, c.state());
        assertTrue(net.now() >= listenAt);
        assertEquals(1, accepted.size());
    }

    /**
     * MPA-38, MPA-39: timeouts are Durations of device time: a Responder that never answers makes the Initiator give
     * up after the timeout and close TCP; a connection that never sends its Request is dropped by the listener.
     */
    @Test
    void timeoutsAreDurations() {
        cmB.listen(B_PORT); // never progressed: TCP is accepted by the network, no Reply ever comes
        Duration timeout = us(50);
        long t0 = net.now();
        ConnectionTimeoutException x = assertThrows(ConnectionTimeoutException.class,
                () -> cmA.connect(B_PORT, qpA, params().withTimeout(timeout)));
        long waited = net.now() - t0;
        assertTrue(waited >= timeout.toNanos() && waited <= timeout.toNanos() + 3 * TestNetwork.TICK_NANOS,
                "gave up after " + waited + " ns");
        assertTrue(x.getMessage().contains("PT0.00005S"), x.getMessage());
        assertTrue(hostA.opened.get(0).fin, "TCP closed (MPA-39)");

        // the listener side: a TCP connection that sends no Request within the request timeout is closed
        InetSocketAddress port2 = new InetSocketAddress("10.0.0.2", 4800);
        CmEventChannel chB = cmB.createEventChannel();
        Listener l = cmB.listen(port2, us(20), chB);
        TestNetwork.End silent = (TestNetwork.End) hostA.connect(port2);
        assertNull(chB.await(us(40)), "no request event");
        assertEquals(1, l.droppedRequests().size());
        assertInstanceOf(ConnectionTimeoutException.class, l.droppedRequests().get(0));
        assertTrue(silent.peerFinished(), "closed by the listener (MPA-38)");
    }

    /** MPA-32, MPA-48: private data too long is refused before anything is sent, with the limit in the message. */
    @Test
    void privateDataTooLongIsRefusedBeforeSending() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> params().withPrivateData(new byte[509]));
        assertTrue(x.getMessage().contains("508") && x.getMessage().contains("MPA-48"), x.getMessage());
        params().withRev1().withPrivateData(new byte[512]);
        assertThrows(IllegalArgumentException.class, () -> params().withRev1().withPrivateData(new byte[513]));

        CmEventChannel chB = cmB.createEventChannel();
        cmB.listen(B_PORT, chB);
        net.onAdvance(cmA::progress);
        CmEventChannel chA = cmA.createEventChannel();
        cmA.start(B_PORT, qpA, params(), chA);
        ConnectionRequest r = chB.await(CmEvent.ConnectRequest.class, WAIT).request();
        TestNetwork.End server = hostA.opened.get(0).peer;
        assertThrows(IllegalArgumentException.class, () -> r.reject(new byte[509]));
        assertEquals(0, server.sentOctets().length, "nothing sent");
        assertFalse(r.answered());
        r.reject(new byte[508]);
        assertEquals(508, chA.await(CmEvent.Rejected.class, WAIT).cause().peerPrivateData().length);
    }

    /**
     * MPA-50, RFC 6581 §9.2: a Responder that cannot take the offered Send RTR (its application posted receives)
     * names the forms it supports; the Initiator adopts a Read RTR instead of failing.
     */
    @Test
    void responderAnswersADifferentRtrForm() {
        qpB.applicationReceives = true;
        List<Connection> accepted = new java.util.ArrayList<>();
        cmB.listen(B_PORT, autoAccept(params().withRtrForms(EnumSet.of(RtrForm.SEND, RtrForm.RDMA_READ)),
                accepted));
        Connection a = cmA.connect(B_PORT, qpA, params().withRtrForms(EnumSet.of(RtrForm.SEND)));
        assertEquals(WqeOpcode.RDMA_READ, qpA.rtr);
        assertEquals(Set.of(RtrForm.RDMA_READ), a.rtrForms());
        assertEquals(Set.of(RtrForm.RDMA_READ), accepted.get(0).rtrForms());
        assertTrue(accepted.get(0).ird() >= 1, "the Read RTR needs an IRD slot at the Responder");
    }

    /**
     * MPA-49, RFC 6581 §9.1: what another implementation may answer: an IRD lower or higher than the ORD asked
     * (ORD = min), an ORD above this side's IRD (IRD raised up to the device's MAX_IRD), an ORD above that limit
     * (Terminate 2/0/6 as the first FPDU, TCP closed).
     */
    @Test
    void responderAnswersOtherIrdOrd() throws Exception {
        int[][] cases = {
            // Reply IRD, ORD → Initiator IRD, ORD (asked: IRD 2, ORD 4; device limit 8)
            {1, 2, 2, 1},
            {16, 1, 2, 4},
            {4, 6, 6, 4},
        };
        int port = 5000;
        for (int[] c : cases) {
            TestNetwork n = new TestNetwork();
            TestNetwork.Host a = n.host("10.0.0.1");
            TestNetwork.Host b = n.host("10.0.0.2");
            InetSocketAddress where = new InetSocketAddress("10.0.0.2", port++);
            TestNetwork.Socket s = (TestNetwork.Socket) b.listen(where);
            byte[] reply = new MpaStartupFrame(true, false, true, false, 2,
                    new Enhanced(true, false, c[0], true, false, c[1]), null).encode();
            n.onAdvance(answerOnce(s, reply));
            TestEndpoint qp = new TestEndpoint(0);
            Connection conn = new ConnectionManager(a).connect(where, qp, params().withIrdOrd(2, 4));
            String id = java.util.Arrays.toString(c);
            assertEquals(c[2], conn.ird(), id);
            assertEquals(c[3], conn.ord(), id);
            assertEquals(c[2], qp.settings.ird(), id);
            assertEquals(c[3], qp.settings.ord(), id);
            assertEquals(c[0], conn.peerIrd(), id);
        }
        byte[] tooMuch = new MpaStartupFrame(true, false, true, false, 2,
                new Enhanced(true, false, 4, true, false, 9), null).encode();
        rawResponder(tooMuch);
        ConnectionException x = assertThrows(ConnectionException.class,
                () -> cmA.connect(B_PORT, qpA, params().withIrdOrd(2, 4)));
        assertEquals(MpaErrorCode.INSUFFICIENT_IRD, x.code());
        TestNetwork.End end = hostA.opened.get(0);
        assertTrue(end.fin);
        byte[] sent = end.sentOctets();
        int requestLength = 24;
        byte[] term = java.util.Arrays.copyOfRange(sent, requestLength, sent.length);
        assertArrayEquals(MpaFpdu.first(MpaFpdu.terminateUlpdu(0x20, 0x06, 0, new byte[0]), false), term,
                "Terminate 2/0/6 as the first FPDU");
        assertEquals(QpState.INIT, qpA.state);
    }

    private static Runnable answerOnce(TestNetwork.Socket s, byte[] reply) {
        TestNetwork.End[] conn = new TestNetwork.End[1];
        byte[] buf = new byte[600];
        int[] have = {0};
        return () -> {
            if (conn[0] == null) {
                conn[0] = (TestNetwork.End) s.accept();
            } else if (have[0] >= 0) {
                have[0] += conn[0].receive(buf, have[0], buf.length - have[0]);
                if (have[0] >= 20 && have[0] >= 20 + ((buf[18] & 0xFF) << 8 | buf[19] & 0xFF)) {
                    conn[0].send(reply);
                    have[0] = -1;
                }
            }
        };
    }

    /** E-M4 (MPA-28): a malformed Reply closes TCP and is a Failed event with error 4; the QP stays INIT. */
    @Test
    void malformedReplyIsAFailedEvent() {
        byte[] bad = new MpaStartupFrame(true, false, true, false, 2,
                new Enhanced(true, false, 4, true, false, 4), null).encode();
        bad[4] = 'X';
        rawResponder(bad);
        CmEventChannel chA = cmA.createEventChannel();
        cmA.start(B_PORT, qpA, params(), chA);
        CmEvent.Failed f = chA.await(CmEvent.Failed.class, WAIT);
        assertEquals(MpaErrorCode.INVALID_STARTUP_FRAME, f.cause().code());
        assertEquals(Connection.State.FAILED, f.connection().state());
        assertTrue(hostA.opened.get(0).fin);
        assertEquals(QpState.INIT, qpA.state);
    }

    /** E-M5, MPA-50: a QP that does not enter RTR after an enhanced negotiation: Terminate 2/0/5 and close. */
    @Test
    void queuePairThatCannotEnterRtr() {
        List<Connection> accepted = new java.util.ArrayList<>();
        cmB.listen(B_PORT, autoAccept(params(), accepted));
        qpA.failRtr = true;
        ConnectionException x = assertThrows(ConnectionException.class, () -> cmA.connect(B_PORT, qpA, params()));
        assertEquals(MpaErrorCode.ENHANCED_SETUP_FAILURE, x.code());
        assertTrue(x.getMessage().contains("Terminate 2/0/5"), x.getMessage());
        assertTrue(hostA.opened.get(0).fin);
    }

    /**
     * Misuse leaves nothing behind: a QP not in INIT, or one already being connected, is refused before any TCP
     * connection is opened.
     */
    @Test
    void queuePairMustBeInitAndUnbound() {
        qpA.state = QpState.RTS;
        assertThrows(WrongStateException.class, () -> cmA.connect(B_PORT, qpA, params()));
        assertEquals(0, hostA.opened.size(), "nothing opened");
        qpA.state = QpState.INIT;
        CmEventChannel chA = cmA.createEventChannel();
        cmA.start(B_PORT, qpA, params(), chA);
        assertThrows(IllegalStateException.class, () -> cmA.start(B_PORT, qpA, params(), chA));
        assertEquals(1, hostA.opened.size());
        assertThrows(IllegalArgumentException.class, () -> cmA.start(B_PORT, qpA, params(),
                cmB.createEventChannel()), "a channel of another manager");
    }

    /**
     * MPA-41, rdma_disconnect: outstanding sends complete first, then the QP goes to ERR (flushing the rest), then
     * TCP FIN; the peer sees Disconnected(PEER_CLOSED). When the sends do not complete within the wait, they are
     * flushed. A reset is reported as RESET.
     */
    @Test
    void disconnectIsOrderly() {
        CmEventChannel chA = cmA.createEventChannel();
        CmEventChannel chB = cmB.createEventChannel();
        List<Connection> accepted = new java.util.ArrayList<>();
        net.onAdvance(() -> {
            CmEvent e = chB.poll();
            if (e instanceof CmEvent.ConnectRequest r) {
                accepted.add(r.request().accept(qpB, params()));
            } else if (e != null) {
                chB.post(e); // keep others for the test
            }
        });
        cmB.listen(B_PORT, chB);
        Connection a = cmA.start(B_PORT, qpA, params(), chA);
        chA.await(CmEvent.Established.class, WAIT);
        qpA.outstanding = 5;
        TestNetwork.End end = hostA.opened.get(0);
        a.disconnect();
        assertEquals(List.of("RTR", "hand-over", "ERR with 0 outstanding (flushed)"), qpA.log,
                "the 5 sends completed before ERR");
        assertTrue(end.fin, "then FIN");
        assertEquals(Connection.State.DISCONNECTED, a.state());
        assertEquals(Connection.CloseReason.LOCAL, chA.await(CmEvent.Disconnected.class, WAIT).reason());
        a.disconnect(); // idempotent
        Connection b = accepted.get(0);
        CmEvent e = null;
        for (int i = 0; i < 10 && !(e instanceof CmEvent.Disconnected); i++) {
            e = chB.await(WAIT);
        }
        CmEvent.Disconnected d = assertInstanceOf(CmEvent.Disconnected.class, e);
        assertEquals(b, d.connection());
        assertEquals(Connection.CloseReason.PEER_CLOSED, d.reason());
        assertTrue(b.peerClosed());

        // stuck sends: flushed after the wait
        TestEndpoint qpC = new TestEndpoint(1);
        TestEndpoint qpD = new TestEndpoint(0);
        ConnectionManager cmD = new ConnectionManager(hostB);
        CmEventChannel chD = cmD.createEventChannel();
        InetSocketAddress port2 = new InetSocketAddress("10.0.0.2", 4793);
        Connection[] dSide = new Connection[1];
        net.onAdvance(() -> {
            CmEvent x = chD.poll();
            if (x instanceof CmEvent.ConnectRequest r) {
                dSide[0] = r.request().accept(qpD, params());
            }
        });
        cmD.listen(port2, chD);
        Connection c = cmA.connect(port2, qpC, params());
        qpC.outstanding = 3;
        qpC.stuck = true;
        long t0 = net.now();
        c.disconnect(us(10));
        assertTrue(net.now() - t0 >= 10_000, "waited for the sends");
        assertEquals("ERR with 3 outstanding (flushed)", qpC.log.get(2));
        // a reset by the peer
        TestNetwork.End cEnd = hostA.opened.get(1);
        assertTrue(cEnd.fin);
        dSide[0].disconnect();
        assertEquals(Connection.State.DISCONNECTED, dSide[0].state());
    }

    /** A reset connection is reported as Disconnected(RESET). */
    @Test
    void resetIsReported() {
        CmEventChannel chA = cmA.createEventChannel();
        List<Connection> accepted = new java.util.ArrayList<>();
        cmB.listen(B_PORT, autoAccept(params(), accepted));
        Connection a = cmA.start(B_PORT, qpA, params(), chA);
        chA.await(CmEvent.Established.class, WAIT);
        hostA.opened.get(0).peer.abort();
        CmEvent.Disconnected d = chA.await(CmEvent.Disconnected.class, WAIT);
        assertEquals(Connection.CloseReason.RESET, d.reason());
        assertEquals(a, d.connection());
        assertTrue(a.peerClosed());
    }
}
