"""Shared cocotb runner for the project's cross-checks: build with Icarus, run one test module,
print ``<name> W=<W>: N passed, M failed`` last, return the exit status (0 only if every test passed
and at least one ran).  Each check's run.py parses its own options and calls :func:`run`."""

import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]


def read_rtl_list(path: Path):
    """Verilog files named in an rtl.f (one per line, relative to the .f file)."""
    out = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "//")):
            p = Path(line)
            out.append(p if p.is_absolute() else path.parent / p)
    return out


def default_build(name: str, width: int) -> Path:
    return PROJECT / "testbench" / "target" / "cocotb" / f"{name}-w{width}"


def run(*, name, width, sources, toplevel, test_dir: Path, test_module, build: Path, env,
        seed=None, testcase=None, waves=False, note="") -> int:
    # cocotb 2.x ships the runner as cocotb_tools.runner (cocotb 1.x: cocotb.runner)
    try:
        from cocotb_tools.runner import get_runner
        from cocotb_tools.check_results import get_results
    except ImportError:  # pragma: no cover - cocotb 1.x fallback
        from cocotb.runner import get_runner, get_results

    build = build.resolve()
    build.mkdir(parents=True, exist_ok=True)
    results = build / "results.xml"
    results.unlink(missing_ok=True)
    sys.path.insert(0, str(test_dir))  # the runner exports sys.path as the simulator's PYTHONPATH

    t0 = time.monotonic()
    runner = get_runner("icarus")
    passed = failed = 0
    try:
        # The generated files carry `timescale 1ns/1ps themselves; the timescale argument
        # only adds a +timescale default for files without one.
        runner.build(sources=sources, hdl_toplevel=toplevel, build_dir=build,
                     timescale=("1ns", "1ps"), waves=waves, always=True)
        runner.test(test_module=test_module, hdl_toplevel=toplevel, build_dir=build,
                    test_dir=build, results_xml=str(results), extra_env=env,
                    seed=seed, testcase=testcase, waves=waves)
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
    print(f"(build dir {build}, {time.monotonic() - t0:.1f} s{note})")
    print(f"{name} W={width}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1
