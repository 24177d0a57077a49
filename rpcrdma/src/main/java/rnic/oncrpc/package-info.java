/**
 * ONC RPC version 2 (RFC 5531) over RPC-over-RDMA: {@link rnic.oncrpc.RpcClient} and {@link rnic.oncrpc.RpcServer}
 * with program/version/procedure dispatch, AUTH_NONE and AUTH_SYS, every accept and reject status, XID matching and
 * timeouts as {@link java.time.Duration}. The upper layer binding (RFC 8166 §6, RPCRDMA-22) of a program is where its
 * procedures encode and decode: an item written with {@link rnic.xdr.XdrEncoder#ddpOpaque} and read with
 * {@link rnic.xdr.XdrDecoder#ddpOpaque} is DDP-eligible, nothing else is.
 */
package rnic.oncrpc;
