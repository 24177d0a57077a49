/**
 * TCP between simulated RNICs: {@link rnic.sim.tcp.TcpChannel} carries one connection (connection q of RNIC a to
 * connection q of RNIC b) either through a Java model with re-segmentation, delay, loss and retransmission and a receive
 * window ({@link rnic.sim.tcp.TcpChannel.Mode#MODEL}, MPA-23, DDP-02, DDP-03) or through a real Linux TCP
 * connection on 127.0.0.1 ({@link rnic.sim.tcp.TcpChannel.Mode#KERNEL}). Each end ({@link rnic.sim.tcp.TcpEnd}) is the
 * host's {@code rnic.transport.TcpConnection} for the MPA startup and hands both directions over to its core at an
 * exact octet (MPA-26); {@link rnic.sim.tcp.TcpRxDriver} and {@link rnic.sim.tcp.TcpTxMonitor} connect an end to the
 * core's {@code tcpRx_<q>} / {@code tcpTx_<q>} ports. {@link rnic.sim.tcp.TcpWireCapture} writes what crosses the wire
 * into a pcap that Wireshark decodes as iWARP.
 *
 * <p>{@link rnic.sim.tcp.TcpNetwork} is the simulated network the channels live in: hosts with IPv4 addresses,
 * listeners, active opens from ephemeral ports (established or refused after a short handshake), options per
 * destination port or per connection, FIN and RST. {@link rnic.sim.tcp.TcpSlots} are a core's connection slots:
 * {@code handOver(slot)} binds an end to a slot, whose {@link rnic.sim.tcp.TcpRxDriver} and
 * {@link rnic.sim.tcp.TcpTxMonitor} then serve that end (unbound: idle, and tcpTx back-pressured).
 */
package rnic.sim.tcp;
