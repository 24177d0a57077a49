"""cocotb cross-check of the generated ``Crc32c`` Verilog against crc32c_model.

Driven by run.py (see README.md).  Environment variables read here:
  CRC32C_WIDTH     bus width W in bits (required; must match the Verilog)
  CRC32C_NUM_MSGS  number of random messages in test_random (default 300)
  CRC32C_MAX_LEN   maximum random message length in bytes (default 300)
  CRC32C_VERBOSE   if set, keep cocotbext-axi's per-frame INFO logging

Bus binding: s_axis is driven by cocotbext-axi ``AxiStreamSource``.  m_axis is
read by cocotbext-axi ``AxiStreamSink``: ``AxiStreamBus.from_prefix`` treats
tlast/tkeep as optional, so the bus binds with only tdata/tvalid/tready, and
without tlast the sink closes a frame on every handshake, i.e. one sink frame
per 32-bit result.  ``byte_lanes=1`` makes the frame's tdata a single 32-bit
integer (no byte-order reassembly).  Independently of cocotbext-axi, a small
monitor coroutine counts the handshakes on both sides and checks that m_axis
holds tvalid/tdata stable while back-pressured.
"""

import logging
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.simtime import get_sim_time
from cocotb.triggers import ClockCycles, RisingEdge, SimTimeoutError, Timer, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from crc32c_model import REFERENCE_VECTORS, crc32c, self_check

W = int(os.environ["CRC32C_WIDTH"])
LANES = W // 8
NUM_MSGS = int(os.environ.get("CRC32C_NUM_MSGS", "300"))
MAX_LEN = int(os.environ.get("CRC32C_MAX_LEN", "300"))
CLK_NS = 10

# The model must be right before any DUT result is judged: check it at import.
self_check()


class Monitor:
    """Counts handshakes and checks m_axis stability under back-pressure."""

    def __init__(self, dut):
        self.dut = dut
        self.in_msgs = 0      # s_axis handshakes with tlast
        self.out_results = 0  # m_axis handshakes
        self.errors = []
        self.enabled = False
        # coverage of the handshake situations test_random must create
        self.m_stall = 0      # m_axis tvalid && !tready
        self.s_stall = 0      # s_axis tvalid && !tready
        self.s_idle_mid = 0   # s_axis tvalid low inside a message
        self.in_msg = False

    async def run(self):
        dut = self.dut
        prev_stalled = False
        prev_data = None
        while True:
            await RisingEdge(dut.clk)
            if not self.enabled or dut.reset.value == 1:
                prev_stalled = False
                self.in_msg = False
                continue
            mv = dut.m_axis_tvalid.value
            sv = dut.s_axis_tready.value
            if not (mv.is_resolvable and sv.is_resolvable):
                self.errors.append(f"X/Z on m_axis_tvalid={mv} or s_axis_tready={sv} at {get_sim_time('ns')} ns")
                continue
            m_valid = bool(mv)
            m_ready = bool(dut.m_axis_tready.value)
            m_data = dut.m_axis_tdata.value
            if prev_stalled:
                if not m_valid:
                    self.errors.append(f"m_axis_tvalid dropped while stalled at {get_sim_time('ns')} ns")
                elif m_data != prev_data:
                    self.errors.append(f"m_axis_tdata changed while stalled at {get_sim_time('ns')} ns")
            if m_valid and m_ready:
                self.out_results += 1
            prev_stalled = m_valid and not m_ready
            prev_data = m_data
            s_valid = dut.s_axis_tvalid.value == 1
            self.m_stall += prev_stalled
            self.s_stall += s_valid and not bool(sv)
            self.s_idle_mid += self.in_msg and not s_valid
            if s_valid and bool(sv):
                if dut.s_axis_tlast.value == 1:
                    self.in_msgs += 1
                    self.in_msg = False
                else:
                    self.in_msg = True


