package rnic.rpc;

import java.net.InetSocketAddress;
import java.time.Duration;
import rnic.cm.ConnectParams;
import rnic.cm.Connection;
import rnic.cm.ConnectionManager;
import rnic.cm.Listener;
import rnic.oncrpc.Rpc;
import rnic.rpcrdma.RpcRdmaConfig;
import rnic.rpcrdma.RpcRdmaRequester;
import rnic.rpcrdma.RpcRdmaResponder;
import rnic.transport.Transport;
import rnic.verbs.CompletionQueue;
import rnic.verbs.Device;
import rnic.verbs.ProtectionDomain;
import rnic.verbs.QueuePair;

/**
 * Connection setup of the two RPC hosts on the real driver: b listens on 10.0.0.2 port 20049 (the port IANA gave
 * NFS/RDMA, RPCRDMA-35) and accepts into a queue pair whose {@link RpcRdmaResponder} has posted its receive buffers
 * before (RPCRDMA-05); a connects with an {@link RpcRdmaRequester} likewise set up first. MPA with CRC, no Markers
 * (Wireshark 4.0 decodes unmarked streams in every case).
 */
public final class RpcHosts {
    private RpcHosts() {
    }

    /** Where b listens. */
    public static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.2", Rpc.NFS_RDMA_PORT);

    /** Device time for connection setup. */
    public static final Duration CONNECT = Duration.ofMillis(8);

    static QueuePair queuePair(Device dev, ProtectionDomain pd) {
        CompletionQueue scq = dev.createCompletionQueue(256);
        CompletionQueue rcq = dev.createCompletionQueue(128);
        return pd.createQueuePair(new QueuePair.Config(scq, rcq, 64, 64, 64, 0));
    }

    static ConnectParams params() {
        return ConnectParams.defaults().withReceiveMarkers(false).withCrc(true).withTimeout(CONNECT);
    }

    /** Host b's end: the responder on an accepted connection. */
    public record Server(Device device, QueuePair qp, RpcRdmaResponder responder, Connection connection) {
    }

    /** Host a's end: the requester on a connected queue pair. */
    public record Client(Device device, QueuePair qp, RpcRdmaRequester requester, Connection connection) {
    }

    /** Opens the device of {@code t}, listens, posts the responder's receives, accepts one connection. */
    public static Server serve(Transport t, RpcRdmaConfig config, Runnable listening) {
        Device dev = Device.open(t);
        ProtectionDomain pd = dev.allocateProtectionDomain();
        QueuePair qp = queuePair(dev, pd);
        RpcRdmaResponder r = RpcRdmaResponder.open(qp, config);
        Listener l = new ConnectionManager(dev).listen(SERVER);
        listening.run();
        Connection c = l.accept(qp, params(), CONNECT);
        return new Server(dev, qp, r, c);
    }

    /** Opens the device of {@code t}, posts the requester's receives, connects to b. */
    public static Client connect(Transport t, RpcRdmaConfig config) {
        Device dev = Device.open(t);
        ProtectionDomain pd = dev.allocateProtectionDomain();
        QueuePair qp = queuePair(dev, pd);
        RpcRdmaRequester r = RpcRdmaRequester.open(qp, config);
        Connection c = new ConnectionManager(dev).connectWhenListening(SERVER, qp, params(), CONNECT);
        return new Client(dev, qp, r, c);
    }
}
