/**
 * RPC-over-RDMA (module rnic-rpcrdma) between two simulated RNICs: a small block service ({@link rnic.rpc.BlockService})
 * served by host b and called by host a through the real driver, and {@code ./rnic demo rpc} ({@link rnic.rpc.RpcDemo}).
 */
package rnic.rpc;