class TB:
    def __init__(self, dut):
        self.dut = dut
        assert len(dut.s_axis_tdata) == W, f"s_axis_tdata is {len(dut.s_axis_tdata)} bits, CRC32C_WIDTH={W}"
        assert len(dut.s_axis_tkeep) == LANES, f"s_axis_tkeep is {len(dut.s_axis_tkeep)} bits, expected {LANES}"
        assert len(dut.m_axis_tdata) == 32, f"m_axis_tdata is {len(dut.m_axis_tdata)} bits"
        cocotb.start_soon(Clock(dut.clk, CLK_NS, unit="ns").start())
        self.source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.reset)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.reset, byte_lanes=1)
        assert self.source.byte_lanes == LANES
        if not os.environ.get("CRC32C_VERBOSE"):  # cocotbext-axi logs every frame at INFO
            for bfm in (self.source, self.sink):
                bfm.log.setLevel(logging.WARNING)
        self.mon = Monitor(dut)
        cocotb.start_soon(self.mon.run())

    async def reset(self):
        dut = self.dut
        dut.reset.value = 1
        await ClockCycles(dut.clk, 4)
        dut.reset.value = 0
        await ClockCycles(dut.clk, 2)
        assert dut.m_axis_tvalid.value == 0, "m_axis_tvalid not low after reset"
        self.mon.enabled = True

    def frame(self, msg, garbage_rng=None):
        """Frame for ``msg``; with garbage_rng the null lanes of the last beat carry random bytes."""
        if garbage_rng is None or len(msg) % LANES == 0:
            return AxiStreamFrame(msg)
        pad = LANES - len(msg) % LANES
        data = bytes(msg) + bytes(garbage_rng.getrandbits(8) for _ in range(pad))
        return AxiStreamFrame(data, tkeep=[1] * len(msg) + [0] * pad)

    async def collect(self, n, timeout_us):
        got = []
        for i in range(n):
            try:
                f = await with_timeout(self.sink.recv(), timeout_us, "us")
            except SimTimeoutError:
                raise AssertionError(f"only {i} of {n} results arrived (none for {timeout_us} us); "
                                     f"protocol errors: {self.mon.errors[:3]}") from None
            assert len(f.tdata) == 1, f"result {i}: sink frame has {len(f.tdata)} words"
            got.append(int(f.tdata[0]))
        return got

    async def check_stream(self, msgs, got, label):
        """(c): one result per message, in order, nothing extra, monitor clean."""
        assert not self.mon.errors, f"{label}: m_axis protocol errors: {self.mon.errors[:5]}"
        expected = [crc32c(m) for m in msgs]
        bad = [(i, len(msgs[i]), e, g) for i, (e, g) in enumerate(zip(expected, got)) if e != g]
        for i, ln, e, g in bad[:10]:
            self.dut._log.error("%s msg %d (len %d): expected 0x%08X got 0x%08X", label, i, ln, e, g)
        assert not bad, f"{label}: {len(bad)} of {len(msgs)} CRCs wrong (first: msg {bad[0][0]})"
        # nothing more may come out, even with the sink always ready
        self.sink.set_pause_generator(None)
        self.sink.pause = False
        await ClockCycles(self.dut.clk, 20 + 4 * LANES)
        assert self.sink.empty(), f"{label}: {self.sink.count()} extra result(s) after the last message"
        assert self.mon.in_msgs == len(msgs), f"{label}: {self.mon.in_msgs} tlast beats accepted, sent {len(msgs)}"
        assert self.mon.out_results == len(msgs), f"{label}: {self.mon.out_results} results handshaken for {len(msgs)} messages"
        assert not self.mon.errors, f"{label}: m_axis protocol errors: {self.mon.errors[:5]}"


def pause_gen(rng, probs=(0.0, 0.2, 0.5, 0.9)):
    """Random per-cycle pause, in segments with different pause probabilities."""
    while True:
        p = rng.choice(probs)
        for _ in range(rng.randint(16, 256)):
            yield rng.random() < p


def boundary_lengths():
    """Lengths around multiples of the bus width."""
    out = set()
    for k in range(1, 5):
        for d in (-1, 0, 1):
            if k * LANES + d >= 1:
                out.add(k * LANES + d)
    out.update((1, 2, 3, 4, 5))
    return sorted(out)


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def test_vectors(dut):
    """(a) catalogue + RFC 3720 B.4 vectors, then '123456789', back to back."""
    tb = TB(dut)
    await tb.reset()
    msgs = [m for _, m, _ in REFERENCE_VECTORS] + [b"123456789"]
    for m in msgs:
        tb.source.send_nowait(tb.frame(m))
    got = await tb.collect(len(msgs), 100)
    # the published values, not only the model, must match the DUT
    for (name, _, exp), g in zip(REFERENCE_VECTORS, got):
        assert g == exp, f"{name}: DUT 0x{g:08X}, published 0x{exp:08X}"
    assert got[-1] == 0xE3069283, f"'123456789' (2nd): DUT 0x{got[-1]:08X}"
    await tb.check_stream(msgs, got, "vectors")


