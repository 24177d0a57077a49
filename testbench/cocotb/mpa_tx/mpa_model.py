"""Independent reference model of the MPA transmitter (RFC 5044 §4), used by test_mpa_tx.py.

Written from the spec text only (docs/requirements.md §2.2, §2.3, §4.1 and the
seed RFC 5044 §4), not from the RTL:

* FPDU = ULPDU_Length (2 octets, big-endian) | ULPDU | PAD (0..3 zero octets, 2+L+PAD ≡ 0 mod 4)
  | CRC (4 octets, CRC32c least-significant octet first; 00 00 00 00 when CRC is off).
* Markers (when enabled): a 4-octet Marker ``00 00 FPDUPTR_hi FPDUPTR_lo`` at every stream
  offset that is a multiple of 512, counted from the first octet sent after reset.
  FPDUPTR = octets from the first octet of the containing FPDU's ULPDU_Length to the Marker
  (earlier Markers in between included).  A Marker exactly between two FPDUs has FPDUPTR 0
  and is the first four octets of the NEXT FPDU; a Marker right after the PAD (before the
  CRC field) still belongs to the current FPDU.
* The CRC covers every octet of the FPDU before its CRC field (leading Marker, length, ULPDU,
  embedded Markers, PAD, a Marker right after the PAD).
* One FPDU per TCP segment: ``MpaTxModel.frame`` returns the whole segment.
* MULPDU (RFC 5044 §4.5), floor 128, cap 64768.

The bit-serial CRC32c below is deliberately table-free.  ``self_check()`` runs at import and
compares the model with the published vectors (RFC 5044 Figs. 5 and 6, docs/requirements.md §2.10,
§4.3, §4.4); ``python3 mpa_model.py`` prints them.
"""

POLY_REFLECTED = 0x82F63B78  # CRC32c (Castagnoli) 0x1EDC6F41, bit-reflected
MARKER_PERIOD = 512
MULPDU_MIN = 128
MULPDU_MAX = 64768


