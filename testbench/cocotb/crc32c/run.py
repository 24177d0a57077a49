#!/usr/bin/env python3
"""Build the generated Crc32c Verilog with Icarus and run test_crc32c.py on it.

  python3 run.py --verilog DIR/Crc32c.v --width 64 [--build BUILD_DIR] [--seed N]

Exit status 0 only if every cocotb test passed.  The last line printed is
``crc32c W=<W>: N passed, M failed``.
"""

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[2]  # /work/main (testbench/cocotb/crc32c -> project root)
WIDTHS = (8, 16, 32, 64, 128, 256, 512)


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
        sources += read_rtl_list(p) if p.suffix == ".f" else [p]
    build = (args.build or PROJECT / "testbench" / "target" / "cocotb" / f"crc32c-w{args.width}").resolve()
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
        "CRC32C_WIDTH": str(args.width),
        "CRC32C_NUM_MSGS": str(args.num_msgs),
        "CRC32C_MAX_LEN": str(args.max_len),
    }

    t0 = time.monotonic()
    runner = get_runner("icarus")
    passed = failed = 0
    try:
        # The generated file carries `timescale 1ns/1ps itself; the timescale
        # argument only adds a +timescale default for files without one.
        runner.build(sources=sources, hdl_toplevel="Crc32c", build_dir=build,
                     timescale=("1ns", "1ps"), waves=args.waves, always=True)
        runner.test(test_module="test_crc32c", hdl_toplevel="Crc32c", build_dir=build,
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
    print(f"(build dir {build}, {time.monotonic() - t0:.1f} s)")
    print(f"crc32c W={args.width}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
