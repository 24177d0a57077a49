package rnic.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import spinal.lib.Stream;
import spinal.lib.bus.amba4.axi.Axi4;
import spinal.lib.bus.amba4.axi.Axi4Ar;
import spinal.lib.bus.amba4.axi.Axi4Aw;
import spinal.lib.bus.amba4.axi.Axi4Ax;
import spinal.lib.bus.amba4.axi.Axi4B;
import spinal.lib.bus.amba4.axi.Axi4R;
import spinal.lib.bus.amba4.axi.Axi4ReadOnly;
import spinal.lib.bus.amba4.axi.Axi4W;
import spinal.lib.bus.amba4.axi.Axi4WriteOnly;

/**
 * Serves a design's AXI4 master port (the engines' memory port, {@code rnic.hw.ddp.MemoryPort}) from a
 * {@link HostMemory}, as a host DMA bridge or a RAM controller would, and checks every transfer against the AXI4
 * rules and the port's own promises. Any violation fails the test at once with the cycle and the channel.
 *
 * <p><b>Timing.</b> {@code AWREADY}, {@code WREADY} and {@code ARREADY} follow their {@link Pacer}s (back-pressure);
 * {@code BVALID} and {@code RVALID} are raised when the response is due and the pacer allows (idle cycles), and then
 * held until taken. A read burst's data is due {@link #withReadLatency read latency} cycles after its AR was taken, a
 * write response {@link #withWriteLatency write latency} cycles after the burst's last W beat; any number of bursts
 * may be outstanding (up to {@link #withMaxOutstanding}), and responses come back in order (legal for any ID use).
 *
 * <p><b>Checks.</b> On AW and AR: INCR bursts only, {@code AxSIZE} = log2(W/8) (full-width beats), no burst crossing a
 * 4 KiB boundary (len ≤ 255 is implied by the 8-bit field). On W: no beat before its burst's AW was taken (the port
 * issues addresses first), {@code WLAST} on exactly the last beat, strobes only on the burst's octets (from the
 * possibly unaligned start address to the end of its last beat), and one contiguous strobed run per burst (no holes).
 * On every channel the design drives: a valid that was not taken stays valid with the same payload. B and R must be
 * taken eventually: {@link #busy()} stays true while anything is outstanding.
 *
 * <p><b>Errors.</b> A burst whose octets meet a {@link #withFault fault range} is answered SLVERR (B, or every R beat
 * of the burst with zero data) and does not write memory, so a design's error paths can be driven. Every range the
 * design reads or writes — refused ones included — is reported to the memory's {@link HostMemory.AccessListener}s.
 */
public final class Axi4MemorySlave implements Agent {
    private static final int OKAY = 0;
    private static final int SLVERR = 2;
    private static final int INCR = 1;

    private final Tb<?> tb;
    private final HostMemory memory;
    private final String name;
    private final int octets;
    private final WriteSide write;
    private final ReadSide read;
    private final List<long[]> faults = new ArrayList<>();
    private int readLatency = 1;
    private int writeLatency = 1;
    private int maxOutstanding = Integer.MAX_VALUE;

    private Axi4MemorySlave(Tb<?> tb, HostMemory memory, String name, int dataWidth, Stream<Axi4Aw> aw,
            Stream<Axi4W> w, Stream<Axi4B> b, Stream<Axi4Ar> ar, Stream<Axi4R> r) {
        this.tb = tb;
        this.memory = memory;
        this.name = name;
        this.octets = dataWidth / 8;
        this.write = aw == null ? null : new WriteSide(aw, w, b);
        this.read = ar == null ? null : new ReadSide(ar, r);
    }

    /** Serves both halves of a full AXI4 port. */
    public static Axi4MemorySlave on(Tb<?> tb, Axi4 port, HostMemory memory) {
        return tb.add(new Axi4MemorySlave(tb, memory, port.getName(), port.config().dataWidth(), port.aw(), port.w(),
                port.b(), port.ar(), port.r()));
    }

