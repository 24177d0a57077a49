"""cocotb cross-check of the generated ``MpaTxFramer`` Verilog against mpa_model (an
independent Python MPA framer).

Driven by run.py (see README.md).  Environment variables read here:
  MPA_TX_WIDTH    bus width W in bits (required; must match the Verilog)
  MPA_TX_NUM      ULPDUs per random test (default 300)
  MPA_TX_CORRUPT  if 1, every test corrupts its own expectation (one octet / one value) and
                  must therefore FAIL -- proves the comparisons really assert
  MPA_TX_VERBOSE  if set, keep cocotbext-axi's per-frame INFO logging

Bus binding
-----------
ulpdu_* is driven by cocotbext-axi ``AxiStreamSource`` through a renamed bus (``UlpduBus``):
``ulpdu_data`` is bound as tdata and ``ulpdu_length`` as tuser; there is no tkeep and no
tlast.  Each ULPDU is one source frame whose tdata is the ULPDU padded with random garbage to
a whole number of beats, and whose tuser is the integer L, which cocotbext-axi repeats on
every beat of the frame.  Without tlast the DUT delimits ULPDUs by ulpdu_length alone, which
is the contract; cocotbext-axi never puts two frames into one beat, so a frame is exactly
ceil(L / (W/8)) beats, it holds tvalid/data/length until tready, and its pause generator
makes idle cycles inside and between ULPDUs.
tcp_* is read by cocotbext-axi ``AxiStreamSink`` (prefix ``tcp``; tlast closes a frame, so
one sink frame = one TCP segment = one FPDU), with random back-pressure from its pause
generator.  A separate monitor coroutine checks the beat contract on every tcp handshake
(tkeep contiguous from octet 0, all ones unless tlast, never empty), that tcp holds
tvalid/tdata/tkeep/tlast while stalled, that tcp_tvalid/ulpdu_tready are never X/Z after
reset, and counts handshakes on both sides.
"""

import logging
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.simtime import get_sim_time
from cocotb.triggers import ClockCycles, RisingEdge, SimTimeoutError, Timer, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

import mpa_model
from mpa_model import MpaTxModel, mulpdu as model_mulpdu

W = int(os.environ["MPA_TX_WIDTH"])
LANES = W // 8
NUM = int(os.environ.get("MPA_TX_NUM", "300"))
CORRUPT = os.environ.get("MPA_TX_CORRUPT", "0") not in ("", "0")
CLK_NS = 10

# mpa_model runs its self-check (published RFC 5044 / docs/requirements.md vectors) when imported;
# call it again so that a broken model stops the run before any DUT result is judged.
mpa_model.self_check()


class UlpduBus(AxiStreamBus):
    """ulpdu_* under cocotbext-axi names: data -> tdata, length -> tuser (no tkeep, no tlast)."""
    _signals = {"tdata": "data"}
    _optional_signals = {"tvalid": "tvalid", "tready": "tready", "tuser": "length"}


def _bits(v):
    """A signal value as a string (keeps X/Z visible)."""
    return str(v)


