package rnic.cm;

import java.util.ArrayList;
import java.util.List;
import rnic.driver.MpaSettings;
import rnic.verbs.DeviceException;
import rnic.verbs.QueuePair;
import rnic.verbs.WrongStateException;
import rnic.wire.QpState;
import rnic.wire.WqeOpcode;

/**
 * Stands in for a queue pair of a device in the connection manager's tests: records what the manager programs and
 * in which order it acts (its QP state follows INIT → RTS → ERR as the core's would). Sends outstanding complete one
 * per device tick, as the core would work them off.
 */
final class TestEndpoint implements Endpoint {
    final int slot;
    QpState state = QpState.INIT;
    MpaSettings settings;
    WqeOpcode rtr;
    boolean receiveSendRtr;
    boolean failRtr;
    int outstanding;
    boolean stuck;
    boolean applicationReceives;
    int irdLimit = 8;
    final List<String> log = new ArrayList<>();

    TestEndpoint(int slot) {
        this.slot = slot;
    }

    @Override
    public int slot() {
        return slot;
    }

    @Override
    public String describe() {
        return "QP " + slot;
    }

    @Override
    public void requireInit(String what) {
        if (state != QpState.INIT) {
            throw new WrongStateException(state, "QP " + slot + " must be in INIT to " + what);
        }
    }

    @Override
    public boolean canTakeSendRtr() {
        return !applicationReceives;
    }

    @Override
    public int irdLimit() {
        return irdLimit;
    }

    @Override
    public int enterFullOperation(MpaSettings s, WqeOpcode rtrToSend, boolean receiveRtr,
            rnic.transport.TcpConnection tcp) {
        requireInit("be connected");
        if (failRtr) {
            state = QpState.ERR;
            throw new DeviceException("QP " + slot + " did not enter RTR (QP_STATE reads ERR)");
        }
        settings = s;
        rtr = rtrToSend;
        receiveSendRtr = receiveRtr;
        state = QpState.RTR;
        log.add("RTR");
        tcp.handOver(slot);
        log.add("hand-over");
        state = QpState.RTS;
        return 1444;
    }

    /** Counts one tick of the core's work. */
    void tick() {
        if (outstanding > 0 && !stuck && state == QpState.RTS) {
            outstanding--;
        }
    }

    @Override
    public int sendOutstanding() {
        return outstanding;
    }

    @Override
    public void stop() {
        log.add("ERR with " + outstanding + " outstanding (flushed)");
        outstanding = 0;
        state = QpState.ERR;
    }

    @Override
    public QueuePair queuePair() {
        return null;
    }
}
