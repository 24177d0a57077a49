package rnic.sim.tcp;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import rnic.transport.TcpConnection;
import rnic.transport.TcpListener;

/**
 * Where a simulated core's TCP connections come from: a host of the simulated {@link TcpNetwork}
 * ({@link TcpNetwork.Host}) or real kernel sockets ({@link KernelTcp.Host}). Either way every connection is a
 * {@link TcpEnd} that hands over to one of the core's connection slots through the {@link TcpEnd.SlotBinder} set
 * here; {@code rnic.sim.SimTransport} forwards the driver's {@code listen}/{@code connect} to it.
 */
public interface TcpHost {
    /** The address this host's listeners and connections use (may be the any-address for kernel sockets). */
    InetAddress address();

    /** A passive endpoint on {@code local} (this host's address or the any-address; port 0 picks one). */
    TcpListener listen(InetSocketAddress local);

    /** An active open to {@code remote}: established or refused later, as the simulation runs. */
    TcpConnection connect(InetSocketAddress remote);

    /** The core's slots every end of this host hands over to. */
    TcpHost slots(TcpEnd.SlotBinder slots);
}
