package rnic.cm;

import rnic.driver.MpaSettings;
import rnic.verbs.QueuePair;
import rnic.verbs.WrongStateException;
import rnic.wire.QpState;
import rnic.wire.WqeOpcode;

/** A verbs queue pair as the endpoint of a connection: slot = QP number. */
final class QpEndpoint implements Endpoint {
    private final QueuePair qp;

    QpEndpoint(QueuePair qp) {
        if (qp == null) {
            throw new IllegalArgumentException("queue pair is null");
        }
        this.qp = qp;
    }

    @Override
    public int slot() {
        return qp.number();
    }

    @Override
    public String describe() {
        return "QP " + qp.number();
    }

    @Override
    public void requireInit(String what) {
        QpState s = qp.state();
        if (s != QpState.INIT) {
            throw new WrongStateException(s, "QP " + qp.number() + " must be in INIT to " + what + ", it is in " + s);
        }
    }

    @Override
    public boolean canTakeSendRtr() {
        return qp.recvQueueFree() == qp.recvQueueDepth();
    }

    @Override
    public int irdLimit() {
        return qp.protectionDomain().device().maxIrd();
    }

    @Override
    public int enterFullOperation(MpaSettings settings, WqeOpcode rtr, boolean receiveSendRtr,
            rnic.transport.TcpConnection tcp) {
        return qp.enterFullOperation(settings, rtr, receiveSendRtr, tcp);
    }

    @Override
    public int sendOutstanding() {
        return qp.isClosed() ? 0 : qp.sendOutstanding();
    }

    @Override
    public void stop() {
        if (!qp.isClosed() && qp.state() != QpState.RESET) {
            qp.modify(QpState.ERR);
        }
    }

    @Override
    public QueuePair queuePair() {
        return qp;
    }
}
