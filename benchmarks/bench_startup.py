"""Start-up time of the ``bnstruct`` command and of ``import pymc_bnstruct``.

Each line runs in a fresh interpreter, ``--repeats`` times (median reported). The baseline is
the full load of the package (the first use of a name: PyMC, numba, pandas and every module),
which is what a command that does work pays; ``--help`` and ``--version`` must not pay it.
Target: ``bnstruct --help`` and ``--version`` under 0.5 s.

    python benchmarks/bench_startup.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

LINES = {
    "bnstruct --version": [sys.executable, "-m", "pymc_bnstruct.cli", "--version"],
    "bnstruct --help": [sys.executable, "-m", "pymc_bnstruct.cli", "--help"],
    "import pymc_bnstruct": [sys.executable, "-c", "import pymc_bnstruct"],
    "python (empty)": [sys.executable, "-c", "pass"],
    "full load (baseline)": [sys.executable, "-c", "import pymc_bnstruct; pymc_bnstruct.learn"],
}


def seconds(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(f"start-up, median of {args.repeats} fresh interpreters; seconds")
    print(f"{'command':<24} {'median':>8} {'min':>8}")
    for name, cmd in LINES.items():
        times = [seconds(cmd) for _ in range(args.repeats)]
        print(f"{name:<24} {statistics.median(times):>8.3f} {min(times):>8.3f}", flush=True)


if __name__ == "__main__":
    main()