def crc32c(data) -> int:
    """Standard CRC-32C value of ``data``: reflected, init 0xFFFFFFFF, final XOR 0xFFFFFFFF."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (POLY_REFLECTED if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def pad_len(ulpdu_len: int) -> int:
    return (4 - (2 + ulpdu_len) % 4) % 4


def mulpdu(emss: int, markers: bool) -> int:
    """RFC 5044 §4.5 MULPDU for an EMSS, clamped to [128, 64768]."""
    if markers:
        ceil_blocks = -(-emss // MARKER_PERIOD)
        value = emss - (6 + 4 * ceil_blocks + emss % 4)
    else:
        value = emss - (6 + emss % 4)
    return max(MULPDU_MIN, min(MULPDU_MAX, value))


class MpaTxModel:
    """The octet stream of one MPA transmitter since reset, one FPDU (= TCP segment) at a time."""

    def __init__(self, markers: bool, crc: bool):
        self.markers = bool(markers)
        self.crc = bool(crc)
        self.offset = 0  # stream offset of the next octet (0 = first octet after reset)
        # Marker statistics: where the Markers fell (see docs/requirements.md §2.3.2 cases 1-3)
        self.markers_leading = 0    # case 3: between FPDUs, FPDUPTR 0, first octets of the FPDU
        self.markers_inside = 0     # case 1: between ULPDU_Length and the end of the PAD
        self.markers_before_crc = 0  # case 2: right after the PAD, before the CRC field
        self.fpdus = 0

    def _marker_due(self) -> bool:
        return self.markers and self.offset % MARKER_PERIOD == 0

    def frame(self, ulpdu) -> bytes:
        """The TCP segment carrying ``ulpdu``; advances the stream offset."""
        ulpdu = bytes(ulpdu)
        n = len(ulpdu)
        if not 1 <= n <= 0xFFFF:
            raise ValueError(f"ULPDU length {n} out of range")
        body = n.to_bytes(2, "big") + ulpdu + bytes(pad_len(n))
        assert len(body) % 4 == 0
        seg = bytearray()

        def put_marker(fpduptr):
            assert 0 <= fpduptr <= 0xFFFF and fpduptr % 4 == 0, fpduptr
            seg.extend(b"\x00\x00" + fpduptr.to_bytes(2, "big"))
            self.offset += 4

        if self._marker_due():  # between the previous FPDU's CRC and this ULPDU_Length
            put_marker(0)
            self.markers_leading += 1
        header_offset = self.offset
        for octet in body:
            if self._marker_due():
                put_marker(self.offset - header_offset)
                self.markers_inside += 1
            seg.append(octet)
            self.offset += 1
        if self._marker_due():  # right after the PAD: still this FPDU, CRC-covered
            put_marker(self.offset - header_offset)
            self.markers_before_crc += 1
        value = crc32c(seg) if self.crc else 0
        seg.extend(value.to_bytes(4, "little"))  # least-significant octet first on the wire
        self.offset += 4
        self.fpdus += 1
        return bytes(seg)


def frame_stream(ulpdus, markers: bool, crc: bool):
    """Segments for a list of ULPDUs sent on a fresh stream (stream offset 0)."""
    m = MpaTxModel(markers, crc)
    return [m.frame(u) for u in ulpdus]


# ------------------------------------------------------------------------------------ vectors
def send_ulpdu(msn: int, zeros: int) -> bytes:
    """Untagged DDP Send (Last, DV=1, RDMAP Send) to QN 0 with ``zeros`` octets of payload."""
    return (bytes([0x41, 0x43]) + bytes(4) + (0).to_bytes(4, "big") + msn.to_bytes(4, "big")
            + bytes(4) + bytes(zeros))


def _hex(s: str) -> bytes:
    return bytes.fromhex(s.replace(" ", "").replace("\n", ""))


# (name, markers, crc, [ulpdu ...], [expected segment ...]) -- every stream starts at offset 0
def _vectors():
    out = []
    # RFC 5044 Fig. 5: first FPDU of a stream, leading Marker
    fig5 = _hex("00000000 002a 4143 00000000 00000000 00000001 00000000") + bytes(24) + _hex("52239983")
    out.append(("RFC 5044 Fig. 5", True, True, [send_ulpdu(1, 24)], [fig5]))
    # RFC 5044 Fig. 6 (docs/requirements.md §4.2): first FPDU 492 octets incl. the leading Marker
    # (Send MSN 1, L=482); second FPDU header at 0x1EC, Marker 00 00 00 14 at 0x200
    fig6 = (_hex("002a 4143 00000000 00000000 00000002 00000000") + _hex("00000014") + bytes(24)
            + _hex("84925898"))
    out.append(("RFC 5044 Fig. 6", True, True, [send_ulpdu(1, 464), send_ulpdu(2, 24)], [None, fig6]))
    # docs/requirements.md §4.4: Marker just before the CRC (L = 506, Marker 00 00 01 fc at 0x200)
    v = _hex("00000000 01fa") + send_ulpdu(1, 488) + _hex("000001fc") + _hex("38cf64e8")
    out.append(("requirements 4.4 Marker before CRC", True, True, [send_ulpdu(1, 488)], [v]))
    # docs/requirements.md §4.4: Marker exactly between FPDUs (L = 502, then Send MSN 2 with 8 zeros)
    v1 = _hex("00000000 01f6") + send_ulpdu(1, 484) + _hex("a09bb55b")
    v2 = _hex("00000000 001a") + send_ulpdu(2, 8) + _hex("dfa0b0e5")
    out.append(("requirements 4.4 Marker between FPDUs", True, True,
                [send_ulpdu(1, 484), send_ulpdu(2, 8)], [v1, v2]))
    # docs/requirements.md §2.10 golden FPDUs (no Markers, CRC on)
    g = [
        ("RDMA Write", "00 12 c1 40 00 00 12 34 00 00 00 00 00 00 10 00 de ad be ef bd bc 30 f4"),
        ("RDMA Read Request", "00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 11 11 11 11"
         " 00 00 00 00 00 00 20 00 00 00 01 00 22 22 22 22 00 00 00 00 00 00 30 00 d5 2e c5 b9"),
        ("Terminate", "00 2a 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 12 01 c0 00 00 22"
         " 41 43 00 00 00 00 00 00 00 07 00 00 00 01 00 00 00 00 9c 3a f7 b1"),
        ("Atomic Response", "00 1e 41 4b 00 00 00 00 00 00 00 03 00 00 00 01 00 00 00 00 ca fe 00 01"
         " 00 00 00 00 00 00 00 29 33 a0 f5 39"),
        ("Immediate Data", "00 1a 41 48 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 01 02 03 04"
         " 05 06 07 08 06 c2 28 05"),
    ]
    segs = [_hex(s) for _, s in g]
    ulpdus = [s[2:2 + int.from_bytes(s[:2], "big")] for s in segs]
    out.append(("requirements 2.10 golden FPDUs", False, True, ulpdus, segs))
    # the same without CRC: the CRC field is 00 00 00 00
    out.append(("requirements 2.10 golden FPDUs, CRC off", False, False, ulpdus,
                [s[:-4] + bytes(4) for s in segs]))
    return out


SPEC_VECTORS = _vectors()

CRC_VECTORS = [  # (input, standard CRC-32C value): catalogue check value and RFC 3720 B.4
    (b"123456789", 0xE3069283),
    (bytes(32), 0x8A9136AA),
    (bytes([0xFF] * 32), 0x62A8AB43),
    (bytes(range(32)), 0x46DD794E),
    (bytes(range(31, -1, -1)), 0x113FDB5C),
]

MULPDU_TABLE = [  # docs/requirements.md §2.3.4: (EMSS, with Markers, without Markers)
    (536, 522, 530), (1448, 1430, 1442), (1460, 1442, 1454), (8960, 8882, 8954), (9000, 8922, 8994),
    (0, 128, 128), (100, 128, 128), (130, 128, 128), (140, 130, 134), (65535, 64768, 64768),
]


def self_check() -> None:
    """Raise AssertionError if the model disagrees with any published vector."""
    for data, want in CRC_VECTORS:
        got = crc32c(data)
        assert got == want, f"crc32c({data[:12]!r}...) = 0x{got:08X}, expected 0x{want:08X}"
    for name, markers, crc, ulpdus, expected in SPEC_VECTORS:
        got = frame_stream(ulpdus, markers, crc)
        for i, (g, e) in enumerate(zip(got, expected)):
            if e is not None:
                assert g == e, f"model self-check {name} FPDU {i}:\n got {g.hex()}\n exp {e.hex()}"
    # Fig. 6 premise: the first FPDU is 492 octets including its leading Marker
    assert len(frame_stream(SPEC_VECTORS[1][3][:1], True, True)[0]) == 492
    for emss, with_m, without_m in MULPDU_TABLE:
        assert mulpdu(emss, True) == with_m, (emss, mulpdu(emss, True), with_m)
        assert mulpdu(emss, False) == without_m, (emss, mulpdu(emss, False), without_m)
    # structural: every FPDU is a multiple of 4, and a ULPDU of MULPDU octets fits in EMSS
    for emss in (256, 536, 1460, 9000):
        for markers in (False, True):
            m = MpaTxModel(markers, False)  # CRC off: the layout is the same, and it is fast
            for k in range(300):  # walks the Marker grid through many 4-octet slots
                seg = m.frame(bytes(mulpdu(emss, markers) - (k % 7)))
                assert len(seg) % 4 == 0 and len(seg) <= emss, (emss, markers, k, len(seg))


self_check()

if __name__ == "__main__":
    for name, markers, crc, ulpdus, expected in SPEC_VECTORS:
        print(f"{name:40s} markers={int(markers)} crc={int(crc)}: {len(ulpdus)} FPDU(s) OK")
    for emss, a, b in MULPDU_TABLE:
        print(f"EMSS {emss:5d}: MULPDU {a} with Markers, {b} without")
    print("mpa_model self-check: OK")
