package rnic.hw.ddp;

import rnic.sim.Pacer;
import rnic.sim.Scoreboard;
import rnic.sim.SimSignal;
import rnic.sim.StreamSink;
import rnic.sim.Tb;
import spinal.lib.Stream;

/** A {@link MemoryDone} as seen on a memory mover's {@code done} port. */
record Done(int tag, boolean error) {

    /** A sink on {@code port}, paced by {@code ready}, feeding a new in-order scoreboard registered with {@code tb}. */
    static Scoreboard<Done> scoreboard(Tb<?> tb, Stream<MemoryDone> port, Pacer ready) {
        Scoreboard<Done> done = tb.add(new Scoreboard<>("done, seed " + tb.seed()));
        SimSignal tag = tb.signal(port.payload().tag);
        SimSignal error = tb.signal(port.payload().error);
        tb.add(new StreamSink<>("done", tb.signal(port.valid()), tb.signal(port.ready()),
                () -> new Done((int) tag.get(), error.getBool()), ready, done::actual));
        return done;
    }
}
