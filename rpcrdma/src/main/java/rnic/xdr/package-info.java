/**
 * XDR, the External Data Representation of RFC 4506: big-endian 4-octet units, opaque data and strings padded with
 * zero octets to a multiple of four. {@link rnic.xdr.XdrEncoder} also records which opaque items the upper layer
 * marked DDP-eligible (RFC 8166 §3.4.2), so RPC-over-RDMA can move them in chunks; {@link rnic.xdr.XdrDecoder} takes
 * such items back from chunks.
 */
package rnic.xdr;