    /** Serves a write-only port (AW, W, B). */
    public static Axi4MemorySlave on(Tb<?> tb, Axi4WriteOnly port, HostMemory memory) {
        return tb.add(new Axi4MemorySlave(tb, memory, port.getName(), port.config().dataWidth(), port.aw(), port.w(),
                port.b(), null, null));
    }

    /** Serves a read-only port (AR, R). */
    public static Axi4MemorySlave on(Tb<?> tb, Axi4ReadOnly port, HostMemory memory) {
        return tb.add(new Axi4MemorySlave(tb, memory, port.getName(), port.config().dataWidth(), null, null, null,
                port.ar(), port.r()));
    }

    // ------------------------------------------------------------------------------------------- configuration

    /** Paces the channels: ready of AW, W and AR; valid of B and R (a response is only shown when its pacer allows). */
    public Axi4MemorySlave withPacing(Pacer awReady, Pacer wReady, Pacer bValid, Pacer arReady, Pacer rValid) {
        if (write != null) {
            write.awReady = awReady;
            write.wReady = wReady;
            write.bValid = bValid;
        }
        if (read != null) {
            read.arReady = arReady;
            read.rValid = rValid;
        }
        return this;
    }

    /** Cycles from an AR being taken to its first R beat being due (at least 1). */
    public Axi4MemorySlave withReadLatency(int cycles) {
        if (cycles < 1) {
            throw new IllegalArgumentException("read latency must be at least 1 cycle, got " + cycles);
        }
        readLatency = cycles;
        return this;
    }

    /** Cycles from a burst's last W beat being taken to its B being due (at least 1). */
    public Axi4MemorySlave withWriteLatency(int cycles) {
        if (cycles < 1) {
            throw new IllegalArgumentException("write latency must be at least 1 cycle, got " + cycles);
        }
        writeLatency = cycles;
        return this;
    }

    /** At most {@code bursts} write and {@code bursts} read bursts accepted and not yet answered. */
    public Axi4MemorySlave withMaxOutstanding(int bursts) {
        if (bursts < 1) {
            throw new IllegalArgumentException("at least one outstanding burst, got " + bursts);
        }
        maxOutstanding = bursts;
        return this;
    }

    /** Answers SLVERR to any burst that touches an octet in {@code [from, to)} (unsigned; {@code to} exclusive). */
    public Axi4MemorySlave withFault(long from, long to) {
        if (Long.compareUnsigned(from, to) >= 0) {
            throw new IllegalArgumentException("empty fault range " + HostMemory.hex(from) + " … " + HostMemory.hex(to));
        }
        faults.add(new long[] {from, to});
        return this;
    }

    // ------------------------------------------------------------------------------------------------ figures

    /** Write bursts accepted so far. */
    public long writeBursts() {
        return write == null ? 0 : write.bursts;
    }

    /** W beats accepted so far. */
    public long writeBeats() {
        return write == null ? 0 : write.beats;
    }

    /** Read bursts accepted so far. */
    public long readBursts() {
        return read == null ? 0 : read.bursts;
    }

    /** R beats delivered so far. */
    public long readBeats() {
        return read == null ? 0 : read.beats;
    }

    // ---------------------------------------------------------------------------------------------- agent

    @Override
    public void sample() {
        if (write != null) {
            write.sample();
        }
        if (read != null) {
            read.sample();
        }
    }

    @Override
    public void drive() {
        if (write != null) {
            write.drive();
        }
        if (read != null) {
            read.drive();
        }
    }

    @Override
    public boolean busy() {
        return (write != null && write.busy()) || (read != null && read.busy());
    }

    private AssertionError violation(String channel, String what) {
        return new AssertionError(name + " " + channel + " at cycle " + tb.cycle() + ": " + what + " (seed "
                + tb.seed() + ")");
    }

    // ------------------------------------------------------------------------------------------ the bursts

