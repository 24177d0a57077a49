package rnic.model.rdmap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import rnic.model.TestMemory;
import rnic.model.ddp.DdpSegment;
import rnic.model.ddp.StagTable;
import rnic.model.ddp.TerminateException;
import rnic.model.rdmap.EndpointAction.Outbound;
import rnic.model.rdmap.RdmapEndpoint.QpConfig;
import rnic.model.rdmap.RdmapEndpoint.Source;

/**
 * Two {@link RdmapEndpoint}s wired back to back for tests: every segment one sends on QP q goes straight into the
 * other's {@code receive} on QP q (an in-order stream per QP and direction, as MPA/TCP gives). Each side has its own
 * memory and a log of every action it produced, in order.
 */
final class EndpointLink {
    final TestMemory memA = new TestMemory();
    final TestMemory memB = new TestMemory();
    final RdmapEndpoint a;
    final RdmapEndpoint b;
    final List<EndpointAction> logA = new ArrayList<>();
    final List<EndpointAction> logB = new ArrayList<>();
    private final List<QpConfig> configA;
    private final List<QpConfig> configB;

    EndpointLink(List<QpConfig> configA, List<QpConfig> configB) {
        this.configA = configA;
        this.configB = configB;
        a = new RdmapEndpoint(memA, configA);
        b = new RdmapEndpoint(memB, configB);
    }

    /** The same configuration on both sides. */
    EndpointLink(List<QpConfig> config) {
        this(config, config);
    }

    /** A QP configuration. */
    static QpConfig qp(int pd, int ird, int ord, int mulpdu) {
        return new QpConfig(pd, ird, ord, mulpdu);
    }

    /** A registered buffer. */
    static StagTable.Region region(int stag, int pd, OptionalInt qp, long va, long length, boolean zeroBased,
            StagTable.Access... rights) {
        return new StagTable.Region(stag, pd, qp, Set.of(rights), va, length, zeroBased);
    }

    /**
     * One segment from side A ({@code fromA}) or B on {@code qp}, from {@code source} or (null) by the endpoint's own
     * priority, delivered to the other side. Returns whether anything was sent.
     */
    boolean step(boolean fromA, int qp, Source source) {
        RdmapEndpoint from = fromA ? a : b;
        RdmapEndpoint to = fromA ? b : a;
        List<EndpointAction> sent = source == null ? from.transmit(qp) : from.transmit(qp, source);
        if (sent.isEmpty()) {
            return false;
        }
        (fromA ? logA : logB).addAll(sent);
        int mulpdu = (fromA ? configA : configB).get(qp).mulpdu();
        for (EndpointAction x : sent) {
            if (x instanceof Outbound o) {
                if (o.ulpdu().length > mulpdu) {
                    throw new AssertionError(o + " exceeds MULPDU " + mulpdu + " (DDP-17)");
                }
                (fromA ? logB : logA).addAll(to.receive(qp, o.ulpdu()));
            }
        }
        return true;
    }

    /** Sends everything either side can send, one segment at a time, QP by QP, until both are quiet. */
    void pump() {
        boolean progress = true;
        while (progress) {
            progress = false;
            for (int qp = 0; qp < configA.size(); qp++) {
                progress |= step(true, qp, null);
                progress |= step(false, qp, null);
            }
        }
    }

    /**
     * One segment from a random side, QP and source among those that can send; false when none can. This is what a
     * scheduler does: any interleaving of the two directions and of responses with requests is legal.
     */
    boolean randomStep(Random rng) {
        List<int[]> ready = new ArrayList<>();
        for (int side = 0; side < 2; side++) {
            RdmapEndpoint e = side == 0 ? a : b;
            for (int qp = 0; qp < configA.size(); qp++) {
                for (Source s : Source.values()) {
                    if (e.canTransmit(qp, s)) {
                        ready.add(new int[] {side, qp, s.ordinal()});
                    }
                }
            }
        }
        if (ready.isEmpty()) {
            return false;
        }
        int[] pick = ready.get(rng.nextInt(ready.size()));
        return step(pick[0] == 0, pick[1], Source.values()[pick[2]]);
    }

    /** The actions of one type in a log, in order. */
    static <T extends EndpointAction> List<T> of(List<EndpointAction> log, Class<T> type) {
        return log.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** The segments a log sent, parsed. */
    static List<DdpSegment> sent(List<EndpointAction> log) {
        return of(log, Outbound.class).stream().map(o -> parse(o.ulpdu())).toList();
    }

    /** A segment the model sent, which must parse. */
    static DdpSegment parse(byte[] ulpdu) {
        try {
            return DdpSegment.parse(ulpdu);
        } catch (TerminateException e) {
            throw new AssertionError("the model sent an unparsable segment " + Arrays.toString(ulpdu), e);
        }
    }

    /** {@code n} random octets. */
    static byte[] random(Random rng, int n) {
        byte[] b = new byte[n];
        rng.nextBytes(b);
        return b;
    }

    /** {@code value} as 8 little-endian octets, written out here rather than taken from the model (T-26). */
    static byte[] le(long value) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (value >> (8 * i));
        }
        return b;
    }
}
