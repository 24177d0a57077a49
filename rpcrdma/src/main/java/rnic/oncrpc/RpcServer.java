package rnic.oncrpc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import rnic.rpcrdma.RpcRdmaResponder;
import rnic.xdr.XdrDecoder;
import rnic.xdr.XdrEncoder;
import rnic.xdr.XdrException;

/**
 * An ONC RPC server (RFC 5531): programs by number and version, procedures by number, AUTH_NONE and AUTH_SYS. It is
 * the {@link RpcRdmaResponder.Handler} of an RPC-over-RDMA responder.
 *
 * <p>Outcomes (RFC 5531 §9): rpcvers ≠ 2 → MSG_DENIED RPC_MISMATCH 2…2; a credential that does not decode or of a
 * flavor other than AUTH_NONE/AUTH_SYS → AUTH_ERROR AUTH_BADCRED; AUTH_NONE to a program that wants AUTH_SYS →
 * AUTH_TOOWEAK; unknown program → PROG_UNAVAIL; known program, other version → PROG_MISMATCH with the lowest and
 * highest served; unknown procedure → PROC_UNAVAIL; arguments that do not decode → GARBAGE_ARGS (also what
 * RPCRDMA-27 asks for a valid transport header with unparseable RPC arguments); a procedure that throws → SYSTEM_ERR.
 * A Read chunk at a position where the arguments hold no DDP-eligible item is answered ERR_CHUNK by the transport
 * (RPCRDMA-23).
 */
public final class RpcServer implements RpcRdmaResponder.Handler {
    /** One procedure: decode the arguments from {@code args}, encode the results into {@code results}. */
    @FunctionalInterface
    public interface Procedure {
        void call(Context ctx, XdrDecoder args, XdrEncoder results);
    }

    /** Who called what. */
    public record Context(int xid, int program, int version, int procedure, Auth credential, Auth.Sys sys) {
    }

    /** A program version: its procedures, and whether AUTH_SYS is required. */
    public record Program(int program, int version, Map<Integer, Procedure> procedures, boolean requireAuthSys) {
        public Program {
            procedures = Map.copyOf(procedures);
        }
    }

    private final Map<Integer, TreeMap<Integer, Program>> programs = new TreeMap<>();
    private final List<String> log = new ArrayList<>();

    /** Serves {@code p} (replacing the same program and version). */
    public RpcServer register(Program p) {
        programs.computeIfAbsent(p.program(), k -> new TreeMap<>()).put(p.version(), p);
        return this;
    }

    /** One line per call: xid, program/version/procedure, outcome. */
    public List<String> log() {
        return List.copyOf(log);
    }

    private static XdrEncoder header(int xid) {
        return new XdrEncoder().int32(xid).int32(Rpc.REPLY);
    }

    private static XdrEncoder accepted(int xid, AcceptStat s) {
        return header(xid).int32(Rpc.MSG_ACCEPTED).int32(Auth.AUTH_NONE).int32(0).int32(s.code());
    }

    private RpcRdmaResponder.Outcome denied(int xid, AuthStat s) {
        log.add(String.format("xid 0x%08x AUTH_ERROR %s", xid, s));
        return RpcRdmaResponder.Outcome.reply(header(xid).int32(Rpc.MSG_DENIED).int32(Rpc.AUTH_ERROR).int32(s.code()));
    }

    private RpcRdmaResponder.Outcome accept(int xid, AcceptStat s, String what) {
        log.add(String.format("xid 0x%08x %s %s", xid, what, s));
        return RpcRdmaResponder.Outcome.reply(accepted(xid, s));
    }

    @Override
    public RpcRdmaResponder.Outcome handle(RpcRdmaResponder.IncomingCall call) {
        XdrDecoder d = new XdrDecoder(call.message());
        int xid = call.xid();
        int prog;
        int vers;
        int proc;
        Auth cred;
        try {
            d.int32();
            int type = d.int32();
            if (type != Rpc.CALL) {
                return accept(xid, AcceptStat.GARBAGE_ARGS, "msg_type " + type);
            }
            int rpcvers = d.int32();
            if (rpcvers != Rpc.RPC_VERSION) {
                log.add(String.format("xid 0x%08x RPC_MISMATCH (rpcvers %d)", xid, rpcvers));
                return RpcRdmaResponder.Outcome.reply(header(xid).int32(Rpc.MSG_DENIED).int32(Rpc.RPC_MISMATCH)
                        .int32(Rpc.RPC_VERSION).int32(Rpc.RPC_VERSION));
            }
            prog = d.int32();
            vers = d.int32();
            proc = d.int32();
            cred = Auth.decode(d);
            Auth.decode(d); // verifier: AUTH_NONE or anything, not checked for these flavors
        } catch (XdrException e) {
            // a valid transport header with an RPC message that does not parse (RPCRDMA-27)
            return accept(xid, AcceptStat.GARBAGE_ARGS, "call header: " + e.getMessage());
        }
        Auth.Sys sys = null;
        if (cred.flavor() == Auth.AUTH_SYS) {
            try {
                sys = Auth.Sys.decode(cred.body());
            } catch (XdrException | IllegalArgumentException e) {
                return denied(xid, AuthStat.AUTH_BADCRED);
            }
        } else if (cred.flavor() != Auth.AUTH_NONE) {
            return denied(xid, AuthStat.AUTH_BADCRED);
        }
        String what = prog + "/" + vers + "/" + proc;
        TreeMap<Integer, Program> versions = programs.get(prog);
        if (versions == null) {
            return accept(xid, AcceptStat.PROG_UNAVAIL, what);
        }
        Program p = versions.get(vers);
        if (p == null) {
            log.add(String.format("xid 0x%08x %s PROG_MISMATCH", xid, what));
            return RpcRdmaResponder.Outcome.reply(accepted(xid, AcceptStat.PROG_MISMATCH)
                    .int32(versions.firstKey()).int32(versions.lastKey()));
        }
        if (p.requireAuthSys() && sys == null) {
            return denied(xid, AuthStat.AUTH_TOOWEAK);
        }
        Procedure f = p.procedures().get(proc);
        if (f == null) {
            return accept(xid, AcceptStat.PROC_UNAVAIL, what);
        }
        XdrEncoder results = new XdrEncoder();
        int argsAt = d.position();
        XdrDecoder args = new XdrDecoder(call.message(), argsAt, call.message().length - argsAt);
        try {
            f.call(new Context(xid, prog, vers, proc, cred, sys), args, results);
        } catch (XdrException e) {
            return accept(xid, AcceptStat.GARBAGE_ARGS, what + ": " + e.getMessage());
        } catch (RuntimeException e) {
            return accept(xid, AcceptStat.SYSTEM_ERR, what + ": " + e);
        }
        // every Read chunk must have held a DDP-eligible argument (RPCRDMA-23)
        List<Integer> eligible = new ArrayList<>();
        for (int pos : args.ddpPositions()) {
            eligible.add(pos + argsAt);
        }
        for (int pos : call.readChunkPositions()) {
            if (!eligible.contains(pos)) {
                log.add(String.format("xid 0x%08x %s ERR_CHUNK (Read chunk at %d)", xid, what, pos));
                return RpcRdmaResponder.Outcome.errChunk("a Read chunk at Position " + pos
                        + " holds an item that is not DDP-eligible (RPCRDMA-23)");
            }
        }
        log.add(String.format("xid 0x%08x %s SUCCESS", xid, what));
        return RpcRdmaResponder.Outcome.reply(accepted(xid, AcceptStat.SUCCESS).append(results));
    }
}