    /** One accepted AW or AR. */
    private final class Burst {
        final long address;
        final int id;
        final int beats;
        final boolean fault;
        /** The first beat's address rounded down to a beat. */
        final long base;
        int beat;
        long dueCycle;

        Burst(String channel, long address, int id, int len, int size, int burst) {
            this.address = address;
            this.id = id;
            this.beats = len + 1;
            this.base = address & -(long) octets;
            if (burst != INCR) {
                throw violation(channel, "burst type " + burst + ", only INCR (1) is expected");
            }
            if (size != Integer.numberOfTrailingZeros(octets)) {
                throw violation(channel, "size " + size + " is not log2 of the " + octets + "-octet data width");
            }
            long last = base + (long) beats * octets - 1;
            if ((last & ~0xFFFL) != (address & ~0xFFFL)) {
                throw violation(channel, beats + " beats from " + HostMemory.hex(address) + " cross a 4 KiB boundary");
            }
            this.fault = touchesFault(address, last);
        }

        /** Address of the first octet of beat {@code i}. */
        long beatBase(int i) {
            return base + (long) i * octets;
        }

        /** Lowest lane of beat {@code i} inside the burst. */
        int firstLane(int i) {
            return i == 0 ? (int) (address - base) : 0;
        }

        @Override
        public String toString() {
            return "burst of " + beats + " beat(s) at " + HostMemory.hex(address) + " id " + id;
        }
    }

    private boolean touchesFault(long first, long last) {
        for (long[] f : faults) {
            if (Long.compareUnsigned(first, f[1]) < 0 && Long.compareUnsigned(last, f[0]) >= 0) {
                return true;
            }
        }
        return false;
    }

    /** Remembers a presented, not yet taken payload of the design and checks it is held. */
    private final class Held {
        private final String channel;
        private final SimSignal[] fields;
        private long[] seen;
        private byte[] seenData;
        private final SimSignal wide;

        Held(String channel, SimSignal wide, SimSignal... fields) {
            this.channel = channel;
            this.wide = wide;
            this.fields = fields;
        }

        /** Called each cycle with the sampled valid and ready. */
        void check(boolean valid, boolean ready) {
            if (seen != null) {
                if (!valid) {
                    throw violation(channel, "valid dropped before the transfer was taken");
                }
                for (int i = 0; i < fields.length; i++) {
                    if (fields[i].get() != seen[i]) {
                        throw violation(channel, fields[i].name() + " changed while waiting for ready: 0x"
                                + Long.toHexString(seen[i]) + " -> 0x" + Long.toHexString(fields[i].get()));
                    }
                }
                if (wide != null && !java.util.Arrays.equals(wide.getOctets(), seenData)) {
                    throw violation(channel, wide.name() + " changed while waiting for ready");
                }
            }
            if (valid && !ready) {
                seen = new long[fields.length];
                for (int i = 0; i < fields.length; i++) {
                    seen[i] = fields[i].get();
                }
                seenData = wide == null ? null : wide.getOctets();
            } else {
                seen = null;
                seenData = null;
            }
        }
    }

    private SimSignal[] ax(Stream<? extends Axi4Ax> s) {
        Axi4Ax p = s.payload();
        return new SimSignal[] {tb.signal(p.addr()), tb.signal(p.id()), tb.signal(p.len()), tb.signal(p.size()),
            tb.signal(p.burst())};
    }

    // ---------------------------------------------------------------------------------------------- writes

    private final class WriteSide {
        final SimSignal awValid;
        final SimSignal awReadySig;
        final SimSignal[] awFields;
        final SimSignal wValid;
        final SimSignal wReadySig;
        final SimSignal wData;
        final SimSignal wStrb;
        final SimSignal wLast;
        final SimSignal bValidSig;
        final SimSignal bReady;
        final SimSignal bId;
        final SimSignal bResp;
        final Held awHeld;
        final Held wHeld;
        Pacer awReady = Pacer.always();
        Pacer wReady = Pacer.always();
        Pacer bValid = Pacer.always();
        boolean awReadyNow;
        boolean wReadyNow;
        Burst bShown;
        /** Bursts whose AW was taken and whose W beats are not all in. */
        final ArrayDeque<Burst> awaitingData = new ArrayDeque<>();
        /** Bursts with every beat in, waiting for their B. */
        final ArrayDeque<Burst> awaitingResponse = new ArrayDeque<>();
        /** Contiguity of the strobed run of the burst at the head of awaitingData: 0 none yet, 1 open, 2 ended. */
        int run;
        long runNext;
        long bursts;
        long beats;

