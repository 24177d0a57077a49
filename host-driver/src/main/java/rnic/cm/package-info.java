/**
 * The connection manager (modelled on librdmacm): RDMA connections by address and port, with the MPA startup of
 * RFC 5044 §7.1 and the enhanced connection setup of RFC 6581 (§§5–9: IRD/ORD, peer-to-peer RTR), apart from the
 * verbs. Queue pairs are created with {@code rnic.verbs} and bound to a connection when it is made; the core's
 * connection slot (the QP number) never appears here.
 *
 * <pre>{@code
 * // host b (10.0.0.2): listen, take a request, look at it, accept with a queue pair
 * ConnectionManager cm = new ConnectionManager(device);
 * Listener listener = cm.listen(new InetSocketAddress("10.0.0.2", 4791));
 * ConnectionRequest req = listener.getRequest(Duration.ofMillis(10));   // private data, IRD/ORD, RTR, M, C
 * Connection conn = req.accept(qp, ConnectParams.defaults().withPrivateData(myKeys));
 *
 * // host a: connect a queue pair; or asynchronously with events
 * Connection c = cm.connect(new InetSocketAddress("10.0.0.2", 4791), qp, ConnectParams.defaults());
 * CmEventChannel ch = cm.createEventChannel();
 * cm.startConnect(remote, qp2, ConnectParams.defaults(), ch);
 * if (ch.await(Duration.ofMillis(5)) instanceof CmEvent.Established e) { ... }
 * c.disconnect();   // outstanding sends complete or are flushed, then TCP FIN
 * }</pre>
 */
package rnic.cm;
