/**
 * TCP between simulated RNICs: {@link rnic.sim.tcp.TcpChannel} carries one connection (connection q of RNIC a to
 * connection q of RNIC b) either through a Java model with re-segmentation, delay, loss and retransmission and a receive
 * window ({@link rnic.sim.tcp.TcpChannel.Mode#MODEL}, MPA-23, DDP-02, DDP-03) or through a real Linux TCP
 * connection on 127.0.0.1 ({@link rnic.sim.tcp.TcpChannel.Mode#KERNEL}). Each end ({@link rnic.sim.tcp.TcpEnd}) is the
 * host's {@code rnic.transport.TcpConnection} for the MPA startup and hands both directions over to its core at an
 * exact octet (MPA-26); {@link rnic.sim.tcp.TcpRxDriver} and {@link rnic.sim.tcp.TcpTxMonitor} connect an end to the
 * core's {@code tcpRx_<q>} / {@code tcpTx_<q>} ports. {@link rnic.sim.tcp.TcpWireCapture} writes what crosses the wire
 * into a pcap that Wireshark decodes as iWARP.
 */
package rnic.sim.tcp;