        WriteSide(Stream<Axi4Aw> aw, Stream<Axi4W> w, Stream<Axi4B> b) {
            awValid = tb.signal(aw.valid());
            awReadySig = tb.signal(aw.ready());
            awFields = ax(aw);
            wValid = tb.signal(w.valid());
            wReadySig = tb.signal(w.ready());
            wData = tb.signal(w.payload().data());
            wStrb = tb.signal(w.payload().strb());
            wLast = tb.signal(w.payload().last());
            bValidSig = tb.signal(b.valid());
            bReady = tb.signal(b.ready());
            bId = tb.signal(b.payload().id());
            bResp = tb.signal(b.payload().resp());
            awHeld = new Held("AW", null, awFields);
            wHeld = new Held("W", wData, wStrb, wLast);
            awReadySig.set(false);
            wReadySig.set(false);
            bValidSig.set(false);
        }

        void sample() {
            // W before AW: a beat needs a burst whose address was taken in an earlier cycle.
            boolean wv = wValid.getBool();
            wHeld.check(wv, wReadyNow);
            if (wv && wReadyNow) {
                beat();
            }
            boolean awv = awValid.getBool();
            awHeld.check(awv, awReadyNow);
            if (awv && awReadyNow) {
                Burst burst = new Burst("AW", awFields[0].get(), (int) awFields[1].get(), (int) awFields[2].get(),
                        (int) awFields[3].get(), (int) awFields[4].get());
                awaitingData.add(burst);
                bursts++;
            }
            if (bShown != null && bReady.getBool()) {
                awaitingResponse.poll();
                bShown = null;
            }
        }

        private void beat() {
            Burst burst = awaitingData.peek();
            if (burst == null) {
                throw violation("W", "a data beat with no write address outstanding (W must follow its AW)");
            }
            int i = burst.beat;
            boolean last = wLast.getBool();
            if (last != (i == burst.beats - 1)) {
                throw violation("W", "WLAST " + (last ? 1 : 0) + " on beat " + i + " of the " + burst);
            }
            long strb = wStrb.get();
            int lo = Long.numberOfTrailingZeros(strb);
            if (strb != 0) {
                int hi = 63 - Long.numberOfLeadingZeros(strb);
                long runMask = (hi - lo == 63) ? -1L : ((1L << (hi - lo + 1)) - 1) << lo;
                if (strb != runMask) {
                    throw violation("W", "strobes 0x" + Long.toHexString(strb) + " have a hole (beat " + i + " of the "
                            + burst + ")");
                }
                if (lo < burst.firstLane(i)) {
                    throw violation("W", "strobe on lane " + lo + " before the start address (beat " + i
                            + " of the " + burst + ")");
                }
                long from = burst.beatBase(i) + lo;
                if (run == 2 || (run == 1 && from != runNext)) {
                    throw violation("W", "strobed octets of the " + burst + " are not one contiguous run (beat " + i
                            + ", strobes 0x" + Long.toHexString(strb) + ")");
                }
                run = hi == octets - 1 ? 1 : 2;
                runNext = burst.beatBase(i) + hi + 1;
                int length = hi - lo + 1;
                if (burst.fault) {
                    memory.notifyAccess(from, length, true);
                } else {
                    byte[] data = wData.getOctets();
                    memory.writeByPort(from, data, lo, length);
                }
            } else if (run == 1) {
                run = 2;
            }
            beats++;
            burst.beat++;
            if (last) {
                awaitingData.poll();
                run = 0;
                burst.dueCycle = tb.cycle() + writeLatency;
                awaitingResponse.add(burst);
            }
        }

