/**
 * RPC-over-RDMA version 1 (RFC 8166; requirements RPCRDMA-01 … RPCRDMA-36 of docs/requirements.md §1.4 and §5) over
 * the verbs API of {@code rnic.verbs}: the transport header ({@link rnic.rpcrdma.RpcRdmaHeader}), the chunk lists, the
 * requester ({@link rnic.rpcrdma.RpcRdmaRequester}) and responder ({@link rnic.rpcrdma.RpcRdmaResponder}) ends with
 * credits, inline thresholds, chunk moves by RDMA Read and Write, invalidation and every error reply.
 */
package rnic.rpcrdma;
