"""Independent reference model of CRC32c (Castagnoli), used by test_crc32c.py.

Plain reflected bit-serial algorithm, no lookup table:
  polynomial 0x1EDC6F41 (reflected: 0x82F63B78), initial value 0xFFFFFFFF,
  input and output reflected, final XOR 0xFFFFFFFF.

Run ``python3 crc32c_model.py`` to execute the self-check against the
catalogue check value and the RFC 3720 appendix B.4 vectors.
"""

POLY_REFLECTED = 0x82F63B78
INIT = 0xFFFFFFFF
XOR_OUT = 0xFFFFFFFF


def crc32c(data: bytes) -> int:
    """CRC32c of ``data`` (bytes-like or iterable of ints 0..255)."""
    crc = INIT
    for byte in data:
        crc ^= byte & 0xFF
        for _ in range(8):
            if crc & 1:
                crc = (crc >> 1) ^ POLY_REFLECTED
            else:
                crc >>= 1
    return crc ^ XOR_OUT


# (name, message, expected CRC32c)
REFERENCE_VECTORS = [
    ("check '123456789'", b"123456789", 0xE3069283),
    ("RFC3720 B.4 32 x 0x00", bytes(32), 0x8A9136AA),
    ("RFC3720 B.4 32 x 0xFF", bytes([0xFF] * 32), 0x62A8AB43),
    ("RFC3720 B.4 bytes 0..31", bytes(range(32)), 0x46DD794E),
    ("RFC3720 B.4 bytes 31..0", bytes(range(31, -1, -1)), 0x113FDB5C),
]


def self_check() -> None:
    """Raise AssertionError if the model disagrees with a published vector."""
    for name, msg, expected in REFERENCE_VECTORS:
        got = crc32c(msg)
        assert got == expected, f"model self-check {name}: got 0x{got:08X}, expected 0x{expected:08X}"


if __name__ == "__main__":
    self_check()
    for name, msg, expected in REFERENCE_VECTORS:
        print(f"{name:28s} 0x{crc32c(msg):08X} (expected 0x{expected:08X})")
    print("crc32c_model self-check: OK")