class Monitor:
    """Beat contract, stall stability and handshake counts on tcp_*, plus ulpdu_* statistics."""

    def __init__(self, dut):
        self.dut = dut
        self.enabled = False
        self.errors = []
        self.reset_counts()

    def reset_counts(self):
        self.tcp_beats = 0
        self.tcp_segments = 0
        self.tcp_stall = 0        # tcp_tvalid && !tcp_tready
        self.ulpdu_beats = 0
        self.ulpdus = 0           # first beats of ULPDUs accepted
        self.ulpdu_stall = 0      # ulpdu_tvalid && !ulpdu_tready
        self.ulpdu_idle_mid = 0   # ulpdu_tvalid low inside a ULPDU
        self._remaining = 0       # beats still to come of the current ULPDU

    def err(self, msg):
        if len(self.errors) < 50:
            self.errors.append(f"{msg} at {get_sim_time('ns')} ns")

    async def run(self):
        dut = self.dut
        full = (1 << LANES) - 1
        prev_stalled = False
        prev = None
        while True:
            await RisingEdge(dut.clk)
            if not self.enabled or str(dut.reset.value) != "0":
                prev_stalled = False
                self._remaining = 0
                continue
            tv = dut.tcp_tvalid.value
            ur = dut.ulpdu_tready.value
            if not (tv.is_resolvable and ur.is_resolvable):
                self.err(f"X/Z on tcp_tvalid={tv} or ulpdu_tready={ur}")
                prev_stalled = False
                continue
            t_valid = bool(tv)
            t_ready = dut.tcp_tready.value == 1
            cur = None
            if t_valid or prev_stalled:
                cur = (_bits(dut.tcp_tdata.value), _bits(dut.tcp_tkeep.value), _bits(dut.tcp_tlast.value))
            if prev_stalled:
                if not t_valid:
                    self.err("tcp_tvalid dropped while stalled")
                elif cur != prev:
                    self.err("tcp_tdata/tkeep/tlast changed while stalled")
            if t_valid and t_ready:
                kv, lv = dut.tcp_tkeep.value, dut.tcp_tlast.value
                if not (kv.is_resolvable and lv.is_resolvable):
                    self.err(f"X/Z on tcp_tkeep={kv} / tcp_tlast={lv} in a beat")
                else:
                    keep, last = int(kv), bool(lv)
                    n = keep.bit_length()
                    if keep != (1 << n) - 1 or n == 0:
                        self.err(f"tcp_tkeep {keep:0{LANES}b} not contiguous from octet 0 / empty")
                    elif not last and keep != full:
                        self.err(f"tcp_tkeep {keep:0{LANES}b} not full on a beat without tlast")
                    self.tcp_beats += 1
                    self.tcp_segments += last
            prev_stalled = t_valid and not t_ready
            prev = cur
            self.tcp_stall += prev_stalled
            # ulpdu side (driven by the source; counted for coverage)
            u_valid = dut.ulpdu_tvalid.value == 1
            u_ready = bool(ur)
            self.ulpdu_stall += u_valid and not u_ready
            self.ulpdu_idle_mid += (self._remaining > 0) and not u_valid
            if u_valid and u_ready:
                if self._remaining == 0:
                    self._remaining = -(-int(dut.ulpdu_length.value) // LANES)
                    self.ulpdus += 1
                self._remaining -= 1
                self.ulpdu_beats += 1


def pause_gen(rng, probs=(0.0, 0.2, 0.5, 0.8)):
    """Random per-cycle pause, in stretches with different pause probabilities."""
    while True:
        p = rng.choice(probs)
        for _ in range(rng.randint(16, 200)):
            yield rng.random() < p


class TB:
    def __init__(self, dut):
        self.dut = dut
        assert len(dut.ulpdu_data) == W, f"ulpdu_data is {len(dut.ulpdu_data)} bits, MPA_TX_WIDTH={W}"
        assert len(dut.tcp_tdata) == W, f"tcp_tdata is {len(dut.tcp_tdata)} bits, MPA_TX_WIDTH={W}"
        assert len(dut.tcp_tkeep) == LANES, f"tcp_tkeep is {len(dut.tcp_tkeep)} bits"
        assert len(dut.ulpdu_length) == 16 and len(dut.emss) == 16 and len(dut.mulpdu) == 16
        dut.reset.value = 1
        dut.tcp_tready.value = 0
        cocotb.start_soon(Clock(dut.clk, CLK_NS, unit="ns").start())
        self.source = AxiStreamSource(UlpduBus.from_prefix(dut, "ulpdu"), dut.clk, dut.reset)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "tcp"), dut.clk, dut.reset)
        assert self.source.byte_lanes == LANES and self.sink.byte_lanes == LANES
        if not os.environ.get("MPA_TX_VERBOSE"):  # cocotbext-axi logs every frame at INFO
            for bfm in (self.source, self.sink):
                bfm.log.setLevel(logging.WARNING)
        self.mon = Monitor(dut)
        cocotb.start_soon(self.mon.run())
        self.model = None
        self.expected = []   # expected TCP segments, in order
        self.lengths = []    # ULPDU length of each
        self.starts = []     # stream offset of each segment's first octet
        self.rng = random.Random(random.getrandbits(32))

    async def configure_and_reset(self, markers, crc, emss):
        """Set the per-connection inputs, then reset: the stream (and the Marker grid) restart at 0."""
        dut = self.dut
        self.markers, self.crc, self.emss = bool(markers), bool(crc), emss
        self.mon.enabled = False
        dut.reset.value = 1
        dut.markers.value = int(markers)
        dut.crc.value = int(crc)
        dut.emss.value = emss
        self.source.clear()
        await ClockCycles(dut.clk, 4)
        dut.reset.value = 0
        await ClockCycles(dut.clk, 2)
        assert dut.tcp_tvalid.value == 0, "tcp_tvalid not low after reset"
        self.sink.clear()
        self.mon.errors.clear()
        self.mon.reset_counts()
        self.mon.enabled = True
        self.model = MpaTxModel(markers, crc)
        self.expected, self.lengths, self.starts = [], [], []
        self.mulpdu = int(dut.mulpdu.value)
        assert self.mulpdu == model_mulpdu(emss, markers), \
            f"mulpdu {self.mulpdu} for EMSS {emss} markers={int(markers)}, model {model_mulpdu(emss, markers)}"

    def send(self, ulpdu):
        """Queue one ULPDU (garbage in the unused octets of its last beat) and its expected segment."""
        n = len(ulpdu)
        assert 1 <= n <= self.mulpdu, f"test bug: ULPDU length {n} outside 1..{self.mulpdu}"
        tail = (-n) % LANES
        data = bytes(ulpdu) + bytes(self.rng.randrange(1, 256) for _ in range(tail))
        self.source.send_nowait(AxiStreamFrame(data, tuser=n))
        self.starts.append(self.model.offset)
        self.expected.append(self.model.frame(ulpdu))
        self.lengths.append(n)

    async def collect(self, n, timeout_us):
        got = []
        for i in range(n):
            try:
                f = await with_timeout(self.sink.recv(), timeout_us, "us")
            except SimTimeoutError:
                raise AssertionError(f"only {i} of {n} TCP segments arrived (none for {timeout_us} us); "
                                     f"monitor errors: {self.mon.errors[:3]}") from None
            got.append(bytes(f.tdata))
        return got

    def compare(self, got, label, first=0):
        """Every received segment octet for octet against the model (expected[first:])."""
        expected = list(self.expected[first:first + len(got)])
        if CORRUPT and expected:  # deliberately wrong expectation: the test must fail
            k = len(expected) // 2
            e = bytearray(expected[k])
            e[len(e) // 2] ^= 0x01
            expected[k] = bytes(e)
        bad = []
        for i, (e, g) in enumerate(zip(expected, got)):
            if e != g:
                bad.append(i)
                if len(bad) <= 8:
                    self.describe(first + i, e, g, label)
        assert len(got) == len(expected), f"{label}: {len(got)} segments, expected {len(expected)}"
        assert not bad, f"{label}: {len(bad)} of {len(got)} TCP segments differ from the model (first: #{first + bad[0]})"

    def describe(self, i, e, g, label):
        log = self.dut._log
        diffs = [k for k in range(min(len(e), len(g))) if e[k] != g[k]]
        log.error("%s segment #%d (ULPDU L=%d, stream offset %d, markers=%d crc=%d): %d octets, expected %d; "
                  "%d octet(s) differ, first at segment offsets %s",
                  label, i, self.lengths[i], self.starts[i], self.markers, self.crc, len(g), len(e),
                  len(diffs), diffs[:12])
        lo = max(0, (diffs[0] if diffs else min(len(e), len(g))) - 8)
        log.error("  expected[%d:]: %s", lo, e[lo:lo + 48].hex(" "))
        log.error("  got     [%d:]: %s", lo, g[lo:lo + 48].hex(" "))

    async def check_end(self, label, n_ulpdus):
        """Nothing extra comes out, handshake counts agree, protocol monitor clean."""
        self.sink.set_pause_generator(None)
        self.sink.pause = False
        self.source.set_pause_generator(None)
        await ClockCycles(self.dut.clk, 40 + 4 * LANES)
        assert self.sink.empty(), f"{label}: {self.sink.count()} extra TCP segment(s) after the last one"
        m = self.mon
        assert not m.errors, f"{label}: tcp protocol errors: {m.errors[:5]}"
        assert m.ulpdus == n_ulpdus, f"{label}: monitor saw {m.ulpdus} ULPDUs accepted, sent {n_ulpdus}"
        assert m.tcp_segments == n_ulpdus, f"{label}: {m.tcp_segments} tcp_tlast beats for {n_ulpdus} ULPDUs"
        want_beats = sum(-(-len(s) // LANES) for s in self.expected[-n_ulpdus:])
        assert m.tcp_beats == want_beats, f"{label}: {m.tcp_beats} tcp beats, expected {want_beats}"


def special_lengths(mp):
    out = {1, 2, 3, 4, 5, 6, 7, 8, mp, mp - 1, mp - 2, mp - 3}
    for k in (1, 2, 3):
        for d in (-2, -1, 0, 1, 2):
            out.add(k * LANES + d)
    return sorted(x for x in out if 1 <= x <= mp)


async def run_random(dut, markers, crc, emss, label):
    tb = TB(dut)
    await tb.configure_and_reset(markers, crc, emss)
    rng = tb.rng
    mp = tb.mulpdu
    lens = special_lengths(mp)
    lens += [rng.randint(1, mp) for _ in range(max(0, NUM - len(lens)))]
    rng.shuffle(lens)
    ulpdus = [bytes(rng.getrandbits(8) for _ in range(n)) for n in lens]
    dut._log.info("%s: W=%d markers=%d crc=%d EMSS=%d MULPDU=%d, %d ULPDUs, %d octets",
                  label, W, markers, crc, emss, mp, len(ulpdus), sum(lens))
    tb.source.set_pause_generator(pause_gen(rng))
    tb.sink.set_pause_generator(pause_gen(rng))
    for u in ulpdus:
        tb.send(u)
    assert all(len(s) <= emss for s in tb.expected), f"{label}: model made a segment longer than EMSS"
    got = await tb.collect(len(ulpdus), 200)
    tb.compare(got, label)
    await tb.check_end(label, len(ulpdus))
    m, md = tb.mon, tb.model
    dut._log.info("%s coverage: tcp stall cycles %d, ulpdu stall cycles %d, ulpdu idle cycles inside a ULPDU %d; "
                  "Markers leading %d, inside %d, before CRC %d", label, m.tcp_stall, m.ulpdu_stall,
                  m.ulpdu_idle_mid, md.markers_leading, md.markers_inside, md.markers_before_crc)
    assert m.tcp_stall and m.ulpdu_stall and m.ulpdu_idle_mid, f"{label}: no back-pressure / idle was created"
    if markers:
        assert md.markers_leading and md.markers_inside, f"{label}: no Markers were placed"


# ------------------------------------------------------------------------------------------ tests
@cocotb.test(timeout_time=1000, timeout_unit="us")
async def test_mulpdu(dut):
    """mulpdu output vs RFC 5044 §4.5 for many EMSS values, with and without Markers."""
    values = {e for e, _, _ in mpa_model.MULPDU_TABLE}
    for b in range(0, 65536, 512):
        values.update(v for v in range(b - 4, b + 5) if 0 <= v <= 65535)
    values.update(range(100, 160))
    values.update(range(65000, 65536, 7))
    values.update(range(0, 65536, 97))
    bad = []
    first = True
    cocotb.start_soon(Clock(dut.clk, CLK_NS, unit="ns").start())
    for markers in (0, 1):
        dut.markers.value = markers
        for emss in sorted(values):
            dut.emss.value = emss
            await ClockCycles(dut.clk, 3)  # mulpdu is three register stages behind emss and markers
            await Timer(1, "ns")
            want = model_mulpdu(emss, bool(markers))
            if CORRUPT and first:
                want += 1
                first = False
            got = dut.mulpdu.value
            if not got.is_resolvable or int(got) != want:
                bad.append((emss, markers, str(got), want))
    for emss, markers, got, want in bad[:10]:
        dut._log.error("mulpdu EMSS=%d markers=%d: DUT %s, model %d", emss, markers, got, want)
    assert not bad, f"mulpdu wrong for {len(bad)} of {2 * len(values)} (EMSS, markers) pairs"
    dut._log.info("mulpdu checked for %d EMSS values x markers on/off", len(values))


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def test_spec_vectors(dut):
    """Published FPDUs (RFC 5044 Figs. 5/6, docs/requirements.md §4.4, §2.10), each on a fresh stream."""
    tb = TB(dut)
    tb.sink.set_pause_generator(pause_gen(tb.rng, (0.0, 0.5)))
    for name, markers, crc, ulpdus, published in mpa_model.SPEC_VECTORS:
        await tb.configure_and_reset(markers, crc, 1460)
        for u in ulpdus:
            tb.send(u)
        got = await tb.collect(len(ulpdus), 100)
        for i, (g, p) in enumerate(zip(got, published)):
            if p is not None:
                if CORRUPT:
                    p = p[:-1] + bytes([p[-1] ^ 0x80])
                assert g == p, f"{name} FPDU {i}: DUT differs from the published octets\n" \
                               f" DUT       {g.hex(' ')}\n published {p.hex(' ')}"
        tb.compare(got, name)
        await tb.check_end(name, len(ulpdus))


@cocotb.test(timeout_time=60000, timeout_unit="us")
async def test_random_markers_crc(dut):
    """Random ULPDUs 1..MULPDU, Markers on, CRC on, EMSS 1460."""
    await run_random(dut, True, True, 1460, "markers+crc EMSS 1460")


@cocotb.test(timeout_time=60000, timeout_unit="us")
async def test_random_markers_nocrc(dut):
    """Random ULPDUs 1..MULPDU, Markers on, CRC off, EMSS 536."""
    await run_random(dut, True, False, 536, "markers, no crc, EMSS 536")


@cocotb.test(timeout_time=60000, timeout_unit="us")
async def test_random_nomarkers_crc(dut):
    """Random ULPDUs 1..MULPDU, Markers off, CRC on, EMSS 536."""
    await run_random(dut, False, True, 536, "no markers, crc EMSS 536")


@cocotb.test(timeout_time=60000, timeout_unit="us")
async def test_random_nomarkers_nocrc(dut):
    """Random ULPDUs 1..MULPDU, Markers off, CRC off, EMSS 1460."""
    await run_random(dut, False, False, 1460, "no markers, no crc, EMSS 1460")


def _layout(offset, n, markers):
    """(segment length, Marker before CRC?) of an FPDU with an n-octet ULPDU starting at
    ``offset`` -- arithmetic only, used to steer test_marker_edges; the octets themselves
    still come from MpaTxModel, whose counters confirm the steering."""
    pos = offset
    if markers and pos % 512 == 0:
        pos += 4
    remaining = 2 + n + mpa_model.pad_len(n)
    before_crc = False
    while remaining:
        nxt = (pos // 512 + 1) * 512 if markers else None
        if nxt is None or nxt - pos > remaining:
            pos += remaining
            remaining = 0
        elif nxt - pos == remaining:
            pos = nxt + 4
            remaining = 0
            before_crc = True
        else:
            remaining -= nxt - pos
            pos = nxt + 4
    return pos + 4 - offset, before_crc


@cocotb.test(timeout_time=30000, timeout_unit="us")
async def test_marker_edges(dut):
    """Markers on, CRC on: ULPDU lengths chosen so that Markers keep landing exactly between
    FPDUs (FPDUPTR 0, leading) and right after the PAD before the CRC, mixed with random ones."""
    tb = TB(dut)
    await tb.configure_and_reset(True, True, 1460)
    rng = tb.rng
    mp = tb.mulpdu
    count = max(40, NUM // 3)
    for i in range(count):
        kind = rng.choice(("between", "between", "before_crc", "before_crc", "random", "short"))
        off = tb.model.offset
        if kind == "between":
            cands = [n for n in range(1, mp + 1) if (off + _layout(off, n, True)[0]) % 512 == 0]
        elif kind == "before_crc":
            cands = [n for n in range(1, mp + 1) if _layout(off, n, True)[1]]
        elif kind == "short":
            cands = list(range(1, 2 * LANES + 3))
        else:
            cands = list(range(1, mp + 1))
        n = rng.choice(cands)
        before = (tb.model.markers_before_crc, tb.model.offset)
        tb.send(bytes(rng.getrandbits(8) for _ in range(n)))
        if kind == "between":
            assert tb.model.offset % 512 == 0, "steering failed (between)"
        if kind == "before_crc":
            assert tb.model.markers_before_crc == before[0] + 1, "steering failed (before CRC)"
    md = tb.model
    dut._log.info("marker edges: %d FPDUs; Markers leading %d, inside %d, before CRC %d",
                  count, md.markers_leading, md.markers_inside, md.markers_before_crc)
    want = max(3, count // 8)  # expected about count/3, count/3 and count/4
    assert min(md.markers_leading, md.markers_before_crc, md.markers_inside) >= want, \
        f"steering produced too few Marker cases (want >= {want} of each)"
    tb.source.set_pause_generator(pause_gen(rng, (0.0, 0.3)))
    tb.sink.set_pause_generator(pause_gen(rng, (0.0, 0.3, 0.7)))
    got = await tb.collect(count, 200)
    tb.compare(got, "marker edges")
    await tb.check_end("marker edges", count)


@cocotb.test(timeout_time=20000, timeout_unit="us")
async def test_reset_mid_stream(dut):
    """Asynchronous reset while a segment is going out: the stream and the Marker grid restart
    at offset 0 and the following segments are right."""
    tb = TB(dut)
    tb.source.log.setLevel(logging.ERROR)  # it warns (with the whole frame) about the frame flushed by reset
    await tb.configure_and_reset(True, True, 536)
    rng = tb.rng
    for _ in range(8):
        tb.send(bytes(rng.getrandbits(8) for _ in range(rng.randint(200, tb.mulpdu))))
    tb.sink.set_pause_generator(pause_gen(rng, (0.3,)))
    got = await tb.collect(2, 100)
    tb.compare(got, "before reset")
    # wait until the first beat of the third segment went out, then reset between clock edges
    done = sum(-(-len(s) // LANES) for s in tb.expected[:2])
    for _ in range(5000):
        await RisingEdge(dut.clk)
        if tb.mon.tcp_beats > done:
            break
    third = -(-len(tb.expected[2]) // LANES)
    assert done < tb.mon.tcp_beats < done + third, \
        f"{tb.mon.tcp_beats} beats out, wanted a reset inside segment 3 (beats {done + 1}..{done + third})"
    await Timer(CLK_NS // 4, "ns")
    dut.reset.value = 1
    tb.source.clear()
    await Timer(CLK_NS // 4, "ns")
    assert dut.tcp_tvalid.value == 0, "tcp_tvalid high during reset"
    await ClockCycles(dut.clk, 3)
    assert tb.sink.empty(), "the interrupted segment was delivered as a whole frame"
    await tb.configure_and_reset(True, True, 536)  # keeps reset high a few cycles, then releases
    n = 24
    for _ in range(n):
        tb.send(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, tb.mulpdu))))
    tb.sink.set_pause_generator(pause_gen(rng))
    tb.source.set_pause_generator(pause_gen(rng))
    got = await tb.collect(n, 200)
    tb.compare(got, "after reset")
    await tb.check_end("after reset", n)
