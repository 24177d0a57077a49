#!/usr/bin/env python3
"""Build the generated MpaTxFramer Verilog with Icarus and run test_mpa_tx.py on it.

  python3 run.py --rtl-dir DIR --width W [--build BUILD_DIR] [--seed N] [--num N] [--corrupt]

DIR is the output of ``./rnic generate --width W --out DIR``: every file named in DIR/rtl.f
is compiled, the toplevel is MpaTxFramer.  Exit status 0 only if every cocotb test passed.
The last line printed is ``mpa_tx W=<W>: N passed, M failed``.
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import rnic_runner  # noqa: E402  (testbench/cocotb/rnic_runner.py)

WIDTHS = (32, 64, 128, 256, 512)
TOP = "MpaTxFramer"
# ULPDUs per random test.  Icarus spends ~10 ms per busy cycle on the W=512 netlist (the
# CRC and Marker splice are ~40k lines of generated Verilog), ~0.25 ms at W=32; these keep
# one width at roughly 60-80 s on a 2-core machine.  --num overrides.
DEFAULT_NUM = {32: 240, 64: 300, 128: 300, 256: 200, 512: 50}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rtl-dir", type=Path, required=True, help="directory with rtl.f and the generated .v files")
    ap.add_argument("--width", type=int, required=True, choices=WIDTHS, help="data width W in bits")
    ap.add_argument("--build", type=Path, default=None,
                    help="build/run directory (default: testbench/target/cocotb/mpa_tx-w<W>)")
    ap.add_argument("--seed", type=int, default=None, help="cocotb random seed (default: time-based)")
    ap.add_argument("--testcase", default=None, help="run only these cocotb test(s), comma-separated")
    ap.add_argument("--num", type=int, default=None,
                    help="ULPDUs per random test (default by width: " +
                         ", ".join(f"W={w}: {n}" for w, n in DEFAULT_NUM.items()) + ")")
    ap.add_argument("--corrupt", action="store_true",
                    help="corrupt every test's expectation: every test must then FAIL (checks the checks)")
    ap.add_argument("--waves", action="store_true", help="dump an FST waveform into the build dir")
    args = ap.parse_args()

    rtl_f = (args.rtl_dir / "rtl.f").resolve()
    if not rtl_f.is_file():
        print(f"run.py: no rtl.f in {args.rtl_dir}", file=sys.stderr)
        return 2
    sources = rnic_runner.read_rtl_list(rtl_f)
    missing = [str(s) for s in sources if not s.is_file()]
    if missing or not any(s.name == f"{TOP}.v" for s in sources):
        print(f"run.py: rtl.f lists missing files {missing} or no {TOP}.v", file=sys.stderr)
        return 2
    env = {
        "MPA_TX_WIDTH": str(args.width),
        "MPA_TX_NUM": str(args.num if args.num is not None else DEFAULT_NUM[args.width]),
        "MPA_TX_CORRUPT": "1" if args.corrupt else "0",
    }
    return rnic_runner.run(name="mpa_tx", width=args.width, sources=sources, toplevel=TOP, test_dir=HERE,
                           test_module="test_mpa_tx", env=env,
                           build=args.build or rnic_runner.default_build("mpa_tx", args.width),
                           seed=args.seed, testcase=args.testcase, waves=args.waves,
                           note=", CORRUPTED expectations" if args.corrupt else "")

if __name__ == "__main__":
    sys.exit(main())
