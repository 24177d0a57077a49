#!/usr/bin/env python3
"""Build the generated MpaTxFramer Verilog with Icarus and run test_mpa_tx.py on it.

  python3 run.py --rtl-dir DIR --width W [--build BUILD_DIR] [--seed N] [--num N] [--corrupt]

DIR is the output of ``./rnic generate --width W --out DIR``: every file named in DIR/rtl.f
is compiled, the toplevel is MpaTxFramer.  Exit status 0 only if every cocotb test passed.
The last line printed is ``mpa_tx W=<W>: N passed, M failed``.
"""

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[2]  # /work/main (testbench/cocotb/mpa_tx -> project root)
WIDTHS = (32, 64, 128, 256, 512)
TOP = "MpaTxFramer"
# ULPDUs per random test.  Icarus spends ~10 ms per busy cycle on the W=512 netlist (the
# CRC and Marker splice are ~40k lines of generated Verilog), ~0.25 ms at W=32; these keep
# one width at roughly 60-80 s on a 2-core machine.  --num overrides.
DEFAULT_NUM = {32: 240, 64: 300, 128: 300, 256: 200, 512: 50}


def read_rtl_list(path: Path):
    """Verilog files named in an rtl.f (one per line, relative to the .f file)."""
    out = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "//")):
            p = Path(line)
            out.append(p if p.is_absolute() else path.parent / p)
    return out


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
    sources = read_rtl_list(rtl_f)
    missing = [str(s) for s in sources if not s.is_file()]
    if missing or not any(s.name == f"{TOP}.v" for s in sources):
        print(f"run.py: rtl.f lists missing files {missing} or no {TOP}.v", file=sys.stderr)
        return 2
    build = (args.build or PROJECT / "testbench" / "target" / "cocotb" / f"mpa_tx-w{args.width}").resolve()
    build.mkdir(parents=True, exist_ok=True)
    results = build / "results.xml"
    results.unlink(missing_ok=True)

    # cocotb 2.x ships the runner as cocotb_tools.runner (cocotb 1.x: cocotb.runner)
    try:
        from cocotb_tools.runner import get_runner
        from cocotb_tools.check_results import get_results
    except ImportError:  # pragma: no cover - cocotb 1.x fallback
        from cocotb.runner import get_runner, get_results

    sys.path.insert(0, str(HERE))  # runner exports sys.path as the simulator's PYTHONPATH
    env = {
        "MPA_TX_WIDTH": str(args.width),
        "MPA_TX_NUM": str(args.num if args.num is not None else DEFAULT_NUM[args.width]),
        "MPA_TX_CORRUPT": "1" if args.corrupt else "0",
    }

    t0 = time.monotonic()
    runner = get_runner("icarus")
    passed = failed = 0
    try:
        # The generated files carry `timescale 1ns/1ps themselves; the timescale argument
        # only adds a +timescale default for files without one.
        runner.build(sources=sources, hdl_toplevel=TOP, build_dir=build,
                     timescale=("1ns", "1ps"), waves=args.waves, always=True)
        runner.test(test_module="test_mpa_tx", hdl_toplevel=TOP, build_dir=build,
                    test_dir=build, results_xml=str(results), extra_env=env,
                    seed=args.seed, testcase=args.testcase, waves=args.waves)
    except SystemExit as e:  # the runner sys.exit()s when the simulator fails
        print(f"run.py: simulator exited with {e.code}", file=sys.stderr)
    except Exception as e:  # build errors etc.
        print(f"run.py: {type(e).__name__}: {e}", file=sys.stderr)
    try:
        total, failed = get_results(results)
        passed = total - failed
    except RuntimeError as e:
        print(f"run.py: {e}", file=sys.stderr)
        failed = max(failed, 1)
    if passed == 0 and failed == 0:  # no test ran at all: that is a failure too
        failed = 1
    print(f"(build dir {build}, {time.monotonic() - t0:.1f} s{', CORRUPTED expectations' if args.corrupt else ''})")
    print(f"mpa_tx W={args.width}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