        void drive() {
            awReadyNow = awaitingData.size() + awaitingResponse.size() < maxOutstanding && awReady.allow();
            awReadySig.set(awReadyNow);
            wReadyNow = wReady.allow();
            wReadySig.set(wReadyNow);
            if (bShown == null) {
                Burst head = awaitingResponse.peek();
                if (head != null && tb.cycle() >= head.dueCycle && bValid.allow()) {
                    bShown = head;
                    bId.set(head.id);
                    bResp.set(head.fault ? SLVERR : OKAY);
                }
            }
            bValidSig.set(bShown != null);
        }

        boolean busy() {
            return !awaitingData.isEmpty() || !awaitingResponse.isEmpty();
        }
    }

    // ----------------------------------------------------------------------------------------------- reads

    private final class ReadSide {
        final SimSignal arValid;
        final SimSignal arReadySig;
        final SimSignal[] arFields;
        final SimSignal rValidSig;
        final SimSignal rReady;
        final SimSignal rData;
        final SimSignal rId;
        final SimSignal rResp;
        final SimSignal rLast;
        final Held arHeld;
        Pacer arReady = Pacer.always();
        Pacer rValid = Pacer.always();
        boolean arReadyNow;
        boolean rShown;
        final ArrayDeque<Burst> pending = new ArrayDeque<>();
        final byte[] zeros = new byte[octets];
        long bursts;
        long beats;

        ReadSide(Stream<Axi4Ar> ar, Stream<Axi4R> r) {
            arValid = tb.signal(ar.valid());
            arReadySig = tb.signal(ar.ready());
            arFields = ax(ar);
            rValidSig = tb.signal(r.valid());
            rReady = tb.signal(r.ready());
            rData = tb.signal(r.payload().data());
            rId = tb.signal(r.payload().id());
            rResp = tb.signal(r.payload().resp());
            rLast = tb.signal(r.payload().last());
            arHeld = new Held("AR", null, arFields);
            arReadySig.set(false);
            rValidSig.set(false);
        }

        void sample() {
            boolean arv = arValid.getBool();
            arHeld.check(arv, arReadyNow);
            if (arv && arReadyNow) {
                Burst burst = new Burst("AR", arFields[0].get(), (int) arFields[1].get(), (int) arFields[2].get(),
                        (int) arFields[3].get(), (int) arFields[4].get());
                burst.dueCycle = tb.cycle() + readLatency;
                pending.add(burst);
                bursts++;
            }
            if (rShown && rReady.getBool()) {
                rShown = false;
                beats++;
                Burst head = pending.peek();
                if (++head.beat == head.beats) {
                    pending.poll();
                }
            }
        }

        void drive() {
            arReadyNow = pending.size() < maxOutstanding && arReady.allow();
            arReadySig.set(arReadyNow);
            if (!rShown) {
                Burst head = pending.peek();
                if (head != null && tb.cycle() >= head.dueCycle && rValid.allow()) {
                    int i = head.beat;
                    int lo = head.firstLane(i);
                    long from = head.beatBase(i) + lo;
                    byte[] data;
                    if (head.fault) {
                        memory.notifyAccess(from, octets - lo, false);
                        data = zeros;
                    } else {
                        // The octets of the beat inside the burst; lanes below an unaligned start are left zero.
                        data = new byte[octets];
                        System.arraycopy(memory.readByPort(from, octets - lo), 0, data, lo, octets - lo);
                    }
                    rData.setOctets(data, 0, octets);
                    rId.set(head.id);
                    rResp.set(head.fault ? SLVERR : OKAY);
                    rLast.set(i == head.beats - 1);
                    rShown = true;
                }
            }
            rValidSig.set(rShown);
        }

        boolean busy() {
            return !pending.isEmpty();
        }
    }
}
