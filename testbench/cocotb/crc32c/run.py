#!/usr/bin/env python3
"""Build the generated Crc32c Verilog with Icarus and run test_crc32c.py on it.

  python3 run.py --verilog DIR/Crc32c.v --width 64 [--build BUILD_DIR] [--seed N]

Exit status 0 only if every cocotb test passed.  The last line printed is
``crc32c W=<W>: N passed, M failed``.
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import rnic_runner  # noqa: E402  (testbench/cocotb/rnic_runner.py)

WIDTHS = (8, 16, 32, 64, 128, 256, 512)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--verilog", nargs="+", required=True, action="extend",
                    help="generated Verilog file(s), or an rtl.f listing them")
    ap.add_argument("--width", type=int, required=True, choices=WIDTHS, help="s_axis data width W in bits")
    ap.add_argument("--build", type=Path, default=None,
                    help="build/run directory (default: testbench/target/cocotb/crc32c-w<W>)")
    ap.add_argument("--seed", type=int, default=None, help="cocotb random seed (default: time-based)")
    ap.add_argument("--testcase", default=None, help="run only these cocotb test(s), comma-separated")
    ap.add_argument("--num-msgs", type=int, default=300, help="messages in test_random (default 300)")
    ap.add_argument("--max-len", type=int, default=300, help="max random message length in bytes (default 300)")
    ap.add_argument("--waves", action="store_true", help="dump an FST waveform into the build dir")
    args = ap.parse_args()

    sources = []
    for v in args.verilog:
        p = Path(v).resolve()
        if not p.is_file():
            print(f"run.py: no such file: {v}", file=sys.stderr)
            return 2
        sources += rnic_runner.read_rtl_list(p) if p.suffix == ".f" else [p]
    env = {
        "CRC32C_WIDTH": str(args.width),
        "CRC32C_NUM_MSGS": str(args.num_msgs),
        "CRC32C_MAX_LEN": str(args.max_len),
    }
    return rnic_runner.run(name="crc32c", width=args.width, sources=sources, toplevel="Crc32c", test_dir=HERE,
                           test_module="test_crc32c", env=env,
                           build=args.build or rnic_runner.default_build("crc32c", args.width),
                           seed=args.seed, testcase=args.testcase, waves=args.waves)

if __name__ == "__main__":
    sys.exit(main())