# generous: ~20 cycles per beat (the source is paused up to 90 % of the time)
RANDOM_TIMEOUT_US = 1000 + 20 * NUM_MSGS * (MAX_LEN // LANES + 2) * CLK_NS // 1000


@cocotb.test(timeout_time=RANDOM_TIMEOUT_US, timeout_unit="us")
async def test_random(dut):
    """(b)+(c) random messages, random source idle and sink back-pressure."""
    tb = TB(dut)
    seed = random.getrandbits(32)
    rng = random.Random(seed)
    await tb.reset()
    lens = boundary_lengths()
    lens += [rng.randint(1, MAX_LEN) for _ in range(max(0, NUM_MSGS - len(lens)))]
    rng.shuffle(lens)
    msgs = [bytes(rng.getrandbits(8) for _ in range(n)) for n in lens]
    dut._log.info("test_random: W=%d, seed %d, %d messages, %d bytes, lengths %d..%d",
                  W, seed, len(msgs), sum(lens), min(lens), max(lens))
    tb.source.set_pause_generator(pause_gen(rng))
    tb.sink.set_pause_generator(pause_gen(rng))
    for m in msgs:
        tb.source.send_nowait(tb.frame(m))
    got = await tb.collect(len(msgs), 1000)
    tb.source.set_pause_generator(None)
    await tb.check_stream(msgs, got, "random")
    m = tb.mon
    dut._log.info("test_random coverage: m_axis stall cycles %d, s_axis stall cycles %d, "
                  "s_axis idle cycles inside a message %d", m.m_stall, m.s_stall, m.s_idle_mid)
    assert m.m_stall and m.s_stall and m.s_idle_mid, "random test did not create back-pressure/idle"


@cocotb.test(timeout_time=5000, timeout_unit="us")
async def test_null_lanes_garbage(dut):
    """Bytes in tkeep=0 lanes of the last beat are random and must be ignored."""
    tb = TB(dut)
    rng = random.Random(random.getrandbits(32))
    await tb.reset()
    lens = [n for n in boundary_lengths() if n % LANES] or [1]
    lens += [rng.randint(1, 4 * LANES + 7) for _ in range(40)]
    msgs = [bytes(rng.getrandbits(8) for _ in range(n)) for n in lens]
    tb.sink.set_pause_generator(pause_gen(rng, (0.0, 0.5)))
    for m in msgs:
        tb.source.send_nowait(tb.frame(m, garbage_rng=rng))
    got = await tb.collect(len(msgs), 1000)
    await tb.check_stream(msgs, got, "null-lanes")


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def test_reset_mid_message(dut):
    """Asynchronous reset in the middle of a message: no result, next message correct."""
    tb = TB(dut)
    await tb.reset()
    aborted = bytes(i & 0xFF for i in range(5 * LANES + 3))
    tb.source.send_nowait(tb.frame(aborted))
    # wait until a few beats went in, then reset between clock edges
    for _ in range(1000):
        await RisingEdge(dut.clk)
        if dut.s_axis_tvalid.value == 1 and dut.s_axis_tready.value == 1:
            break
    await ClockCycles(dut.clk, 2)
    await Timer(CLK_NS // 4, "ns")
    dut.reset.value = 1
    await Timer(CLK_NS // 4, "ns")
    assert dut.m_axis_tvalid.value == 0, "m_axis_tvalid high during reset"
    await ClockCycles(dut.clk, 3)
    dut.reset.value = 0
    await ClockCycles(dut.clk, 5)
    tb.source.clear()
    assert tb.sink.empty(), "a result came out for the aborted message"
    msgs = [b"123456789", bytes(range(32))]
    tb.mon.in_msgs = tb.mon.out_results = 0
    for m in msgs:
        tb.source.send_nowait(tb.frame(m))
    got = await tb.collect(len(msgs), 100)
    assert got == [0xE3069283, 0x46DD794E], f"after reset: {[hex(g) for g in got]}"
    await tb.check_stream(msgs, got, "after-reset")
